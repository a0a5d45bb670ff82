// readJsonLines and readJsonLinesSync: the values of a JSON Lines file or byte source, one
// JSON.parse per non-blank line, parsed a batch at a time from a line reader's batches. Every
// option of readLines selects and bounds the lines before they are parsed; a line that does not
// parse becomes an error that says where (json-syntax.js finds the place), or is skipped or
// replaced as `onError` says.
'use strict'

const { addAbortListenerOf, clearCursor, closeReader } = require('./abort')
const { isByteSource } = require('./byte-source')
const { captureCallSite, withCallSite } = require('./call-site')
const { AsciiLines, currentBatchPlace } = require('./cursor')
const { codedError, codes, showCode, unshownCodedError } = require('./errors')
const { ClosingAsyncIterator, ClosingSyncIterator, StepQueue, done, entry, viewOf, yielded } = require('./iterator')
const { jsonSyntaxFailure } = require('./json-syntax')
const { LineReader, batchThen, lineStream, readyBatch } = require('./line-reader')
const { LineReaderSync } = require('./line-reader-sync')
const { checkOptionNames, copyOptions } = require('./option-names')
const { normalizeJsonOptions, normalizePath, refuseJsonBatchOptions } = require('./options')
const { isUint8Array } = require('./types')

/**
 * Whether lines the native side found shaped like one JSON text each are parsed with one
 * JSON.parse, as an array: on V8 (Node, Deno) that took 0.64-0.73x the time of a JSON.parse per
 * line, on JavaScriptCore (Bun) 1.16x (200 MB of pino-style lines, in memory). Then the native
 * batches come as that array's text (crates/fastlines-core/src/json.rs).
 */
const PARSE_BATCHES_WHOLE = process.versions.bun === undefined

/**
 * Lines longer than this on average (in UTF-16 code units) are parsed one by one even where a
 * batch could be parsed whole: the gain of one JSON.parse for many lines is the calls it saves,
 * which short lines make many of. On records of a few KB each (nested, 2,464 units on average),
 * the array took 1.15-1.5x the time of a JSON.parse per line on Node and 1.2x on Deno; on pino
 * lines (125 units) 0.8-0.95x, and lines of 250-1,000 units came out even. That was with the
 * lines joined in JS; from the native array text, timed alone, 1.05x on the nested records
 * (Node, 2026-12-07), and the reader's batches took what they took.
 */
const WHOLE_PARSE_MAX_AVERAGE_LINE = 256

/**
 * Bun's parser of JSON Lines' bytes (there from Bun 1.4.0, the oldest Bun fastlines runs on),
 * for batches of ASCII lines (the native side decodes others, see
 * crates/fastlines-core/src/json.rs, JsonBatches::Bytes): on the pino log in memory, a
 * `Bun.JSONL.parseChunk` of each batch's bytes took 0.79x the time of decoding, splitting and a
 * `JSON.parse` per line (200 MB in batches of 48 KB, medians of 5, 2026-12-07). It takes values
 * across lines (`{"a":` then `1}`), so it is given only lines the native side found shaped like
 * one JSON text each; for those it gives what JSON.parse gives line by line (tested in
 * json-lines.spec).
 */
const JSONL = PARSE_BATCHES_WHOLE ? undefined : globalThis.Bun.JSONL

/**
 * The native line options of a JSON reader: batches that list their lines not shaped like one
 * JSON text, which are skipped or parsed alone, and that come as JSON arrays' texts where
 * batches are parsed whole, or as bytes where Bun.JSONL parses them (src/input.rs,
 * NativeJsonBatches). On Bun, where batches are lent to the engine (lib/options.js), a JSON
 * reader's are lent at every size, strings and bytes alike: its batches took 0.90-0.92x the
 * time of copies on the nested records and 0.93-0.98x on the pino log, and a batch step's
 * longest waits were no longer (p99.9 1.9-3.3 ms against 2.1-4.4 ms; 2026-12-07). A JSON
 * reader makes so many objects that the engine collects often, a few lent batches at a time,
 * where collecting 20,000 lent strings at once held a line reader's event loop.
 */
