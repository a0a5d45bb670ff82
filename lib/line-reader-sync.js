// readLinesSync: the lines of a file read on the calling thread, a native batch per read, split
// by a cursor (cursor.js). No background stream, so no source: it reads, aborts and fails here.
'use strict'

const binding = require('./native')
const { abortError, addAbortListenerOf, closeReader } = require('./abort')
const { LineCursor, currentBatchPlace } = require('./cursor')
const { isNativeFailure, nativeError } = require('./errors')
const { ClosingSyncIterator, done, viewOf, yielded } = require('./iterator')
const { checkOptionNames, copyOptions } = require('./option-names')
const { normalizeOptions, normalizePath } = require('./options')

/** Iterates the lines of a file synchronously, reading on the calling thread. */
class LineReaderSync extends ClosingSyncIterator {
  #native
  #display
  #signal
  #abortListener
  #cursor
  #closed = false
  /** Closed (or ended, or failed) before any abort, which then changes nothing (see source.js). */
  #closedFirst = false
  /** The place of a batch by its serial number, for the cursor to ask once per batch. */
  #placeOf = (serial) => this.#native.batchPlace(serial)

  /**
   * `withLines` adds to the native line options (readJsonLinesSync asks for its JSON batches,
   * JSON arrays' texts on V8: see LineCursor).
   */
  constructor(path, options, withLines = (lines) => lines) {
    super()
    const { bytes, display } = normalizePath(path)
    const { read, lines, signal } = normalizeOptions(options)
    const nativeLines = withLines(lines)
    this.#native = new binding.NativeLineReaderSync(bytes, read, nativeLines)
    this.#cursor = new LineCursor(nativeLines.jsonBatches === 'arrays')
    this.#display = display
    this.#signal = signal
    this.#abortListener = addAbortListenerOf(this, signal, closeReader)
  }

  get bytesRead() {
    return this.#native.bytesRead
  }

  get linesRead() {
    return this.#cursor.linesRead
  }

  /** Where the batch the last line came from is in the file (see LineCursor#batchPlace). */
  [currentBatchPlace]() {
    return this.#cursor.batchPlace(this.#placeOf)
  }

  /** The byte offset just past the last line handed out. */
  get position() {
    return this.#cursor.position(this.#placeOf)
  }

  /** The number in the file of the last line handed out, or 0 before the first. */
  get lineNumber() {
    return this.#cursor.lineNumber(this.#placeOf)
  }

  /** The byte offset of the last line handed out, or undefined before the first. */
  get lineOffset() {
    return this.#cursor.lineOffset(this.#placeOf)
  }

  next() {
    if (!this.#cursor.hasLine && !this.#fill()) return done()
    return yielded(this.#cursor.nextLine())
  }

  /** The same lines, many per step, as in LineReader#batches(). */
  batches(options) {
    return viewOf(this, this.#stepper(this.#cursor.batchTaker(options, this.#placeOf)))
  }

  /** The same lines as `[lineNumber, line]` pairs, as in LineReader#entries(). */
  entries() {
    return viewOf(
      this,
      this.#stepper(() => this.#cursor.nextEntry(this.#placeOf)),
    )
  }

  close() {
    if (!this.#closed) this.#closedFirst = !(this.#signal !== undefined && this.#signal.aborted)
    this.#closed = true
    this.#cursor.clear()
    this.#abortListener.dispose()
    this.#native.close()
  }

  /** Steps that each `take()` from the cursor, reading a batch when it holds no line. */
  #stepper(take) {
    return () => {
      if (!this.#cursor.hasLine && !this.#fill()) return done()
      return yielded(take())
    }
  }

  /** Reads the next native batch into the cursor; false at the end. The end, a failure and an abort close the file. */
  #fill() {
    if (this.#signal !== undefined && this.#signal.aborted && !this.#closedFirst) {
      this.close()
      throw abortError(this.#signal)
    }
    if (this.#closed) return false
    const joined = this.#native.read()
    if (joined === null || isNativeFailure(joined)) {
      this.close()
      if (joined !== null) throw nativeError(joined, this.#display)
      return false
    }
    this.#cursor.load(joined)
    return true
  }
}

function readLinesSync(path, options) {
  options = copyOptions(options)
  checkOptionNames(options, 'readLinesSync')
  return new LineReaderSync(path, options)
}

module.exports = { LineReaderSync, readLinesSync }
