// fastlines in the stream APIs people already use: Node streams (`Readable.from`, `pipeline`),
// Web streams (`ReadableStream.from`) and event-style consumers (`events.on`), including the file
// being closed when the consumer stops early. Also a worker thread that loads the addon.
import { EventEmitter, on } from 'node:events'
import { Readable, Transform, Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { Worker } from 'node:worker_threads'

import test from 'ava'

import { readChunks, readLines } from '../index.js'
import { isOpen, makeTempDir, numberedLines } from './helpers/files.mjs'

const temp = makeTempDir(test)
// 4 MiB: more than the read-ahead, so a reader stopped early still has its file open.
const text = numberedLines(140_000, 30)
const expected = text.trimEnd().split('\n')
const file = temp.file(text)
/** A copy of the file for one test, so that no other test's reader holds it open. */
const ownCopy = () => temp.file(text)

/** A writable that keeps what it is given. */
function collector(items) {
  return new Writable({
    objectMode: true,
    write(item, _encoding, done) {
      items.push(item)
      done()
    },
  })
}

test('Readable.from gives every line as an object-mode stream', async (t) => {
  const lines = []
  for await (const line of Readable.from(readLines(file))) lines.push(line)
  t.deepEqual(lines, expected)
})

test('stream.pipeline carries lines through a transform into a writable', async (t) => {
  const upper = []
  await pipeline(
    readLines(file),
    async function* (source) {
      for await (const line of source) if (line.endsWith('7')) yield line.toUpperCase()
    },
    collector(upper),
  )
  t.deepEqual(
    upper,
    expected.filter((line) => line.endsWith('7')).map((line) => line.toUpperCase()),
  )
})

test('a failing pipeline stage closes the file', async (t) => {
  const file = ownCopy()
  const reader = readLines(file)
  let seen = 0
  const failing = new Transform({
    objectMode: true,
    transform(line, _encoding, done) {
      done(++seen === 100 ? new Error('stage failed') : null, line)
    },
  })
  const source = Readable.from(reader)
  // The pipeline may settle before its source is destroyed; 'close' comes after the source's
  // destroy awaited the iterator's throw(), which closes the file.
  const sourceClosed = new Promise((resolve) => source.once('close', resolve))
  await t.throwsAsync(pipeline(source, failing, collector([])), { message: 'stage failed' })
  await sourceClosed
  t.false(isOpen(file))
  t.true(reader.linesRead < expected.length)
})

test('ReadableStream.from gives every line as a Web stream', async (t) => {
  const lines = []
  await ReadableStream.from(readLines(file).batches()).pipeTo(
    new WritableStream({
      write(batch) {
        lines.push(...batch)
      },
    }),
  )
  t.deepEqual(lines, expected)
})

test('cancelling a Web stream closes the file', async (t) => {
  const file = ownCopy()
  const reader = readLines(file)
  const stream = ReadableStream.from(reader).getReader()
  t.is((await stream.read()).value, expected[0])
  await stream.cancel() // awaits the iterator's return()
  t.false(isOpen(file))
})

test('readChunks feeds a byte stream', async (t) => {
  let bytes = 0
  await pipeline(
    readChunks(file),
    new Writable({
      write(chunk, _encoding, done) {
        bytes += chunk.length
        done()
      },
    }),
  )
  t.is(bytes, Buffer.byteLength(text))
})

test('events.on consumes lines re-emitted as events, with its signal', async (t) => {
  // Code written against readline's 'line' events keeps its consumer: emit from batches.
  const emitter = new EventEmitter()
  const lines = []
  const consumer = (async () => {
    for await (const [line] of on(emitter, 'line', { close: ['close'] })) lines.push(line)
  })()
  for await (const batch of readLines(file).batches()) for (const line of batch) emitter.emit('line', line)
  emitter.emit('close')
  await consumer
  t.deepEqual(lines, expected)
})

test('an AbortSignal ends a for-await the way it ends events.on', async (t) => {
  const file = ownCopy()
  const controller = new AbortController()
  const reader = readLines(file, { signal: controller.signal })
  const fromFile = []
  const error = await t.throwsAsync(async () => {
    for await (const line of reader) if (fromFile.push(line) === 10) controller.abort()
  })
  const eventsController = new AbortController()
  const pendingEvent = on(new EventEmitter(), 'line', { signal: eventsController.signal }).next()
  eventsController.abort()
  const eventsError = await t.throwsAsync(pendingEvent)
  t.is(error.name, eventsError.name)
  t.is(error.code, 'ABORT_ERR')
  t.is(fromFile.length, 10)
  await reader.close() // an abort rejects at once; the file closes right after
  t.false(isOpen(file))
})

test('a worker thread loads fastlines and reads lines', async (t) => {
  const worker = new Worker(
    `
    const { parentPort, workerData } = require('node:worker_threads')
    const { readLines, countLines } = require(workerData.module)
    ;(async () => {
      let lines = 0
      for await (const batch of readLines(workerData.file).batches()) lines += batch.length
      parentPort.postMessage({ lines, counted: await countLines(workerData.file) })
    })()
    `,
    { eval: true, workerData: { module: new URL('../index.js', import.meta.url).pathname, file } },
  )
  // Listen for 'exit' first: a worker that exits right after posting emits both in one turn.
  const exited = EventEmitter.once(worker, 'exit')
  const [result] = await EventEmitter.once(worker, 'message')
  t.deepEqual(result, { lines: expected.length, counted: expected.length })
  t.deepEqual(await exited, [0])
})
