// readLastLines: the last lines of a file, read natively backward from its end (so the bytes
// read are those lines plus at most one read) and framed as readLines frames them, with the same
// options and errors (src/last_lines.rs, crates/fastlines-core/src/last_lines.rs).
'use strict'

const binding = require('./native')
const { throwIfAborted } = require('./abort')
const { captureCallSite } = require('./call-site')
const { invalidArgType, invalidArgValue, outOfRange } = require('./errors')
const { runNativeTask } = require('./native-task')
const { checkOptionNames, copyOptions } = require('./option-names')
const { normalizeOptions, normalizePath, refuseDecompress, refuseShare } = require('./options')

/** Checks a count of lines as Node checks integer arguments. */
function validateLineCount(name, value) {
  if (typeof value !== 'number') throw invalidArgType(name, 'of type number', value)
  if (!Number.isSafeInteger(value) || value < 0) {
    throw outOfRange(name, `an integer >= 0 and <= ${Number.MAX_SAFE_INTEGER}`, value)
  }
}

async function readLastLines(path, n, options) {
  // The arguments in order, as Node checks them: a bad path is told of first.
  const { bytes, display } = normalizePath(path)
  validateLineCount('n', n)
  options = typeof options === 'string' ? { encoding: options } : copyOptions(options)
  refuseDecompress(options, 'readLastLines', 'a compressed file decodes only from its start; read it with readLines')
  refuseShare(options, 'readLastLines', 'the last lines are those of the whole file')
  if (options != null && typeof options === 'object' && options.start !== undefined) {
    throw invalidArgValue('options.start', options.start, 'is not supported by readLastLines: use end')
  }
  checkOptionNames(options, 'readLastLines')
  const { read, lines, signal } = normalizeOptions(options)
  throwIfAborted(signal)
  const site = captureCallSite()
  const make = () => new binding.NativeLastLines(bytes, n, read, lines)
  const { batches, end } = await runNativeTask(display, site, signal, make, (last) => last.read())
  const got = batches.length === 1 ? batches[0].split('\n') : batches.flatMap((batch) => batch.split('\n'))
  // With `match`, the native side may give more than the last n matching lines.
  return withPosition(got.length > n ? got.slice(got.length - n) : got, end)
}

/**
 * The lines, with `position`: the offset where the file was taken to end, so that
 * `followLines(path, { start: lines.position })` goes on with no line lost or repeated. Not
 * enumerable: the result still compares, prints and spreads as the plain array it was.
 */
function withPosition(lines, position) {
  return Object.defineProperty(lines, 'position', { value: position, enumerable: false })
}

module.exports = { readLastLines, validateLineCount }
