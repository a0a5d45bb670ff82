// reader.lineNumber, reader.lineOffset, entries() and batches({ numbered: true }) on readLines,
// readLinesSync and followLines: the number (1-based, counting every line from where reading
// started, kept by `match` or not, as `grep -n` does) and the byte offset of the first byte (as
// `grep -b` does) of each line handed out, checked against a reference computed from the raw
// bytes: for every line-contract input (UTF-8 and Latin-1, every terminator, invalid UTF-8,
// read-boundary straddlers) at every small read size, with and without `match`, through line
// steps, entries, numbered batches and mixes of them; the getters read in any order and on some
// lines only; `start`; a multi-MB file; followers appended to, rotated and truncated; and the
// values kept after close(), break and abort.
import fs from 'node:fs'
import { inspect } from 'node:util'

import test from 'ava'

import { followLines, readLines, readLinesSync } from '../index.js'
import { makeTempDir } from './helpers/files.mjs'
import {
  EDGE_INPUTS,
  LARGER_READS,
  LATIN1_INPUTS,
  SMALL_READS,
  STRADDLERS,
  straddlerInputs,
} from './helpers/line-inputs.mjs'
import { byteRange, bytesOf, referenceLines, seededRandom, splitLineBytes } from './helpers/lines-reference.mjs'
import { lineEnds, take, until } from './helpers/tail.mjs'

const temp = makeTempDir(test)

const LF = 0x0a
const CR = 0x0d
const READS = [...SMALL_READS, ...LARGER_READS]

// ---- the reference -----------------------------------------------------------------------------

/**
 * Every line of `bytes`, cut as readline cuts them: `{ number, offset, end, text }`, with its
 * 1-based number, the offset of its first byte and the offset just past its terminator, both
 * counted from `base` (where `bytes` start in the file), and its text as readLines gives it.
 */
function referenceEntries(bytes, encoding = 'utf8', base = 0) {
  const texts = referenceLines(bytes, encoding)
  const entries = []
  let lineStart = 0
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] !== LF && bytes[i] !== CR) continue
    const end = bytes[i] === CR && bytes[i + 1] === LF ? i + 2 : i + 1
    entries.push({ offset: base + lineStart, end: base + end })
    lineStart = end
    i = end - 1
  }
  if (lineStart < bytes.length) entries.push({ offset: base + lineStart, end: base + bytes.length })
  if (entries.length !== texts.length) throw new Error('the reference splitters disagree')
  return entries.map((entry, i) => ({ number: i + 1, ...entry, text: texts[i] }))
}

/** Lowercases ASCII letters only: `ignoreCase` as `grep -i` in the C locale. */
const asciiLower = (text) => text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase())

/** Swaps the case of ASCII letters only. */
const flipAsciiCase = (text) =>
  text.replace(/[A-Za-z]/g, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()))

/** Whether a reader with these match options keeps `line` (see MatchOptions in index.d.ts). */
function keeps(line, { match, invert = false, ignoreCase = false }) {
  if (match === undefined) return true
  const fold = ignoreCase ? asciiLower : (text) => text
  const found = (typeof match === 'string' ? [match] : match).some((needle) => fold(line).includes(fold(needle)))
  return found !== invert
}

/** The entries a reader with `options` hands out: the kept ones, with their own numbers and offsets. */
const kept = (entries, options) => entries.filter((entry) => keeps(entry.text, options))

/**
 * A string that some lines contain and others do not (as near half of them as can be), taken
 * from the lines themselves: one character, the U+FFFD of an invalid sequence included.
 */
function splittingNeedle(entries) {
  const candidates = [...new Set(entries.flatMap((entry) => [...entry.text]))]
  let best = 'a'
  let bestDistance = Infinity
  for (const candidate of candidates) {
    const count = entries.filter((entry) => entry.text.includes(candidate)).length
    if (count === 0 || count === entries.length) continue
    const distance = Math.abs(count * 2 - entries.length)
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance]
  }
  return best
}

/** [name, match options]: none, a match keeping some lines, its inverse, and a case-blind one. */
function matchVariants(entries) {
  const needle = splittingNeedle(entries)
  return [
    ['no match', {}],
    [`match ${JSON.stringify(needle)}`, { match: needle }],
    [`invert ${JSON.stringify(needle)}`, { match: needle, invert: true }],
    [
      `ignoreCase ${JSON.stringify(flipAsciiCase(needle))}`,
      { match: [flipAsciiCase(needle), 'never\nmatches'], ignoreCase: true },
    ],
  ]
}

// ---- comparing runs with the reference --------------------------------------------------------

/** An item field a step does not report (a line step's number, say); any value passes. */
const NOT_REPORTED = Symbol('not reported')

const show = (value) => inspect(value, { breakLength: Infinity, depth: 4 })

