// Framing on the JS thread: the lines of a small chunk of a byte source, made here rather than by
// a native call, for a line reader that waits for the chunk with nothing of a line left on the
// native side (see NativeSource). A producer that sends a line per chunk (a log shipper, an NDJSON
// stream) then costs its reader no native call per line: the native call that framed such a
// chunk (napi-rs's checks, the reader's lock and buffer, the place it records, the string) cost
// 0.7-1.0 us of the 1.7-2.1 us a line cost over taking the chunk. 100,000 one-line chunks on turns
// of their own, 7 runs alternating: Node 360 ms against 442, Bun 331 against 431, Deno 305
// against 375 (readline 373, 317 and 413). countLines counts such a chunk here in the same way,
// rather than push it and wake the reading thread for it.
'use strict'

const { Buffer, isAscii } = require('node:buffer')

const { isUint8Array } = require('./types')

const { latin1Slice, utf8Slice } = Buffer.prototype
const LF = 10
const CR = 13
/**
 * The largest chunk framed here: a small chunk is what gains. A larger one goes native, whose
 * batches hold no more lines than JS can split into an array (MAX_BATCH_BYTES in frame.rs: V8
 * aborts the process at an array of 2^27 lines, which one chunk of 128 MiB of `\n`s made).
 */
const MAX_FRAMED_HERE_BYTES = 1 << 20

/**
 * The smallest chunk framed here with the line carried over (see CarriedFraming): smaller ones
 * cost more one batch at a time than gathered into the native reader's reads. Over 100 MB of
 * logs-1g from an async generator on Node (median of 3), batches took 1,432 ms in 100-byte
 * chunks framed here against 521 native, 150 against 145 in 1 KiB chunks, and 96 against 116 in
 * 2 KiB ones (69 against 113 in 4 KiB).
 */
const MIN_CARRIED_CHUNK_BYTES = 2 * 1024

/** Whether the last byte of `chunk` (a Uint8Array) is `\n`; false for an empty one. */
function endsLine(chunk) {
  return chunk[chunk.byteLength - 1] === LF
}

/**
 * A batch framed here: its lines joined by `\n`, as a native batch is, and where it was in the
 * source, which the native side does not know of: it is its own place, with the fields of a
 * native one that say where unfiltered lines are (see BatchPlace in cursor.js).
 */
class FramedBatch {
  /**
   * `carried` is the start of the batch's first line, carried over from the chunk before (see
   * CarriedFraming), which `joined` leaves out: put before the first line once split, it spares
   * the engine a copy of the whole batch to join it.
   */
  constructor(joined, start, end, measure, carried = '') {
    this.joined = joined
    this.start = start
    this.end = end
    this.measure = measure
    this.terminatorLength = 1
    this.carried = carried
  }
}

/**
 * The batch `chunk` makes, starting at byte `start` of the source, if it is whole lines that
 * frame here exactly as the native side would frame them; undefined if not, and then the native
 * side frames it. The chunk must be small (MAX_FRAMED_HERE_BYTES), end with `\n`, hold no `\r`
 * (a terminator whose pairing with a `\n` is the native side's to decide), and no line longer than
 * `maxLineLength` bytes. In UTF-8 it must also decode with no U+FFFD, so that no engine's handling
 * of invalid bytes is relied on to match the native decoder's: valid UTF-8 has one decoding.
 */
function framedHere(chunk, start, { latin1, maxLineLength }) {
  const bytes = chunk.byteLength
  if (bytes > MAX_FRAMED_HERE_BYTES || !endsLine(chunk) || bytes - 1 > maxLineLength) return undefined
  const joined = latin1 ? latin1Slice.call(chunk, 0, bytes - 1) : utf8Slice.call(chunk, 0, bytes - 1)
  if (joined.includes('\r') || (!latin1 && joined.includes('\uFFFD'))) return undefined
  // Each character one byte (ASCII, or Latin-1), or the UTF-8 of valid text.
  const measure = joined.length === bytes - 1 ? 'chars' : 'utf8'
  return new FramedBatch(joined, start, start + bytes, measure)
}

