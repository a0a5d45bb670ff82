// match, invert and ignoreCase (issue 12), held to `line.includes(s)` on the lines readLines
// yields without them (helpers/match-reference.mjs): readLines per line and in batches,
// readLinesSync, countLines and readLastLines, on the line contract's inputs and read-boundary
// straddlers at every small read size, on seeded byte soup (UTF-8 and Latin-1), on needles cut
// by reads, and on an 8 MB log; line numbers lightly; maxLineLength, close, break, abort and fs
// errors with a match; followLines with a match; and the argument errors.
import fs from 'node:fs'
import { isDeepStrictEqual } from 'node:util'

import test from 'ava'

import {
  countLines,
  followLines,
  readChunks,
  readJsonLines,
  readJsonLinesSync,
  readLastLines,
  readLines,
  readLinesSync,
} from '../index.js'
import { isOpen, makeTempDir } from './helpers/files.mjs'
import {
  EDGE_INPUTS,
  EVERY_READ_SIZE,
  LATIN1_INPUTS,
  SMALL_READS,
  STRADDLERS,
  straddlerInputs,
} from './helpers/line-inputs.mjs'
import { byteRange, bytesOf, referenceLines, seededRandom, splitLineBytes } from './helpers/lines-reference.mjs'
import {
  asciiLower,
  biasedSoup,
  lineMatches,
  randomMatchOptions,
  referenceMatches,
} from './helpers/match-reference.mjs'
import { collect, settledLineCount, take, until } from './helpers/tail.mjs'

const SEED = Number(process.env.FASTLINES_SEED ?? 0x5ea4c4)

const temp = makeTempDir(test)

function hex(bytes) {
  if (bytes.length === 0) return '(empty)'
  const shown = Buffer.from(bytes.subarray(0, 120)).toString('hex')
  return bytes.length > 120 ? `${shown}... (${bytes.length} bytes)` : shown
}

/** Options as text for messages: JSON escapes terminators and lone surrogates. */
const show = (options) => JSON.stringify(options, (key, value) => (key === 'signal' ? '[signal]' : value))

/** The last `n` of `lines` (`slice(-0)` would be all of them). */
const lastOf = (lines, n) => (n === 0 ? [] : lines.slice(-n))

/**
 * Many comparisons, one assertion: each check is compared here, and the test fails with the
 * first few mismatches (and how many there were) at `done()`. Also counts the match cases where
 * some lines were kept and some not, so that a test can show it did exercise the matcher.
 */
function checker(t) {
  let checks = 0
  let failed = 0
  const failures = []
  const state = {
    partial: 0,
    check(got, expected, context) {
      checks++
      if (isDeepStrictEqual(got, expected)) return
      failed++
      if (failures.length < 6) failures.push({ context, expected, got })
    },
    done(minChecks) {
      t.deepEqual(failures, [], `${failed} of ${checks} checks failed`)
      t.true(checks >= minChecks, `only ${checks} checks ran (expected at least ${minChecks})`)
    },
  }
  return state
}

/** Every line reader, on one file with one set of options, against the reference. */
const ALL_APIS = { perLine: true, batches: true, sync: true, count: true, last: true, entries: false }

/**
 * Reads `input` ({ file, bytes, encoding, label }) with `matchOptions` and `highWaterMark`
 * through each API `apis` names, and checks each against the reference: readLines per line
 * (with `lineNumber` and `linesRead`), batches() (no empty batch), entries(), readLinesSync (with
 * `lineNumber`), countLines, and readLastLines for a few counts.
 */
async function checkReaders(c, input, matchOptions, highWaterMark, apis = ALL_APIS) {
  const { file, bytes, encoding = 'utf8', label } = input
  const lines = referenceLines(bytes, encoding)
  const expected = referenceMatches(lines, matchOptions)
  const expectedLines = expected.map(([, line]) => line)
  if (expected.length > 0 && expected.length < lines.length) c.partial++
  const options = { encoding, highWaterMark, ...matchOptions }
  const context = `${label}; bytes ${hex(bytes)}; options ${show(options)}`

  if (apis.perLine) {
    const reader = readLines(file, options)
    const got = []
    for await (const line of reader) got.push([reader.lineNumber, line])
    c.check(got, expected, `readLines [lineNumber, line]: ${context}`)
    c.check(reader.linesRead, expected.length, `readLines linesRead: ${context}`)
  }
  if (apis.batches) {
    const batches = await collect(readLines(file, options).batches())
    c.check(batches.flat(), expectedLines, `batches(): ${context}`)
    c.check(
      batches.some((batch) => batch.length === 0),
      false,
      `batches() gave an empty batch: ${context}`,
    )
  }
  if (apis.entries) {
    c.check(await collect(readLines(file, options).entries()), expected, `entries(): ${context}`)
  }
  if (apis.sync) {
    const reader = readLinesSync(file, options)
    const got = []
    for (const line of reader) got.push([reader.lineNumber, line])
    c.check(got, expected, `readLinesSync [lineNumber, line]: ${context}`)
  }
  if (apis.count) {
    c.check(await countLines(file, options), expected.length, `countLines: ${context}`)
  }
  if (apis.last) {
    for (const n of new Set([1, expected.length + 1])) {
      c.check(await readLastLines(file, n, options), lastOf(expectedLines, n), `readLastLines n=${n}: ${context}`)
    }
  }
}

/** Every match case on every input at every read size, the cases of one read size at once. */
async function checkAll(c, inputs, casesFor, readSizes, apis = ALL_APIS) {
  for (const input of inputs) {
    const cases = casesFor(input)
    for (const highWaterMark of readSizes) {
      const entries = highWaterMark === 1 || highWaterMark === undefined
      await Promise.all(
        cases.map((matchOptions) => checkReaders(c, input, matchOptions, highWaterMark, { ...apis, entries })),
      )
    }
  }
}

const writeInput = (bytes, label, encoding = 'utf8') => ({ file: temp.file(bytes), bytes, label, encoding })

// ---- the reference itself ------------------------------------------------------------------------

test('the reference: includes on the decoded line, ASCII-only case folding, invert', (t) => {
  t.is(asciiLower('AZaz@[`{ÉĀ\u212a'), 'azaz@[`{ÉĀ\u212a')
  t.true(lineMatches('an ERROR here', { match: 'ERROR' }))
  t.false(lineMatches('an error here', { match: 'ERROR' }))
  t.true(lineMatches('an error here', { match: 'ERROR', ignoreCase: true }))
  t.false(lineMatches('É', { match: 'é', ignoreCase: true }))
  t.false(lineMatches('@', { match: '`', ignoreCase: true }))
  t.true(lineMatches('xabcx', { match: ['zz', 'abc'] }))
  t.false(lineMatches('xabcx', { match: ['zz', 'abc'], invert: true }))
  t.true(lineMatches('', { match: 'a', invert: true }))
  t.false(lineMatches('', { match: 'a' }))
  t.false(lineMatches('a', { match: 'a\n' }))
  t.deepEqual(referenceMatches(['a', 'b', 'ab', ''], { match: 'a' }), [
    [1, 'a'],
    [3, 'ab'],
  ])
  // The decoded line holds U+FFFD where the bytes are invalid: one per maximal invalid subpart.
  t.deepEqual(referenceLines(bytesOf([0xe4, 0xb8], 'A\n', [0xed, 0xa0, 0x80])), ['\uFFFDA', '\uFFFD\uFFFD\uFFFD'])
  const random = seededRandom(1)
  const draws = Array.from({ length: 1000 }, () => random())
  t.true(draws.every((x) => x >= 0 && x < 1))
  t.true(new Set(draws).size > 990)
  t.deepEqual(Array.from({ length: 5 }, seededRandom(SEED)), Array.from({ length: 5 }, seededRandom(SEED)))
})

