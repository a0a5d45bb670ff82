'use strict'

const binding = require('./lib/native')
const { abortError, addAbortListener, throwIfAborted, untilAborted } = require('./lib/abort')
const { isNativeFailure, nativeError } = require('./lib/errors')
const { ClosingAsyncIterator, ClosingSyncIterator, StepQueue, batchesOf, done } = require('./lib/iterator')
const { normalizeOptions, normalizePath, refuseLineOptions } = require('./lib/options')

const NO_LINES = []

/**
 * How long a reader may hand out batches that were already read without letting the event loop
 * turn: after this, the next batch comes through a promise the native side settles, which is a
 * turn of the loop, so a reader that keeps ahead of JS never starves timers and I/O.
 */
const MAX_MS_WITHOUT_A_TURN = 2

/** The lines of the current native batch and the position in it, for line and batch steps alike. */
class LineCursor {
  #lines = NO_LINES
  #index = 0
  linesRead = 0

  get hasLine() {
    return this.#index < this.#lines.length
  }

  /** Takes a native batch: its lines joined by `\n`. */
  load(joined) {
    this.#lines = joined.split('\n')
    this.#index = 0
  }

  nextLine() {
    this.linesRead++
    return this.#lines[this.#index++]
  }

  /** The lines of the batch not handed out yet (never empty while `hasLine`). */
  restOfBatch() {
    const rest = this.#index === 0 ? this.#lines : this.#lines.slice(this.#index)
    this.#index = this.#lines.length
    this.linesRead += rest.length
    return rest
  }

  clear() {
    this.#lines = NO_LINES
    this.#index = 0
  }
}

/**
 * One native background stream (batches of lines, or chunks), created on the first step so
 * that a reader nobody iterates opens nothing. Turns native failures into fs errors and an
 * aborted signal into an AbortError that rejects the pending step at once.
 */
class NativeSource {
  #NativeStream
  #native = null
  #path
  #nativeOptions
  #signal
  #abortListener
  #rejectStep = null
  #closing = null
  #lastTurn = performance.now()

