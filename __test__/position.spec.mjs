// reader.position on readLines, readLinesSync and followLines: the byte offset just past the
// last line handed out (by line steps or batches), checked after every line against offsets
// computed from the raw bytes; and resuming at it (`start: position`) after stopping at every
// line of small files gives exactly the remaining lines, for every terminator, invalid and
// multi-byte UTF-8, Latin-1 and small read sizes.
import fs from 'node:fs'

import test from 'ava'

import { followLines, readLines, readLinesSync } from '../index.js'
import { makeTempDir, numberedLines } from './helpers/files.mjs'
import { EDGE_INPUTS, LATIN1_INPUTS, SMALL_READS } from './helpers/line-inputs.mjs'
import { byteRange, bytesOf, referenceLines } from './helpers/lines-reference.mjs'
import { collect, lineEnds, settledLineCount, take } from './helpers/tail.mjs'

const temp = makeTempDir(test)

/** [name, bytes, encoding] of the small files every position is checked on. */
const INPUTS = [
  ['\\n', bytesOf('a\nbb\n\nccc\ndd'), 'utf8'],
  ['\\r\\n', bytesOf('a\r\nbb\r\n\r\nccc\r\n'), 'utf8'],
  ['lone \\r', bytesOf('a\rbb\r\rccc\r'), 'utf8'],
  ['mixed', bytesOf('one\ntwo\r\nthree\rfour\n\r\n\r\rfive\r\r\nsix'), 'utf8'],
  [
    'invalid UTF-8',
    bytesOf('caf', [0xe9], '\n', [0xe4, 0xb8], '\r\n', [0xf0, 0x9f, 0x98], '\rz\n', [0xc3], '\r', [0xff]),
    'utf8',
  ],
  ['multi-byte UTF-8', bytesOf('é中😀\r\n😀中é\ré\n\u2028x\u2029\r\n\uFEFFbom\n'), 'utf8'],
  ['latin1', bytesOf([0xe9], '\r', [0xff, 0x80], '\r\n', [0xc3, 0xa9], '\n\n', [0x85, 0xa0, 0x0d]), 'latin1'],
  ...EDGE_INPUTS.map(([name, bytes]) => [name, bytes, 'utf8']),
  ...LATIN1_INPUTS.map(([name, bytes]) => [name, bytes, 'latin1']),
].map(([name, bytes, encoding]) => ({ name, bytes, encoding, file: temp.file(bytes) }))

const READ_SIZES = [...SMALL_READS, undefined]
const FOLLOW_READ_SIZES = [1, 2, 3, 5, 16, undefined]

function hex(bytes) {
  return bytes.length === 0 ? '(empty)' : Buffer.from(bytes).toString('hex')
}

test('the reference offsets agree with the reference lines', (t) => {
  for (const { name, bytes, encoding } of INPUTS) {
    const ends = lineEnds(bytes)
    t.is(ends.length, referenceLines(bytes, encoding).length, name)
    t.true(
      ends.every((end, i) => end > (ends[i - 1] ?? 0)),
      name,
    )
  }
  t.deepEqual(lineEnds(bytesOf('a\r\nb\rc\n\nd')), [3, 5, 7, 8, 9])
  t.deepEqual(lineEnds(bytesOf('\r\r\n\n')), [1, 3, 4])
  t.is(settledLineCount(bytesOf('a\nb\r')), 1)
  t.is(settledLineCount(bytesOf('a\nb\r\n')), 2)
  t.is(settledLineCount(bytesOf('a\nb')), 1)
})

// ---- after every line --------------------------------------------------------------------------

/** The offsets after each line of the file's range [start, end], in file offsets. */
function expectedEnds(bytes, { start = 0, end } = {}) {
  return lineEnds(byteRange(bytes, { start, end })).map((offset) => start + offset)
}

test('readLines: before any line the start, then after every line the offset past its terminator', async (t) => {
  for (const { name, bytes, encoding, file } of INPUTS) {
    for (const highWaterMark of READ_SIZES) {
      const options = { encoding, highWaterMark }
      const ends = expectedEnds(bytes)
      const reader = readLines(file, options)
      const context = `${name} ${hex(bytes)} hwm=${highWaterMark}`
      t.is(reader.position, 0, `before the first step: ${context}`)
      const positions = []
      for await (const _ of reader) positions.push(reader.position)
      t.deepEqual(positions, ends, context)
      t.is(reader.position, ends.at(-1) ?? 0, `after the end: ${context}`)
    }
  }
})

test('readLinesSync: the same positions', (t) => {
  for (const { name, bytes, encoding, file } of INPUTS) {
    for (const highWaterMark of READ_SIZES) {
      const reader = readLinesSync(file, { encoding, highWaterMark })
      t.is(reader.position, 0)
      const positions = []
      for (const _ of reader) positions.push(reader.position)
      t.deepEqual(positions, expectedEnds(bytes), `${name} ${hex(bytes)} hwm=${highWaterMark}`)
    }
  }
})