// ---- the line contract's inputs ------------------------------------------------------------------

/** Code points of a string (a surrogate pair stays whole). */
const points = (text) => Array.from(text)

/** Cases every input is read with. */
const FIXED_CASES = [
  { match: 'a' },
  { match: ['ab', 'b', 'abc'] },
  { match: 'é' },
  { match: '中' },
  { match: '😀' },
  { match: ['é', '中', '😀'] },
  { match: '\uFFFD' },
  { match: '\uFEFF' },
  { match: '\0' },
  { match: '\u2028' },
  { match: '|' },
  { match: 'a\nb' },
  { match: ['\r', 'o'] },
  { match: '\r\n' },
  { match: 'ONE', ignoreCase: true },
  { match: ['É', 'B'], ignoreCase: true },
  { match: 'X', ignoreCase: true, invert: true },
  { match: 'a', invert: true },
  { match: ['\uFFFD', 'x'], invert: true },
  { match: 'a\n', invert: true },
  { match: '\uFFFD\n' },
  { match: ['\uFFFD\r', 'a\uFFFD\n'], invert: true },
]

/**
 * The fixed cases, plus cases from the input's own lines: its first and last characters (a
 * match at the very start and end of the file), a whole line, a line and one more character,
 * and a run from the middle of the longest line.
 */
function casesFor({ bytes, encoding }) {
  const lines = referenceLines(bytes, encoding)
  const texts = lines.filter((line) => line !== '')
  const cases = [...FIXED_CASES]
  if (texts.length > 0) {
    const longest = texts.reduce((a, b) => (points(b).length > points(a).length ? b : a))
    const mid = points(longest)
    cases.push(
      { match: points(texts[0])[0] },
      { match: points(texts.at(-1)).at(-1) },
      { match: longest },
      { match: `${longest}q` },
      { match: mid.slice(Math.floor(mid.length / 3), Math.floor(mid.length / 3) + 2).join('') },
      { match: [points(texts[0])[0], points(texts.at(-1)).at(-1)], invert: true },
    )
  }
  return cases
}

const EDGE_FILES = EDGE_INPUTS.map(([name, bytes]) => writeInput(bytes, name))
const LATIN1_FILES = [
  ...LATIN1_INPUTS.map(([name, bytes]) => writeInput(bytes, `latin1: ${name}`, 'latin1')),
  ...EDGE_INPUTS.map(([name, bytes]) => writeInput(bytes, `${name}, read as latin1`, 'latin1')),
]

const EDGE_GROUPS = 4
for (let group = 0; group < EDGE_GROUPS; group++) {
  test(`utf8 edge cases, group ${group + 1}/${EDGE_GROUPS}: every reader keeps the lines the reference keeps, at every highWaterMark`, async (t) => {
    const c = checker(t)
    const inputs = EDGE_FILES.filter((_, i) => i % EDGE_GROUPS === group)
    await checkAll(c, inputs, casesFor, EVERY_READ_SIZE)
    c.done(inputs.length * EVERY_READ_SIZE.length * FIXED_CASES.length * 5)
    t.true(c.partial > 0)
  })
}

/**
 * The cases for Latin-1: characters that are bytes there (é is E9, Ã© is C3 A9), characters
 * above U+00FF (never a match), and the cases from the input's own lines.
 */
const LATIN1_CASES = [
  { match: 'a' },
  { match: ['ab', 'b', 'abc'] },
  { match: '\u00e9' },
  { match: '\u00c3\u00a9' },
  { match: ['\u00ff', '\u0080'] },
  { match: '\u0085' },
  { match: '\u00ef\u00bb\u00bf' },
  { match: '\0' },
  { match: '\u0100' },
  { match: '中' },
  { match: '\uFFFD' },
  { match: ['\u0100', '\u00e9'] },
  { match: 'a\nb' },
  { match: 'ONE', ignoreCase: true },
  { match: '\u00c9', ignoreCase: true },
  { match: 'X', ignoreCase: true, invert: true },
  { match: ['\u00e9', 'x'], invert: true },
]

function latin1CasesFor(input) {
  return [...LATIN1_CASES, ...casesFor(input).slice(FIXED_CASES.length)]
}

const LATIN1_GROUPS = 3
for (let group = 0; group < LATIN1_GROUPS; group++) {
  test(`latin1, group ${group + 1}/${LATIN1_GROUPS}: the Latin-1 inputs and the edge cases read as Latin-1`, async (t) => {
    const c = checker(t)
    const inputs = LATIN1_FILES.filter((_, i) => i % LATIN1_GROUPS === group)
    await checkAll(c, inputs, latin1CasesFor, EVERY_READ_SIZE)
    c.done(inputs.length * EVERY_READ_SIZE.length * LATIN1_CASES.length * 5)
    t.true(c.partial > 0)
  })
}

// ---- read boundaries -----------------------------------------------------------------------------

/**
 * For each straddler token at every offset of every small read: the token's own text (U+FFFD
 * for the invalid ones), the token next to its neighbours on either side, and the inverse.
 */
for (const [name, token] of STRADDLERS) {
  const tokenBytes = bytesOf(token)
  const text = referenceLines(tokenBytes).join('')
  const primary = text === '' ? 'z' : text
  const cases = [
    { match: primary },
    { match: [`x${text === '' ? '|' : text}`, `${text === '' ? 'y' : text}|`] },
    { match: [primary, 'y'], invert: true, ignoreCase: true },
  ]
  const inputs = straddlerInputs(tokenBytes).map((bytes, i) => writeInput(bytes, `${name} #${i}`))
  test(`${name} straddling read boundaries: its text matched at every offset and highWaterMark`, async (t) => {
    const c = checker(t)
    await checkAll(c, inputs, () => cases.slice(0, 2), SMALL_READS, { perLine: true, sync: true, count: true })
    await checkAll(c, inputs, () => [cases[0]], SMALL_READS, { batches: true, last: true })
    await checkAll(c, inputs, () => [cases[2]], SMALL_READS, { sync: true, count: true })
    c.done(inputs.length * SMALL_READS.length * 9)
  })
}

