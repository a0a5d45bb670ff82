// The JS end of a line batch: a native batch (its lines joined by `\n`) split once, then handed
// out a line at a time or as the rest of the batch, and where the lines handed out end in the
// file. readLines, readLinesSync and followLines each keep one.
'use strict'

const NO_LINES = []

/** The lines of the current native batch and the position in it, for line and batch steps alike. */
class LineCursor {
  #lines = NO_LINES
  #index = 0
  /** Lines of the batch that may still be handed out: all of them, until clear(). */
  #end = 0
  /** The batch's place in the file (see src/position.rs), fetched when first asked for. */
  #place = null
  /**
   * The offset after the lines before `index` of this batch, as far as measured: each ask goes
   * on from the last (the index only grows within a batch), so asking after every line costs
   * one measure per line.
   */
  #measured = { index: 0, offset: 0 }
  linesRead = 0

  get hasLine() {
    return this.#index < this.#end
  }

  /** Takes a native batch: its lines joined by `\n`. */
  load(joined) {
    this.#lines = joined.split('\n')
    this.#index = 0
    this.#end = this.#lines.length
    this.#place = null
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

  /** Hands out nothing more of this batch. */
  clear() {
    this.#end = this.#index
  }

  /**
   * The byte offset just past the last line handed out. `placeOf()` gives the native place of
   * the batch loaded last (null when reading has not started), asked once per batch.
   */
  position(placeOf) {
    if (this.#place === null) {
      this.#place = placeOf()
      if (this.#place == null) return undefined
      this.#measured = { index: 0, offset: this.#place.start }
    }
    const place = this.#place
    if (this.#index === this.#lines.length) return place.end
    if (this.#index === 0) return place.start
    if (place.lineEnds != null) return place.start + place.lineEnds[this.#index - 1]
    return this.#measure(place)
  }

  /** Adds up the bytes of the lines handed out, each its text plus the terminator. */
  #measure({ measure, terminatorLength }) {
    let { index, offset } = this.#measured
    for (; index < this.#index; index++) {
      const line = this.#lines[index]
      offset += (measure === 'utf8' ? Buffer.byteLength(line, 'utf8') : line.length) + terminatorLength
    }
    this.#measured = { index, offset }
    return offset
  }
}

module.exports = { LineCursor }
