// countLines: a native count, of every line or of those that `match`, of a file (on the blocking
// pool) or of a byte source (byte-source.js). No line reaches JS, only the number, or the error
// the count failed with; an abort rejects at once and stops the count.
'use strict'

const binding = require('./native')
const { throwIfAborted, untilNativeDone } = require('./abort')
const { isNativeFailure, nativeError } = require('./errors')
const { byteSource, fileStreamPath } = require('./byte-source')
const { checkOptionNames } = require('./option-names')
const { normalizeOptions, normalizePath, refuseFileOptions, refuseLineOptions } = require('./options')

async function countLines(input, options) {
  refuseLineOptions(options, ['maxLineLength'])
  checkOptionNames(options, 'countLines')
  const file = fileStreamPath(input)
  if (file !== undefined) {
    refuseFileOptions(options)
    return countFile(file.path, options, file.release)
  }
  const source = byteSource(input)
  return source === undefined ? countFile(input, options) : countSource(source, options)
}

/** Counts the file at `path`; `release()` lets go of a file stream read as its path, once counting starts. */
async function countFile(path, options, release = () => {}) {
  const { bytes, display } = normalizePath(path)
  const { read, lines, signal } = normalizeOptions(options)
  throwIfAborted(signal)
  release()
  const count = new binding.NativeLineCount(bytes, read, lines)
  const result = await untilNativeDone(count, count.count(), signal)
  if (isNativeFailure(result)) throw nativeError(result, display)
  return result
}

async function countSource(source, options) {
  refuseFileOptions(options)
  const { read, lines, signal } = normalizeOptions(options)
  throwIfAborted(signal)
  const count = source.open((native) => binding.NativeLineCount.fromSource(native, read, lines))
  try {
    const result = await untilNativeDone(count, count.count(), signal)
    if (isNativeFailure(result)) throw result.kind === 'source' ? source.error : nativeError(result, source.display)
    return result
  } finally {
    source.stop()
  }
}

module.exports = { countLines }
