// The JS end of a line batch: a native batch (its lines joined by `\n`, or for readJsonLines on
// V8 one JSON array's text) split once, then handed out a line at a time or as the rest of the
// batch; for readJsonLines on Bun, its lines' bytes if ASCII, handed out whole; and, when asked,
// where the lines handed out were in the file and their numbers.
// readLines, readLinesSync and followLines each keep one, and so do readJsonLines' line readers.
'use strict'

const { entry } = require('./iterator')
const { normalizeBatchOptions } = require('./options')
const { isUint8Array } = require('./types')

const NO_LINES = []

/**
 * The readers' method that gives the BatchPlace of the batch their cursor holds (see
 * LineCursor#batchPlace): for readers built on them, not for users.
 */
const currentBatchPlace = Symbol('fastlines.currentBatchPlace')

/** The lines of the current native batch and the position in it, for line and batch steps alike. */
class LineCursor {
  /**
   * Whether native batches come as JSON arrays' texts (the native option `jsonBatches:
   * 'arrays'`, see crates/fastlines-core/src/json.rs): `[`, the lines joined by `\n,`, then `\n]`.
   */
  #jsonArrays
  /** Whether the batch loaded is such a text (a batch framed in JS never is). */
  #isArrayText = false
  /**
   * The batch as it came, and its lines. The lines array is handed out as the batch itself
   * (restOfBatch), so it is the caller's then: nothing read later is taken from it.
   */
  #joined = ''
  #lines = NO_LINES
  /**
   * How many lines of the batch were handed out. A batch is loaded only to hand out its first
   * line at once, so this is 0 only before the first line.
   */
  #index = 0
  /** How many lines the batch has. */
  #count = 0
  /** Lines of the batch that may still be handed out: all of them, until clear(). */
  #end = 0
  /** Lines in the batches loaded before this one: the numbers of unfiltered lines follow on. */
  #linesBefore = 0
  /**
   * How many native batches were loaded: the serial number of the last one (0 before any), by
   * which the native side knows its place.
   */
  #serial = 0
  /**
   * The place of a batch framed in JS (see frame-here.js), which the native side does not know
   * of; null for a native batch, whose place is asked of the native side.
   */
  #framedPlace = null
  /**
   * What to add to a native batch's offsets: the bytes framed in JS before it, which the native
   * side, counting only what it was fed, left out.
   */
  #shift = 0
  /** Where the batch is in the file (a BatchPlace), fetched when first asked for. */
  #place = null
  linesRead = 0

  constructor(jsonArrays = false) {
    this.#jsonArrays = jsonArrays
  }

  get hasLine() {
    return this.#index < this.#end
  }

  /**
   * Takes a batch: a native one (its lines joined by `\n`, a JSON array's text, or the bytes of
   * ASCII lines, which only a JSON reader asks for and takes whole: see AsciiLines), after `shift`
   * bytes framed in JS that the native side did not see, or a FramedBatch framed in JS.
   */
  load(batch, shift = 0) {
    this.#linesBefore += this.#count
    const bytes = isUint8Array(batch)
    if (typeof batch === 'string' || bytes) {
      this.#serial++
      this.#framedPlace = null
      this.#shift = shift
      this.#joined = batch
      this.#isArrayText = this.#jsonArrays && typeof batch === 'string'
      if (bytes) this.#lines = new AsciiLines(batch)
      else this.#lines = this.#isArrayText ? linesOfArrayText(batch) : linesOf(batch)
    } else {
      // A FramedBatch: the start of its first line carried over from the chunk before goes
      // before that line once split (and before the text measured, should a place be asked).
      const { joined, carried } = batch
      this.#framedPlace = batch
      this.#joined = carried === '' ? joined : carried + joined
      this.#isArrayText = false
      this.#lines = linesOf(joined)
      if (carried !== '') this.#lines[0] = carried + this.#lines[0]
    }
    this.#index = 0
    this.#count = this.#lines.length
    this.#end = this.#count
    this.#place = null
  }

  nextLine() {
    this.linesRead++
    return this.#lines[this.#index++]
  }

  /** The lines of the batch not handed out yet (never empty while `hasLine`). */
  restOfBatch() {
    const rest = this.#index === 0 ? this.#lines : this.#lines.slice(this.#index, this.#end)
    this.#index = this.#end
    this.linesRead += rest.length
    return rest
  }

  /** The next line as an `entries()` step gives it: `[lineNumber, line]`. */
  nextEntry(placeOf) {
    const line = this.nextLine()
    return entry(this.lineNumber(placeOf), line)
  }