/** Where `actual` first differs from `expected` (nested arrays of primitives), or null. */
function firstDifference(actual, expected, where = '') {
  if (actual === NOT_REPORTED) return null
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${where || 'value'}: expected ${show(expected)}, got ${show(actual)}`
    for (let i = 0; i < Math.max(actual.length, expected.length); i++) {
      if (i >= actual.length) return `${where}[${i}]: missing, expected ${show(expected[i])}`
      if (i >= expected.length) return `${where}[${i}]: unexpected ${show(actual[i])}`
      const difference = firstDifference(actual[i], expected[i], `${where}[${i}]`)
      if (difference !== null) return difference
    }
    return null
  }
  return Object.is(actual, expected) ? null : `${where || 'value'}: expected ${show(expected)}, got ${show(actual)}`
}

/**
 * Gathers the comparisons of a test (thousands of runs) and reports them as one assertion that
 * lists the first failures in full; at least one comparison must have been made.
 */
class Checks {
  failures = []
  compared = 0

  same(actual, expected, context) {
    this.compared++
    const difference = firstDifference(actual, expected)
    if (difference === null) return
    const whole = `\n    got:      ${show(actual)}\n    expected: ${show(expected)}`
    this.failures.push(`${context}\n    ${difference}${whole.length < 600 ? whole : ''}`)
  }

  true(condition, context) {
    this.compared++
    if (!condition) this.failures.push(context)
  }

  report(t) {
    t.true(this.compared > 0, 'nothing was compared')
    t.deepEqual(this.failures.slice(0, 12), [], `${this.failures.length} of ${this.compared} comparisons failed`)
  }
}

function hex(bytes) {
  if (bytes.length === 0) return '(empty)'
  const text = Buffer.from(bytes).toString('hex')
  return text.length > 160 ? `${text.slice(0, 160)}… (${bytes.length} bytes)` : text
}

/** [number, offset, position] after a step, as the reader's getters give them. */
const gettersOf = (reader) => [reader.lineNumber, reader.lineOffset, reader.position]

/** The getters' values once `count` of `expected` entries were handed out, from `start`. */
function expectedState(expected, count, start) {
  if (count === 0) return [0, undefined, start]
  const { number, offset, end } = expected[count - 1]
  return [number, offset, end]
}

/**
 * Checks a run (see the drivers) against the `expected` entries: every item handed out, the
 * getters before the first step, after each step and after the end.
 */
function checkRun(checks, run, expected, start, context) {
  for (const problem of run.problems) checks.true(false, `${context}\n    ${problem}`)
  checks.same(
    run.items,
    expected.map(({ text, number, offset }) => [text, number, offset]),
    `${context} (lines, numbers, offsets)`,
  )
  checks.same(
    run.states,
    run.states.map(([count]) => [count, ...expectedState(expected, Math.min(count, expected.length), start)]),
    `${context} (lineNumber, lineOffset, position after each step)`,
  )
}

// ---- driving a reader ------------------------------------------------------------------------
//
// A driver steps a reader to its end (or for `limit` lines) one way and returns
// `{ items: [[line, number, offset]], states: [[count, lineNumber, lineOffset, position]], problems }`:
// what the steps handed out, and the getters before the first step, after each step and after
// the end. The same drivers serve the async and the sync readers (awaiting a sync step's result
// changes nothing).

function newRun(reader) {
  return { items: [], states: [[0, ...gettersOf(reader)]], problems: [] }
}

function afterStep(run, reader) {
  run.states.push([run.items.length, ...gettersOf(reader)])
}

async function finish(run, reader, sawEnd) {
  afterStep(run, reader)
  if (sawEnd) {
    const again = await reader.next()
    if (!again.done) run.problems.push(`a step after the end gave ${show(again)}`)
    afterStep(run, reader)
  }
  return run
}

/** Checks a numbered batch's shape; gives its lines as items. */
function numberedItems(run, batch) {
  const { lines, lineNumbers, offsets } = batch ?? {}
  if (
    !Array.isArray(lines) ||
    lines.length === 0 ||
    !(lineNumbers instanceof Float64Array) ||
    !(offsets instanceof Float64Array) ||
    lineNumbers.length !== lines.length ||
    offsets.length !== lines.length
  ) {
    run.problems.push(`not a non-empty NumberedBatch: ${show(batch)}`)
  }
  return (lines ?? []).map((line, i) => [line, lineNumbers?.[i], offsets?.[i]])
}

function plainItems(run, batch) {
  if (!Array.isArray(batch) || batch.length === 0 || !batch.every((line) => typeof line === 'string')) {
    run.problems.push(`not a non-empty array of lines: ${show(batch)}`)
    return []
  }
  return batch.map((line) => [line, NOT_REPORTED, NOT_REPORTED])
}

function entryItem(run, entry) {
  if (!Array.isArray(entry) || entry.length !== 2 || typeof entry[0] !== 'number' || typeof entry[1] !== 'string') {
    run.problems.push(`not a [lineNumber, line] entry: ${show(entry)}`)
  }
  return [entry?.[1], entry?.[0], NOT_REPORTED]
}

const DRIVERS = {
  /** One line per step, the getters read after each. */
  async lines(reader, { limit = Infinity } = {}) {
    const run = newRun(reader)
    while (run.items.length < limit) {
      const step = await reader.next()
      if (step.done) return finish(run, reader, true)
      run.items.push([step.value, reader.lineNumber, reader.lineOffset])
      afterStep(run, reader)
    }
    return finish(run, reader, false)
  },

  async entries(reader, { limit = Infinity } = {}) {
    const run = newRun(reader)
    const entries = reader.entries()
    while (run.items.length < limit) {
      const step = await entries.next()
      if (step.done) return finish(run, reader, true)
      run.items.push(entryItem(run, step.value))
      afterStep(run, reader)
    }
    return finish(run, reader, false)
  },

  async numbered(reader, { limit = Infinity } = {}) {
    const run = newRun(reader)
    const batches = reader.batches({ numbered: true })
    while (run.items.length < limit) {
      const step = await batches.next()
      if (step.done) return finish(run, reader, true)
      run.items.push(...numberedItems(run, step.value))
      afterStep(run, reader)
    }
    return finish(run, reader, false)
  },

  /** Line steps, entries, numbered and plain batches on one reader, in a seeded random order. */
  async mixed(reader, { seed = 1 } = {}) {
    const random = seededRandom(seed)
    const run = newRun(reader)
    const views = {
      entries: reader.entries(),
      numbered: reader.batches({ numbered: true }),
      plain: reader.batches(),
      unnumbered: reader.batches({ numbered: false }),
    }
    for (;;) {
      const kind = random.pick(['line', 'line', 'entries', 'numbered', 'plain', 'unnumbered'])
      const step = await (kind === 'line' ? reader : views[kind]).next()
      if (step.done) return finish(run, reader, true)
      if (kind === 'line') run.items.push([step.value, NOT_REPORTED, NOT_REPORTED])
      else if (kind === 'entries') run.items.push(entryItem(run, step.value))
      else if (kind === 'numbered') run.items.push(...numberedItems(run, step.value))
      else run.items.push(...plainItems(run, step.value))
      afterStep(run, reader)
    }
  },
}

// ---- the inputs --------------------------------------------------------------------------------

/** Files every line has one terminator in, so that batches are measured from their text. */
const UNIFORM_INPUTS = [
  ['uniform LF, multi-byte', bytesOf('é中😀 a\nb é\n\n中中\n😀\nend\n'), 'utf8'],
  ['uniform CRLF, multi-byte', bytesOf('é中😀 a\r\nb é\r\n\r\n中中\r\n😀\r\nend\r\n'), 'utf8'],
  ['uniform CRLF, no final terminator', bytesOf('ab\r\ncd\r\n\r\nef'), 'utf8'],
  ['a valid U+FFFD, uniform LF', bytesOf('\uFFFDa\nb\uFFFD\n\uFEFFc\n'), 'utf8'],
  ['ASCII letters in both cases', bytesOf('Error one\nwarn\r\nERROR two\nerror\rOK\nfine\n'), 'utf8'],
  [
    'lines longer than the small reads',
    bytesOf('x'.repeat(37), '\r\n', 'é'.repeat(20), '\n', '中'.repeat(9), '\rz'),
    'utf8',
  ],
  ['uniform CRLF, Latin-1', bytesOf([0xe9], 'a\r\n', [0xff], '\r\n\r\n', [0x80, 0x41]), 'latin1'],
  ['uniform LF, Latin-1', bytesOf([0xe9, 0xc9], 'a\n', [0xff], '\n\n', [0x80, 0x41], '\n'), 'latin1'],
]

/** [name, bytes, encoding] of every line-contract input, each written to its own file. */
const INPUTS = [
  ...EDGE_INPUTS.map(([name, bytes]) => [name, bytes, 'utf8']),
  ...LATIN1_INPUTS.map(([name, bytes]) => [name, bytes, 'latin1']),
  ...UNIFORM_INPUTS,
].map(([name, bytes, encoding]) => {
  const entries = referenceEntries(bytes, encoding)
  return { name, bytes, encoding, entries, variants: matchVariants(entries), file: temp.file(bytes) }
})

/** The straddler inputs: each token at every offset of a read. */
const STRADDLER_INPUTS = STRADDLERS.flatMap(([token, bytes]) =>
  straddlerInputs(bytesOf(bytes)).map((input, i) => ({ name: `straddler ${token} #${i}`, bytes: input })),
).map(({ name, bytes }) => {
  const entries = referenceEntries(bytes, 'utf8')
  return { name, bytes, encoding: 'utf8', entries, variants: matchVariants(entries), file: temp.file(bytes) }
})

test('the reference agrees with the reference splitters and lineEnds', (t) => {
  for (const { name, bytes, encoding, entries } of [...INPUTS, ...STRADDLER_INPUTS]) {
    t.deepEqual(
      entries.map(({ offset, end }) => Buffer.from(bytes.subarray(offset, end))),
      splitLineBytes(bytes).map((line) => {
        const offset = line.byteOffset - bytes.byteOffset
        return Buffer.from(bytes.subarray(offset, lineEnds(bytes).find((end) => end > offset) ?? bytes.length))
      }),
      name,
    )
    t.deepEqual(
      entries.map(({ end }) => end),
      lineEnds(bytes),
      name,
    )
    t.deepEqual(
      entries.map(({ text }) => text),
      referenceLines(bytes, encoding),
      name,
    )
    t.deepEqual(
      entries.map(({ number }) => number),
      entries.map((_, i) => i + 1),
      name,
    )
  }
  t.deepEqual(
    referenceEntries(bytesOf('a\r\nb\rc\n\nd', [0xc3])).map(({ number, offset, end, text }) => [
      number,
      offset,
      end,
      text,
    ]),
    [
      [1, 0, 3, 'a'],
      [2, 3, 5, 'b'],
      [3, 5, 7, 'c'],
      [4, 7, 8, ''],
      [5, 8, 10, 'd\uFFFD'],
    ],
  )
  t.deepEqual(referenceEntries(bytesOf('')), [])
  // The variants keep some lines and leave others wherever the lines differ.
  const { entries } = INPUTS.find(({ name }) => name === 'ASCII letters in both cases')
  for (const [name, options] of matchVariants(entries).slice(1)) {
    const count = kept(entries, options).length
    t.true(count > 0 && count < entries.length, name)
  }
  t.true(keeps('ERROR', { match: 'error', ignoreCase: true }))
  t.false(keeps('É', { match: 'é', ignoreCase: true }))
  t.false(keeps('a\nb', { match: 'zz' }))
  t.true(keeps('abc', { match: ['x', 'b'] }))
  t.false(keeps('abc', { match: ['x', 'b'], invert: true }))
})

