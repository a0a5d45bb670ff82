'use strict'

const binding = require('./lib/native')
const { abortError, addAbortListener, throwIfAborted, untilAborted } = require('./lib/abort')
const { LineCursor } = require('./lib/cursor')
const { isNativeFailure, nativeError } = require('./lib/errors')
const { ClosingAsyncIterator, ClosingSyncIterator, StepQueue, batchesOf, done } = require('./lib/iterator')
const { normalizeOptions, normalizePath, refuseLineOptions } = require('./lib/options')
const { NativeSource } = require('./lib/source')

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
