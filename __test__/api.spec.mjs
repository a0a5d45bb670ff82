// The shape of the API: batches and lines agree, steps stay in order, progress is reported, and
// CommonJS and ESM expose the same functions.
import { execFile } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { gzipSync } from 'node:zlib'

import test from 'ava'

import * as esm from '../index.mjs'
import { countLines, readChunks, readLines, readLinesSync } from '../index.js'
import { makeTempDir, numberedLines } from './helpers/files.mjs'
import { hangLimit } from './helpers/hang.mjs'
import { describeRun, runProcess } from './helpers/processes.mjs'
import { fixturePath } from './helpers/tail.mjs'

const execFileAsync = promisify(execFile)
const temp = makeTempDir(test)
const text = numberedLines(3000, 40)
const expected = text.trimEnd().split('\n')
const file = temp.file(text)

async function collect(iterable) {
  const items = []
  for await (const item of iterable) items.push(item)
  return items
}

test('CommonJS and ESM give the same exports', (t) => {
  const cjs = createRequire(import.meta.url)('../index.js')
  const functions = [
    'readLines',
    'readLinesSync',
    'readJsonLines',
    'readJsonLinesSync',
    'readChunks',
    'countLines',
    'readLastLines',
    'followLines',
  ]
  for (const name of [...functions, 'isLineTooLongError']) {
    t.is(typeof cjs[name], 'function')
    t.is(esm[name], cjs[name])
  }
  t.is(esm.codes, cjs.codes)
  t.is(esm.default, cjs)
})

test("codes and isLineTooLongError recognise fastlines' own errors", async (t) => {
  const { codes, isLineTooLongError } = esm
  t.true(Object.isFrozen(codes))
  const error = await t.throwsAsync(collect(readLines(file, { maxLineLength: 1 })), { code: codes.LINE_TOO_LONG })
  t.true(isLineTooLongError(error))
  const missing = await t.throwsAsync(collect(readLines(`${file}.missing`)), { code: 'ENOENT' })
  t.false(isLineTooLongError(missing))
  t.false(isLineTooLongError({ code: codes.LINE_TOO_LONG }), 'an Error, not a lookalike')
  t.false(isLineTooLongError(undefined))
  t.deepEqual(Object.values(codes).sort(), [
    'ERR_FASTLINES_BINDING_FAILED',
    'ERR_FASTLINES_BINDING_MISSING',
    'ERR_FASTLINES_JSON_PARSE',
    'ERR_LINE_TOO_LONG',
    'ERR_STRING_TOO_LONG',
  ])
})

test('batches() gives the same lines, never empty, never splitting a line', async (t) => {
  for (const highWaterMark of [7, 100, 4096, 1 << 20]) {
    const batches = await collect(readLines(file, { highWaterMark }).batches())
    t.true(batches.every((batch) => Array.isArray(batch) && batch.length > 0))
    t.deepEqual(batches.flat(), expected)
    const syncBatches = [...readLinesSync(file, { highWaterMark }).batches()]
    t.true(syncBatches.every((batch) => batch.length > 0))
    t.deepEqual(syncBatches.flat(), expected)
  }
  t.true((await collect(readLines(file, { highWaterMark: 4096 }).batches())).length > 1)
})

test('the largest highWaterMark over a small file reads it without taking a gigabyte', async (t) => {
  // 1 GiB reads zero-filled their buffer first: 2 s and 1 GiB resident for a 10-byte file.
  const small = temp.file('one\ntwo\nthree')
  const gzipped = temp.file(gzipSync('one\ntwo\nthree'), 'small.gz')
  const run = await runProcess([fixturePath('large-read-size.mjs'), small, gzipped], { quietMs: 1_000 }).result
  t.is(run.status, 0, describeRun(run))
  const seen = JSON.parse(run.stdout)
  t.deepEqual(seen.lines, ['one', 'two', 'three'])
  t.deepEqual(seen.syncLines, ['one', 'two', 'three'])
  t.deepEqual(seen.chunks, [13], 'one read, as fs.createReadStream makes it')
  t.is(seen.count, 3)
  t.deepEqual(seen.inflated, ['one', 'two', 'three'])
  t.true(seen.peakBytes < 512 * 1024 ** 2, `peak resident memory ${seen.peakBytes} bytes`)
})

test('a start past the longest file the file system allows reads nothing, as fs does', async (t) => {
  // lseek there fails with EINVAL, where Node's pread finds the end of the file.
  const start = Number.MAX_SAFE_INTEGER
  t.deepEqual(await collect(readLines(file, { start })), [])
  t.deepEqual([...readLinesSync(file, { start })], [])
  t.deepEqual(await collect(readChunks(file, { start })), [])
  t.is(await countLines(file, { start }), 0)
  t.deepEqual(await collect(readLines(file, { start: start - 1, end: start })), [])
  // Not a regular file that refuses the offset (a procfs directory): an error, from every reader.
  t.is((await t.throwsAsync(countLines('/proc', { start: 2 ** 40 }))).syscall, 'read')
  t.is((await t.throwsAsync(collect(readChunks('/proc', { start: 2 ** 40 })))).syscall, 'read')
})