// ---- every input, every read size, every way of stepping ----------------------------------------

const READERS = {
  readLines: (file, options) => readLines(file, options),
  readLinesSync: (file, options) => readLinesSync(file, options),
}

for (const [readerName, open] of Object.entries(READERS)) {
  for (const driver of Object.keys(DRIVERS)) {
    test(`${readerName}, ${driver}: numbers and offsets of every line-contract input, every read size, with and without match`, async (t) => {
      const checks = new Checks()
      for (const { name, bytes, encoding, entries, variants, file } of INPUTS) {
        for (const highWaterMark of READS) {
          for (const [variantName, match] of variants) {
            const options = { encoding, highWaterMark, ...match }
            const run = await DRIVERS[driver](open(file, options), { seed: highWaterMark ?? 0 })
            const context = `${readerName} ${driver}: ${name} ${hex(bytes)} ${encoding} hwm=${highWaterMark} ${variantName}`
            checkRun(checks, run, kept(entries, match), 0, context)
          }
        }
      }
      checks.report(t)
    })
  }
}

test('the straddlers: a character or terminator at every offset of a read', async (t) => {
  const checks = new Checks()
  for (const { name, bytes, entries, variants, file } of STRADDLER_INPUTS) {
    for (const highWaterMark of [2, 3, 5, 7, 16]) {
      for (const [variantName, match] of variants.slice(0, 3)) {
        const options = { highWaterMark, ...match }
        const expected = kept(entries, match)
        const context = `${name} ${hex(bytes)} hwm=${highWaterMark} ${variantName}`
        checkRun(checks, await DRIVERS.lines(readLines(file, options)), expected, 0, `readLines lines: ${context}`)
        checkRun(
          checks,
          await DRIVERS.numbered(readLines(file, options)),
          expected,
          0,
          `readLines numbered: ${context}`,
        )
        checkRun(checks, await DRIVERS.entries(readLinesSync(file, options)), expected, 0, `sync entries: ${context}`)
      }
    }
  }
  checks.report(t)
})

test('fs.read at lineOffset reads the line; each line ends where the next starts', async (t) => {
  const checks = new Checks()
  const utf8 = new TextDecoder('utf-8', { ignoreBOM: true })
  for (const { name, bytes, encoding, file } of [...INPUTS, ...STRADDLER_INPUTS.slice(0, 90)]) {
    const fd = fs.openSync(file, 'r')
    try {
      for (const highWaterMark of [1, 4, undefined]) {
        for (const [readerName, open] of Object.entries(READERS)) {
          const reader = open(file, { encoding, highWaterMark })
          const context = `${readerName}: ${name} ${hex(bytes)} hwm=${highWaterMark}`
          let previousEnd = 0
          let count = 0
          for await (const line of reader) {
            const { lineOffset, position } = reader
            checks.same(lineOffset, previousEnd, `${context}: line ${count + 1} starts where the previous ended`)
            const raw = Buffer.alloc(Math.max(0, position - lineOffset))
            fs.readSync(fd, raw, 0, raw.length, lineOffset)
            let text = raw
            if (text.at(-1) === LF) text = text.subarray(0, -1)
            if (text.at(-1) === CR) text = text.subarray(0, -1)
            const decoded = encoding === 'latin1' ? text.toString('latin1') : utf8.decode(text)
            checks.same(decoded, line, `${context}: the bytes at line ${count + 1}'s offset`)
            previousEnd = position
            count++
          }
          checks.same(previousEnd, bytes.length, `${context}: the last line ends at the end of the file`)
        }
      }
    } finally {
      fs.closeSync(fd)
    }
  }
  checks.report(t)
})

// ---- the getters read in any order, or only on some lines --------------------------------------

/** [name, which getters to read after line `i` (0-based), in order]. */
const READING_PATTERNS = [
  ['lineOffset then position', () => ['lineOffset', 'position']],
  ['position then lineOffset', () => ['position', 'lineOffset']],
  [
    'each several times, interleaved',
    () => ['position', 'lineOffset', 'position', 'lineNumber', 'lineOffset', 'lineOffset', 'position'],
  ],
  ['lineOffset on every 3rd line only', (i) => (i % 3 === 2 ? ['lineOffset'] : [])],
  ['position on every 3rd line only', (i) => (i % 3 === 1 ? ['position'] : [])],
  ['lineNumber on every 4th line only', (i) => (i % 4 === 3 ? ['lineNumber'] : [])],
  ['lineOffset on odd lines, position on even ones', (i) => (i % 2 === 1 ? ['lineOffset'] : ['position'])],
  ['all three, every 5th line, position first', (i) => (i % 5 === 4 ? ['position', 'lineNumber', 'lineOffset'] : [])],
  ['only after the last line', (i, count) => (i === count - 1 ? ['lineOffset', 'position', 'lineNumber'] : [])],
]

function expectedGetter(expected, i, getter) {
  const { number, offset, end } = expected[i]
  return { lineNumber: number, lineOffset: offset, position: end }[getter]
}

test('the getters read in any order, repeatedly, or on some lines only, give the same values', async (t) => {
  const checks = new Checks()
  for (const { name, bytes, encoding, entries, variants, file } of INPUTS) {
    for (const highWaterMark of [1, 2, 3, 5, 8, 13, undefined]) {
      for (const [variantName, match] of variants.slice(0, 2)) {
        const expected = kept(entries, match)
        for (const [patternName, getters] of READING_PATTERNS) {
          for (const [readerName, open] of Object.entries(READERS)) {
            const reader = open(file, { encoding, highWaterMark, ...match })
            const context = `${readerName}: ${name} ${hex(bytes)} hwm=${highWaterMark} ${variantName}, ${patternName}`
            const got = []
            const wanted = []
            let i = 0
            for await (const line of reader) {
              got.push(line)
              wanted.push(expected[i]?.text)
              for (const getter of getters(i, expected.length)) {
                got.push(`${getter}=${reader[getter]}`)
                wanted.push(`${getter}=${i < expected.length ? expectedGetter(expected, i, getter) : '?'}`)
              }
              i++
            }
            checks.same(got, expected.length === i ? wanted : [...wanted, '(line count)'], context)
          }
        }
      }
    }
  }
  checks.report(t)
})