test('a needle cut by reads at every offset, after near misses, is found once per line', async (t) => {
  const c = checker(t)
  const needles = ['NEEDLE', 'aab', 'é中é中😀', 'é\uFFFD']
  const inputs = []
  for (const needle of needles) {
    // Near misses first: a prefix of the needle that restarts inside itself, then the needle;
    // then the needle cut by a terminator, and in another case.
    const nearMiss = points(needle).slice(0, -1).join('')
    for (let pad = 0; pad <= 17; pad++) {
      const bytes = bytesOf(
        'x'.repeat(pad),
        nearMiss,
        needle,
        'y\n',
        nearMiss,
        '\n',
        points(needle).at(-1),
        '\r\n',
        'z'.repeat(pad),
        needle.toLowerCase(),
        '\r',
        nearMiss,
        needle.includes('\uFFFD') ? [0xc3, 0x80] : [],
        '\n',
        'q'.repeat(pad),
        needle,
      )
      inputs.push({ needle, ...writeInput(bytes, `needle ${show(needle)} after ${pad} bytes`) })
    }
  }
  const cases = ({ needle }) => [
    { match: needle },
    { match: needle.toUpperCase(), ignoreCase: true },
    { match: [needle, 'nomatch'], invert: true },
  ]
  await checkAll(c, inputs, cases, EVERY_READ_SIZE)
  c.done(inputs.length * EVERY_READ_SIZE.length * 3 * 5)
  t.true(c.partial > 0)
})

test('long lines, a matched last line without terminator, empty lines', async (t) => {
  const c = checker(t)
  const inputs = [
    ['the match at the end of a line longer than many reads', bytesOf('x'.repeat(200), 'ERROR\nok\n')],
    ['the match at the start of a long line', bytesOf('ok\nERROR', 'x'.repeat(200), '\n')],
    ['the match in the middle of a long line', bytesOf('x'.repeat(100), 'ERROR', 'y'.repeat(100), '\r\nok')],
    ['a long line without the match', bytesOf('x'.repeat(300), 'ERRO\nRROR\n')],
    ['the matched last line has no terminator', bytesOf('ok\nthe ERROR')],
    ['the matched last line is only the match', bytesOf('ok\r\nERROR')],
    ['the matched last line ends in CR', bytesOf('ok\nERROR\r')],
    ['empty lines around a match', bytesOf('\n\n\r\nERROR\n\r\r\n\n')],
    ['only empty lines', bytesOf('\n\r\n\r\r\n\n')],
    ['the match is the whole file', bytesOf('ERROR')],
    ['a long line of matches', bytesOf('ERROR'.repeat(100), '\nERRORERROR')],
  ].map(([name, bytes]) => writeInput(bytes, name))
  const cases = () => [
    { match: 'ERROR' },
    { match: 'error', ignoreCase: true },
    { match: 'ERROR', invert: true },
    { match: ['x', 'ERROR'] },
    { match: 'RE' },
    { match: 'ok' },
  ]
  await checkAll(c, inputs, cases, EVERY_READ_SIZE)
  c.done(inputs.length * EVERY_READ_SIZE.length * 6 * 5)
  t.true(c.partial > 0)
})

// ---- case and encoding ---------------------------------------------------------------------------

test('ignoreCase folds A-Z only: not é/É, @/`, [/{, Ā/Ġ, nor the Kelvin sign, ſ or İ', async (t) => {
  const c = checker(t)
  const lines = ['ERROR here', 'error here', 'ErRoR', 'É', 'é', '@', '`', '[', '{', ']', '}', '^', '~', '\\', '|']
  lines.push('Ā', 'Ġ', 'K', '\u212a', 'k', '\u017f', 's', 'S', '\u0130', 'i', 'I', '\u0131', 'ÀÉ', 'àé', 'Zz', '')
  const utf8 = writeInput(bytesOf(lines.join('\n')), 'case table')
  // In Latin-1: É/é (C9/E9), Á/á (C1/E1), Ð/ð (D0/F0), Þ/þ (DE/FE), × and ÷ (D7/F7).
  const latin1 = writeInput(
    bytesOf(
      'Aa\n',
      [0xc9],
      '\n',
      [0xe9],
      '\n',
      [0xc1, 0x0a, 0xe1, 0x0a, 0xd0, 0xf0, 0x0a, 0xde, 0x0d, 0xfe, 0x0a, 0xd7, 0xf7],
    ),
    'Latin-1 case table',
    'latin1',
  )
  const matches = ['error', 'ERROR', 'é', 'É', '@', '`', '[', '{', ']', '^', '~', '\\', 'Ā', 'Ġ', 'k', 'K', '\u212a']
  matches.push('s', '\u017f', 'i', 'I', '\u0130', 'àé', 'ÀÉ', 'z', 'á', 'Á', 'ð', 'Ð', 'þ', '×', '÷', 'a')
  const cases = () => [
    ...matches.map((match) => ({ match, ignoreCase: true })),
    ...matches.map((match) => ({ match, ignoreCase: true, invert: true })),
    { match: matches, ignoreCase: true },
  ]
  await checkAll(c, [utf8, latin1], cases, [1, 2, 3, 7, undefined])
  c.done(2 * 5 * matches.length * 2 * 5)
})

test('latin1: é (U+00E9) matches the byte E9 but not C3 A9, and above U+00FF nothing matches', async (t) => {
  const c = checker(t)
  const bytes = bytesOf(
    'caf',
    [0xe9],
    '\n',
    'utf8 caf',
    [0xc3, 0xa9],
    '\r\n',
    [0xc9],
    '\n',
    'ā:',
    [0xc4, 0x81],
    '\n',
    [0xef, 0xbf, 0xbd],
    '\n',
    [0x00, 0xff, 0x80, 0x85],
    '\r',
    'abc',
  )
  const input = writeInput(bytes, 'latin1 specifics', 'latin1')
  const cases = () => [
    { match: 'é' },
    { match: 'Ã©' },
    { match: '\u0100' },
    { match: 'ā' },
    { match: '中' },
    { match: '😀' },
    { match: '\uFFFD' },
    { match: 'ï¿½' },
    { match: ['ā', '中', 'abc'] },
    { match: ['ā', '\uFFFD'], invert: true },
    { match: 'É', ignoreCase: true },
    { match: '\u00ff\u0080\u0085' },
    { match: '\u0085' },
  ]
  await checkAll(c, [input], cases, EVERY_READ_SIZE)
  c.done(EVERY_READ_SIZE.length * 13 * 5)
  // The reference itself says what the title says.
  const lines = referenceLines(bytes, 'latin1')
  t.deepEqual(
    referenceMatches(lines, { match: 'é' }).map(([n]) => n),
    [1],
  )
  t.deepEqual(referenceMatches(lines, { match: 'ā' }), [])
})

test('U+FFFD: invalid bytes match it as the decoded line holds it, and so does a real U+FFFD', async (t) => {
  const c = checker(t)
  const input = writeInput(
    bytesOf(
      'real ',
      [0xef, 0xbf, 0xbd],
      '\n',
      [0xc3],
      'A\n',
      [0xe4, 0xb8],
      'A\n',
      [0xf0, 0x9f, 0x98],
      'A\r\n',
      [0xed, 0xa0, 0x80],
      'A\n',
      [0xc0, 0xaf],
      'A\r',
      [0xff, 0xfe],
      'A\n',
      'é中😀A\n',
      [0xe4, 0xb8, 0xe4, 0xb8, 0xad],
      '\n',
      'caf',
      [0xc3],
    ),
    'invalid UTF-8 of every kind',
  )
  const cases = () => [
    { match: '\uFFFD' },
    { match: '\uFFFDA' },
    { match: '\uFFFD\uFFFDA' },
    { match: '\uFFFD\uFFFD\uFFFDA' },
    { match: '\uFFFD中' },
    { match: 'f\uFFFD' },
    { match: 'real \uFFFD' },
    { match: ['\uFFFD\uFFFD', 'real'] },
    { match: '\uFFFD', invert: true },
    { match: '\uFFFDa', ignoreCase: true },
    { match: 'A' },
    { match: '中' },
  ]
  await checkAll(c, [input], cases, EVERY_READ_SIZE)
  c.done(EVERY_READ_SIZE.length * 12 * 5)
  t.true(c.partial > 0)
})