test('start and end: positions are file offsets, starting at start', async (t) => {
  const { bytes, file } = INPUTS.find(({ name }) => name === 'mixed')
  for (let start = 0; start <= bytes.length + 1; start++) {
    for (const end of [undefined, start + 3, bytes.length - 2]) {
      if (end !== undefined && end < start) continue
      const options = { start, end, highWaterMark: 3 }
      const ends = expectedEnds(bytes, { start, end })
      const context = JSON.stringify(options)
      const reader = readLines(file, options)
      t.is(reader.position, start, context)
      const positions = []
      for await (const _ of reader) positions.push(reader.position)
      t.deepEqual(positions, ends, context)
      const sync = readLinesSync(file, options)
      t.is(sync.position, start, context)
      const syncPositions = []
      for (const _ of sync) syncPositions.push(sync.position)
      t.deepEqual(syncPositions, ends, `sync: ${context}`)
    }
  }
})

test('followLines: before any line the start, then after every line the offset past its terminator', async (t) => {
  for (const { name, bytes, encoding, file } of INPUTS) {
    const ends = expectedEnds(bytes).slice(0, settledLineCount(bytes))
    for (const highWaterMark of FOLLOW_READ_SIZES) {
      const reader = followLines(file, { start: 0, encoding, highWaterMark })
      t.is(reader.position, 0)
      const positions = []
      for (let i = 0; i < ends.length; i++) {
        await reader.next()
        positions.push(reader.position)
      }
      t.deepEqual(positions, ends, `${name} ${hex(bytes)} hwm=${highWaterMark}`)
      await reader.close()
    }
  }
})

test('followLines from the end: its size at the call, before and after the first step opens it', async (t) => {
  const file = temp.file('one\ntwo\n')
  const reader = followLines(file)
  t.is(reader.position, 8)
  const step = reader.next()
  t.is(reader.position, 8)
  fs.appendFileSync(file, 'three\r\n')
  await step
  t.is(reader.position, 15)
  await reader.close()
  t.is(followLines(file, { start: 4 }).position, 4)
  t.is(followLines(temp.path('not-there.log')).position, undefined, 'no file at the call')
  const last = followLines(file, { lastLines: 1 })
  t.is(last.position, undefined, 'lastLines: not known before the file is read back')
  t.deepEqual(await last.next(), { value: 'three', done: false })
  t.is(last.position, 15)
  await last.close()
})

// ---- resuming at every line --------------------------------------------------------------------

test('readLines resumed at its position after every line gives exactly the rest', async (t) => {
  for (const { name, bytes, encoding, file } of INPUTS) {
    for (const highWaterMark of READ_SIZES) {
      const options = { encoding, highWaterMark }
      const all = await collect(readLines(file, options))
      for (let stop = 0; stop <= all.length; stop++) {
        const reader = readLines(file, options)
        const head = await take(reader, stop)
        const position = reader.position
        await reader.close()
        const rest = await collect(readLines(file, { ...options, start: position }))
        t.deepEqual([...head, ...rest], all, `${name} ${hex(bytes)} hwm=${highWaterMark} stopped after ${stop}`)
      }
    }
  }
})

test('readLinesSync resumed at its position after every line gives exactly the rest', (t) => {
  for (const { name, bytes, encoding, file } of INPUTS) {
    for (const highWaterMark of READ_SIZES) {
      const options = { encoding, highWaterMark }
      const all = [...readLinesSync(file, options)]
      for (let stop = 0; stop <= all.length; stop++) {
        const reader = readLinesSync(file, options)
        const head = []
        while (head.length < stop) head.push(reader.next().value)
        const position = reader.position
        reader.close()
        const rest = [...readLinesSync(file, { ...options, start: position })]
        t.deepEqual([...head, ...rest], all, `${name} ${hex(bytes)} hwm=${highWaterMark} stopped after ${stop}`)
      }
    }
  }
})

test('followLines resumed at its position after every line gives exactly the rest', async (t) => {
  for (const { name, bytes, encoding, file } of INPUTS) {
    const settled = settledLineCount(bytes)
    const all = referenceLines(bytes, encoding).slice(0, settled)
    for (const highWaterMark of FOLLOW_READ_SIZES) {
      const options = { encoding, highWaterMark }
      for (let stop = 0; stop <= settled; stop++) {
        const first = followLines(file, { ...options, start: 0 })
        const head = await take(first, stop)
        const position = first.position
        await first.close()
        const resumed = followLines(file, { ...options, start: position })
        const rest = await take(resumed, settled - stop)
        await resumed.close()
        t.deepEqual([...head, ...rest], all, `${name} ${hex(bytes)} hwm=${highWaterMark} stopped after ${stop}`)
        // A reader resumed there reads the same rest, the unsettled last line too.
        const viaReadLines = await collect(readLines(file, { encoding, start: position }))
        t.deepEqual(viaReadLines, referenceLines(bytes, encoding).slice(stop), `readLines from the follower's position`)
      }
    }
  }
})

// ---- batches -----------------------------------------------------------------------------------