test('per-line and batch steps can be mixed on one reader', async (t) => {
  const reader = readLines(file, { highWaterMark: 1000 })
  const seen = [(await reader.next()).value, (await reader.next()).value]
  const batches = reader.batches()
  seen.push(...(await batches.next()).value)
  seen.push((await reader.next()).value)
  for await (const batch of batches) seen.push(...batch)
  t.deepEqual(seen, expected)
  t.is(reader.linesRead, expected.length)
})

test('next() calls made without awaiting still get lines in order', async (t) => {
  const reader = readLines(file, { highWaterMark: 512 })
  const results = await Promise.all(Array.from({ length: expected.length + 2 }, () => reader.next()))
  t.deepEqual(
    results.map((result) => result.value),
    [...expected, undefined, undefined],
  )
  t.true(results.at(-1).done)

  const chunks = readChunks(file, { highWaterMark: 1000 })
  const steps = await Promise.all(Array.from({ length: 200 }, () => chunks.next()))
  t.is(Buffer.concat(steps.filter((s) => !s.done).map((s) => s.value)).toString(), text)
})

test('linesRead and bytesRead report progress', async (t) => {
  const reader = readLines(file, { highWaterMark: 4096 })
  t.is(reader.linesRead, 0)
  t.is(reader.bytesRead, 0)
  await reader.next()
  t.is(reader.linesRead, 1)
  // Read-ahead included: at least the first read, at most the file.
  t.true(reader.bytesRead >= 4096 && reader.bytesRead <= text.length)
  const rest = await collect(reader)
  t.is(reader.linesRead, expected.length)
  t.is(rest.length, expected.length - 1)
  t.is(reader.bytesRead, text.length)

  const sync = readLinesSync(file, { highWaterMark: 4096 })
  sync.next()
  t.is(sync.bytesRead, 4096)
  t.is([...sync].length + 1, sync.linesRead)
  t.is(sync.bytesRead, text.length)
})

test('paths may be strings, Buffers or file: URLs', async (t) => {
  t.deepEqual(await collect(readLines(Buffer.from(file))), expected)
  t.deepEqual(await collect(readLines(new URL(`file://${file}`))), expected)
  t.deepEqual([...readLinesSync(new Uint8Array(Buffer.from(file)))], expected)
  t.is(await countLines(new URL(`file://${file}`)), expected.length)
})

test('countLines agrees with the lines yielded, also within start/end', async (t) => {
  t.is(await countLines(file), expected.length)
  const range = { start: 17, end: 5000 }
  t.is(await countLines(file, range), (await collect(readLines(file, range))).length)
  t.is(await countLines(temp.file('')), 0)
})

test('readChunks gives Buffers holding exactly the file bytes', async (t) => {
  const chunks = await collect(readChunks(file, { highWaterMark: 10_000 }))
  t.true(chunks.every((chunk) => Buffer.isBuffer(chunk) && chunk.length <= 10_000 && chunk.length > 0))
  t.is(Buffer.concat(chunks).toString(), text)
})

test("loading fastlines and reading a path loads none of Node's modules it does not use", async (t) => {
  // fs's streams (node:stream with them) and perf_hooks cost Node 4 ms and 1.7 ms to load: a
  // reader of paths needs neither. Node lists what it loaded; the other runtimes do not.
  const index = fileURLToPath(new URL('../index.js', import.meta.url))
  const script = `
    const fastlines = require(${JSON.stringify(index)})
    const file = ${JSON.stringify(file)}
    fastlines.countLines(file).then(async (count) => {
      let lines = 0
      for await (const line of fastlines.readLines(file)) lines++
      for await (const batch of fastlines.readLines(file).batches()) lines += batch.length
      const loaded = process.moduleLoadList.filter((name) => name.includes('fs/streams') || name.includes('perf_hooks'))
      console.log(JSON.stringify({ count, lines, loaded }))
    })`
  // Node's own executable, also when the suite runs on Bun or Deno.
  const node = process.versions.bun === undefined && process.versions.deno === undefined ? process.execPath : 'node'
  const { stdout } = await execFileAsync(node, ['-e', script], { timeout: hangLimit(1_000) })
  t.deepEqual(JSON.parse(stdout), { count: expected.length, lines: 2 * expected.length, loaded: [] })
})

test('iterators are their own iterables', (t) => {
  const reader = readLines(file)
  t.is(reader[Symbol.asyncIterator](), reader)
  const batches = reader.batches()
  t.is(batches[Symbol.asyncIterator](), batches)
  const sync = readLinesSync(file)
  t.is(sync[Symbol.iterator](), sync)
  sync.close()
  return reader.close()
})