test('the getters read in a random order after random steps of every kind', async (t) => {
  const checks = new Checks()
  const GETTERS = ['lineNumber', 'lineOffset', 'position']
  for (const { name, bytes, encoding, entries, variants, file } of INPUTS) {
    for (const highWaterMark of [1, 3, 7, undefined]) {
      for (const [variantName, match] of variants.slice(0, 3)) {
        const expected = kept(entries, match)
        for (const [readerName, open] of Object.entries(READERS)) {
          for (const seed of [1, 2, 3]) {
            const random = seededRandom(seed * 1000 + (highWaterMark ?? 0))
            const reader = open(file, { encoding, highWaterMark, ...match })
            const views = {
              entries: reader.entries(),
              numbered: reader.batches({ numbered: true }),
              plain: reader.batches(),
            }
            const context = `${readerName}: ${name} ${hex(bytes)} hwm=${highWaterMark} ${variantName} seed ${seed}`
            const got = []
            const wanted = []
            let count = 0
            for (;;) {
              const kind = random.pick(['line', 'entries', 'numbered', 'plain'])
              const step = await (kind === 'line' ? reader : views[kind]).next()
              if (step.done) break
              count += kind === 'line' || kind === 'entries' ? 1 : (step.value.lines ?? step.value).length
              for (let reads = random.int(0, 4); reads > 0; reads--) {
                const getter = random.pick(GETTERS)
                got.push(`after ${count} lines, ${getter}=${reader[getter]}`)
                const value = count <= expected.length ? expectedGetter(expected, count - 1, getter) : '?'
                wanted.push(`after ${count} lines, ${getter}=${value}`)
              }
            }
            checks.same([count, ...got], [expected.length, ...wanted], context)
          }
        }
      }
    }
  }
  checks.report(t)
})

// ---- start (and end) ----------------------------------------------------------------------------

test('start: the line at start is line 1, offsets are file offsets; at every start, end too', async (t) => {
  const checks = new Checks()
  const inputs = INPUTS.filter(({ name }) =>
    [
      'every terminator',
      'only terminators',
      'CR CRLF',
      'truncated sequences before terminators',
      '2-, 3- and 4-byte characters',
      'long and short lines, mixed terminators',
      'uniform CRLF, multi-byte',
      'ASCII letters in both cases',
      'high bytes between terminators',
      'uniform CRLF, Latin-1',
    ].includes(name),
  )
  t.is(inputs.length, 10)
  for (const { name, bytes, encoding, entries: all, file } of inputs) {
    for (let start = 0; start <= bytes.length + 1; start++) {
      for (const end of [undefined, start + 4, bytes.length - 2]) {
        if (end !== undefined && end < start) continue
        const entries = referenceEntries(byteRange(bytes, { start, end }), encoding, start)
        // Where start is a line start of the whole file, the lines from there are the file's own.
        const lineIndex = all.findIndex((entry) => entry.offset === start)
        if (lineIndex !== -1 && end === undefined) {
          checks.same(
            entries.map(({ offset, end: lineEnd, text }) => [offset, lineEnd, text]),
            all.slice(lineIndex).map(({ offset, end: lineEnd, text }) => [offset, lineEnd, text]),
            `the reference from line start ${start} of ${name}`,
          )
        }
        for (const [variantName, match] of matchVariants(entries).slice(0, 3)) {
          const expected = kept(entries, match)
          for (const highWaterMark of [1, 3, undefined]) {
            const options = { encoding, start, end, highWaterMark, ...match }
            const context = `${name} ${hex(bytes)} ${JSON.stringify(options)}`
            const runs = [
              ['readLines lines', await DRIVERS.lines(readLines(file, options))],
              ['readLines numbered', await DRIVERS.numbered(readLines(file, options))],
              ['readLinesSync entries', await DRIVERS.entries(readLinesSync(file, options))],
              ['readLinesSync mixed', await DRIVERS.mixed(readLinesSync(file, options), { seed: start })],
            ]
            for (const [how, run] of runs) checkRun(checks, run, expected, start, `${how}: ${context} ${variantName}`)
          }
        }
      }
    }
  }
  checks.report(t)
})

// ---- a large file ------------------------------------------------------------------------------

/**
 * About 4 MB of lines of random length, ASCII and multi-byte, in stretches of `\n` only, `\r\n`
 * only and mixed terminators (lone `\r` too), with a few invalid bytes in the mixed ones.
 */
function largeFile() {
  const random = seededRandom(12)
  const pieces = ['a', 'b', 'ERROR', 'error', ' ', '0', 'xyz', 'é', '中', '😀', 'Ω']
  const parts = []
  let size = 0
  while (size < 4 * 1024 * 1024) {
    const stretch = random.pick(['\n', '\r\n', 'mixed'])
    for (let lines = random.int(1, 2000); lines > 0; lines--) {
      let text = ''
      for (let pieceCount = random.int(0, 40); pieceCount > 0; pieceCount--) text += random.pick(pieces)
      let line = Buffer.from(text)
      if (stretch === 'mixed' && random() < 0.05) line = Buffer.concat([line, Buffer.from([0xe4, 0xb8])])
      const terminator = stretch === 'mixed' ? random.pick(['\n', '\r\n', '\r']) : stretch
      parts.push(line, Buffer.from(terminator))
      size += line.length + terminator.length
    }
  }
  parts.push(Buffer.from('the last line, unterminated'))
  return Buffer.concat(parts)
}

/** Compares long sequences, reporting only the first difference. */
function sameSequence(checks, actual, expected, context) {
  let index = 0
  while (index < Math.min(actual.length, expected.length) && Object.is(actual[index], expected[index])) index++
  if (index === actual.length && index === expected.length) return checks.same(true, true, context)
  checks.same(
    [`at ${index} of ${actual.length}:`, actual[index]],
    [`at ${index} of ${expected.length}:`, expected[index]],
    context,
  )
}

test('a multi-MB file: numbered batches and entries with match against the reference', async (t) => {
  const checks = new Checks()
  const bytes = largeFile()
  const file = temp.file(bytes, 'large.txt')
  const entries = referenceEntries(bytes)
  t.true(entries.length > 50_000, `${entries.length} lines`)
  const sequences = (list) => ({
    lines: list.map(({ text }) => text),
    numbers: list.map(({ number }) => number),
    offsets: list.map(({ offset }) => offset),
  })
  const compare = (got, expected, context) => {
    for (const key of ['lines', 'numbers', 'offsets'])
      sameSequence(checks, got[key], expected[key], `${context}: ${key}`)
  }

  for (const highWaterMark of [4095, undefined, 1024 * 1024]) {
    for (const [name, reader] of [
      ['readLines', readLines(file, { highWaterMark })],
      ['readLinesSync', readLinesSync(file, { highWaterMark })],
    ]) {
      const got = { lines: [], numbers: [], offsets: [] }
      let batches = 0
      for await (const batch of reader.batches({ numbered: true })) {
        got.lines.push(...batch.lines)
        got.numbers.push(...batch.lineNumbers)
        got.offsets.push(...batch.offsets)
        batches++
        checks.same(
          gettersOf(reader),
          expectedState(entries, got.lines.length, 0),
          `${name} hwm=${highWaterMark}: after batch ${batches}`,
        )
      }
      compare(got, sequences(entries), `${name} numbered batches hwm=${highWaterMark}`)
      checks.true(batches > 1, `${name} hwm=${highWaterMark}: more than one batch`)
    }
  }

  for (const [variant, match] of [
    ['match', { match: 'ERROR' }],
    ['match several, ignoreCase', { match: ['error', '😀Ω'], ignoreCase: true }],
    ['invert', { match: ['中', 'b'], invert: true }],
    ['match U+FFFD', { match: '\uFFFD' }],
  ]) {
    const expected = kept(entries, match)
    checks.true(expected.length > 100 && expected.length < entries.length, `${variant} keeps some lines`)
    for (const [name, reader] of [
      ['readLines', readLines(file, { highWaterMark: 7000, ...match })],
      ['readLinesSync', readLinesSync(file, match)],
    ]) {
      const got = { lines: [], numbers: [], offsets: [] }
      for await (const [number, line] of reader.entries()) {
        got.lines.push(line)
        got.numbers.push(number)
        // Every 7th line, where the line is: the getters agree with the entry.
        if (got.lines.length % 7 === 0) {
          const expectedEntry = expected[got.lines.length - 1]
          checks.same(
            [reader.lineNumber, reader.position, reader.lineOffset],
            [expectedEntry?.number, expectedEntry?.end, expectedEntry?.offset],
            `${name} entries ${variant}: the getters at line ${got.lines.length}`,
          )
          got.offsets.push(reader.lineOffset)
        }
      }
      const reference = sequences(expected)
      reference.offsets = reference.offsets.filter((_, i) => (i + 1) % 7 === 0)
      compare(got, reference, `${name} entries ${variant}`)
    }
  }
  checks.report(t)
})

