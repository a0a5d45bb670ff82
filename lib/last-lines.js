// readLastLines: the last lines of a file. A native scan reads the file backward to where those
// lines start (src/last_lines.rs); readLines then reads them forward from there, so they are
// exactly the lines readLines gives, and every option and error is readLines' own.
'use strict'

const binding = require('./native')
const { throwIfAborted, untilNativeDone } = require('./abort')
const { invalidArgType, invalidArgValue, isNativeFailure, nativeError, outOfRange } = require('./errors')
const { readLines } = require('./line-reader')
const { normalizeOptions, normalizePath } = require('./options')

/** Checks a count of lines as Node checks integer arguments. */
function validateLineCount(name, value) {
  if (typeof value !== 'number') throw invalidArgType(name, 'of type number', value)
  if (!Number.isSafeInteger(value) || value < 0) {
    throw outOfRange(name, `an integer >= 0 and <= ${Number.MAX_SAFE_INTEGER}`, value)
  }
}

/**
 * Where the last `n` lines of the file start (`start`), and where the bytes they were counted
 * in end (`end`, exclusive: the file's size then, or the `end` option + 1). `read` and
 * `signal` are normalized options; an abort rejects at once and stops the scan.
 */
async function findLastLines(bytes, display, n, read, signal) {
  throwIfAborted(signal)
  const scan = new binding.NativeLastLinesScan(bytes, n, read.end, read.chunkSize)
  const found = await untilNativeDone(scan, scan.scan(), signal)
  if (isNativeFailure(found)) throw nativeError(found, display)
  return found
}

async function readLastLines(path, n, options) {
  validateLineCount('n', n)
  if (typeof options === 'string') options = { encoding: options }
  if (options != null && typeof options === 'object' && options.start !== undefined) {
    throw invalidArgValue('options.start', options.start, 'is not supported by readLastLines: use end')
  }
  const { bytes, display } = normalizePath(path)
  const { read, signal } = normalizeOptions(options)
  const { start, end } = await findLastLines(bytes, display, n, read, signal)
  const lines = []
  if (start === end) return lines
  for await (const batch of readLines(path, { ...options, start, end: end - 1 }).batches()) {
    for (const line of batch) lines.push(line)
  }
  return lines
}

module.exports = { findLastLines, readLastLines, validateLineCount }
