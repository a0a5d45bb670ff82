// readLines: the lines of a file, read ahead by a native line stream (source.js) and split by a
// cursor (cursor.js), handed out one per step, through batches() a batch per step, or through
// entries() with their line numbers.
'use strict'

const binding = require('./native')
const { LineCursor, currentBatchPlace } = require('./cursor')
const { ClosingAsyncIterator, StepQueue, done, viewOf, yielded } = require('./iterator')
const { checkOptionNames, copyOptions } = require('./option-names')
const { NativeSource } = require('./source')

/** How readJsonLines takes its reader's batches (see LineReader). */
const readyBatch = Symbol('readyBatch')
const batchThen = Symbol('batchThen')
const identity = (step) => step

/** A native stream of line batches, of a file or a byte source (see NativeSource). */
const lineStream = {
  path: (bytes, { read, lines }) => ({ open: () => new binding.NativeLineStream(bytes, read, lines) }),
  source: (source, { read, lines }) => binding.NativeLineStream.fromSource(source, read, lines),
  framesHere: true,
  framesChunks: true,
}

/** Iterates the lines of a file; see index.d.ts for the contract. */
class LineReader extends ClosingAsyncIterator {
  #source
  #queue = new StepQueue()
  #cursor
  /** The place of a batch by its serial number, for the cursor to ask once per batch. */
  #placeOf = (serial) => this.#source.batchPlace(serial)

  /**
   * `kind` as NativeSource takes it: followLines and readJsonLines pass their own, the latter with
   * `jsonArrays` where its native batches come as JSON arrays' texts (see LineCursor).
   */
  constructor(input, options, kind = lineStream) {
    super()
    this.#cursor = new LineCursor(kind.jsonArrays === true)
    this.#source = new NativeSource(kind, input, options, () => this.#stop())
  }

  /** Where the batch the last line came from is in the file (see LineCursor#batchPlace). */
  [currentBatchPlace]() {
    return this.#cursor.batchPlace(this.#placeOf)
  }

  /** The byte offset just past the last line handed out, in the file being read. */
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

  get bytesRead() {
    return this.#source.bytesRead
  }

  get linesRead() {
    return this.#cursor.linesRead
  }

  /**
   * Called once per line: a line of the loaded batch is handed out here at once, and only the
   * step that needs the next batch goes through the queue.
   */
  next() {
    if (this.#queue.idle && (this.#cursor.hasLine || this.#loadReady())) {
      return Promise.resolve(yielded(this.#cursor.nextLine()))
    }
    return this.#queue.run(() => this.#fillAndTake(() => this.#cursor.nextLine()))
  }

  /**
   * The same lines, many per step: each step gives the rest of the current native batch, as an
   * array or, with `numbered`, with the lines' numbers and offsets.
   */
  batches(options) {
    return viewOf(this, this.#stepper(this.#cursor.batchTaker(options, this.#placeOf)))
  }

  /** The same lines as `[lineNumber, line]` pairs, like `Array.prototype.entries()` and `grep -n`. */
  entries() {
    return viewOf(
      this,
      this.#stepper(() => this.#cursor.nextEntry(this.#placeOf)),
    )
  }

  close() {
    this.#stop()
    return this.#source.close()
  }

  /** Hands out no more lines, and keeps where the last one was (a batch read later never counts). */
  #stop() {
    this.#cursor.pin(this.#placeOf)
    this.#cursor.clear()
  }

  /** Steps that each `take()` from the cursor: at once while it holds lines, else in the queue. */
  #stepper(take) {
    return () => {
      if (this.#queue.idle && (this.#cursor.hasLine || this.#loadReady())) {
        return Promise.resolve(yielded(take()))
      }
      return this.#queue.run(() => this.#fillAndTake(take))
    }
  }

  /**
   * The rest of the loaded batch if there is one, else of a batch already read; undefined when
   * the next one has to be waited for (see batchThen). For readJsonLines, the one consumer of its
   * reader, which takes batches outside the queue.
   */
  [readyBatch]() {
    return this.#cursor.hasLine || this.#loadReady() ? yielded(this.#cursor.restOfBatch()) : undefined
  }

  /**
   * The next batch, as readyBatch gives it or the end, handed to `then` once it is there: a
   * promise of what `then` gives. readJsonLines parses in `then` rather than awaiting the batch:
   * a step that waits on a quiet byte source is held by the signal (see NativeSource#onFed), and
   * so is whatever its reactions hold, which must not be the reader.
   */
  [batchThen](then) {
    return this.#fillAndTake(() => this.#cursor.restOfBatch(), then)
  }

  /**
   * Loads the next native batch into the cursor if it has no line left, and takes from it; the
   * step is `then`'s result.
   */
  #fillAndTake(take, then = identity) {
    if (this.#cursor.hasLine) return Promise.resolve(then(yielded(take())))
    return this.#source.next((batch) => {
      if (batch === null) return then(done())
      this.#cursor.load(batch, this.#source.framedHereBytes)
      return then(yielded(take()))
    })
  }

  /** Loads a batch that is already read into the cursor, if there is one (see takeReady). */
  #loadReady() {
    const batch = this.#source.takeReady()
    if (batch === undefined) return false
    this.#cursor.load(batch, this.#source.framedHereBytes)
    return true
  }
}

function readLines(input, options) {
  options = copyOptions(options)
  checkOptionNames(options, 'readLines')
  return new LineReader(input, options)
}

module.exports = { LineReader, batchThen, lineStream, readLines, readyBatch }
