// countLines: a native count, of every line or of those that `match`, of a file (on the blocking
// pool) or of a byte source (byte-source.js). No line reaches JS, only the number, or the error
// the count failed with; an abort rejects at once and stops the count.
'use strict'

const binding = require('./native')
const { throwIfAborted, untilNativeDone } = require('./abort')
const { isNativeFailure, nativeError } = require('./errors')
const { byteSource, fileStreamPath } = require('./byte-source')
const { captureCallSite, withCallSite } = require('./call-site')
const { checkOptionNames } = require('./option-names')
const { normalizeOptions, normalizePath, refuseFileOptions, refuseLineOptions } = require('./options')

async function countLines(input, options) {
  refuseLineOptions(options, ['maxLineLength'])
  checkOptionNames(options, 'countLines')
  const site = captureCallSite()
  const file = fileStreamPath(input)
  if (file !== undefined) {
    refuseFileOptions(options)
    return countFile(file.path, options, site, file.release)
  }
  const source = byteSource(input)
  return source === undefined ? countFile(input, options, site) : countSource(source, options, site)
}

/**
 * Counts the file at `path`; `release()` lets go of a file stream read as its path, once
 * counting starts. A failure shows the frames of `site`, where countLines was called.
 */
async function countFile(path, options, site, release = () => {}) {
  const { bytes, display } = normalizePath(path)
  const { read, lines, signal } = normalizeOptions(options)
  throwIfAborted(signal)
  release()
  const count = new binding.NativeLineCount(bytes, read, lines)
  const result = await untilNativeDone(count, count.count(), signal)
  if (isNativeFailure(result)) throw withCallSite(nativeError(result, display), site)
  return result
}

async function countSource(source, options, site) {
  refuseFileOptions(options)
  const { read, lines, signal } = normalizeOptions(options)
  throwIfAborted(signal)
  const count = source.open((native) => binding.NativeLineCount.fromSource(native, read, lines))
  try {
    const result = await untilNativeDone(count, count.count(), signal)
    if (isNativeFailure(result)) {
      throw withCallSite(result.kind === 'source' ? source.error : nativeError(result, source.display), site)
    }
    return result
  } finally {
    source.stop()
  }
}

module.exports = { countLines }
