// The line contract, differentially: every way of reading lines must yield what the reference
// implementation yields (and, on Node 20/22, what readline yields, save for the documented
// incomplete-sequence-at-EOF exception), at every read size.
import { createHash } from 'node:crypto'
import test from 'ava'
import { countLines, readChunks, readLines, readLinesSync } from '../index.js'
import {
  byteRange,
  bytesOf,
  hasClassicReadline,
  randomSoup,
  readlineLines,
  readlineOracle,
  referenceLines,
  seededRandom,
  streamBytes,
} from './helpers/lines-reference.mjs'
import { makeTempDir } from './helpers/files.mjs'
import { SMALL_READS, STRADDLERS } from './helpers/line-inputs.mjs'

const SEED = Number(process.env.FASTLINES_SEED ?? 0x5eed1e5)
const LARGER_READS = [17, 31, 64, 4096, undefined]
const EVERY_READ_SIZE = [...SMALL_READS, ...LARGER_READS]

const temp = makeTempDir(test)

/** Writes `bytes` to a new file; every file is written once, while the tests are declared. */
function writeFixture(bytes) {
  return { file: temp.file(bytes), bytes }
}

const MAX_HEX_BYTES = 256

/** The input's bytes in hex, shortened for long inputs. */
function hex(bytes) {
  if (bytes.length === 0) return '(empty)'
  const shown = Buffer.from(bytes.subarray(0, MAX_HEX_BYTES)).toString('hex')
  return bytes.length > MAX_HEX_BYTES ? `${shown}... (${bytes.length} bytes)` : shown
}

function describe({ bytes }, options) {
  return `bytes=${hex(bytes)} options=${JSON.stringify(options)}`
}

const LONG_LINE = 1000

/** Long lines as their length and hash, so that a failure's diff stays readable. */
function compactLines(lines) {
  return lines.map((line) => {
    if (line.length <= LONG_LINE) return line
    const hash = createHash('sha256').update(Buffer.from(line, 'utf16le')).digest('hex')
    return `<${line.length} UTF-16 code units, sha256 ${hash}>`
  })
}

// ---- the ways of reading lines --------------------------------------------------------------

async function viaReadLines(file, options) {
  const reader = readLines(file, options)
  const lines = []
  for await (const line of reader) lines.push(line)
  return { lines, linesRead: reader.linesRead, bytesRead: reader.bytesRead, emptyBatches: 0 }
}

async function viaReadLinesBatches(file, options) {
  const reader = readLines(file, options)
  const batches = []
  for await (const batch of reader.batches()) batches.push(batch)
  return summarizeBatches(reader, batches)
}

function viaReadLinesSync(file, options) {
  const reader = readLinesSync(file, options)
  const lines = [...reader]
  return { lines, linesRead: reader.linesRead, bytesRead: reader.bytesRead, emptyBatches: 0 }
}

function viaReadLinesSyncBatches(file, options) {
  const reader = readLinesSync(file, options)
  return summarizeBatches(reader, [...reader.batches()])
}

function summarizeBatches(reader, batches) {
  return {
    lines: batches.flat(),
    linesRead: reader.linesRead,
    bytesRead: reader.bytesRead,
    emptyBatches: batches.filter((batch) => batch.length === 0).length,
  }
}

/** readChunks' bytes, concatenated, and its bytesRead at the end. */
async function collectChunks(file, options) {
  const reader = readChunks(file, options)
  const chunks = []
  for await (const chunk of reader) chunks.push(chunk)
  return { bytes: Buffer.concat(chunks), bytesRead: reader.bytesRead }
}

const LINE_READERS = {
  readLines: viaReadLines,
  'readLines().batches()': viaReadLinesBatches,
  readLinesSync: viaReadLinesSync,
  'readLinesSync().batches()': viaReadLinesSyncBatches,
}

/**
 * Every line reader (and countLines) over `fixture` with `options` yields `expected`, reads
 * exactly the bytes of the range, counts every line and gives no empty batch.
 */