// ---- followers ---------------------------------------------------------------------------------

/** Follower drivers: `count` lines, per line, as entries or as numbered batches. */
const FOLLOW_DRIVERS = ['lines', 'entries', 'numbered']

/**
 * Takes the lines `all.slice(from)` from a follower with `driver`, checking their text, numbers
 * and offsets, then the getters: those of `all`'s last line (or of none, if `all` is empty).
 */
async function takeChecked(t, reader, driver, all, from, context) {
  const expected = all.slice(from)
  const run = await DRIVERS[driver](reader, { limit: expected.length })
  t.deepEqual(run.problems, [], context)
  const items = run.items.map((item) => item.map((value) => (value === NOT_REPORTED ? '(not reported)' : value)))
  t.deepEqual(
    items,
    expected.map(({ text, number, offset }, i) => [
      text,
      number,
      items[i]?.[2] === '(not reported)' ? '(not reported)' : offset,
    ]),
    `${context}: lines, numbers, offsets`,
  )
  const last = all.at(-1)
  t.deepEqual(
    gettersOf(reader).slice(0, 2),
    last === undefined ? [0, undefined] : [last.number, last.offset],
    `${context}: lineNumber and lineOffset after the last line`,
  )
  if (last !== undefined) t.is(reader.position, last.end, `${context}: position after the last line`)
}

/** The `entries` shifted into a follower's count and file: numbers after `linesBefore`. */
const shifted = (entries, linesBefore) => entries.map((entry) => ({ ...entry, number: entry.number + linesBefore }))

const FOLLOW_VARIANTS = [
  ['no match', {}],
  ['match', { match: 'x' }],
  ['invert', { match: 'x', invert: true }],
]

for (const driver of FOLLOW_DRIVERS) {
  for (const [variantName, match] of FOLLOW_VARIANTS) {
    test(`followLines, ${driver}, ${variantName}: appended lines go on being numbered, and through a rename rotation`, async (t) => {
      const file = temp.path(`rotated-${driver}-${variantName.replace(' ', '-')}.log`)
      fs.writeFileSync(file, '')
      const reader = followLines(file, { start: 0, highWaterMark: 5, ...match })
      t.teardown(() => reader.close())
      t.is(reader.lineNumber, 0)
      t.is(reader.lineOffset, undefined)

      const chunks = ['one x\r\ntwo\n', 'x three é\rfour\n\n', '😀 x\r\n', 'lone\rx\r\n\r\ny\n']
      let content = Buffer.alloc(0)
      let handedOut = 0
      for (const [i, chunk] of chunks.entries()) {
        content = Buffer.concat([content, Buffer.from(chunk)])
        fs.appendFileSync(file, chunk)
        const expected = kept(referenceEntries(content), match)
        await takeChecked(t, reader, driver, expected, handedOut, `append ${i}`)
        handedOut = expected.length
      }

      // An unterminated line, read before the rename: the old file's last line.
      fs.appendFileSync(file, 'tail x')
      const oldContent = Buffer.concat([content, Buffer.from('tail x')])
      await until(() => reader.bytesRead === oldContent.length, 'the follower to read the unterminated line')
      fs.renameSync(file, `${file}.1`)
      const fresh = bytesOf('new x\r\nnew 二\n')
      fs.writeFileSync(file, fresh)
      const old = referenceEntries(oldContent)
      const expected = kept([...old, ...shifted(referenceEntries(fresh), old.length)], match)
      await takeChecked(t, reader, driver, expected, handedOut, 'after the rename')
      handedOut = expected.length

      fs.appendFileSync(file, 'more x\rand more\n')
      const newContent = Buffer.concat([fresh, Buffer.from('more x\rand more\n')])
      const after = kept([...old, ...shifted(referenceEntries(newContent), old.length)], match)
      await takeChecked(t, reader, driver, after, handedOut, 'appended to the new file')
      await reader.close()
      t.deepEqual(gettersOf(reader), [after.at(-1).number, after.at(-1).offset, after.at(-1).end], 'after close()')
    })
  }
}

for (const [variantName, match] of FOLLOW_VARIANTS) {
  test(`followLines, ${variantName}: after copytruncate numbers go on and offsets restart at 0`, async (t) => {
    const file = temp.path(`truncated-${variantName.replace(' ', '-')}.log`)
    fs.writeFileSync(file, '')
    const reader = followLines(file, { start: 0, ...match })
    t.teardown(() => reader.close())
    const fd = fs.openSync(file, 'a')
    t.teardown(() => fs.closeSync(fd))
    const before = bytesOf('line 1 x\nline 2\r\nline 3 é x\rline 4\n')
    fs.writeSync(fd, before)
    const old = referenceEntries(before)
    await takeChecked(t, reader, 'lines', kept(old, match), 0, 'before the truncation')
    fs.copyFileSync(file, `${file}.1`)
    fs.truncateSync(file, 0)
    // Fewer bytes than were read before: the truncation shows whenever the follower looks.
    const afterTruncation = bytesOf('x\r\nb\n')
    fs.writeSync(fd, afterTruncation)
    const expected = kept([...old, ...shifted(referenceEntries(afterTruncation), old.length)], match)
    await takeChecked(t, reader, 'entries', expected, kept(old, match).length, 'after the truncation')
    const more = bytesOf('more x\r\n')
    fs.writeSync(fd, more)
    const all = kept([...old, ...shifted(referenceEntries(Buffer.concat([afterTruncation, more])), old.length)], match)
    await takeChecked(t, reader, 'numbered', all, expected.length, 'appended after the truncation')
  })
}

test('followLines lastLines: the first line handed out is line 1, at its offset in the file', async (t) => {
  const bytes = bytesOf('l1\nl2\r\nl3\rl4 é\n\nl6\n')
  const entries = referenceEntries(bytes)
  for (const lastLines of [1, 3, 6, 10]) {
    for (const driver of FOLLOW_DRIVERS) {
      const file = temp.file(bytes)
      const reader = followLines(file, { lastLines })
      const tail = entries.slice(-lastLines)
      const linesBefore = entries.length - tail.length
      await takeChecked(t, reader, driver, shifted(tail, -linesBefore), 0, `lastLines=${lastLines} ${driver}`)
      fs.appendFileSync(file, 'appended\r\n')
      const all = referenceEntries(bytesOf(bytes, 'appended\r\n')).slice(linesBefore)
      await takeChecked(
        t,
        reader,
        driver,
        shifted(all, -linesBefore),
        tail.length,
        `lastLines=${lastLines} ${driver}: appended`,
      )
      await reader.close()
    }
  }
})