test('after every batch, the position is past the last line of the batch', async (t) => {
  for (const { name, bytes, encoding, file } of INPUTS) {
    const ends = expectedEnds(bytes)
    for (const highWaterMark of [1, 3, 7, undefined]) {
      const context = `${name} ${hex(bytes)} hwm=${highWaterMark}`
      const reader = readLines(file, { encoding, highWaterMark })
      let lines = 0
      for await (const batch of reader.batches()) {
        lines += batch.length
        t.is(reader.position, ends[lines - 1], context)
      }
      const sync = readLinesSync(file, { encoding, highWaterMark })
      let syncLines = 0
      for (const batch of sync.batches()) {
        syncLines += batch.length
        t.is(sync.position, ends[syncLines - 1], `sync: ${context}`)
      }
      t.is(syncLines, ends.length)
    }
  }
})

test('stopped in the middle of a batch, line steps and batches share the position', async (t) => {
  const text = 'a\r\nbb\r\nccc\r\ndddd\r\neeeee\r\nffffff\r\n'
  const file = temp.file(text)
  const ends = lineEnds(Buffer.from(text))
  const reader = readLines(file)
  t.deepEqual(await take(reader, 2), ['a', 'bb'])
  t.is(reader.position, ends[1])
  const batches = reader.batches()
  const { value: rest } = await batches.next()
  t.deepEqual(rest, ['ccc', 'dddd', 'eeeee', 'ffffff'])
  t.is(reader.position, ends[5])

  const resumedAt = readLines(file)
  await take(resumedAt, 3)
  const position = resumedAt.position
  await resumedAt.close()
  t.is(position, ends[2])
  t.deepEqual(await collect(readLines(file, { start: position })), ['dddd', 'eeeee', 'ffffff'])
  t.deepEqual([...readLinesSync(file, { start: position })], ['dddd', 'eeeee', 'ffffff'])

  const sync = readLinesSync(file)
  sync.next()
  t.deepEqual(sync.batches().next().value, ['bb', 'ccc', 'dddd', 'eeeee', 'ffffff'])
  t.is(sync.position, ends[5])
})

test('a large file resumed in the middle, across many reads', async (t) => {
  const text = numberedLines(20_000).replaceAll('\n', '\r\n')
  const file = temp.file(text)
  const ends = lineEnds(Buffer.from(text))
  for (const stop of [1, 777, 819, 10_000, 19_999]) {
    const reader = readLines(file, { highWaterMark: 4095 })
    await take(reader, stop)
    t.is(reader.position, ends[stop - 1])
    await reader.close()
    const rest = await collect(readLines(file, { start: reader.position }))
    t.is(rest.length, 20_000 - stop)
    t.is(rest[0], numberedLines(stop + 1).split('\n')[stop])
  }
})

// ---- after close and failures ------------------------------------------------------------------

test('position stays after the last line handed out: after close(), and after a line too long', async (t) => {
  const file = temp.file(`a\r\nb\n${'L'.repeat(50)}\nc\n`)
  const closed = readLines(file)
  await closed.next()
  await closed.close()
  t.is(closed.position, 3)
  const tooLong = readLines(file, { maxLineLength: 10 })
  t.deepEqual(await take(tooLong, 2), ['a', 'b'])
  await t.throwsAsync(tooLong.next(), { code: 'ERR_LINE_TOO_LONG' })
  t.is(tooLong.position, 5)
  const sync = readLinesSync(file, { maxLineLength: 10 })
  sync.next()
  sync.next()
  t.throws(() => sync.next(), { code: 'ERR_LINE_TOO_LONG' })
  t.is(sync.position, 5)
})

test("a batch is the caller's: emptying, reversing or changing it leaves the reader's numbers and offsets alone", async (t) => {
  // Mixed terminators and non-ASCII text: offsets are measured line by line.
  const text = Array.from({ length: 300 }, (_, i) => `línea ${i}${i % 3 === 0 ? '\r\n' : '\n'}`).join('')
  const file = temp.file(text)
  const changes = [(batch) => (batch.length = 0), (batch) => batch.reverse(), (batch) => batch.fill('x'), () => {}]
  const places = async (change, highWaterMark) => {
    const reader = readLines(file, { highWaterMark })
    const seen = []
    for await (const batch of reader.batches()) {
      change(batch)
      seen.push([reader.lineNumber, reader.lineOffset, reader.position])
    }
    return seen
  }
  for (const highWaterMark of [64, 1000]) {
    const untouched = await places(() => {}, highWaterMark)
    t.true(untouched.length > 1)
    for (const change of changes) t.deepEqual(await places(change, highWaterMark), untouched, `${change}`)
  }
  const numbered = readLines(file, { highWaterMark: 64 })
  const offsets = []
  for await (const batch of numbered.batches({ numbered: true })) {
    offsets.push(...batch.offsets)
    batch.lines.length = 0
  }
  t.deepEqual(offsets, await lineStartsOf(file))
})

/** Where each line of `file` starts, by reading it whole. */
async function lineStartsOf(file) {
  const starts = []
  const reader = readLines(file)
  for await (const _ of reader) starts.push(reader.lineOffset)
  return starts
}