async function assertLines(t, fixture, options, expected, context = '') {
  const want = {
    lines: compactLines(expected),
    linesRead: expected.length,
    bytesRead: byteRange(fixture.bytes, options).length,
    emptyBatches: 0,
  }
  const label = `${context} ${describe(fixture, options)}`
  for (const [name, read] of Object.entries(LINE_READERS)) {
    const got = await read(fixture.file, options)
    t.deepEqual({ ...got, lines: compactLines(got.lines) }, want, `${name}: ${label}`)
  }
  t.is(await countLines(fixture.file, options), expected.length, `countLines: ${label}`)
}

/** The reference lines of the fixture's range, checked against readline where it is an oracle. */
async function expectedLines(t, fixture, options = {}) {
  const { start, end, encoding } = options
  const range = byteRange(fixture.bytes, options)
  const expected = referenceLines(range, encoding)
  if (hasClassicReadline) {
    // Without an encoding, as the contract says: a decoding stream would flush an incomplete
    // sequence at EOF itself.
    const streamOptions = { start, end, encoding: encoding === 'latin1' ? encoding : undefined }
    const viaReadline = compactLines(await readlineOracle(fixture.file, streamOptions, range))
    t.deepEqual(viaReadline, compactLines(expected), `readline: ${describe(fixture, options)}`)
  }
  return expected
}

/** Reads the fixture with every line reader at every read size, against the oracles. */
async function assertAtEveryReadSize(t, fixture, options = {}, readSizes = EVERY_READ_SIZE) {
  const expected = await expectedLines(t, fixture, options)
  for (const highWaterMark of readSizes) {
    await assertLines(t, fixture, { ...options, highWaterMark }, expected)
  }
}

// ---- fixed edge cases, with their lines spelled out ----------------------------------------