test('followLines from the end or from start: the first line read is line 1, offsets are in the file', async (t) => {
  const bytes = bytesOf('old 1\nold 2 é\r\n')
  const file = temp.file(bytes)
  const fromEnd = followLines(file)
  t.teardown(() => fromEnd.close())
  t.is(fromEnd.lineNumber, 0)
  t.is(fromEnd.lineOffset, undefined)
  const first = fromEnd.next()
  await until(() => fromEnd.position !== undefined, 'the first step to open the file')
  t.is(fromEnd.lineNumber, 0)
  t.is(fromEnd.lineOffset, undefined)
  fs.appendFileSync(file, 'new 1\r\n')
  t.deepEqual(await first, { value: 'new 1', done: false })
  t.deepEqual(gettersOf(fromEnd), [1, bytes.length, bytes.length + 7])
  fs.appendFileSync(file, 'new 2\rnew 3\n')
  const all = referenceEntries(fs.readFileSync(file))
  await takeChecked(t, fromEnd, 'entries', shifted(all.slice(2), -2), 1, 'from the end')

  const now = fs.readFileSync(file)
  for (const start of [0, 6, 7, 15, 22]) {
    const reader = followLines(file, { start })
    // 15 is inside a \r\n: the follower skips its \n, the rest of the terminator before.
    const from = now[start - 1] === 0x0d && now[start] === 0x0a ? start + 1 : start
    const entries = referenceEntries(now.subarray(from), 'utf8', from)
    t.is(reader.lineNumber, 0)
    await takeChecked(t, reader, 'lines', entries, 0, `start=${start}`)
    await reader.close()
  }
})

// ---- close, break and abort keep the last line's values ------------------------------------------

/** Lets the event loop turn a few times: read-ahead and native callbacks get to run. */
async function turns(count = 5) {
  for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve))
}

/** 40 lines, every third with an `x`, some with multi-byte characters, `\n`, `\r\n` and `\r` in turn. */
const STOP_FILE = Array.from(
  { length: 40 },
  (_, i) => `line ${i}${i % 3 === 0 ? ' x' : ''}${'é'.repeat(i % 4)}${['\n', '\r\n', '\r'][i % 3]}`,
).join('')

test('after break at every line, lineNumber, lineOffset and position still describe that line', async (t) => {
  const checks = new Checks()
  const file = temp.file(STOP_FILE)
  const entries = referenceEntries(Buffer.from(STOP_FILE))
  for (const [variantName, match] of FOLLOW_VARIANTS) {
    const expected = kept(entries, match)
    for (const highWaterMark of [7, 64, undefined]) {
      for (let k = 1; k <= expected.length; k++) {
        const context = `${variantName} hwm=${highWaterMark} break at line ${k}`
        const want = expectedState(expected, k, 0)
        for (const readGetters of [false, true]) {
          // Per line, reading the getters on each line or never before the break.
          const reader = readLines(file, { highWaterMark, ...match })
          let count = 0
          for await (const line of reader) {
            if (readGetters) gettersOf(reader)
            if (++count === k) break
          }
          checks.same(gettersOf(reader), want, `readLines ${context}, getters read: ${readGetters}`)
          await turns()
          checks.same(gettersOf(reader), want, `readLines ${context}, later`)
          checks.true((await reader.next()).done, `readLines ${context}: done after break`)
          checks.same(gettersOf(reader), want, `readLines ${context}, after a step past the break`)

          const sync = readLinesSync(file, { highWaterMark, ...match })
          let syncCount = 0
          for (const line of sync) {
            if (readGetters) gettersOf(sync)
            if (++syncCount === k) break
          }
          checks.same(gettersOf(sync), want, `readLinesSync ${context}, getters read: ${readGetters}`)
          checks.true(sync.next().done, `readLinesSync ${context}: done after break`)
          checks.same(gettersOf(sync), want, `readLinesSync ${context}, after a step past the break`)
        }

        // From entries(): the entry's number is the line's.
        const viaEntries = readLines(file, { highWaterMark, ...match })
        for await (const [number] of viaEntries.entries()) if (number >= expected[k - 1].number) break
        await turns()
        checks.same(gettersOf(viaEntries), want, `readLines entries ${context}`)
        checks.true((await viaEntries.next()).done, `readLines entries ${context}: break closed the reader`)
        checks.same(gettersOf(viaEntries), want, `readLines entries ${context}, after a step past the break`)

        // close() with a step pending.
        const closing = readLines(file, { highWaterMark, ...match })
        await take(closing, k)
        const pending = closing.next()
        await closing.close()
        const result = await pending
        const wantAfterPending = result.done ? want : expectedState(expected, k + 1, 0)
        await turns()
        checks.same(gettersOf(closing), wantAfterPending, `readLines close() with a step pending ${context}`)
      }
      // From numbered batches: the batch's last line.
      let stopAfter = 1
      for (let stop = 1; stop <= 3; stop++) {
        const reader = readLines(file, { highWaterMark, ...match })
        let count = 0
        let batchIndex = 0
        for await (const batch of reader.batches({ numbered: true })) {
          count += batch.lines.length
          if (++batchIndex === stopAfter) break
        }
        await turns()
        checks.same(
          gettersOf(reader),
          expectedState(expected, count, 0),
          `numbered batches ${variantName} hwm=${highWaterMark} break after batch ${stopAfter}`,
        )
        const after = await reader.batches({ numbered: true }).next()
        checks.true(after.done, `numbered batches ${variantName} hwm=${highWaterMark}: break closed the reader`)
        checks.same(
          gettersOf(reader),
          expectedState(expected, count, 0),
          `numbered batches ${variantName} hwm=${highWaterMark} break after batch ${stopAfter}, after a step past it`,
        )
        stopAfter *= 2
      }
    }
  }
  checks.report(t)
})

test('after an abort, lineNumber, lineOffset and position still describe the last line handed out', async (t) => {
  const checks = new Checks()
  const file = temp.file(STOP_FILE)
  const entries = referenceEntries(Buffer.from(STOP_FILE))
  for (const [variantName, match] of FOLLOW_VARIANTS) {
    const expected = kept(entries, match)
    for (const highWaterMark of [7, undefined]) {
      for (let k = 1; k <= expected.length; k += 3) {
        const context = `${variantName} hwm=${highWaterMark} abort after line ${k}`
        const want = expectedState(expected, k, 0)
        const controller = new AbortController()
        const reader = readLines(file, { highWaterMark, signal: controller.signal, ...match })
        await take(reader, k)
        controller.abort()
        const step = await reader.next().then(
          (result) => `resolved ${show(result)}`,
          (error) => error.name,
        )
        checks.same(step, 'AbortError', `readLines ${context}: the next step`)
        await turns()
        checks.same(gettersOf(reader), want, `readLines ${context}`)

        const syncController = new AbortController()
        const sync = readLinesSync(file, { highWaterMark, signal: syncController.signal, ...match })
        for (let i = 0; i < k; i++) sync.next()
        syncController.abort()
        let syncStep
        try {
          syncStep = `returned ${show(sync.next())}`
        } catch (error) {
          syncStep = error.name
        }
        checks.same(syncStep, 'AbortError', `readLinesSync ${context}: the next step`)
        checks.same(gettersOf(sync), want, `readLinesSync ${context}`)
      }
    }
  }
  checks.report(t)
})

test('a follower closed or aborted while a step waits keeps the last line handed out', async (t) => {
  for (const [variantName, match] of FOLLOW_VARIANTS) {
    for (const how of ['close', 'abort', 'break']) {
      const content = bytesOf('a x\r\nb\nc x\r')
      const file = temp.file(content)
      const controller = new AbortController()
      const reader = followLines(file, { start: 0, signal: controller.signal, ...match })
      // 'c x\r' may yet be 'c x\r\n': it waits for the next byte.
      const expected = kept(referenceEntries(content).slice(0, 2), match)
      const want = expectedState(expected, expected.length, 0)
      const context = `${variantName}, ${how}`
      if (how === 'break') {
        let count = 0
        if (expected.length > 0) {
          for await (const line of reader) if (++count === expected.length) break
        } else {
          await reader.close()
        }
      } else {
        await take(reader, expected.length)
        const pending = reader.next()
        await until(() => reader.bytesRead === content.length, 'the follower to read the whole file')
        if (how === 'close') {
          await reader.close()
          t.deepEqual(await pending, { value: undefined, done: true }, context)
        } else {
          controller.abort()
          await t.throwsAsync(pending, { name: 'AbortError' }, context)
        }
      }
      await turns()
      t.deepEqual(gettersOf(reader), want, context)
      fs.appendFileSync(file, '\nmore x\n')
      await turns()
      t.deepEqual(gettersOf(reader), want, `${context}, after more was written`)
      await reader.close()
    }
  }
})