/**
 * Frames every chunk of a byte source here, wherever the source cuts its lines, carrying the
 * partial line at a chunk's end over to the next, for a line reader that frames chunks here (see
 * framingHere) and was made to carry lines over: a chunk then costs its JS thread a string of its
 * bytes and a split, with no native call, no copy into the native queue and no thread to wake.
 * A prototype of it, measured alone over 1 GB in 64 KiB chunks, took 279-292 ms on Node against
 * 683-695 through the native reader (and the hand split's 364-381), 402-406 on Bun against
 * 630-710, and 310-314 on Deno against 662-681 (and 866-928), on 2026-12-07. A chunk must frame
 * here as the native side would frame it: bytes (not a string) of at least
 * MIN_CARRIED_CHUNK_BYTES, ASCII in UTF-8 (the native side transcodes other text on its own
 * thread, faster than engines decode it) or any bytes in Latin-1, no `\r` (a terminator whose
 * pairing is the native side's to decide), and with the line carried into it, no more than
 * MAX_FRAMED_HERE_BYTES or `maxLineLength` bytes: no line in it can be too long. The first that
 * does not, and the end or a failure, go to the native side after the line carried (see
 * NativeSource#frameNatively), which frames all the rest.
 */
class CarriedFraming {
  /** The partial line: the text after the last `\n` of the chunks framed so far. */
  #carried = ''
  /** Where `#carried` starts in the source: the bytes of the lines framed before it. */
  #start = 0
  #latin1
  #maxLineLength

  constructor({ latin1, maxLineLength }) {
    this.#latin1 = latin1
    this.#maxLineLength = Math.min(MAX_FRAMED_HERE_BYTES, maxLineLength)
  }

  /** The bytes of the lines framed here, before the partial line carried. */
  get framedBytes() {
    return this.#start
  }

  /** The bytes taken from the source: the lines framed here and the partial line carried. */
  get takenBytes() {
    return this.#start + this.#carried.length
  }

  /** The partial line carried, as its bytes: what the native side frames first. */
  carriedBytes() {
    return Buffer.from(this.#carried, 'latin1')
  }

  /**
   * The FramedBatch of the lines `chunk` completes; null if it completes none (its text is
   * carried on); undefined if it does not frame here, and then neither does any chunk after it.
   */
  frame(chunk) {
    if (!isUint8Array(chunk)) return undefined
    const bytes = chunk.byteLength
    // An empty chunk, or a detached one, is nothing.
    if (bytes === 0) return null
    if (bytes < MIN_CARRIED_CHUNK_BYTES || this.#carried.length + bytes > this.#maxLineLength) return undefined
    if (!(this.#latin1 || isAscii(chunk))) return undefined
    const text = latin1Slice.call(chunk, 0, bytes)
    if (text.includes('\r')) return undefined
    const lastLF = text.lastIndexOf('\n')
    if (lastLF === -1) {
      this.#carried += text
      return null
    }
    const carried = this.#carried
    const start = this.#start
    this.#carried = text.slice(lastLF + 1)
    this.#start = start + carried.length + lastLF + 1
    return new FramedBatch(text.slice(0, lastLF), start, this.#start, 'chars', carried)
  }
}

/**
 * What a line reader of a byte source frames here (see framedHere), from its normalized options:
 * plain lines, undecompressed, in UTF-8 or Latin-1; undefined for a reader that does not (a
 * search's, whose native filter keeps lines; a decompressing one's, fed compressed bytes).
 */
function framingHere({ read, lines }) {
  if (lines.match !== undefined || read.decompress !== undefined) return undefined
  return { latin1: lines.encoding === 'latin1', maxLineLength: lines.maxLineLength ?? Infinity }
}

/**
 * How many lines `chunk` holds if it is whole lines that the native count would count alike (it
 * ends with `\n` and holds no `\r`): its `\n`s, for countLines, whose source starts a line
 * there; -1 if not, and then the native side counts it.
 */
function linesCountedHere(chunk) {
  const bytes = chunk.byteLength
  if (!endsLine(chunk) || chunk.indexOf(CR) !== -1) return -1
  let lines = 1
  for (let at = chunk.indexOf(LF); at !== bytes - 1; at = chunk.indexOf(LF, at + 1)) lines++
  return lines
}

module.exports = { CarriedFraming, endsLine, framedHere, framingHere, linesCountedHere }