const EDGE_CASES = [
  ['empty file', '', []],
  ['a lone LF', '\n', ['']],
  ['a lone CR', '\r', ['']],
  ['CRLF', '\r\n', ['']],
  ['LF LF', '\n\n', ['', '']],
  ['CR CR', '\r\r', ['', '']],
  ['CRLF CRLF', '\r\n\r\n', ['', '']],
  ['LF CR', '\n\r', ['', '']],
  ['CR CRLF', 'a\r\r\nb', ['a', '', 'b']],
  ['only terminators', '\r\n\n\r\r\n\n\r\n\r', ['', '', '', '', '', '', '']],
  ['no final terminator', 'one\ntwo', ['one', 'two']],
  ['every terminator', 'one\ntwo\r\nthree\rfour\n', ['one', 'two', 'three', 'four']],
  ['blank lines between text', '\na\n\nb\r\rc\r\n\r\n', ['', 'a', '', 'b', '', 'c', '']],
  ['BOM at start is kept', bytesOf([0xef, 0xbb, 0xbf], 'bom\nx'), ['\uFEFFbom', 'x']],
  ['a BOM alone', bytesOf([0xef, 0xbb, 0xbf]), ['\uFEFF']],
  ['BOM mid-file is kept', 'a\n\uFEFFb\uFEFF', ['a', '\uFEFFb\uFEFF']],
  ['NUL bytes are kept', 'a\0b\n\0\n\0', ['a\0b', '\0', '\0']],
  [
    'U+2028, U+2029, NEL, FF and VT are not terminators',
    'a\u2028b\u2029c\u0085d\fe\vf\n\u2028\r\n\u2029',
    ['a\u2028b\u2029c\u0085d\fe\vf', '\u2028', '\u2029'],
  ],
  ['2-, 3- and 4-byte characters', 'é中😀\r\n😀中é\ré', ['é中😀', '😀中é', 'é']],
  [
    'lone continuation bytes',
    bytesOf('a', [0x80], 'b', [0xbf, 0x80], '\n', [0xa9]),
    ['a\uFFFDb\uFFFD\uFFFD', '\uFFFD'],
  ],
  [
    'overlong encodings',
    bytesOf([0xc0, 0xaf], '|', [0xc1, 0xbf], '|', [0xe0, 0x80, 0xaf], '|', [0xf0, 0x80, 0x80, 0xaf]),
    ['\uFFFD\uFFFD|\uFFFD\uFFFD|\uFFFD\uFFFD\uFFFD|\uFFFD\uFFFD\uFFFD\uFFFD'],
  ],
  [
    'surrogates encoded in UTF-8',
    bytesOf([0xed, 0xa0, 0x80], '\n', [0xed, 0xbf, 0xbf], '\n', [0xed, 0x9f, 0xbf]),
    ['\uFFFD\uFFFD\uFFFD', '\uFFFD\uFFFD\uFFFD', '\uD7FF'],
  ],
  [
    'above U+10FFFF and F5..FF bytes',
    bytesOf([0xf4, 0x90, 0x80, 0x80], '|', [0xf4, 0x8f, 0xbf, 0xbf], '|', [0xf5, 0xf8, 0xfc, 0xfe, 0xff]),
    ['\uFFFD\uFFFD\uFFFD\uFFFD|\u{10FFFF}|\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD'],
  ],
  [
    'truncated sequences mid-line',
    bytesOf([0xc3], 'x', [0xe4, 0xb8], 'x', [0xf0, 0x9f, 0x98], 'x', [0xf0, 0x9f, 0x98], '中'),
    ['\uFFFDx\uFFFDx\uFFFDx\uFFFD中'],
  ],
  [
    'truncated sequences before terminators',
    bytesOf('caf', [0xe9], '\n', [0xe4, 0xb8], '\r\n', [0xf0, 0x9f, 0x98], '\rz\n', [0xc3], '\r'),
    ['caf\uFFFD', '\uFFFD', '\uFFFD', 'z', '\uFFFD'],
  ],
  ['a truncated 2-byte sequence at EOF', bytesOf('caf', [0xc3]), ['caf\uFFFD']],
  ['a truncated 3-byte sequence at EOF', bytesOf('a\n', [0xe4, 0xb8]), ['a', '\uFFFD']],
  ['a truncated 4-byte sequence at EOF', bytesOf('x', [0xf0, 0x9f, 0x98]), ['x\uFFFD']],
  ['a lead byte alone after the final terminator', bytesOf('\r\n', [0xe4]), ['', '\uFFFD']],
  ['a Latin-1 byte at EOF', bytesOf('caf', [0xe9]), ['caf\uFFFD']],
  ['an F5 byte at EOF', bytesOf('a', [0xf5]), ['a\uFFFD']],
].map(([name, input, lines]) => ({ name, fixture: writeFixture(bytesOf(input)), lines }))

for (const { name, fixture, lines } of EDGE_CASES) {
  test(`utf8: ${name}`, async (t) => {
    t.deepEqual(referenceLines(fixture.bytes), lines, 'the reference implementation')
    await assertAtEveryReadSize(t, fixture)
  })
}

const NON_TERMINATORS = [...Array(256).keys()].filter((byte) => byte !== 0x0a && byte !== 0x0d)

const LATIN1_CASES = [
  ['every byte but the terminators', bytesOf(NON_TERMINATORS, '\n'), [String.fromCharCode(...NON_TERMINATORS)]],
  [
    'high bytes between terminators',
    bytesOf([0xe9], '\r', [0xff, 0x80], '\r\n', [0xc3, 0xa9], '\n\n', [0x85, 0xa0]),
    ['é', 'ÿ\x80', 'Ã©', '', '\x85\xa0'],
  ],
  ['a UTF-8 BOM is three characters', bytesOf([0xef, 0xbb, 0xbf], 'x\r'), ['ï»¿x']],
  ['U+2028 bytes are three characters', bytesOf('\u2028\n'), ['â\x80¨']],
].map(([name, input, lines]) => ({ name, fixture: writeFixture(input), lines }))