// ---- seeded byte soup ------------------------------------------------------------------------------

const SOUP_COUNT = 120
const SOUP_GROUPS = 4
const soupRandom = seededRandom(SEED ^ 0x50a9)
const SOUPS = Array.from({ length: SOUP_COUNT }, (_, index) => {
  const bytes = biasedSoup(soupRandom, soupRandom() < 0.15 ? soupRandom.int(100, 400) : soupRandom.int(0, 60))
  const file = temp.file(bytes)
  const byEncoding = {}
  for (const [encoding, other] of [
    ['utf8', 'latin1'],
    ['latin1', 'utf8'],
  ]) {
    const own = referenceLines(bytes, encoding)
    const cases = [randomMatchOptions(soupRandom, own), randomMatchOptions(soupRandom, own)]
    // Drawn from the file's text in the other encoding: may hold what this one never yields.
    cases.push(randomMatchOptions(soupRandom, referenceLines(bytes, other)))
    byEncoding[encoding] = { cases, readSize: soupRandom.pick([...SMALL_READS, undefined]) }
  }
  return { file, bytes, label: `soup #${index} (seed ${SEED})`, byEncoding }
})

for (let group = 0; group < SOUP_GROUPS; group++) {
  test(`random byte soup, group ${group + 1}/${SOUP_GROUPS} (seed ${SEED}): utf8 and latin1 at every small highWaterMark`, async (t) => {
    const c = checker(t)
    const soups = SOUPS.filter((_, i) => i % SOUP_GROUPS === group)
    for (const soup of soups) {
      for (const encoding of ['utf8', 'latin1']) {
        const { cases, readSize } = soup.byEncoding[encoding]
        const input = { ...soup, encoding }
        await checkAll(c, [input], () => cases, [...SMALL_READS, undefined], { perLine: true, sync: true, count: true })
        await checkAll(c, [input], () => cases, [readSize], { batches: true, last: true })
      }
    }
    c.done(soups.length * 2 * 3 * 17 * 3)
    t.true(c.partial > 0)
  })
}

// ---- start and end --------------------------------------------------------------------------------

test('start and end: the kept lines are those of the range, numbered from its first line', async (t) => {
  const c = checker(t)
  const bytes = bytesOf('ERROR 1\nok\r\nerror 2\rERROR 3 é\n\n中 ERROR\r\nlast ERROR')
  const file = temp.file(bytes)
  const cases = [{ match: 'ERROR' }, { match: 'error', ignoreCase: true }, { match: 'ERROR', invert: true }]
  for (let start = 0; start <= bytes.length; start += 3) {
    for (const end of [start, start + 4, bytes.length - 3, bytes.length + 5, undefined]) {
      if (end !== undefined && end < start) continue
      const range = byteRange(bytes, { start, end })
      for (const matchOptions of cases) {
        for (const highWaterMark of [1, 5, undefined]) {
          const options = { start, end, highWaterMark, ...matchOptions }
          const expected = referenceMatches(referenceLines(range), matchOptions)
          const context = `options ${show(options)}`
          const reader = readLines(file, options)
          const got = []
          for await (const line of reader) got.push([reader.lineNumber, line])
          c.check(got, expected, `readLines: ${context}`)
          c.check(await countLines(file, options), expected.length, `countLines: ${context}`)
          const sync = readLinesSync(file, options)
          c.check(
            [...sync],
            expected.map(([, line]) => line),
            `readLinesSync: ${context}`,
          )
        }
      }
    }
  }
  // readLastLines takes `end` only.
  for (const end of [0, 3, 10, 20, bytes.length - 1, undefined]) {
    for (const matchOptions of cases) {
      const expected = referenceMatches(referenceLines(byteRange(bytes, { end })), matchOptions).map(([, l]) => l)
      for (const n of [1, 2, 10]) {
        const options = { end, highWaterMark: 3, ...matchOptions }
        c.check(await readLastLines(file, n, options), lastOf(expected, n), `readLastLines n=${n} ${show(options)}`)
      }
    }
  }
  c.done(100)
})

// ---- a large file ----------------------------------------------------------------------------------

/** An 8 MB log: about 12% of its lines hold ERROR, a few more `error` in lower case. */
function largeLog() {
  const random = seededRandom(SEED ^ 0x106)
  const levels = ['INFO', 'WARN', 'DEBUG', 'TRACE']
  const parts = []
  let size = 0
  for (let i = 0; size < 8 * 1024 * 1024; i++) {
    const level = random() < 0.12 ? 'ERROR' : random.pick(levels)
    const note = random() < 0.03 ? ' an error, in lower case' : random() < 0.02 ? ' café 中' : ''
    const line = `2024-05-01T12:${String(i % 60).padStart(2, '0')} ${level} request ${i}${note} ${'x'.repeat(random.int(10, 90))}`
    const terminator = random() < 0.1 ? '\r\n' : '\n'
    parts.push(line + terminator)
    size += line.length + terminator.length + (note.includes('é') ? 4 : 0)
  }
  return parts.join('')
}

const LARGE_TEXT = largeLog()
const LARGE_FILE = temp.file(LARGE_TEXT, 'large.log')
const LARGE_SIZE = Buffer.byteLength(LARGE_TEXT)

test('an 8 MB log: every reader keeps what filtering readLines keeps', async (t) => {
  const all = await collect(readLines(LARGE_FILE))
  const share = all.filter((line) => line.includes('ERROR')).length / all.length
  t.true(share > 0.1 && share < 0.14, `ERROR on ${share} of the lines`)
  for (const matchOptions of [
    { match: 'ERROR' },
    { match: 'error', ignoreCase: true },
    { match: ['ERROR', 'WARN', 'café'] },
    { match: 'ERROR', invert: true },
    { match: 'x'.repeat(90) },
  ]) {
    const context = show(matchOptions)
    const expected = referenceMatches(all, matchOptions)
    const expectedLines = expected.map(([, line]) => line)
    const reader = readLines(LARGE_FILE, matchOptions)
    const got = []
    for await (const line of reader) got.push(line)
    t.true(isDeepStrictEqual(got, expectedLines), `readLines: ${context} (${got.length} vs ${expected.length} lines)`)
    t.is(reader.linesRead, expected.length, context)
    t.is(reader.bytesRead, LARGE_SIZE, context)
    const entries = await collect(readLines(LARGE_FILE, matchOptions).entries())
    t.true(isDeepStrictEqual(entries, expected), `entries(): ${context}`)
    const batches = await collect(readLines(LARGE_FILE, { ...matchOptions, highWaterMark: 4096 }).batches())
    t.true(isDeepStrictEqual(batches.flat(), expectedLines), `batches(): ${context}`)
    t.true(isDeepStrictEqual([...readLinesSync(LARGE_FILE, matchOptions)], expectedLines), `readLinesSync: ${context}`)
    t.is(await countLines(LARGE_FILE, matchOptions), expected.length, `countLines: ${context}`)
    for (const n of [1, 5, 1000]) {
      t.deepEqual(
        await readLastLines(LARGE_FILE, n, matchOptions),
        lastOf(expectedLines, n),
        `readLastLines n=${n}: ${context}`,
      )
    }
  }
})

