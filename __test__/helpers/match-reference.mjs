// The oracle for `match`, `invert` and `ignoreCase` (issue 12): a line is kept when one of the
// strings is in it as `line.includes(s)` tells it on the line readLines yields without `match`,
// with only A-Z folded to a-z under `ignoreCase`. Plus a seeded xorshift PRNG, byte soup biased
// to the bytes a native matcher can get wrong, and match strings drawn from a file's own text.
import { bytesOf } from './lines-reference.mjs'

/** Folds A-Z to a-z and nothing else: not 'É', not 'K' (U+212A), not '@' or '['. */
export const asciiLower = (text) => text.replace(/[A-Z]/g, (letter) => String.fromCharCode(letter.charCodeAt(0) | 0x20))

/** The strings of a `match` option, always as an array. */
export const matchStrings = (match) => (typeof match === 'string' ? [match] : match)

/** Whether `line` is kept under `{ match, invert, ignoreCase }`. */
export function lineMatches(line, { match, invert = false, ignoreCase = false }) {
  const fold = ignoreCase ? asciiLower : (text) => text
  const text = fold(line)
  const found = matchStrings(match).some((string) => text.includes(fold(string)))
  return found !== invert
}

/**
 * `[lineNumber, line]` of the lines of `lines` (all of a file's lines, in order) that the options
 * keep: the number is the line's 1-based place among all of them.
 */
export function referenceMatches(lines, options) {
  const kept = []
  lines.forEach((line, i) => {
    if (lineMatches(line, options)) kept.push([i + 1, line])
  })
  return kept
}

// Weighted by repetition: 'a', 'b', terminators and the bytes of 'é' (C3 A9) dominate; 0xFF and
// a lone 0x80 are never valid; 'A' and 'B' give ignoreCase something to fold; 0xC3 0x89 ('É')
// differs from 'é' only in bit 0x20 of its second byte.
const SOUP_BYTES = [
  ...[0x61, 0x61, 0x61, 0x61, 0x62, 0x62, 0x62, 0x62],
  ...[0x0a, 0x0a, 0x0a, 0x0d, 0x0d, 0x0d],
  ...[0xc3, 0xc3, 0xc3, 0xa9, 0xa9, 0xa9, 0xff, 0xff, 0x80, 0x80],
  ...[0x41, 0x42, 0x89, 0x20, 0x7a],
].map((byte) => [byte])

// Whole characters and fragments, less often: U+FFFD itself (EF BF BD), 中 and 😀 and their
// pieces, a surrogate, an overlong, CRLF.
const SOUP_PIECES = [
  [0xef, 0xbf, 0xbd],
  [0xe4, 0xb8, 0xad],
  [0xe4, 0xb8],
  [0xf0, 0x9f, 0x98, 0x80],
  [0xf0, 0x9f, 0x98],
  [0xed, 0xa0, 0x80],
  [0xc0, 0xaf],
  [0x0d, 0x0a],
]

/** `length` bytes or so of soup: mostly SOUP_BYTES, one draw in eight a whole piece. */
export function biasedSoup(random, length) {
  const parts = []
  let size = 0
  while (size < length) {
    const part = random() < 0.125 ? random.pick(SOUP_PIECES) : random.pick(SOUP_BYTES)
    parts.push(part)
    size += part.length
  }
  return bytesOf(...parts)
}

/** Splits a string into its code points (a surrogate pair stays whole). */
const codePoints = (text) => Array.from(text)

/**
 * A match string drawn from `lines` (a file's decoded lines): a run of 1 to 4 code points of a
 * non-empty line, or, when there is none, a string from `fallback`. Never empty.
 */
export function drawnString(random, lines, fallback = ['a', 'b', '\uFFFD']) {
  const texts = lines.filter((line) => line !== '')
  if (texts.length === 0) return random.pick(fallback)
  const points = codePoints(random.pick(texts))
  const length = random.int(1, Math.min(4, points.length))
  const from = random.int(0, points.length - length)
  return points.slice(from, from + length).join('')
}

/** `text` with each ASCII letter's case flipped at random: what ignoreCase must see through. */
export function scrambleCase(random, text) {
  return text.replace(/[A-Za-z]/g, (letter) =>
    random() < 0.5 ? letter : String.fromCharCode(letter.charCodeAt(0) ^ 0x20),
  )
}

/**
 * Random match options for a file whose decoded lines are `lines`: one to three strings, mostly
 * from its own text (so that some lines match and some do not), sometimes one that is not in
 * it; with invert and ignoreCase (and the strings' case scrambled) at random.
 */
export function randomMatchOptions(random, lines) {
  const count = random.int(1, 3)
  const strings = []
  for (let i = 0; i < count; i++) {
    strings.push(random() < 0.85 ? drawnString(random, lines) : random.pick(['zz', 'a\nb', '\r', 'AB', '\uFFFD\uFFFD']))
  }
  const options = { match: count === 1 && random() < 0.5 ? strings[0] : strings }
  if (random() < 0.25) options.invert = true
  if (random() < 0.3) {
    options.ignoreCase = true
    options.match = Array.isArray(options.match)
      ? options.match.map((string) => scrambleCase(random, string))
      : scrambleCase(random, options.match)
  }
  return options
}