for (const { name, fixture, lines } of LATIN1_CASES) {
  test(`latin1: ${name}`, async (t) => {
    t.deepEqual(referenceLines(fixture.bytes, 'latin1'), lines, 'the reference implementation')
    await assertAtEveryReadSize(t, fixture, { encoding: 'latin1' })
  })
}

test('readline drops an incomplete sequence at EOF where fastlines yields U+FFFD', async (t) => {
  const fixture = EDGE_CASES.find(({ name }) => name === 'a Latin-1 byte at EOF').fixture
  t.deepEqual([...readLinesSync(fixture.file)], ['caf\uFFFD'])
  t.deepEqual((await viaReadLines(fixture.file)).lines, ['caf\uFFFD'])
  if (hasClassicReadline) t.deepEqual(await readlineLines(fixture.file), ['caf'])
})

// ---- characters and terminators straddling read boundaries ---------------------------------

// Each token lands at every offset of a read of every small size: after `pad` bytes, then right
// after itself, then at the very end of the file (the EOF case for the truncated ones).
const MAX_PAD = SMALL_READS.length

for (const [name, token] of STRADDLERS) {
  const fixtures = Array.from({ length: MAX_PAD }, (_, pad) =>
    writeFixture(bytesOf('x'.repeat(pad), token, '|', token, token)),
  )

  test(`${name} straddling read boundaries at every highWaterMark`, async (t) => {
    const expected = []
    for (const fixture of fixtures) expected.push(await expectedLines(t, fixture))
    for (const highWaterMark of SMALL_READS) {
      for (let pad = 0; pad < highWaterMark; pad++) {
        await assertLines(t, fixtures[pad], { highWaterMark }, expected[pad])
      }
    }
    for (const highWaterMark of LARGER_READS) {
      await assertLines(t, fixtures[0], { highWaterMark }, expected[0])
    }
  })
}

// ---- big inputs ----------------------------------------------------------------------------

test('lines of several MB crossing many reads', async (t) => {
  const line = 'ab é 中 😀 \u2028 '.repeat(250_000)
  const ascii = 'x'.repeat(3_000_000)
  const fixture = writeFixture(bytesOf(line, '\r\n', ascii, '\r', line, '\ntail'))
  t.true(fixture.bytes.length > 10_000_000)
  const expected = await expectedLines(t, fixture)
  t.deepEqual(compactLines(expected), compactLines([line, ascii, line, 'tail']))
  for (const highWaterMark of [4099, 65536, undefined]) {
    await assertLines(t, fixture, { highWaterMark }, expected)
  }
  const options = { encoding: 'latin1' }
  await assertLines(t, fixture, options, await expectedLines(t, fixture, options))
})

test('many short lines', async (t) => {
  const terminators = ['\n', '\r\n', '\r']
  const lines = Array.from({ length: 50_000 }, (_, i) => (i % 7 === 0 ? '' : `${i}é`))
  // An empty line after a CR must not start with LF, or the two would make one CRLF.
  const text = lines.map((line, i) => line + (line === '' ? '\r\n' : terminators[i % 3])).join('')
  const fixture = writeFixture(bytesOf(text))
  const expected = await expectedLines(t, fixture)
  t.deepEqual(expected, lines)
  for (const highWaterMark of [1000, undefined]) {
    await assertLines(t, fixture, { highWaterMark }, expected)
  }
  const batches = [...readLinesSync(fixture.file, { highWaterMark: 1000 }).batches()]
  t.true(batches.length > 1, 'small reads give many batches')
})

// ---- random byte soup ----------------------------------------------------------------------

const SOUP_INPUTS = 320
const SOUP_GROUPS = 8
const soupRandom = seededRandom(SEED)
const soup = Array.from({ length: SOUP_INPUTS }, (_, index) => ({
  index,
  fixture: writeFixture(randomSoup(soupRandom, soupRandom() < 0.1 ? 200 : 40)),
  highWaterMark: soupRandom.int(1, 16),
}))