/**
 * Counts turns of the event loop (setImmediate and setTimeout(0) callbacks) until `promise`
 * settles, and samples `sample()` at each.
 */
async function turnsWhile(promise, sample = () => undefined) {
  let immediates = 0
  let timeouts = 0
  const samples = []
  let waiting = true
  const onImmediate = () => {
    immediates++
    samples.push(sample())
    if (waiting) setImmediate(onImmediate)
  }
  const onTimeout = () => {
    timeouts++
    if (waiting) setTimeout(onTimeout, 0)
  }
  setImmediate(onImmediate)
  setTimeout(onTimeout, 0)
  try {
    return { value: await promise, immediates, timeouts, samples }
  } finally {
    waiting = false
  }
}

// Serial (ava runs serial tests before the others): the turns are counted in an idle process.
test.serial(
  'an 8 MB log with no match: the reader is done, bytesRead advances to the size, the event loop turns',
  async (t) => {
    for (const highWaterMark of [16, undefined]) {
      const reader = readLines(LARGE_FILE, { match: 'NOT IN THE FILE', highWaterMark })
      const { value, immediates, timeouts, samples } = await turnsWhile(reader.next(), () => reader.bytesRead)
      t.deepEqual(value, { value: undefined, done: true }, `hwm=${highWaterMark}`)
      t.is(reader.bytesRead, LARGE_SIZE, `hwm=${highWaterMark}`)
      t.is(reader.linesRead, 0)
      if (highWaterMark === 16) {
        // Half a million reads outlast many turns of the loop; in 256 KiB reads the scan can end
        // within one (and in CI 8,000 reads of 1 KiB once ended within two).
        t.true(immediates >= 2 && timeouts >= 1, `${immediates} immediates, ${timeouts} timeouts`)
        // So some turn of the loop sees bytesRead part of the way.
        const between = samples.filter((bytes) => bytes > 0 && bytes < LARGE_SIZE)
        t.true(between.length > 0, `bytesRead seen at the turns: ${[...new Set(samples)].slice(0, 20)}`)
      }
    }
    // Batches and countLines likewise, in reads small enough that the scan outlasts a turn.
    const batches = readLines(LARGE_FILE, { match: 'NOT IN THE FILE', highWaterMark: 16 }).batches()
    const step = await turnsWhile(batches.next())
    t.deepEqual(step.value, { value: undefined, done: true })
    t.true(step.immediates >= 2, `${step.immediates} immediates`)
    const count = await turnsWhile(countLines(LARGE_FILE, { match: 'NOT IN THE FILE', highWaterMark: 16 }))
    t.is(count.value, 0)
    t.true(count.immediates >= 2, `${count.immediates} immediates`)
    t.deepEqual(await readLastLines(LARGE_FILE, 3, { match: 'NOT IN THE FILE' }), [])
  },
)

test('an 8 MB log whose only match is its last line, unterminated', async (t) => {
  const file = temp.file(`${LARGE_TEXT}the only NEEDLE`, 'needle-last.log')
  const size = fs.statSync(file).size
  const expectedNumber = LARGE_TEXT.split(/\r?\n/).length
  const reader = readLines(file, { match: 'NEEDLE', highWaterMark: 8192 })
  const { value } = await turnsWhile(reader.next())
  t.deepEqual(value, { value: 'the only NEEDLE', done: false })
  t.is(reader.lineNumber, expectedNumber)
  t.is(reader.bytesRead, size)
  t.deepEqual(await reader.next(), { value: undefined, done: true })
  t.is(await countLines(file, { match: 'NEEDLE' }), 1)
  t.deepEqual(await readLastLines(file, 2, { match: 'NEEDLE' }), ['the only NEEDLE'])
  t.deepEqual(
    await readLastLines(file, 2, { match: 'NEEDLE', invert: true }),
    LARGE_TEXT.trimEnd().split(/\r?\n/).slice(-2),
  )
})

// ---- a file read in parts ---------------------------------------------------------------------------

/** A search's reader reads a file of 4 parts or more in parts, on two threads (parts.rs). */
const PART_BYTES = 4 * 1024 * 1024

/**
 * A 29 MB log, 7 parts, with what can go wrong where a part is cut (at `i * size / parts`): a
 * `\r\n` cut between its bytes, a lone `\r` right before a cut, a line starting right at one,
 * and a matching line of 5 MB, longer than a part, across two cuts (the part between them is
 * empty); its last line matches and is unterminated.
 */
function partedLog() {
  const bytes = Buffer.from(`${LARGE_TEXT.repeat(3)}${'pad '.repeat(1_300_000)}\nthe last ERROR`)
  const parts = Math.floor(bytes.length / PART_BYTES)
  const cut = (index) => Math.floor((index * bytes.length) / parts)
  bytes.write('\r\n', cut(1) - 1, 'latin1')
  bytes.write('\rERROR', cut(2) - 1, 'latin1')
  bytes.write('\nERROR at a cut', cut(3) - 1, 'latin1')
  const longStart = cut(4) - 300_000
  bytes.fill('y', longStart, longStart + 5_000_000)
  bytes.write('\nERROR long', longStart - 1, 'latin1')
  bytes.write('\n', longStart + 5_000_000, 'latin1')
  return { bytes, parts, cuts: [1, 2, 3, 4, 5].map(cut) }
}

test('a file read in parts: the lines, numbers and offsets of one pass, and break closes it', async (t) => {
  const { bytes, parts, cuts } = partedLog()
  t.true(parts >= 4 && cuts[4] - cuts[3] < 5_000_000, `${parts} parts, cut at ${cuts}`)
  const file = temp.file(bytes, 'parted.log')
  const lineBytes = splitLineBytes(bytes)
  const all = referenceLines(bytes)
  for (const matchOptions of [{ match: 'ERROR' }, { match: ['ERROR at a cut', 'the last'] }, { match: 'absent' }]) {
    const context = show(matchOptions)
    const expected = referenceMatches(all, matchOptions)
    const reader = readLines(file, matchOptions)
    const got = []
    for await (const line of reader) got.push([reader.lineNumber, reader.lineOffset, line])
    const offsets = expected.map(([number, line]) => [number, lineBytes[number - 1].byteOffset, line])
    t.true(isDeepStrictEqual(got, offsets), `numbers and offsets: ${context} (${got.length} vs ${expected.length})`)
    t.is(reader.bytesRead, bytes.length, context)
    const batches = await collect(readLines(file, matchOptions).batches())
    t.true(
      isDeepStrictEqual(
        batches.flat(),
        expected.map(([, line]) => line),
      ),
      `batches(): ${context}`,
    )
  }
  t.true(all.some((line) => line.startsWith('ERROR at a cut')) && all.at(-1) === 'the last ERROR')

  // A range of the file: numbered from its first line, read to its end and no further.
  const range = { start: 1000, end: bytes.length - 2000 }
  const rangeLines = referenceLines(byteRange(bytes, range))
  const entries = await collect(readLines(file, { match: 'ERROR', ...range }).entries())
  t.true(isDeepStrictEqual(entries, referenceMatches(rangeLines, { match: 'ERROR' })), 'a range in parts')

  const reader = readLines(file, { match: 'ERROR' })
  const first = []
  for await (const line of reader) {
    first.push(line)
    if (first.length === 3) break
  }
  t.deepEqual(first, all.filter((line) => line.includes('ERROR')).slice(0, 3))
  t.false(isOpen(file))
})

