// The oracles for the line contract: a reference implementation that runs on every runtime, and
// Node's own readline where it is the contract's source (Node 20 and 22; Node 24's and Bun's
// readline also split at U+2028/U+2029, which fastlines must not do).
import fs from 'node:fs'
import readline from 'node:readline'
import { Readable } from 'node:stream'

const LF = 0x0a
const CR = 0x0d

/** True where `readline` itself is an oracle: Node 20 or 22, not Bun. */
export const hasClassicReadline =
  typeof Bun === 'undefined' && ['20', '22'].includes(process.versions.node.split('.')[0])

/** Cuts raw bytes at `\n`, `\r\n` and a lone `\r`; no empty line after a final terminator. */
export function splitLineBytes(bytes) {
  const lines = []
  let lineStart = 0
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]
    if (byte !== LF && byte !== CR) continue
    lines.push(bytes.subarray(lineStart, i))
    if (byte === CR && bytes[i + 1] === LF) i++
    lineStart = i + 1
  }
  if (lineStart < bytes.length) lines.push(bytes.subarray(lineStart))
  return lines
}

// Keeps a BOM (as readline does) and replaces maximal invalid subparts, WHATWG style.
const utf8Decoder = new TextDecoder('utf-8', { ignoreBOM: true })

function decodeLine(bytes, encoding) {
  return encoding === 'latin1' ? Buffer.from(bytes).toString('latin1') : utf8Decoder.decode(bytes)
}

/** The lines fastlines must yield for `bytes`. */
export function referenceLines(bytes, encoding = 'utf8') {
  return splitLineBytes(bytes).map((line) => decodeLine(line, encoding))
}

export function endsWithTerminator(bytes) {
  const last = bytes[bytes.length - 1]
  return last === LF || last === CR
}

/** The bytes `fs.createReadStream(path, { start, end })` gives for a file holding `bytes`. */
export function byteRange(bytes, { start = 0, end } = {}) {
  return bytes.subarray(start, end === undefined ? bytes.length : end + 1)
}

async function collectLines(input) {
  const lines = []
  const reader = readline.createInterface({ input, crlfDelay: Infinity })
  for await (const line of reader) lines.push(line)
  return lines
}

/** What readline really yields over `fs.createReadStream(path, streamOptions)`. */
export function readlineLines(path, streamOptions) {
  return collectLines(fs.createReadStream(path, streamOptions))
}

async function* followedBy(stream, tail) {
  yield* stream
  yield tail
}

/**
 * The lines readline yields for the same bytes, adjusted for the contract's one exception:
 * readline drops an incomplete UTF-8 sequence at end of input where fastlines yields U+FFFD, so
 * a range that does not end in a terminator is read with one appended (which changes nothing
 * else). `rangeBytes` are the bytes the stream gives.
 */
export function readlineOracle(path, streamOptions, rangeBytes) {
  const stream = fs.createReadStream(path, streamOptions)
  if (rangeBytes.length === 0 || endsWithTerminator(rangeBytes)) return collectLines(stream)
  return collectLines(Readable.from(followedBy(stream, Buffer.from('\n'))))
}

/** Everything `fs.createReadStream(path, streamOptions)` gives, as one Buffer. */
export async function streamBytes(path, streamOptions) {
  const chunks = []
  for await (const chunk of fs.createReadStream(path, streamOptions)) chunks.push(chunk)
  return Buffer.concat(chunks)
}

/** A seeded PRNG (mulberry32): the same seed gives the same inputs on every run. */
export function seededRandom(seed) {
  let state = seed >>> 0
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  random.int = (min, max) => min + Math.floor(random() * (max - min + 1))
  random.pick = (items) => items[Math.floor(random() * items.length)]
  return random
}

/** One Buffer from strings (as UTF-8) and arrays of byte values. */
export const bytesOf = (...parts) => Buffer.concat(parts.map((part) => Buffer.from(part)))

// Repeats weight the draw: terminators and ASCII are common, so lines stay short.
const SOUP_PIECES = [
  ...['\n', '\r', '\r\n', '\n', '\r', '\r\n', '\r\r\n', '\n\r'],
  ...['a', 'b', 'z', ' ', '0', 'ab', 'xyz', 'a', 'b'],
  ...['é', '中', '😀', '\u2028', '\u2029', '\u0085', '\uFEFF', '\0', '\f', '\v'],
  // Fragments of é, 中 and 😀; overlongs, a surrogate, a code point above U+10FFFF, and bytes
  // that never occur in UTF-8.
  ...[[0xc3], [0xa9], [0xe4], [0xe4, 0xb8], [0xb8, 0xad], [0xf0], [0xf0, 0x9f], [0xf0, 0x9f, 0x98]],
  ...[[0x9f, 0x98, 0x80], [0x80], [0xbf], [0xe2, 0x80]],
  ...[[0xc0, 0xaf], [0xc1], [0xed, 0xa0, 0x80], [0xe0, 0x80, 0x80], [0xf4, 0x90, 0x80, 0x80]],
  ...[[0xf5], [0xf8], [0xfe], [0xff]],
].map((piece) => bytesOf(piece))

/** Random bytes dense in terminators, characters, fragments of characters and invalid bytes. */
export function randomSoup(random, maxPieces) {
  const count = random.int(0, maxPieces)
  return Buffer.concat(Array.from({ length: count }, () => random.pick(SOUP_PIECES)))
}