  /** `onAbort` lets the owner drop what it has already taken, so the abort shows at its next step. */
  constructor(NativeStream, path, options, onAbort = () => {}) {
    const { bytes, display } = normalizePath(path)
    const { native, signal } = normalizeOptions(options)
    this.#NativeStream = NativeStream
    this.#path = { bytes, display }
    this.#nativeOptions = native
    this.#signal = signal
    this.#abortListener = addAbortListener(signal, () => {
      onAbort()
      this.#abort()
    })
  }

  get bytesRead() {
    return this.#native === null ? 0 : this.#native.bytesRead
  }

  /**
   * The next native item (a string of lines, or a Buffer), or null at the end. An item already
   * read is taken at once; only when there is none does this wait for the native side.
   */
  async next() {
    const now = this.#readyItem()
    return now === undefined ? this.#waitForItem() : now
  }

  /** The next item if it has already been read; undefined when the caller has to wait. */
  #readyItem() {
    if (!this.#open()) return null
    if (performance.now() - this.#lastTurn > MAX_MS_WITHOUT_A_TURN) return undefined
    const item = this.#native.tryRead()
    return item === undefined ? undefined : this.#settle(item)
  }

  #waitForItem() {
    return new Promise((resolve, reject) => {
      if (!this.#open()) return resolve(null)
      this.#rejectStep = reject
      this.#native
        .read()
        .then((item) => {
          this.#lastTurn = performance.now()
          // A step that settles after close() yields nothing, whatever was read meanwhile.
          return this.#closing === null ? this.#settle(item) : null
        })
        .then(resolve, reject)
    })
  }

  /** Stops the native read; resolves once the file is closed. Idempotent. */
  close() {
    if (this.#closing === null) {
      this.#abortListener.dispose()
      this.#closing = this.#native === null ? Promise.resolve() : this.#native.close()
    }
    return this.#closing
  }

  /** Throws if aborted, starts the native stream on first use; false once closed. */
  #open() {
    if (this.#signal !== undefined && this.#signal.aborted) {
      this.close()
      throw abortError(this.#signal)
    }
    if (this.#closing !== null) return false
    if (this.#native === null) {
      this.#native = new this.#NativeStream(this.#path.bytes, this.#nativeOptions)
    }
    return true
  }

  /** An item passes; the end or a failure shows only once the file is closed. */
  #settle(item) {
    if (item !== null && !isNativeFailure(item)) return item
    return this.close().then(() => {
      if (item !== null) throw nativeError(item, this.#path.display)
      return null
    })
  }

  #abort() {
    if (this.#rejectStep !== null) this.#rejectStep(abortError(this.#signal))
    this.close()
  }
}

/** Iterates the lines of a file; see index.d.ts for the contract. */
class LineReader extends ClosingAsyncIterator {
  #source
  #queue = new StepQueue()
  #cursor = new LineCursor()

  constructor(path, options) {
    super()
    this.#source = new NativeSource(binding.NativeLineStream, path, options, () => this.#cursor.clear())
  }

  get bytesRead() {
    return this.#source.bytesRead
  }

  get linesRead() {
    return this.#cursor.linesRead
  }

  next() {
    if (this.#queue.idle && this.#cursor.hasLine) {
      return Promise.resolve({ value: this.#cursor.nextLine(), done: false })
    }
    return this.#queue.run(() => this.#nextLine())
  }

  /** The same lines, many per step: each step gives the rest of the current native batch. */
  batches() {
    return batchesOf(this, () => this.#queue.run(() => this.#nextBatch()))
  }

  close() {
    this.#cursor.clear()
    return this.#source.close()
  }

  async #nextLine() {
    if (!this.#cursor.hasLine && !(await this.#fill())) return done()
    return { value: this.#cursor.nextLine(), done: false }
  }

  async #nextBatch() {
    if (!this.#cursor.hasLine && !(await this.#fill())) return done()
    return { value: this.#cursor.restOfBatch(), done: false }
  }

  /** Loads the next native batch into the cursor; false at the end. */
  async #fill() {
    const joined = await this.#source.next()
    if (joined === null) return false
    this.#cursor.load(joined)
    return true
  }
}

/** Iterates the raw chunks of a file as Buffers. */
class ChunkReader extends ClosingAsyncIterator {
  #source
  #queue = new StepQueue()

  constructor(path, options) {
    super()
    refuseLineOptions(options)
    this.#source = new NativeSource(binding.NativeChunkStream, path, options)
  }

  get bytesRead() {
    return this.#source.bytesRead
  }

  next() {
    return this.#queue.run(async () => {
      const chunk = await this.#source.next()
      return chunk === null ? done() : { value: chunk, done: false }
    })
  }

  close() {
    return this.#source.close()
  }
}

/** Iterates the lines of a file synchronously, reading on the calling thread. */
class LineReaderSync extends ClosingSyncIterator {
  #native
  #display
  #signal
  #abortListener
  #cursor = new LineCursor()
  #closed = false

  constructor(path, options) {
    super()
    const { bytes, display } = normalizePath(path)
    const { native, signal } = normalizeOptions(options)
    this.#native = new binding.NativeLineReaderSync(bytes, native)
    this.#display = display
    this.#signal = signal
    // Lines already loaded are not handed out once the signal aborts.
    this.#abortListener = addAbortListener(signal, () => this.#cursor.clear())
  }

  get bytesRead() {
    return this.#native.bytesRead
  }

  get linesRead() {
    return this.#cursor.linesRead
  }

  next() {
    if (!this.#cursor.hasLine && !this.#fill()) return done()
    return { value: this.#cursor.nextLine(), done: false }
  }

  /** The same lines, many per step: each step gives the rest of the current native batch. */
  batches() {
    return batchesOf(this, () => this.#nextBatch())
  }

  close() {
    this.#closed = true
    this.#cursor.clear()
    this.#abortListener.dispose()
    this.#native.close()
  }

  #nextBatch() {
    if (!this.#cursor.hasLine && !this.#fill()) return done()
    return { value: this.#cursor.restOfBatch(), done: false }
  }

  #fill() {
    if (this.#signal !== undefined && this.#signal.aborted) {
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

function readLines(path, options) {
  return new LineReader(path, options)
}

function readLinesSync(path, options) {
  return new LineReaderSync(path, options)
}

function readChunks(path, options) {
  return new ChunkReader(path, options)
}

async function countLines(path, options) {
  refuseLineOptions(options)
  const { bytes, display } = normalizePath(path)
  const { native, signal } = normalizeOptions(options)
  throwIfAborted(signal)
  const count = new binding.NativeLineCount(bytes, native)
  const result = await untilAborted(count.count(), signal, () => count.cancel())
  // Collecting `count` cancels it (so a worker that ends stops its counts): keep it until here.
  keepAlive(count)
  if (isNativeFailure(result)) throw nativeError(result, display)
  return result
}

function keepAlive(_value) {}

module.exports = { readLines, readLinesSync, readChunks, countLines }