// ---- maxLineLength, close, break, abort, fs errors -------------------------------------------------

test('maxLineLength with match: ERR_LINE_TOO_LONG after every kept line before the long one', async (t) => {
  const c = checker(t)
  const max = 20
  const lineList = ['ERROR a', 'info', 'x'.repeat(max), 'ERROR b', 'ok é', 'y'.repeat(max + 1), 'ERROR c', 'z']
  const variants = [
    ['a long line that does not match', lineList],
    ['a long line that matches', lineList.map((line) => (line.startsWith('y') ? `ERROR${line}` : line))],
    ['a long line of multi-byte characters', lineList.map((line) => (line.startsWith('y') ? 'é'.repeat(11) : line))],
    ['a long last line without terminator', [...lineList.slice(0, 5), 'w'.repeat(max + 5)]],
  ]
  for (const [name, list] of variants) {
    const bytes = bytesOf(list.join('\r\n'))
    const file = temp.file(bytes)
    const lines = referenceLines(bytes)
    const longAt = splitLineBytes(bytes).findIndex((line) => line.length > max)
    t.true(longAt > 0, name)
    for (const matchOptions of [{ match: 'ERROR' }, { match: 'ERROR', invert: true }, { match: 'z' }, { match: 'é' }]) {
      const expected = referenceMatches(lines.slice(0, longAt), matchOptions).map(([, line]) => line)
      for (const highWaterMark of [...SMALL_READS, 64, undefined]) {
        const options = { ...matchOptions, maxLineLength: max, highWaterMark }
        const context = `${name}; options ${show(options)}`
        const got = []
        const reader = readLines(file, options)
        const error = await t.throwsAsync(
          async () => {
            for await (const line of reader) got.push(line)
          },
          undefined,
          context,
        )
        c.check(error?.code, 'ERR_LINE_TOO_LONG', `readLines error: ${context}`)
        c.check(got, expected, `readLines lines before the error: ${context}`)
        const batched = []
        const batchError = await t.throwsAsync(
          async () => {
            for await (const batch of readLines(file, options).batches()) batched.push(...batch)
          },
          undefined,
          context,
        )
        c.check(batchError?.code, 'ERR_LINE_TOO_LONG', `batches() error: ${context}`)
        c.check(batched, expected, `batches() lines before the error: ${context}`)
        const synced = []
        const syncError = t.throws(
          () => {
            for (const line of readLinesSync(file, options)) synced.push(line)
          },
          undefined,
          context,
        )
        c.check(syncError?.code, 'ERR_LINE_TOO_LONG', `readLinesSync error: ${context}`)
        c.check(synced, expected, `readLinesSync lines before the error: ${context}`)
      }
    }
  }
  c.done(4 * 4 * 18 * 6)
})

test('break and close mid-way with match close the file', async (t) => {
  // A file of its own: other tests read LARGE_FILE meanwhile, and isOpen looks at the path.
  const file = temp.file(LARGE_TEXT, 'break.log')
  const all = await collect(readLines(file, { match: 'ERROR' }))
  const reader = readLines(file, { match: 'ERROR', highWaterMark: 4096 })
  const got = []
  for await (const line of reader) {
    got.push(line)
    if (got.length === 3) break
  }
  t.deepEqual(got, all.slice(0, 3))
  t.false(isOpen(file))
  t.deepEqual(await reader.next(), { value: undefined, done: true })
  t.is(reader.linesRead, 3)

  const batches = readLines(file, { match: 'ERROR', invert: true }).batches()
  t.true((await batches.next()).value.length > 0)
  await batches.close()
  t.false(isOpen(file))
  t.deepEqual(await batches.next(), { value: undefined, done: true })

  const sync = readLinesSync(file, { match: 'ERROR' })
  t.is(sync.next().value, all[0])
  sync.close()
  t.deepEqual(sync.next(), { value: undefined, done: true })
  t.false(isOpen(file))
})

/**
 * A file whose first line matches and whose other 8 MB do not, read 16 bytes at a time: half a
 * million reads after the first line, far from done when the reader is stopped.
 */
function oneMatchThenNone(name) {
  const file = temp.file(`ERROR first\n${LARGE_TEXT}`, name)
  return { file, size: fs.statSync(file).size, options: { match: 'ERROR first', highWaterMark: 16 } }
}

// Serial, as the other tests that stop a reader part of the way: JS is not held up meanwhile.
test.serial('close() and break stop a read where nothing matches, and a pending step resolves as done', async (t) => {
  const { file, size, options } = oneMatchThenNone('stop.log')
  const reader = readLines(file, options)
  for await (const line of reader) {
    t.is(line, 'ERROR first')
    break
  }
  t.false(isOpen(file))
  t.true(reader.bytesRead < size / 2, `break: read ${reader.bytesRead} of ${size} bytes`)

  const waiting = readLines(file, options)
  t.deepEqual(await waiting.next(), { value: 'ERROR first', done: false })
  const step = waiting.next()
  await until(() => waiting.bytesRead > 1000, 'the reader to read on')
  await waiting.close()
  t.deepEqual(await step, { value: undefined, done: true })
  t.false(isOpen(file))
  t.true(waiting.bytesRead < size / 2, `close() with a step pending: read ${waiting.bytesRead} of ${size} bytes`)
})

test.serial(
  'abort with match: AbortError between lines, while a step waits on no match, and in countLines',
  async (t) => {
    const file = temp.file(LARGE_TEXT, 'abort.log')
    const isAbortError = (error, reason) =>
      error.name === 'AbortError' && error.code === 'ABORT_ERR' && error.cause === reason
    const all = await collect(readLines(file, { match: 'ERROR' }))

    const between = new AbortController()
    const reader = readLines(file, { match: 'ERROR', signal: between.signal })
    t.deepEqual([(await reader.next()).value, (await reader.next()).value], all.slice(0, 2))
    const reason = new Error('stop')
    between.abort(reason)
    const error = await t.throwsAsync(reader.next())
    t.true(isAbortError(error, reason), String(error))
    await until(() => !isOpen(file), 'the file to close')

    // Aborted while a step waits on lines that do not match: the step rejects at once, and the
    // native read stops there rather than going on to the end of the file.
    const stopping = oneMatchThenNone('abort-stop.log')
    const waiting = new AbortController()
    const slow = readLines(stopping.file, { ...stopping.options, signal: waiting.signal })
    t.deepEqual(await slow.next(), { value: 'ERROR first', done: false })
    const step = slow.next()
    await until(() => slow.bytesRead > 1000, 'the reader to read on')
    waiting.abort(reason)
    t.true(isAbortError(await t.throwsAsync(step), reason))
    await until(() => !isOpen(stopping.file), 'the file to close')
    t.true(slow.bytesRead < stopping.size / 2, `read ${slow.bytesRead} of ${stopping.size} bytes`)

    const counting = new AbortController()
    const count = countLines(file, { match: 'NOT IN THE FILE', highWaterMark: 1024, signal: counting.signal })
    counting.abort(reason)
    t.true(isAbortError(await t.throwsAsync(count), reason))

    const syncAbort = new AbortController()
    const sync = readLinesSync(file, { match: 'ERROR', signal: syncAbort.signal })
    t.is(sync.next().value, all[0])
    syncAbort.abort(reason)
    t.true(
      isAbortError(
        t.throws(() => sync.next()),
        reason,
      ),
    )
    await until(() => !isOpen(file), 'the file to close')
  },
)