test('closed or aborted while a read is under way: the getters, never read before, describe the last line handed out', async (t) => {
  const checks = new Checks()
  const bytes = Buffer.from(STOP_FILE.repeat(20))
  const file = temp.file(bytes)
  const entries = referenceEntries(bytes)
  for (let trial = 0; trial < 240; trial++) {
    const [variantName, match] = FOLLOW_VARIANTS[trial % 3]
    const expected = kept(entries, match)
    const how = trial % 2 === 0 ? 'close' : 'abort'
    const controller = new AbortController()
    const reader = readLines(file, { highWaterMark: 1 + (trial % 5), signal: controller.signal, ...match })
    const k = 1 + ((trial * 7) % 50)
    await take(reader, k)
    // No getter is read before the stop: where the line was is known only from what the
    // reader kept of it, whatever the native read under way brings meanwhile.
    const pending = reader.next().then(
      (result) => (result.done ? 'done' : result.value),
      (error) => error.name,
    )
    await turns(trial % 4)
    if (how === 'close') await reader.close()
    else controller.abort()
    const result = await pending
    await turns(3)
    const context = `${variantName} ${how} after line ${k}, trial ${trial}: the pending step gave ${show(result)}`
    const handedOut = result === 'done' || result === 'AbortError' ? k : k + 1
    if (handedOut === k + 1) checks.same(result, expected[k].text, `${context}: its line`)
    checks.same(gettersOf(reader), expectedState(expected, handedOut, 0), context)
  }
  // A follower stopped while what was just appended is being read (after a line: see the
  // 'a follower with start: position is start until its first line' for one stopped before it).
  for (let trial = 0; trial < 60; trial++) {
    const [variantName, match] = FOLLOW_VARIANTS[trial % 3]
    const how = trial % 2 === 0 ? 'close' : 'abort'
    const before = bytesOf('one x\r\ntwo\n')
    const appended = bytesOf('three x\nfour x\r\n')
    const file = temp.file(before)
    const controller = new AbortController()
    const reader = followLines(file, { start: 0, signal: controller.signal, ...match })
    const expected = kept(referenceEntries(Buffer.concat([before, appended])), match)
    const k = kept(referenceEntries(before), match).length
    await take(reader, k)
    const pending = reader.next().then(
      (result) => (result.done ? 'done' : result.value),
      (error) => error.name,
    )
    fs.appendFileSync(file, appended)
    await turns(trial % 4)
    if (how === 'close') await reader.close()
    else controller.abort()
    const result = await pending
    await turns(3)
    const context = `follower ${variantName} ${how}, trial ${trial}: the pending step gave ${show(result)}`
    const handedOut = result === 'done' || result === 'AbortError' ? k : k + 1
    if (handedOut === k + 1) checks.same(result, expected[k].text, `${context}: its line`)
    checks.same(gettersOf(reader), expectedState(expected, handedOut, 0), context)
  }
  checks.report(t)
})

test('steps of every kind taken without awaiting each other are numbered in order', async (t) => {
  const checks = new Checks()
  const file = temp.file(STOP_FILE)
  const entries = referenceEntries(Buffer.from(STOP_FILE))
  for (const [variantName, match] of FOLLOW_VARIANTS) {
    const expected = kept(entries, match)
    for (const highWaterMark of [5, 16, undefined]) {
      for (const seed of [1, 2, 3, 4]) {
        const random = seededRandom(seed)
        const reader = readLines(file, { highWaterMark, ...match })
        const views = {
          entries: reader.entries(),
          numbered: reader.batches({ numbered: true }),
          plain: reader.batches(),
        }
        const kinds = Array.from({ length: 60 }, () => random.pick(['line', 'entries', 'numbered', 'plain']))
        const steps = kinds.map((kind) => (kind === 'line' ? reader : views[kind]).next())
        const results = await Promise.all(steps)
        const run = { items: [], problems: [] }
        results.forEach(({ value, done }, i) => {
          if (done) return
          if (kinds[i] === 'line') run.items.push([value, NOT_REPORTED, NOT_REPORTED])
          else if (kinds[i] === 'entries') run.items.push(entryItem(run, value))
          else if (kinds[i] === 'numbered') run.items.push(...numberedItems(run, value))
          else run.items.push(...plainItems(run, value))
        })
        const context = `${variantName} hwm=${highWaterMark} seed ${seed} ${kinds.join(',')}`
        checks.same(run.problems, [], context)
        checks.same(
          run.items,
          expected.slice(0, run.items.length).map(({ text, number, offset }) => [text, number, offset]),
          context,
        )
        checks.same(gettersOf(reader), expectedState(expected, run.items.length, 0), `${context}: the getters`)
        await reader.close()
      }
    }
  }
  checks.report(t)
})

test('a line too long: the getters keep the last line before it', async (t) => {
  const bytes = bytesOf('a x\r\nbb\rccc x\n', 'L'.repeat(40), '\nd x\n')
  const file = temp.file(bytes)
  const entries = referenceEntries(bytes)
  for (const [variantName, match] of FOLLOW_VARIANTS) {
    const expected = kept(entries.slice(0, 3), match)
    const want = expectedState(expected, expected.length, 0)
    for (const highWaterMark of [1, 4, undefined]) {
      const options = { maxLineLength: 10, highWaterMark, ...match }
      const context = `${variantName} hwm=${highWaterMark}`
      const reader = readLines(file, options)
      const run = await DRIVERS.lines(reader, { limit: expected.length })
      checkRun({ same: (a, b, c) => t.deepEqual(a, b, c), true: (a, c) => t.true(a, c) }, run, expected, 0, context)
      await t.throwsAsync(reader.next(), { code: 'ERR_LINE_TOO_LONG' }, context)
      t.deepEqual(gettersOf(reader), want, context)
      const sync = readLinesSync(file, options)
      for (let i = 0; i < expected.length; i++) sync.next()
      t.throws(() => sync.next(), { code: 'ERR_LINE_TOO_LONG' }, `sync ${context}`)
      t.deepEqual(gettersOf(sync), want, `sync ${context}`)
    }
  }
})

test('match strings that can never match: no line, or with invert every line, numbered', async (t) => {
  const checks = new Checks()
  const bytes = bytesOf('a\r\n', [0xc4, 0x80], '\rb\n\nc')
  const file = temp.file(bytes)
  for (const encoding of ['utf8', 'latin1']) {
    const entries = referenceEntries(bytes, encoding)
    const needles = ['\n', '\r\n', 'b\n', '\r', ...(encoding === 'latin1' ? ['\u0100'] : [])]
    for (const needle of needles) {
      for (const invert of [false, true]) {
        const match = { match: needle, invert }
        const expected = kept(entries, match)
        checks.same(expected.length, invert ? entries.length : 0, `the reference: ${encoding} ${show(match)}`)
        for (const [readerName, open] of Object.entries(READERS)) {
          for (const driver of ['lines', 'numbered']) {
            const run = await DRIVERS[driver](open(file, { encoding, highWaterMark: 2, ...match }))
            checkRun(checks, run, expected, 0, `${readerName} ${driver}: ${encoding} ${show(match)}`)
          }
        }
      }
    }
  }
  checks.report(t)
})

