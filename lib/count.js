// countLines: a native count, of every line or of those that `match`, of a file (on the blocking
// pool) or of a byte source (byte-source.js). No line reaches JS, only the number, or the error
// the count failed with; an abort rejects at once and stops the count.
'use strict'

const binding = require('./native')
const { addAbortListener, throwIfAborted, untilNativeDone } = require('./abort')
const { invalidArgType, isNativeFailure, nativeError, outOfRange } = require('./errors')
const { byteSourceOf, fileStreamPath } = require('./byte-source')
const { captureCallSite, withCallSite } = require('./call-site')
const { runNativeTask, startThreads } = require('./native-task')
const { checkOptionNames, copyOptions } = require('./option-names')
const { normalizeOptions, normalizePath, refuseFileOptions, refuseLineOptions } = require('./options')

/** More parts than this would only make each too small to read well. */
const MAX_THREADS = 1024

async function countLines(input, options) {
  options = copyOptions(options)
  refuseLineOptions(options, ['maxLineLength'])
  checkOptionNames(options, 'countLines')
  const site = captureCallSite()
  const file = fileStreamPath(input)
  if (file !== undefined) {
    refuseFileOptions(options)
    return countFile(file.path, options, site, file)
  }
  const takeSource = byteSourceOf(input)
  return takeSource === undefined ? countFile(input, options, site) : countSource(takeSource, options, site)
}

/**
 * Counts the file at `path`; `stream` is a file stream read as its path, which is taken once
 * the options are accepted and let go of as counting starts. A failure shows the frames of
 * `site`, where countLines was called.
 */
async function countFile(path, options, site, stream = undefined) {
  const { bytes, display } = normalizePath(path, true)
  const { read, lines, signal } = normalizeOptions(options)
  const threads = normalizeThreads(options)
  stream?.take()
  // Let go of before an abort rejects, as readLines lets go of it.
  stream?.release()
  throwIfAborted(signal)
  const make = () => new binding.NativeLineCount(bytes, read, lines, threads)
  return runNativeTask(display, site, signal, make, (count) => count.count())
}

/**
 * `threads`: into how many parts a file is counted, each on a thread while the machine has
 * one free (undefined: one per core, for files large enough to gain; 1: one pass).
 */
function normalizeThreads(options) {
  const threads = options !== null && typeof options === 'object' ? options.threads : undefined
  if (threads === undefined) return undefined
  if (typeof threads !== 'number') throw invalidArgType('options.threads', 'of type number', threads)
  if (!Number.isInteger(threads) || threads < 1 || threads > MAX_THREADS) {
    throw outOfRange('options.threads', `an integer >= 1 and <= ${MAX_THREADS}`, threads)
  }
  return threads
}

/** Counts the byte source `takeSource()` takes hold of, once the options are accepted. */
async function countSource(takeSource, options, site) {
  refuseFileOptions(options)
  const { read, lines, signal } = normalizeOptions(options)
  if (signal?.aborted) {
    // Let go of (destroyed, cancelled; an iterable is never started), as readLines lets go of
    // it: the source was handed over, and nothing else will end it.
    takeSource().stop()
    throwIfAborted(signal)
  }
  startThreads(undefined, site)
  const source = takeSource()
  const wholeLines = lines.match === undefined && read.decompress === undefined ? 'count' : undefined
  const open = (native) => binding.NativeLineCount.fromSource(native, read, lines)
  // The source is pulled as it opens, up to a read-ahead, and its own code (a sync iterable's,
  // a Readable's _read) may abort: the pull stops there, and the count rejects below.
  const stopOnAbort = addAbortListener(signal, () => source.stop())
  try {
    const count = source.open(open, lines.encoding, wholeLines)
    const result = await untilNativeDone(count, count.count(), signal)
    if (isNativeFailure(result)) {
      throw withCallSite(result.kind === 'source' ? source.error : nativeError(result, source.display), site)
    }
    source.finish()
    return result + source.linesCountedHere
  } finally {
    stopOnAbort.dispose()
    source.stop()
  }
}

module.exports = { countLines }