test('a missing file with match fails with ENOENT, as without', async (t) => {
  const file = temp.path('missing.log')
  const options = { match: 'ERROR', ignoreCase: true }
  const shape = { code: 'ENOENT', errno: -2, syscall: 'open', path: file }
  t.like(await t.throwsAsync(readLines(file, options).next()), shape)
  t.like(await t.throwsAsync(readLines(file, options).batches().next()), shape)
  t.like(
    t.throws(() => readLinesSync(file, options).next()),
    shape,
  )
  t.like(await t.throwsAsync(countLines(file, options)), shape)
  t.like(await t.throwsAsync(readLastLines(file, 2, options)), shape)
  const follower = followLines(file, { ...options, start: 0 })
  t.like(await t.throwsAsync(follower.next()), shape)
})

// ---- followLines -------------------------------------------------------------------------------------

test.serial('followLines with match yields exactly the matching lines as they are appended', async (t) => {
  const file = temp.file('', 'follow.log')
  const options = { match: ['ERROR', 'fatal'], start: 0 }
  const reader = followLines(file, options)
  t.teardown(() => reader.close())
  const appends = [
    'info 1\nERROR one\n',
    'info 2\ninfo 3\n',
    'ERR',
    'OR two, split across appends\r',
    '\nfa',
    'tal three\ninfo 4\n',
    'info é\r\nERROR 中 four\rnot yet',
    ' ERROR five\n',
  ]
  let written = ''
  let pending = null
  for (const data of appends) {
    const step = pending ?? reader.next()
    let settled = false
    step.then(
      () => (settled = true),
      () => (settled = true),
    )
    fs.appendFileSync(file, data)
    written += data
    // The lines a follower can hand out so far: not a last line without its terminator, nor
    // one ending in a lone \r that may yet become \r\n. Numbered among all of them.
    const bytes = bytesOf(written)
    const settledLines = referenceLines(bytes).slice(0, settledLineCount(bytes))
    const expected = referenceMatches(settledLines, options)
    const already = reader.linesRead
    if (expected.length > already) {
      const got = []
      for (let next = step; ; next = reader.next()) {
        got.push([reader.lineNumber, (await next).value])
        got.at(-1)[0] = reader.lineNumber
        if (got.length === expected.length - already) break
      }
      t.deepEqual(got, expected.slice(already), `after appending ${show(data)}`)
      t.is(reader.linesRead, expected.length)
      pending = null
    } else {
      // Nothing new matches: the follower reads all of it and the step still waits.
      await until(() => reader.bytesRead === bytes.length, `the follower to read ${bytes.length} bytes`)
      t.false(settled, `a step settled after appending ${show(data)}`)
      pending = step
    }
  }
  t.is(reader.linesRead, 5)
  // Non-matching lines, then one more match: its number counts them all.
  const last = pending ?? reader.next()
  fs.appendFileSync(file, 'info 5\n\nfatal end\n')
  t.deepEqual(await last, { value: 'fatal end', done: false })
  t.is(reader.lineNumber, referenceLines(bytesOf(written)).length + 3)
  await reader.close()
  t.deepEqual(await reader.next(), { value: undefined, done: true })
  t.false(isOpen(file))
})

test.serial('followLines with ignoreCase and invert', async (t) => {
  const file = temp.file('', 'follow-invert.log')
  const reader = followLines(file, { match: 'debug', ignoreCase: true, invert: true, start: 0 })
  t.teardown(() => reader.close())
  const step = reader.next()
  fs.appendFileSync(file, 'DEBUG 1\nDeBuG 2\n')
  await until(() => reader.bytesRead === 16, 'the follower to read the debug lines')
  fs.appendFileSync(file, 'debug 3\nkept 1\n\nDEBUG 4\nkept é\n')
  t.deepEqual(await step, { value: 'kept 1', done: false })
  t.is(reader.lineNumber, 4)
  t.deepEqual(await reader.next(), { value: '', done: false })
  t.deepEqual(await reader.next(), { value: 'kept é', done: false })
  t.is(reader.lineNumber, 7)
  await reader.close()
})

test.serial(
  'followLines with lastLines and match starts with the last matching lines, as readLastLines gives them',
  async (t) => {
    const text = Array.from({ length: 400 }, (_, i) => (i % 37 === 5 ? `ERROR ${i}\r\n` : `info ${i}\n`)).join('')
    const file = temp.file(text, 'follow-last.log')
    const matching = referenceMatches(referenceLines(bytesOf(text)), { match: 'ERROR' }).map(([, line]) => line)
    for (const [n, highWaterMark] of [
      [0, undefined],
      [1, undefined],
      [3, 64],
      [matching.length, 7],
      [matching.length + 5, 4096],
    ]) {
      const expected = lastOf(matching, n)
      t.deepEqual(await readLastLines(file, n, { match: 'ERROR', highWaterMark }), expected, `readLastLines n=${n}`)
      const reader = followLines(file, { lastLines: n, match: 'ERROR', highWaterMark })
      const got = []
      for (let i = 0; i < expected.length; i++) got.push((await reader.next()).value)
      t.deepEqual(got, expected, `followLines n=${n} hwm=${highWaterMark}`)
      // Then what is appended, once the follower has opened the file (with no line to read
      // first, it starts at the end as it opens it).
      const step = reader.next()
      await until(() => reader.position !== undefined, 'the follower to open the file')
      fs.appendFileSync(file, `info more\nERROR appended ${n}\n`)
      t.deepEqual(await step, { value: `ERROR appended ${n}`, done: false })
      await reader.close()
      matching.push(`ERROR appended ${n}`)
    }
  },
)

