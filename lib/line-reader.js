// readLines: the lines of a file, read ahead by a native line stream (source.js) and split by a
// cursor (cursor.js), handed out one per step or, through batches(), a batch per step.
'use strict'

const binding = require('./native')
const { LineCursor } = require('./cursor')
const { ClosingAsyncIterator, StepQueue, batchesOf, done } = require('./iterator')
const { NativeSource } = require('./source')

/** Starts a native stream of line batches (see NativeSource). */
const startLineStream = (bytes, { read, lines }) => new binding.NativeLineStream(bytes, read, lines)

/** Iterates the lines of a file; see index.d.ts for the contract. */
class LineReader extends ClosingAsyncIterator {
  #source
  #queue = new StepQueue()
  #cursor = new LineCursor()
  /** The position when the reader was closed or aborted: a batch arriving after that never counts. */
  #finalPosition = undefined

  /** `start` and `firstPlace` as NativeSource takes them: followLines passes its own. */
  constructor(path, options, start = startLineStream, firstPlace = undefined) {
    super()
    this.#source = new NativeSource(start, path, options, () => this.#stop(), firstPlace)
  }

  /** The byte offset just past the last line handed out, in the file being read. */
  get position() {
    if (this.#finalPosition !== undefined) return this.#finalPosition
    return this.#cursor.position(() => this.#source.lastBatch())
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
      return Promise.resolve({ value: this.#cursor.nextLine(), done: false })
    }
    return this.#queue.run(() => this.#nextLine())
  }

  /** The same lines, many per step: each step gives the rest of the current native batch. */
  batches() {
    return batchesOf(this, () => {
      if (this.#queue.idle && (this.#cursor.hasLine || this.#loadReady())) {
        return Promise.resolve({ value: this.#cursor.restOfBatch(), done: false })
      }
      return this.#queue.run(() => this.#nextBatch())
    })
  }

  close() {
    this.#stop()
    return this.#source.close()
  }

  /** Hands out no more lines, and keeps the position of the last one. */
  #stop() {
    if (this.#finalPosition === undefined) this.#finalPosition = this.position
    this.#cursor.clear()
  }

  async #nextLine() {
    if (!this.#cursor.hasLine && !(await this.#fill())) return done()
    return { value: this.#cursor.nextLine(), done: false }
  }

  async #nextBatch() {
    if (!this.#cursor.hasLine && !(await this.#fill())) return done()
    return { value: this.#cursor.restOfBatch(), done: false }
  }

  /** Loads a batch that is already read into the cursor, if there is one (see takeReady). */
  #loadReady() {
    const joined = this.#source.takeReady()
    if (joined === undefined) return false
    this.#cursor.load(joined)
    return true
  }

  /** Loads the next native batch into the cursor; false at the end. */
  async #fill() {
    const joined = await this.#source.next()
    if (joined === null) return false
    this.#cursor.load(joined)
    return true
  }
}

function readLines(path, options) {
  return new LineReader(path, options)
}

module.exports = { LineReader, readLines }