function withJsonBatches(lines) {
  if (PARSE_BATCHES_WHOLE) return { ...lines, jsonBatches: 'arrays' }
  const lent = lines.lendStrings && { ...lines.lendStrings, fromBytes: 1 }
  return { ...lines, lendStrings: lent, jsonBatches: 'bytes' }
}

/**
 * A native line stream as readLines makes it, of JSON batches. A batch framed in JS (a small
 * chunk of whole lines from a byte source, see frame-here.js) comes unchecked, and its lines are
 * parsed one at a time, as a batch of one line is anyway.
 */
const jsonLineStream = {
  path: (bytes, { read, lines }) => lineStream.path(bytes, { read, lines: withJsonBatches(lines) }),
  source: (source, { read, lines }) => lineStream.source(source, { read, lines: withJsonBatches(lines) }),
  framesHere: lineStream.framesHere,
  jsonArrays: PARSE_BATCHES_WHOLE,
}

/** A line of nothing but these is blank: skipped, and still counted. */
const BLANK = /^[ \t\r]*$/

/**
 * Whether `line` is blank. Looking at its first character first spares the regex most lines;
 * a blank line skipped before JSON.parse rather than after its throw made a log with every
 * other line of spaces 15x faster on Node and 2x on Bun.
 */
function isBlank(line) {
  if (line.length === 0) return true
  const first = line.charCodeAt(0)
  return (first === 0x20 || first === 0x09 || first === 0x0d) && BLANK.test(line)
}
/** How much of a line an error quotes, around the place where it stopped being JSON. */
const QUOTED_CHARACTERS = 80

/**
 * The values of the line batches a reader takes, one batch at a time, and where each came from.
 * A failure is kept until the values before it are handed out; nothing is parsed past it.
 */
class JsonCursor {
  /** The parsed values of the batch; those before `index` were handed out. */
  #values = []
  /** The index in the batch's lines of each value's line; null when it is the value's own index. */
  #lineIndexes = null
  #index = 0
  /** How many values of the batch may be handed out: fixed once it is loaded, whatever a caller does to a batch it was handed. */
  #end = 0
  /**
   * What to throw once the values before it are handed out, or NO_FAILURE: any value, since an
   * `onError` or a reviver may throw null or undefined, which end reading as any error does.
   */
  #failure = NO_FAILURE
  /** Where the batch's lines are in the file (LineCursor's BatchPlace). */
  #place = null
  /** Where the last value handed out came from, once its batch was left: `{ place, index }`. */
  #last = null
  /** Where the first batch started: the position before any value. */
  #start = undefined
  #onError
  #reviver
  #path
  /** `[index, count]` of the share read, if one is: its errors' line numbers count from its start. */
  #share
  /** Where the reader was made, for the frames of its parse errors (see call-site.js). */
  #callSite = captureCallSite()
  /**
   * Set by clear() (the reader's close() or abort), which an `onError` or a reviver may call
   * while a batch is parsed: parsing stops there, and nothing of the batch is handed out.
   */
  #cleared = false
  skipped = 0

  constructor({ onError, reviver, share }, path) {
    this.#onError = onError
    this.#reviver = reviver
    this.#path = path
    this.#share = share
  }

  /** Whether a value is ready to be handed out. */
  get hasValue() {
    return this.#index < this.#end
  }

  /** Whether the next step fails, with `takeFailure()`. */
  get failed() {
    return this.#index === this.#end && this.#failure !== NO_FAILURE
  }

  takeFailure() {
    const failure = this.#failure
    this.#failure = NO_FAILURE
    return failure
  }