test('followLines: a \\r\\n split across appends, and a \\r ending the old file before a rename', async (t) => {
  for (const driver of FOLLOW_DRIVERS) {
    const file = temp.path(`split-crlf-${driver}.log`)
    fs.writeFileSync(file, '')
    const reader = followLines(file, { start: 0 })
    t.teardown(() => reader.close())
    // A step waits (it opens the file) while the \r and the \n come in two appends.
    const first = takeChecked(t, reader, driver, referenceEntries(bytesOf('a\r\n')), 0, `${driver}: a\\r\\n`)
    fs.appendFileSync(file, 'a\r')
    await until(() => reader.bytesRead === 2, 'the follower to read a\\r')
    fs.appendFileSync(file, '\nbb\r')
    await first
    await until(() => reader.bytesRead === 6, 'the follower to read bb\\r')
    fs.renameSync(file, `${file}.1`)
    fs.writeFileSync(file, '\nc\n')
    const old = referenceEntries(bytesOf('a\r\nbb\r'))
    const all = [...old, ...shifted(referenceEntries(bytesOf('\nc\n')), old.length)]
    t.deepEqual(
      all.map(({ number, offset, end, text }) => [number, offset, end, text]),
      [
        [1, 0, 3, 'a'],
        [2, 3, 6, 'bb'],
        [3, 0, 1, ''],
        [4, 1, 3, 'c'],
      ],
    )
    await takeChecked(t, reader, driver, all, 1, `${driver}: after the rename`)
    await reader.close()
  }
})

test('the getters read while later steps are in flight describe the last line handed out (linesRead)', async (t) => {
  const checks = new Checks()
  const inputs = [
    ['two lines', bytesOf('a\nb\n')],
    ['four lines, three with x', bytesOf('a x\nb\nc x\nd x\n')],
    ['the stop file, 10 times', Buffer.from(STOP_FILE.repeat(10))],
  ].map(([name, bytes]) => ({ name, bytes, entries: referenceEntries(bytes), file: temp.file(bytes) }))
  for (const { name, bytes, entries, file } of inputs) {
    for (const [variantName, match] of FOLLOW_VARIANTS) {
      const expected = kept(entries, match)
      for (const highWaterMark of [2, 4, 16, 64, undefined]) {
        for (const [stepsName, kinds] of [
          ['line steps', ['line']],
          ['steps of every kind', ['line', 'entries', 'numbered', 'plain']],
        ]) {
          for (let trial = 0; trial < 3; trial++) {
            const random = seededRandom(trial + 1)
            const reader = readLines(file, { highWaterMark, ...match })
            const views = {
              entries: reader.entries(),
              numbered: reader.batches({ numbered: true }),
              plain: reader.batches(),
            }
            const stepKinds = Array.from({ length: expected.length + 1 }, () => random.pick(kinds))
            // Every step asked for at once; the getters are read only as each settles.
            const steps = stepKinds.map((kind) => (kind === 'line' ? reader : views[kind]).next())
            const got = []
            const wanted = []
            for (const [i, step] of steps.entries()) {
              await step
              const handedOut = reader.linesRead
              got.push([i, handedOut, ...gettersOf(reader)])
              wanted.push([i, handedOut, ...expectedState(expected, Math.min(handedOut, expected.length), 0)])
            }
            const context = `${name} ${hex(bytes)} ${variantName} hwm=${highWaterMark}, ${stepsName}, trial ${trial}: [step, linesRead, lineNumber, lineOffset, position] as each step settled`
            checks.same(got, wanted, context)
            await reader.close()
          }
        }
      }
    }
  }
  checks.report(t)
})

test('while the first step is under way, position is still start, lineNumber 0 and lineOffset undefined', async (t) => {
  const checks = new Checks()
  const bytes = bytesOf('one x\r\ntwo x\n')
  const file = temp.file(bytes)
  for (const start of [0, 3]) {
    for (const [variantName, match] of [...FOLLOW_VARIANTS, ['a match no line has', { match: 'zz' }]]) {
      const expected = kept(referenceEntries(bytes.subarray(start), 'utf8', start), match)
      for (let trial = 0; trial < 40; trial++) {
        const reader = readLines(file, { start, ...match })
        const step = reader.next()
        const during = gettersOf(reader)
        const result = await step
        const context = `readLines ${hex(bytes)} start=${start} ${variantName}, trial ${trial}`
        checks.same(
          during,
          [0, undefined, start],
          `${context}: [lineNumber, lineOffset, position] just after the first next()`,
        )
        checks.same(gettersOf(reader), expectedState(expected, result.done ? 0 : 1, start), `${context}: after it`)
        await reader.close()
      }
    }
  }
  checks.report(t)
})

test('a follower with start: position is start until its first line, also when closed before opening the file', async (t) => {
  const checks = new Checks()
  // No line is ever handed out: an unterminated line, or lines the match leaves out.
  for (const [content, match] of [
    ['partial', {}],
    ['one x\r\ntwo x\npartial', { match: 'zz' }],
  ]) {
    const file = temp.file(content)
    for (const start of [0, 3]) {
      for (let trial = 0; trial < 20; trial++) {
        const reader = followLines(file, { start, ...match })
        const context = `followLines ${JSON.stringify(content)} ${JSON.stringify({ start, ...match })}, trial ${trial}`
        // Asked before the first step or not: the first answer must not be what makes it right.
        if (trial % 2 === 1) checks.same(gettersOf(reader), [0, undefined, start], `${context}: before the first step`)
        const step = reader.next()
        checks.same(gettersOf(reader), [0, undefined, start], `${context}: just after the first next()`)
        await turns(trial % 4)
        checks.same(gettersOf(reader), [0, undefined, start], `${context}: ${trial % 4} turns later`)
        await reader.close()
        checks.same((await step).done, true, `${context}: the step ends`)
        checks.same(gettersOf(reader), [0, undefined, start], `${context}: after close()`)
      }
    }
  }
  checks.report(t)
})

// ---- batches() options --------------------------------------------------------------------------

test('batches() refuses options that are not an object, and a numbered that is not a boolean', async (t) => {
  const file = temp.file('a\nb\r\nc\n')
  const readers = [
    ['readLines', () => readLines(file)],
    ['readLinesSync', () => readLinesSync(file)],
    ['followLines', () => followLines(file, { start: 0 })],
  ]
  for (const [name, open] of readers) {
    const reader = open()
    for (const options of [5, 'numbered', true]) {
      t.throws(
        () => reader.batches(options),
        { instanceOf: TypeError, code: 'ERR_INVALID_ARG_TYPE' },
        `${name} ${show(options)}`,
      )
    }
    for (const numbered of ['yes', 1, 0, null, {}]) {
      t.throws(
        () => reader.batches({ numbered }),
        { instanceOf: TypeError, code: 'ERR_INVALID_ARG_TYPE', message: /numbered/ },
        `${name} numbered: ${show(numbered)}`,
      )
    }
    // A refused call takes nothing: the reader goes on from its first line.
    t.is(reader.lineNumber, 0)
    const first = await reader.batches({}).next()
    t.deepEqual(first.value, ['a', 'b', 'c'], name)
    t.deepEqual(gettersOf(reader), [3, 5, 7], name)
    await reader.close()
    const plainReader = open()
    const plain = await plainReader.batches({ numbered: false }).next()
    await plainReader.close()
    t.deepEqual(plain.value, ['a', 'b', 'c'], `${name} numbered: false`)
    const numberedReader = open()
    const numbered = await numberedReader.batches({ numbered: true }).next()
    await numberedReader.close()
    t.deepEqual(
      numbered.value,
      { lines: ['a', 'b', 'c'], lineNumbers: new Float64Array([1, 2, 3]), offsets: new Float64Array([0, 2, 5]) },
      `${name} numbered: true`,
    )
  }
})