test('followLines with lastLines and match: a line being written at the call is judged whole when it ends, and takes no place among the last lines', async (t) => {
  // Kept by its text so far ('abc' holds no X), the line took the place of 'two', then was
  // dropped when it ended as 'abcX'; and one not kept so far ('abc' holds no o) came after the
  // last lines once it ended as 'abco', as an appended line does.
  const cases = [
    [{ match: 'X', invert: true }, 'X\n', ['two', 'three'], 'four'],
    [{ match: 'o' }, 'o\n', ['one', 'two'], 'abco'],
    [{ match: 'ab' }, 'd\n', [], 'abcd'],
    [{ match: 'X', invert: true }, '\n', ['two', 'three'], 'abc'],
  ]
  for (const [i, [options, rest, before, next]] of cases.entries()) {
    const file = temp.file('one\ntwo\nthree\nabc', `follow-last-partial-${i}.log`)
    const reader = followLines(file, { lastLines: 2, ...options })
    t.deepEqual(await take(reader, before.length), before, JSON.stringify(options))
    const step = reader.next()
    await until(() => reader.position !== undefined, 'the follower to open the file')
    fs.appendFileSync(file, `${rest}four\n`)
    t.deepEqual(await step, { value: next, done: false }, JSON.stringify(options))
    await reader.close()
  }
})

// ---- argument errors -------------------------------------------------------------------------------

test('bad match, invert and ignoreCase throw at the call, or reject, with Node codes', async (t) => {
  const file = temp.file('a\nb\n')
  const bad = [
    [{ match: '' }, TypeError, 'ERR_INVALID_ARG_VALUE'],
    [{ match: [] }, TypeError, 'ERR_INVALID_ARG_VALUE'],
    [{ match: ['a', ''] }, TypeError, 'ERR_INVALID_ARG_VALUE'],
    // Half a surrogate pair: no decoded line holds one alone, and the native side searches UTF-8.
    [{ match: '\uD83D' }, TypeError, 'ERR_INVALID_ARG_VALUE'],
    [{ match: 'a\uDE00b' }, TypeError, 'ERR_INVALID_ARG_VALUE'],
    [{ match: ['ok', '\uDE00'] }, TypeError, 'ERR_INVALID_ARG_VALUE'],
    [{ match: 42 }, TypeError, 'ERR_INVALID_ARG_TYPE'],
    [{ match: /x/ }, TypeError, 'ERR_INVALID_ARG_TYPE'],
    [{ match: ['a', 1] }, TypeError, 'ERR_INVALID_ARG_TYPE'],
    [{ match: new String('a') }, TypeError, 'ERR_INVALID_ARG_TYPE'],
    [{ match: 'a', invert: 'yes' }, TypeError, 'ERR_INVALID_ARG_TYPE'],
    [{ match: 'a', ignoreCase: 1 }, TypeError, 'ERR_INVALID_ARG_TYPE'],
    [{ invert: true }, TypeError, 'ERR_INVALID_ARG_VALUE'],
    [{ ignoreCase: true }, TypeError, 'ERR_INVALID_ARG_VALUE'],
    [{ invert: 'false' }, TypeError, 'ERR_INVALID_ARG_TYPE'],
  ]
  for (const [options, instanceOf, code] of bad) {
    const expectation = { instanceOf, code }
    const context = show(options) ?? String(options.match)
    t.throws(() => readLines(file, options), expectation, `readLines ${context}`)
    t.throws(() => readLinesSync(file, options), expectation, `readLinesSync ${context}`)
    t.throws(() => followLines(file, { ...options, start: 0 }), expectation, `followLines ${context}`)
    const counted = countLines(file, options)
    t.true(counted instanceof Promise, `countLines ${context} returns a promise`)
    await t.throwsAsync(counted, expectation, `countLines ${context}`)
    const last = readLastLines(file, 1, options)
    t.true(last instanceof Promise, `readLastLines ${context} returns a promise`)
    await t.throwsAsync(last, expectation, `readLastLines ${context}`)
  }
  // The half shown as Node shows it, on every runtime (Deno's inspect showed U+FFFD there).
  t.throws(() => readLines(file, { match: ['ok', 'x\uDE00'] }), {
    message: "The property 'options.match[1]' must not hold a lone surrogate (half a character). Received 'x\\ude00'",
  })
  // Line options mean nothing to readChunks; countLines still refuses maxLineLength.
  for (const options of [{ match: 'x' }, { match: 'x', invert: true }, { match: 'x', ignoreCase: true }]) {
    t.throws(() => readChunks(file, options), { code: 'ERR_INVALID_ARG_VALUE' }, show(options))
  }
  await t.throwsAsync(countLines(file, { match: 'a', maxLineLength: 10 }), { code: 'ERR_INVALID_ARG_VALUE' })
  // And good options still read.
  t.deepEqual(await collect(readLines(file, { match: ['a', 'a'] })), ['a'])
  t.is(await countLines(file, { match: 'b', invert: false, ignoreCase: false }), 1)
})

test('invert: false and ignoreCase: false, their defaults, ask for nothing: every reader takes them without match', async (t) => {
  // As an options object built for a search that may have no pattern gives them:
  // `{ match: pattern, invert: flags.v ?? false }`. They were refused, as `true` still is.
  const file = temp.file('a\nB\n')
  const options = { match: undefined, invert: false, ignoreCase: false }
  t.deepEqual(await collect(readLines(file, options)), ['a', 'B'], 'readLines')
  t.deepEqual([...readLinesSync(file, options)], ['a', 'B'], 'readLinesSync')
  t.is(await countLines(file, options), 2, 'countLines')
  t.deepEqual([...(await readLastLines(file, 1, options))], ['B'], 'readLastLines')
  t.is(Buffer.concat(await collect(readChunks(file, options))).toString(), 'a\nB\n', 'readChunks')
  const follower = followLines(file, { ...options, start: 0 })
  t.deepEqual((await follower.next()).value, 'a', 'followLines')
  await follower.close()
  const json = temp.file('1\n"B"\n')
  t.deepEqual(await collect(readJsonLines(json, options)), [1, 'B'], 'readJsonLines')
  t.deepEqual([...readJsonLinesSync(json, options)], [1, 'B'], 'readJsonLinesSync')
})

test('a sparse match array (a hole is undefined, not a string) is an ERR_INVALID_ARG_TYPE', async (t) => {
  const file = temp.file('a\nb\n')
  // eslint-disable-next-line no-sparse-arrays
  const options = { match: ['a', , 'b'] }
  const expectation = { instanceOf: TypeError, code: 'ERR_INVALID_ARG_TYPE' }
  t.throws(() => readLines(file, options), expectation)
  t.throws(() => readLinesSync(file, options), expectation)
  await t.throwsAsync(countLines(file, options), expectation)
  await t.throwsAsync(readLastLines(file, 1, options), expectation)
})

test('a match array is read once: what is checked is what is searched', async (t) => {
  // Checked by index, then copied through its iterator, an array whose entries change as they
  // are read passed the check with 'error' and was searched for '' (every line matched), a
  // number (napi-rs's own error) or a lone surrogate.
  const file = temp.file('error one\nok\nfine\n')
  for (const later of ['', 5, '\uD800']) {
    let reads = 0
    const match = []
    Object.defineProperty(match, 0, { enumerable: true, get: () => (reads++ === 0 ? 'error' : later) })
    const what = `then ${JSON.stringify(later)}`
    t.deepEqual(await collect(readLines(file, { match })), ['error one'], what)
    reads = 0
    t.deepEqual([...readLinesSync(file, { match })], ['error one'], what)
    reads = 0
    t.is(await countLines(file, { match }), 1, what)
    reads = 0
    t.deepEqual([...(await readLastLines(file, 5, { match }))], ['error one'], what)
  }
})