  /**
   * Parses the lines of a batch, which `place` (a BatchPlace) locates. Where the native side
   * checked them (a native batch, without a reviver), the lines it found not shaped like one JSON
   * text are skipped or parsed alone (#notOneText), and each stretch between them is parsed on V8
   * with one JSON.parse where its lines are short (#parseWhole), on Bun from a batch of ASCII
   * lines' bytes with one Bun.JSONL.parseChunk (#loadAscii), else line by line (#parseLines);
   * otherwise every line one by one. Stops at a failure, which is kept.
   */
  load(lines, place) {
    this.#cleared = false
    this.#load(lines, place)
    if (!this.#cleared) this.#end = this.#values.length
  }

  #load(lines, place) {
    if (this.#index > 0) this.#last = this.#lastLine()
    if (this.#place === null) this.#start = place.offsetBefore(0)
    this.#place = place
    this.#index = 0
    this.#values = []
    this.#lineIndexes = null
    if (lines instanceof AsciiLines) {
      if (this.#reviver === undefined) {
        this.#loadAscii(lines, place)
        return
      }
      lines = lines.strings()
    }
    const notOneText = this.#reviver === undefined ? place.notOneText : null
    if (notOneText === null) {
      this.#parseLines(lines, 0, lines.length)
      return
    }
    const whole = PARSE_BATCHES_WHOLE && averageLength(lines) <= WHOLE_PARSE_MAX_AVERAGE_LINE
    let from = 0
    // Parsed whole, where line `from` starts in the batch's array text.
    let at = 1
    for (const line of notOneText) {
      if (!this.#parseStretch(whole, lines, from, line, at) || !this.#notOneText(lines[line], line)) return
      if (whole) at += arrayUnits(lines, from, line + 1)
      from = line + 1
    }
    this.#parseStretch(whole, lines, from, lines.length, at)
  }

  /**
   * Parses a batch of ASCII lines (on Bun, see JSONL): the lines listed as not shaped like one
   * JSON text are skipped or parsed alone (#notOneText), and each stretch between them is parsed
   * from the bytes (#parseAscii).
   */
  #loadAscii(lines, place) {
    const { bytes } = lines
    const listed = place.notOneText
    const starts = place.notOneTextStarts
    let from = 0
    // Where line `from` starts in the bytes.
    let at = 0
    for (let i = 0; i < listed.length; i++) {
      const line = listed[i]
      const start = starts[i]
      const found = bytes.indexOf(0x0a, start)
      const end = found === -1 ? bytes.length : found
      // The stretch ends with its last line, before the `\n` that ends it.
      if (!this.#parseAscii(lines, from, line, at, start - 1) || !this.#notOneText(lines.textOf(start, end), line)) {
        return
      }
      from = line + 1
      at = end + 1
    }
    this.#parseAscii(lines, from, lines.length, at, bytes.length)
  }

  /**
   * Parses lines `from` to `to`, each shaped like one JSON text, bytes `start` to `end` of the
   * batch, with one Bun.JSONL.parseChunk; where those do not give a value per line, line by line.
   * False when reading stops at a failure.
   */
  #parseAscii(lines, from, to, start, end) {
    if (to === from) return true
    const { values, error } = JSONL.parseChunk(lines.bytes, start, end)
    if (error != null || values.length !== to - from) return this.#parseLines(lines.strings(), from, to)
    if (from === 0 && this.#values.length === 0) this.#values = values
    else for (let i = 0; i < values.length; i++) this.#push(values[i], from + i)
    return true
  }

  /**
   * Parses lines `from` to `to`, each shaped like one JSON text: `whole` (their text in the
   * batch's array text from `at`), or line by line.
   */
  #parseStretch(whole, lines, from, to, at) {
    return whole ? this.#parseWhole(lines, from, to, at) : this.#parseLines(lines, from, to)
  }

  /**
   * `line`, the batch's line `index`, which the native side found not shaped like one JSON
   * text: blank, or not JSON at all (crates/fastlines-core/src/json.rs). A blank one is skipped. With `onError: 'skip'` the
   * others need no JSON.parse either (its throw took Deno a tenth more time over a log with 1%
   * of its lines cut short); any other onError needs the engine's error, so they are parsed.
   * False when reading stops at a failure.
   */
  #notOneText(line, index) {
    if (isBlank(line)) return true
    if (this.#onError !== 'skip') return this.#parseLine(line, index)
    this.skipped++
    return true
  }

  /**
   * Parses lines `from` to `to`, each shaped like one JSON text, as one JSON array, `\n,`
   * between them (a `\n` so that no string runs from one line into the next): the array parses
   * exactly when each line does, into their values in order (crates/fastlines-core/src/json.rs
   * says why). Only batches the native side checked are parsed whole (see #load), and those come
   * as that array's text: the whole batch's is parsed as it came, and a stretch's is its part of
   * it, from `at`, in brackets (one copy, where joining the lines took 1.3x the time of the clean
   * log's batches on a log with a bad line every 100). Where it does not parse, line by line.
   * False when reading stops at a failure.
   */
  #parseWhole(lines, from, to, at) {
    if (to - from < 2) return this.#parseLines(lines, from, to)
    let values
    try {
      const text = this.#place.arrayText
      const whole = from === 0 && to === lines.length
      // A stretch's part ends with its last line's `\n`, before the next line's `,`.
      values = JSON.parse(whole ? text : `[${text.slice(at, at + arrayUnits(lines, from, to) - 1)}]`)
    } catch {
      return this.#parseLines(lines, from, to)
    }
    if (from === 0 && this.#values.length === 0) this.#values = values
    else for (let i = 0; i < values.length; i++) this.#push(values[i], from + i)
    return true
  }

  /**
   * Parses lines `from` to `to` one by one: without a reviver in a bare loop while each parses,
   * and a line that does not (or every line, with a reviver) with care (#parseLine), then bare
   * again: a log with a bad line every 100 would otherwise parse most of each batch with care.
   * False when reading stops at a failure.
   */
  #parseLines(lines, from, to) {
    for (let i = from; i < to; i++) {
      if (this.#reviver === undefined) i = this.#parseBare(lines, i, to)
      if (i < to && !this.#parseLine(lines[i], i)) return false
    }
    return true
  }

  /**
   * Parses lines from `from` on while each parses, with no care for blank lines, a BOM or
   * failures; the index of the first line that did not parse, or `to`.
   */
  #parseBare(lines, from, to) {
    const values = this.#values
    let i = from
    try {
      if (this.#lineIndexes === null && values.length === from) {
        for (; i < to; i++) values.push(JSON.parse(lines[i]))
      } else {
        const indexes = this.#listedLines()
        for (; i < to; i++) {
          values.push(JSON.parse(lines[i]))
          indexes.push(i)
        }
      }
    } catch {
      // Line i, with care.
    }
    return i
  }

  /**
   * Parses `line`, the batch's line `index`, with care: skipped if blank, a BOM at the file's
   * start dropped, a failure handled. False when reading stops at a failure.
   */
  #parseLine(line, index) {
    const reviver = this.#reviver
    const place = this.#place
    // A UTF-8 BOM, only at the very start of the file.
    if (line.charCodeAt(0) === 0xfeff && place.startOf(index) === 0) line = line.slice(1)
    if (isBlank(line)) return true
    let value
    try {
      value = reviver === undefined ? JSON.parse(line) : JSON.parse(line, reviver)
    } catch (cause) {
      if (this.#cleared) {
        // A reviver that closed the reader (or aborted it), then threw: what it threw is not lost.
        if (reviver !== undefined && jsonSyntaxFailure(line) === null) this.#failure = cause
        return false
      }
      const handled = this.#handleFailure(cause, line, place, index)
      if (handled === STOP) return false
      if (handled === SKIP) return true
      value = handled.value
    }
    if (this.#cleared) return false
    this.#push(value, index)
    return true
  }

  /** The index of each value's line, listed from now on (values and lines no longer go together). */
  #listedLines() {
    this.#lineIndexes ??= Array.from({ length: this.#values.length }, (_, i) => i)
    return this.#lineIndexes
  }

