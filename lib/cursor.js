// The JS end of a line batch: a native batch (its lines joined by `\n`) split once, then handed
// out a line at a time or as the rest of the batch. readLines and readLinesSync each keep one.
'use strict'

const NO_LINES = []

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

module.exports = { LineCursor }