  /** What a step of `batches(options)` takes: the rest of the batch, numbered or not. */
  batchTaker(options, placeOf) {
    const { numbered } = normalizeBatchOptions(options)
    return numbered ? () => this.restOfBatchNumbered(placeOf) : () => this.restOfBatch()
  }

  /** The same as a NumberedBatch (index.d.ts): with each line's number and offset. */
  restOfBatchNumbered(placeOf) {
    const from = this.#index
    const lines = this.restOfBatch()
    const place = this.#fetch(placeOf)
    const lineNumbers = new Float64Array(lines.length)
    const offsets = new Float64Array(lines.length)
    for (let i = 0; i < lines.length; i++) {
      lineNumbers[i] = place.numberOf(from + i)
      offsets[i] = place.startOf(from + i)
    }
    return { lines, lineNumbers, offsets }
  }

  /** Hands out nothing more of this batch. */
  clear() {
    this.#end = this.#index
  }

  /** Fetches the batch's place now, so that later asks do not depend on the native side. */
  pin(placeOf) {
    this.#fetch(placeOf)
  }

  /**
   * The byte offset just past the last line handed out. `placeOf(serial)` gives the native
   * place of the batch with that serial number (see src/position.rs; null when reading has not
   * started), asked once per batch.
   */
  position(placeOf) {
    const place = this.#fetch(placeOf)
    if (place === null) return undefined
    return place.offsetBefore(this.#index)
  }

  /** The number in the file of the last line handed out (1 for the first line read), or 0. */
  lineNumber(placeOf) {
    if (this.#index === 0) return 0
    return this.#fetch(placeOf).numberOf(this.#index - 1)
  }

  /** The byte offset of the first byte of the last line handed out, or undefined. */
  lineOffset(placeOf) {
    if (this.#index === 0) return undefined
    return this.#fetch(placeOf).startOf(this.#index - 1)
  }

  /**
   * Where the batch is in the file, as a BatchPlace that stays valid after the next batch is
   * loaded: for a reader built on this one (readJsonLines), which takes whole batches and
   * reports on their lines later. Null when reading has not started.
   */
  batchPlace(placeOf) {
    return this.#fetch(placeOf)
  }

  #fetch(placeOf) {
    if (this.#place === null) {
      const place = this.#framedPlace ?? shifted(placeOf(this.#serial), this.#shift)
      if (place != null) {
        this.#place = new BatchPlace(place, this.#joined, this.#isArrayText, this.#count, this.#linesBefore)
      }
    }
    return this.#place
  }
}

/**
 * The lines of a batch joined by `\n`. A batch of one line (a follower's or a trickling
 * source's, one per write or chunk) is its own array: split() costs 0.2-0.3 us more there on V8
 * (a runtime call and a cache probe), per line for those readers.
 */
function linesOf(joined) {
  return joined.indexOf('\n') === -1 ? [joined] : joined.split('\n')
}

/** The lines of a JSON array's text as the native side frames it: `[` + lines joined by `\n,` + `\n]`. */
function linesOfArrayText(text) {
  const inner = text.slice(1, -2)
  return inner.indexOf('\n') === -1 ? [inner] : inner.split('\n,')
}

const asciiDecoder = new TextDecoder()

/**
 * A JSON reader's batch of ASCII lines as the native side gives it on Bun (the native option
 * `jsonBatches: 'bytes'`): `bytes`, its lines joined by `\n`, which Bun.JSONL parses, and
 * `length`, how many lines. A line's string is made only when asked for: for an error, a line
 * that is not JSON, or a stretch of lines that does not parse whole.
 */
class AsciiLines {
  #strings = null

  constructor(bytes) {
    this.bytes = bytes
    this.length = bytes.lineCount
  }

  /** The batch's lines, as a batch joined by `\n` would give them: decoded and split once. */
  strings() {
    this.#strings ??= asciiDecoder.decode(this.bytes).split('\n')
    return this.#strings
  }

  /** The text of bytes `start` to `end`: a line, from its start to its `\n` or the batch's end. */
  textOf(start, end) {
    return asciiDecoder.decode(this.bytes.subarray(start, end))
  }
}

/** A native batch's `place` moved `shift` bytes on (its line offsets are from its start). */
function shifted(place, shift) {
  return shift === 0 || place == null ? place : { ...place, start: place.start + shift, end: place.end + shift }
}

/**
 * Where the lines of one batch are in the file: its native place (src/position.rs) and its
 * lines, measured as asked in the batch as it came (its lines joined by `\n`, a JSON array's
 * text, or their bytes), not in the lines handed out, which are the caller's to change.
 */
class BatchPlace {
  #place
  #joined
  /** Whether `#joined` is a JSON array's text. */
  #isArrayText
  /**
   * What lies between two lines in `#joined`: `\n`, or `\n,` in a JSON array's text. Its
   * first line starts one unit earlier (at 0, or after the `[`).
   */
  #gap
  /** How many lines the batch has. */
  #count
  /** Lines in the batches loaded before this one: the numbers of unfiltered lines follow on. */
  #linesBefore
  /**
   * How far the lines were measured: the offset after the lines before `#measuredIndex`, and
   * where in the joined batch that line starts (`#measuredAt`). Each ask goes on from the last
   * (the index only grows within a batch), so asking after every line costs one measure per
   * line. Fields of their own, not an object made at each measure: an object literal made per
   * line may be pretenured by V8 (see yielded() in iterator.js), and `position` read after
   * every line was.
   */
  #measuredIndex = 0
  #measuredOffset
  #measuredAt

  constructor(place, joined, isArrayText, count, linesBefore) {
    this.#place = place
    this.#joined = joined
    this.#isArrayText = isArrayText
    this.#gap = isArrayText ? 2 : 1
    this.#measuredAt = this.#gap - 1
    this.#count = count
    this.#linesBefore = linesBefore
    this.#measuredOffset = place.start
  }

  /**
   * The indexes of the batch's lines that are not shaped like one JSON text, for a reader that
   * asked the native side to check (see crates/fastlines-core/src/json.rs); null if it did not.
   */
  get notOneText() {
    return this.#place.notOneText ?? null
  }

  /** Where each line listed in `notOneText` starts in the batch's bytes. */
  get notOneTextStarts() {
    return this.#place.notOneTextStarts
  }

  /**
   * The batch's lines as one JSON array's text, as the native side framed them, which parses
   * as it is where no line is listed in `notOneText`; null for a batch joined by `\n`.
   */
  get arrayText() {
    return this.#isArrayText ? this.#joined : null
  }

  /** The number of the batch's line at `index`: listed for a filtered batch, else consecutive. */
  numberOf(index) {
    const place = this.#place
    if (place.lineNumbers != null) return place.lineNumbers[index]
    return this.#linesBefore + index + 1
  }

  /** Where the batch's line at `index` started: listed for a filtered batch, else after the line before. */
  startOf(index) {
    const place = this.#place
    if (place.lineStarts != null) return place.start + place.lineStarts[index]
    return this.offsetBefore(index)
  }

  /** The offset just past the batch's lines before `index` (the batch's end after its last line). */
  offsetBefore(index) {
    const place = this.#place
    if (index === this.#count) return place.end
    if (index === 0) return place.start
    if (place.lineEnds != null) return place.start + place.lineEnds[index - 1]
    return this.#measure(index)
  }

  /**
   * Adds up the bytes of the lines before `until`, each its text plus the terminator, from the
   * last measure: forward as lines are handed out, back by a line for the last one's start.
   */
  #measure(until) {
    const { measure, terminatorLength } = this.#place
    const joined = this.#joined
    const gap = this.#gap
    // A batch of bytes (AsciiLines) is measured in them, `measure` saying a unit each.
    const newline = typeof joined === 'string' ? '\n' : 0x0a
    // The bytes of the line from `start` to `end` (text indexes) and its terminator.
    const bytesOf = (start, end) =>
      (measure === 'utf8' ? Buffer.byteLength(joined.slice(start, end), 'utf8') : end - start) + terminatorLength
    let index = this.#measuredIndex
    let offset = this.#measuredOffset
    let at = this.#measuredAt
    // A line starts `gap` past the `\n` before it, the first one `gap` past where none is
    // (-1); the `\n` after a line is `gap` before the next one starts.
    for (; index > until; index--) {
      const start = at > gap ? joined.lastIndexOf(newline, at - gap - 1) + gap : gap - 1
      offset -= bytesOf(start, at - gap)
      at = start
    }
    for (; index < until; index++) {
      const found = joined.indexOf(newline, at)
      const end = found === -1 ? joined.length : found
      offset += bytesOf(at, end)
      at = end + gap
    }
    this.#measuredIndex = index
    this.#measuredOffset = offset
    this.#measuredAt = at
    return offset
  }
}

module.exports = { AsciiLines, LineCursor, currentBatchPlace }