  /** Adds the value of line `line`, listing lines once values and lines no longer go together. */
  #push(value, line) {
    if (this.#lineIndexes === null && this.#values.length !== line) this.#listedLines()
    this.#values.push(value)
    if (this.#lineIndexes !== null) this.#lineIndexes.push(line)
  }

  next() {
    return this.#values[this.#index++]
  }

  /** The values of the batch not handed out yet. */
  restOfBatch() {
    const rest = this.#index === 0 ? this.#values : this.#values.slice(this.#index, this.#end)
    this.#index = this.#end
    return rest
  }

  /** The next value as `[lineNumber, value]`. */
  nextEntry() {
    const value = this.next()
    return entry(this.lineNumber(), value)
  }

  /** Hands out nothing more that was parsed already, failure included. */
  clear() {
    this.#values = this.#values.slice(0, this.#index)
    this.#end = this.#index
    this.#failure = NO_FAILURE
    this.#cleared = true
  }

  /** The number of the line the last value came from, or 0 before the first. */
  lineNumber() {
    const last = this.#lastLine()
    return last === null ? 0 : last.place.numberOf(last.index)
  }

  /** The byte offset of that line, or undefined before the first value. */
  lineOffset() {
    const last = this.#lastLine()
    return last === null ? undefined : last.place.startOf(last.index)
  }

  /** The byte offset just past that line; before the first value, where reading started (`before`). */
  position(before) {
    const last = this.#lastLine()
    if (last === null) return this.#start ?? before
    return last.place.offsetBefore(last.index + 1)
  }

  #lastLine() {
    if (this.#index === 0) return this.#last
    const value = this.#index - 1
    return { place: this.#place, index: this.#lineIndexes === null ? value : this.#lineIndexes[value] }
  }

  /**
   * What becomes of a line that JSON.parse refused: STOP (the failure is kept), SKIP, or
   * `{ value }` from an `onError` function. An error that is not the line's (a reviver threw)
   * stops reading with that error as it is.
   */
  #handleFailure(cause, line, place, index) {
    // Without a reviver, only the line can be at fault: a line skipped needs no error.
    if (this.#onError === 'skip' && this.#reviver === undefined) {
      this.skipped++
      return SKIP
    }
    const syntax = jsonSyntaxFailure(line)
    if (syntax === null) {
      this.#failure = cause
      return STOP
    }
    const error = jsonParseError(cause, line, syntax, {
      lineNumber: place.numberOf(index),
      lineOffset: place.startOf(index),
      path: this.#path,
      share: this.#share,
    })
    const onError = this.#onError
    if (onError === 'throw') {
      this.#failure = withCallSite(showCode(error), this.#callSite)
      return STOP
    }
    let replacement
    if (onError !== 'skip') {
      try {
        replacement = onError(error, line)
      } catch (thrown) {
        // Even after a close() or an abort from inside the function: what it throws is not lost.
        this.#failure = thrown
        return STOP
      }
      if (this.#cleared) return STOP
    }
    if (replacement === undefined) {
      this.skipped++
      return SKIP
    }
    return { value: replacement }
  }
}

const NO_FAILURE = Symbol('noFailure')
const STOP = Symbol('stop')
const SKIP = Symbol('skip')

/** The UTF-16 units lines `from` to `to` take in a batch's JSON array text: each, then `\n,`. */
function arrayUnits(lines, from, to) {
  let units = 0
  for (let i = from; i < to; i++) units += lines[i].length + 2
  return units
}

/** The average length of `lines`, in UTF-16 code units; 0 for none. */
function averageLength(lines) {
  let units = 0
  for (let i = 0; i < lines.length; i++) units += lines[i].length
  return lines.length === 0 ? 0 : units / lines.length
}

/**
 * A line that is not JSON: a SyntaxError (as JSON.parse's own) with the line's number (in a
 * share, from its first line, which the message says, with the line's offset in the file) and byte
 * offset, the column (1-based, in UTF-16 units of the line) where it stopped being JSON, the
 * path where there is one, the engine's error as `cause`, and a message that quotes the line
 * around that place.
 */
function jsonParseError(cause, line, { index, message }, { lineNumber, lineOffset, path, share }) {
  const ofShare = share === undefined ? '' : ` of share ${share[0]} of ${share[1]} (byte ${lineOffset})`
  const where = `line ${lineNumber}${ofShare}, column ${index + 1}${path === undefined ? '' : ` of '${path}'`}`
  const error = unshownCodedError(SyntaxError, codes.JSON_PARSE, `${message} at ${where}: ${quote(line, index)}`, {
    cause,
  })
  error.lineNumber = lineNumber
  error.lineOffset = lineOffset
  // Defined, not assigned: JavaScriptCore's errors have a `column` of their own, not enumerable,
  // which an assignment would keep so, and Bun's console.log would not show it.
  Object.defineProperty(error, 'column', { value: index + 1, enumerable: true, writable: true, configurable: true })
  if (path !== undefined) error.path = path
  return error
}

/** At most QUOTED_CHARACTERS of `line` around `index`, an ellipsis where it was cut. */
function quote(line, index) {
  let from = Math.max(0, Math.min(index - QUOTED_CHARACTERS / 2, line.length - QUOTED_CHARACTERS))
  let to = Math.min(line.length, from + QUOTED_CHARACTERS)
  // Never half a surrogate pair.
  if (isLowSurrogate(line.charCodeAt(from))) from++
  if (isLowSurrogate(line.charCodeAt(to))) to--
  return `${from > 0 ? '…' : ''}${line.slice(from, to)}${to < line.length ? '…' : ''}`
}

function isLowSurrogate(code) {
  return code >= 0xdc00 && code <= 0xdfff
}

/** The path errors name: the one given, or a file stream's (a string or a Buffer); other byte sources have none. */
function pathOf(input) {
  if (!isByteSource(input)) return normalizePath(input, true).display
  const { path } = input
  if (typeof path === 'string') return path
  return isUint8Array(path) ? normalizePath(path).display : undefined
}

/**
 * What both JSON readers have, over `Base` (ClosingAsyncIterator or ClosingSyncIterator): where
 * they are, from their cursor and line reader, and their steps, each through `step(take)`, the
 * reader's own way of filling the cursor and taking from it.
 */
function jsonReaderOf(Base) {
  return class JsonReader extends Base {
    #cursor
    #lines
    #step
    /** What a per-value step takes: made once, not a function per step. */
    #takeValue

    constructor(cursor, lines, step) {
      super()
      this.#cursor = cursor
      this.#lines = lines
      this.#step = step
      this.#takeValue = () => cursor.next()
    }

    /** The number of the line the last value came from (0 before the first). */
    get lineNumber() {
      return this.#cursor.lineNumber()
    }

    /** The byte offset of the line the last value came from, or undefined before the first. */
    get lineOffset() {
      return this.#cursor.lineOffset()
    }

    /** The byte offset just past the line the last value came from. */
    get position() {
      return this.#cursor.position(this.#lines.position)
    }

    /** Lines that did not parse and were skipped (`onError: 'skip'`, or a function's undefined). */
    get skipped() {
      return this.#cursor.skipped
    }

    get bytesRead() {
      return this.#lines.bytesRead
    }

    next() {
      return this.#step(this.#takeValue)
    }

    /** The same values, an array of a batch's values per step. */
    batches(options) {
      refuseJsonBatchOptions(options)
      return viewOf(this, () => this.#step(() => this.#cursor.restOfBatch()))
    }

    /** The same values as `[lineNumber, value]`. */
    entries() {
      return viewOf(this, () => this.#step(() => this.#cursor.nextEntry()))
    }
  }
}

/** The values of a JSON Lines file or byte source; see index.d.ts for the contract. */
class JsonLinesReader extends jsonReaderOf(ClosingAsyncIterator) {
  #lines
  #cursor
  #queue = new StepQueue()
  #abortListener
  #signal

  constructor(input, options) {
    const json = normalizeJsonOptions(options)
    const lines = new LineReader(input, options, jsonLineStream)
    const cursor = new JsonCursor(json, pathOf(input))
    super(cursor, lines, (take) => this.#step(take))
    this.#lines = lines
    this.#cursor = cursor
    this.#signal = options?.signal
    // Values already parsed are not handed out once the signal aborts.
    this.#abortListener = addAbortListenerOf(cursor, options?.signal, clearCursor)
  }

  close() {
    this.#cursor.clear()
    this.#abortListener.dispose()
    return this.#lines.close()
  }

  /** A step that `take()`s from the cursor: at once while it holds values, else in the queue. */
  #step(take) {
    if (this.#queue.idle && this.#cursor.hasValue) return Promise.resolve(yielded(take()))
    return this.#queue.run(() => this.#fillAndTake(take))
  }

  /**
   * Parses batches until one has a value or fails, and takes from it; the end or a failure closes
   * the reader. Batches already read are parsed here; one to wait for, in a callback (see
   * LineReader[batchThen]), which comes back here. A failure of the line reader (a read) is
   * thrown once this reader is closed, which only a weak reference leads to from the step: the
   * signal may hold the step. An abort is thrown at once, as the line reader's own steps throw
   * it, the file closing right after.
   */
  #fillAndTake(take) {
    while (!this.#cursor.hasValue && !this.#cursor.failed) {
      const batch = this.#lines[readyBatch]()
      if (batch === undefined) {
        const step = this.#lines[batchThen]((batch) => (this.#load(batch) ? this.#fillAndTake(take) : this.#end()))
        return closingOnFailure(step, new WeakRef(this), this.#signal)
      }
      if (!this.#load(batch)) return this.#end()
    }
    if (this.#cursor.hasValue) return Promise.resolve(yielded(take()))
    const failure = this.#cursor.takeFailure()
    return this.close().then(() => {
      throw failure
    })
  }

  /** Parses a step's batch into the cursor; false at the end. */
  #load(step) {
    if (step.done) return false
    this.#cursor.load(step.value, this.#lines[currentBatchPlace]())
    return true
  }

  #end() {
    return this.close().then(done)
  }
}

/**
 * `step`, which closes the reader `ref` leads to, if it is still there, before it fails; or,
 * once `signal` aborted, as it fails.
 */
function closingOnFailure(step, ref, signal) {
  return step.catch(async (error) => {
    const closing = ref.deref()?.close()
    if (signal?.aborted !== true) await closing
    throw error
  })
}

/** The values of a JSON Lines file, read on the calling thread. */
class JsonLinesReaderSync extends jsonReaderOf(ClosingSyncIterator) {
  #lines
  #batches
  #cursor
  #abortListener
  /** Whether a step is being taken (see #step). */
  #stepping = false

  constructor(path, options) {
    const json = normalizeJsonOptions(options)
    const lines = new LineReaderSync(path, options, withJsonBatches)
    const cursor = new JsonCursor(json, normalizePath(path).display)
    super(cursor, lines, (take) => this.#step(take))
    this.#lines = lines
    this.#batches = lines.batches()
    this.#cursor = cursor
    this.#abortListener = addAbortListenerOf(this, options?.signal, closeReader)
  }

  close() {
    this.#cursor.clear()
    this.#abortListener.dispose()
    this.#lines.close()
  }

  /**
   * Takes a step; one taken from inside another (by a reviver or an `onError` function, which
   * run while a batch is parsed) throws, as a generator's does, rather than find the batch half
   * parsed and end the reader.
   */
  #step(take) {
    if (this.#stepping) {
      throw codedError(TypeError, 'ERR_INVALID_STATE', 'Invalid state: the reader is already taking a step')
    }
    this.#stepping = true
    try {
      return this.#fillAndTake(take)
    } finally {
      this.#stepping = false
    }
  }

  /**
   * Parses batches until one has a value or fails, and takes from it; a failure closes the
   * reader, a failed read (the open, a line too long, damaged data) as a line that does not
   * parse: the lines close themselves then, but the signal is let go here.
   */
  #fillAndTake(take) {
    while (!this.#cursor.hasValue && !this.#cursor.failed) {
      let step
      try {
        step = this.#batches.next()
      } catch (error) {
        this.close()
        throw error
      }
      if (step.done) {
        this.close()
        return done()
      }
      this.#cursor.load(step.value, this.#lines[currentBatchPlace]())
    }
    if (this.#cursor.hasValue) return yielded(take())
    const failure = this.#cursor.takeFailure()
    this.close()
    throw failure
  }
}

function readJsonLines(input, options) {
  options = copyOptions(options)
  checkOptionNames(options, 'readJsonLines')
  return new JsonLinesReader(input, options)
}

function readJsonLinesSync(path, options) {
  options = copyOptions(options)
  checkOptionNames(options, 'readJsonLinesSync')
  return new JsonLinesReaderSync(path, options)
}

module.exports = { readJsonLines, readJsonLinesSync }
