// Which options each reader takes, so that a near miss is refused instead of ignored: a key that
// is almost one of the options (another case, or one edit away) would otherwise change the
// result silently (`ignorecase: true` matching case-sensitively), and so would an option of
// another reader (`lastLines` on readLines). Every other unknown key is ignored, as Node's fs
// ignores it: options objects are often shared with other calls.
'use strict'

const { invalidArgValue } = require('./errors')

const READ = ['encoding', 'start', 'end', 'highWaterMark', 'decompress', 'signal']
const MATCH = ['match', 'invert', 'ignoreCase']

/** The options each reader takes, by the name users call it with. */
const OPTIONS = {
  readLines: [...READ, ...MATCH, 'maxLineLength', 'share'],
  readLinesSync: [...READ, ...MATCH, 'maxLineLength', 'share'],
  // `maxLineLength: Infinity` (no limit), `invert: false` and `ignoreCase: false` are accepted
  // where lines are not made, and `decompress: false` where nothing is decompressed: their own
  // checks refuse other values (see options.js, ASKS_FOR_NOTHING).
  countLines: [...READ, ...MATCH, 'maxLineLength', 'share', 'threads'],
  readChunks: [...READ, ...MATCH, 'maxLineLength'],
  readLastLines: ['encoding', 'end', 'highWaterMark', 'decompress', 'signal', ...MATCH, 'maxLineLength'],
  followLines: ['encoding', 'start', 'lastLines', 'highWaterMark', 'decompress', 'signal', ...MATCH, 'maxLineLength'],
  readJsonLines: [...READ, ...MATCH, 'maxLineLength', 'share', 'onError', 'reviver'],
  readJsonLinesSync: [...READ, ...MATCH, 'maxLineLength', 'share', 'onError', 'reviver'],
  'batches()': ['numbered'],
  // Arrays of values: numbered, refused with its own message first, is not among them.
  "readJsonLines' batches()": [],
}

/**
 * fs.createReadStream's options that name what is read, in place of the path: ignored, they
 * would read the path instead, silently.
 */
const ELSEWHERE = {
  fd: 'readLines, countLines, readChunks and readJsonLines read a descriptor as a byte source, fs.createReadStream(null, { fd }) or a FileHandle',
  fs: 'fastlines reads the file itself',
}

/** Every option name, with the readers that take it. */
const TAKEN_BY = new Map()
for (const [reader, names] of Object.entries(OPTIONS)) {
  for (const name of names) TAKEN_BY.set(name, [...(TAKEN_BY.get(name) ?? []), reader])
}

/**
 * Refuses, with ERR_INVALID_ARG_VALUE, a key of `options` that `reader` does not take but that
 * is another reader's option, or almost an option (its own first). Keys set to undefined count
 * as absent, as in Node. Call it after the reader's own checks, whose messages are more precise
 * for the options they refuse.
 */
function checkOptionNames(options, reader) {
  if (options === null || typeof options !== 'object') return
  const own = OPTIONS[reader]
  for (const key of Object.keys(options)) {
    if (own.includes(key) || options[key] === undefined) continue
    if (Object.hasOwn(ELSEWHERE, key)) {
      throw invalidArgValue(`options.${key}`, options[key], `is not an option of ${reader}: ${ELSEWHERE[key]}`)
    }
    const takers = TAKEN_BY.get(key)
    if (takers !== undefined) {
      const take = takers.length === 1 ? 'takes' : 'take'
      throw invalidArgValue(
        `options.${key}`,
        options[key],
        `is not an option of ${reader} (${takers.join(' and ')} ${take} it)`,
      )
    }
    const meant =
      own.find((name) => isNearMiss(key, name)) ?? [...TAKEN_BY.keys()].find((name) => isNearMiss(key, name))
    if (meant !== undefined) {
      const whose = own.includes(meant) ? '' : `, an option of ${TAKEN_BY.get(meant).join(' and ')}`
      throw invalidArgValue(
        `options.${key}`,
        options[key],
        `is not an option of ${reader} (did you mean '${meant}'${whose}?)`,
      )
    }
  }
}

/**
 * A plain copy of `options`, if it is an object, in which each key was read once: its own
 * enumerable keys, as Node's fs copies options, and the option names it inherits. The checks
 * and the reader read the copy, so a getter or a Proxy cannot answer one check one way and the
 * next another (`start` absent for the check against `decompress`, then present to the read).
 */
function copyOptions(options) {
  if (options === null || typeof options !== 'object') return options
  const copy = {}
  for (const key of Object.keys(options)) copy[key] = options[key]
  for (const name of TAKEN_BY.keys()) {
    if (!Object.hasOwn(copy, name) && name in options) copy[name] = options[name]
  }
  return copy
}

/**
 * Whether `key` is almost `name`: the same but for case, or one edit away (a character added,
 * removed, replaced, or two neighbours swapped), for names long enough that one edit is a typo.
 */
function isNearMiss(key, name) {
  const a = key.toLowerCase()
  const b = name.toLowerCase()
  return a === b || (b.length >= 4 && editDistanceIsOne(a, b))
}

/** Whether `a` and `b` differ by exactly one insertion, deletion, substitution or transposition. */
function editDistanceIsOne(a, b) {
  if (Math.abs(a.length - b.length) > 1 || a === b) return false
  let i = 0
  while (i < a.length && i < b.length && a[i] === b[i]) i++
  if (a.length === b.length) {
    const swapped = a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2)
    return swapped || a.slice(i + 1) === b.slice(i + 1)
  }
  return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1)
}

module.exports = { checkOptionNames, copyOptions }