for (let group = 0; group < SOUP_GROUPS; group++) {
  const inputs = soup.filter(({ index }) => index % SOUP_GROUPS === group)
  test(`random byte soup, group ${group + 1}/${SOUP_GROUPS} (seed ${SEED})`, async (t) => {
    for (const { index, fixture, highWaterMark } of inputs) {
      const context = `seed=${SEED} input #${index}`
      for (const encoding of ['utf8', 'latin1']) {
        const expected = await expectedLines(t, fixture, { encoding })
        for (const options of [{ encoding, highWaterMark }, { encoding }]) {
          await assertLines(t, fixture, options, expected, context)
        }
      }
      const chunks = await collectChunks(fixture.file, { highWaterMark })
      const whole = { bytes: fixture.bytes, bytesRead: fixture.bytes.length }
      t.deepEqual(chunks, whole, `readChunks: ${context} ${describe(fixture, { highWaterMark })}`)
    }
  })
}

// ---- start / end ---------------------------------------------------------------------------

const rangeRandom = seededRandom(SEED ^ 0x5a5a5a5a)

/** Ranges at the edges of the file, at a CRLF's halves and inside a character, and random ones. */
function rangesFor(bytes) {
  const size = bytes.length
  const atEdges = [
    {},
    { start: 0 },
    { start: 1 },
    { end: 6 },
    { start: 0, end: 0 },
    { start: 1, end: 1 },
    { start: 2, end: 2 },
    { start: 2, end: size + 100 },
    { start: 0, end: size - 1 },
    { start: 0, end: size },
    { start: size - 1, end: size - 1 },
    { start: size },
    { start: size, end: size },
    { start: size, end: size + 5 },
    { start: size + 3 },
    { start: size + 3, end: size + 9 },
  ]
  const cr = bytes.indexOf('\r\n')
  const lead = bytes.findIndex((byte) => byte >= 0xc2 && byte <= 0xf4)
  const atSplits = [
    { end: cr },
    { start: cr + 1 },
    { start: cr, end: cr + 1 },
    { end: lead },
    { start: lead + 1 },
    { start: lead + 1, end: lead + 1 },
  ]
  const random = Array.from({ length: 24 }, () => {
    const start = rangeRandom.int(0, size + 2)
    return { start, end: rangeRandom.int(start, size + 4) }
  })
  return [...atEdges, ...atSplits, ...random]
}

const RANGE_FIXTURES = [
  bytesOf('héllo\r\nwörld\r中文\n😀 end'),
  bytesOf('caf', [0xe9], '\r\n\r\n', [0xf0, 0x9f, 0x98, 0x80], '\r', [0xe4, 0xb8], '\n\n'),
  bytesOf(randomSoup(rangeRandom, 120), '\r\n中'),
].map((bytes) => ({ fixture: writeFixture(bytes), ranges: rangesFor(bytes) }))

for (const [index, { fixture, ranges }] of RANGE_FIXTURES.entries()) {
  test(`start/end pick the bytes and lines fs.createReadStream does (file ${index + 1})`, async (t) => {
    for (const range of ranges) {
      const fromFs = await streamBytes(fixture.file, range)
      t.deepEqual(byteRange(fixture.bytes, range), fromFs, `byteRange: ${describe(fixture, range)}`)
      const whole = { bytes: fromFs, bytesRead: fromFs.length }
      for (const highWaterMark of [1, 3, undefined]) {
        const options = { ...range, highWaterMark }
        const chunks = await collectChunks(fixture.file, options)
        t.deepEqual(chunks, whole, `readChunks: ${describe(fixture, options)}`)
      }
      for (const encoding of ['utf8', 'latin1']) {
        await assertAtEveryReadSize(t, fixture, { ...range, encoding }, [1, 2, 3, 5, undefined])
      }
    }
  })
}
