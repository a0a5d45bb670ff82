// A fingerprint of a run of lines, in order: the corpus generator takes it of the lines it writes,
// and each contender's warm-up run of the lines it reads (contenders.mjs), so that a reader that
// moves a line break, drops one line and doubles another, or reorders lines is caught where a
// count of lines and of their UTF-16 units is not. It mixes each line's length and three of its
// units (first, middle, last): a few ns a line, paid in the warm-up run only.

/** FNV-1a's 32-bit prime. */
const PRIME = 0x01000193

/** `hash` with `line` mixed in. Start from 0. */
export function mixLine(hash, line) {
  const n = line.length
  const h = Math.imul(hash ^ n, PRIME)
  if (n === 0) return h
  return Math.imul(h ^ line.charCodeAt(0) ^ (line.charCodeAt(n >> 1) << 8) ^ (line.charCodeAt(n - 1) << 16), PRIME)
}
