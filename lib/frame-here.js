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

const { Buffer } = require('node:buffer')

const { latin1Slice, utf8Slice } = Buffer.prototype
const LF = 10
const CR = 13
/**
 * The largest chunk framed here: a small chunk is what gains. A larger one goes native, whose
 * batches hold no more lines than JS can split into an array (MAX_BATCH_BYTES in frame.rs: V8
 * aborts the process at an array of 2^27 lines, which one chunk of 128 MiB of `\n`s made).
 */
const MAX_FRAMED_HERE_BYTES = 1 << 20

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
  constructor(joined, start, end, measure) {
    this.joined = joined
    this.start = start
    this.end = end
    this.measure = measure
    this.terminatorLength = 1
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

module.exports = { endsLine, framedHere, framingHere, linesCountedHere }
