// countLines: a native count on the blocking pool, of every line or of those that `match`. No
// line reaches JS, only the number, or the error the count failed with; an abort rejects at
// once and stops the count.
'use strict'

const binding = require('./native')
const { throwIfAborted, untilNativeDone } = require('./abort')
const { isNativeFailure, nativeError } = require('./errors')
const { normalizeOptions, normalizePath, refuseLineOptions } = require('./options')

async function countLines(path, options) {
  refuseLineOptions(options, ['maxLineLength'])
  const { bytes, display } = normalizePath(path)
  const { read, lines, signal } = normalizeOptions(options)
  throwIfAborted(signal)
  const count = new binding.NativeLineCount(bytes, read, lines)
  const result = await untilNativeDone(count, count.count(), signal)
  if (isNativeFailure(result)) throw nativeError(result, display)
  return result
}

module.exports = { countLines }
