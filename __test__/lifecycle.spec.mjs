// Closing, aborting and process lifetime: descriptors are closed when iteration stops, pending
// steps always settle, and processes exit by themselves unless an iteration is still pending.
import { createHash } from 'node:crypto'
import { execFileSync, spawn } from 'node:child_process'
import { getEventListeners } from 'node:events'
import fs from 'node:fs'
import { Readable } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'

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
import { isOpen, makeTempDir, numberedLines, openCount } from './helpers/files.mjs'
import { describeRun, runProcess } from './helpers/processes.mjs'
import { collect, until, within } from './helpers/tail.mjs'

const temp = makeTempDir(test)
const indexPath = fileURLToPath(new URL('../index.js', import.meta.url))
const fixture = (name) => fileURLToPath(new URL(`fixtures/${name}`, import.meta.url))

/**
 * A FIFO with a writer end held open by this process (opening it waits for the reader), so
 * one descriptor on the FIFO stays open in this process throughout.
 */
async function fifoWithWriter(t) {
  const fifo = temp.path(`fifo-${Math.random().toString(36).slice(2)}`)
  execFileSync('mkfifo', [fifo])
  const writer = fs.promises.open(fifo, 'w')
  t.teardown(async () => (await writer).close())
  return { fifo, writer }
}

/**
 * Runs `code` as an ES module, with `fastlines` imported, in a fresh process of this runtime,
 * killed past the hang limit for a run of `quietMs` (see helpers/processes.mjs). Awaited, not
 * run synchronously: a child run with spawnSync blocked this file's event loop, and the
 * children in turn blocked it for 17-20 s on a loaded machine, past the hang limits of the
 * tests running beside them, whose wait had long settled by then.
 */
function runScript(name, code, quietMs = 1_200) {
  const script = temp.file(`import * as fastlines from ${JSON.stringify(indexPath)}\n${code}`, `${name}.mjs`)
  const flags = typeof Bun === 'undefined' ? ['--expose-gc'] : []
  return runProcess([...flags, script], { quietMs }).result
}

test('break closes the file before the loop is left', async (t) => {
  const file = temp.file(numberedLines(5000))
  for await (const line of readLines(file, { highWaterMark: 4096 })) {
    t.true(isOpen(file))
    if (line.startsWith('00000010')) break
  }
  t.false(isOpen(file))
})

test('close() stops reading, closes the file, is idempotent, and ends iteration', async (t) => {
  const file = temp.file(numberedLines(5000))
  const reader = readLines(file, { highWaterMark: 4096 })
  t.is((await reader.next()).value, numberedLines(1).trimEnd())
  await Promise.all([reader.close(), reader.close()])
  t.false(isOpen(file))
  await reader.close()
  t.deepEqual(await reader.next(), { value: undefined, done: true })
})

test('nothing is handed out after close(), even what was being read when it was called', async (t) => {
  const file = temp.file(numberedLines(20_000))
  const done = { value: undefined, done: true }
  for (let trial = 0; trial < 100; trial++) {
    const reader = readLines(file)
    let settled = false
    const pending = reader.next().then((result) => {
      settled = true
      return result
    })
    await new Promise(setImmediate)
    // Everything chained to a step that settled before this macrotask has run by now.
    const settledBeforeClose = settled
    await reader.close()
    const result = await pending
    if (settledBeforeClose) t.is(result.value, numberedLines(1).trimEnd(), `trial ${trial}`)
    else t.deepEqual(result, done, `trial ${trial}`)
    t.deepEqual(await reader.next(), done, `trial ${trial}`)
  }
})

test('a step pending when close() or an abort comes, with nothing read yet: the end or the AbortError, and nothing after', async (t) => {
  // close() and abort() come in the same turn as the step, before its item was handed over:
  // an item the step took meanwhile is dropped, not handed out.
  const file = temp.file(numberedLines(20_000))
  // A chunk under 4 KiB is framed as it is fed, in the step's own turn.
  const inputs = { file: () => file, source: () => Readable.from([numberedLines(50)]) }
  const done = { value: undefined, done: true }
  for (const [kind, input] of Object.entries(inputs)) {
    for (let trial = 0; trial < 20; trial++) {
      const what = `${kind}, trial ${trial}`
      const reader = readLines(input())
      const pending = reader.next()
      const closed = reader.close()
      t.deepEqual(await pending, done, what)
      await closed
      t.deepEqual(await reader.next(), done, what)
      const controller = new AbortController()
      const aborted = readLines(input(), { signal: controller.signal })
      const step = aborted.next()
      controller.abort()
      await t.throwsAsync(step, { name: 'AbortError', code: 'ABORT_ERR' }, what)
    }
  }
})

test('readers read to their end leave no listener on a signal they share', async (t) => {
  const file = temp.file('{"n":1}\n{"n":2}\n')
  const { signal } = new AbortController()
  for (let i = 0; i < 20; i++) {
    for await (const _ of readLines(file, { signal }));
    for await (const _ of readJsonLines(file, { signal }));
    for (const _ of readJsonLinesSync(file, { signal }));
    for (const _ of readLinesSync(file, { signal }));
  }
  t.is(getEventListeners(signal, 'abort').length, 0)
})

test('readers and counts sharing a signal put one listener on it, with no leak warning, and its abort ends them all', async (t) => {
  // A listener each on the signal made Node and Bun warn of a leak at the eleventh
  // (MaxListenersExceededWarning, past 10 a signal), as a server reading many files under one
  // shutdown signal would see.
  const warnings = []
  const onWarning = (warning) => warnings.push(`${warning.name}: ${warning.message}`)
  process.on('warning', onWarning)
  t.teardown(() => process.off('warning', onWarning))
  // Numbers: lines of JSON, read by every reader below.
  const file = temp.file(Array.from({ length: 200_000 }, (_, i) => `${i}\n`).join(''))
  const controller = new AbortController()
  const { signal } = controller
  const readers = []
  for (let i = 0; i < 12; i++) {
    for (const reader of [readLines(file, { signal }), readJsonLines(file, { signal })]) {
      await reader.next()
      readers.push(reader)
    }
    const sync = readLinesSync(file, { signal })
    sync.next()
    readers.push(sync)
  }
  // Counts of sources that never end, pending until the abort.
  const counts = Array.from({ length: 12 }, () => countLines(new Readable({ read() {} }), { signal }))
  t.is(getEventListeners(signal, 'abort').length, 1)
  controller.abort()
  for (const count of counts) await t.throwsAsync(count, { name: 'AbortError', code: 'ABORT_ERR' })
  for (const reader of readers) {
    const step = () => reader.next()
    if (typeof reader[Symbol.asyncIterator] === 'function') {
      await t.throwsAsync(step, { name: 'AbortError' })
    } else {
      t.throws(step, { name: 'AbortError' })
    }
  }
  t.is(getEventListeners(signal, 'abort').length, 0)
  await new Promise((resolve) => setImmediate(resolve)) // a warning is emitted on a later tick
  t.deepEqual(warnings, [])
})

test('a reader that fails lets its signal go at once, as one that ends does', async (t) => {
  // readJsonLinesSync kept its place on the signal after a failed read (a missing file, a line
  // too long) until it was collected or stepped again, which a for...of never does.
  const file = temp.file('1\n2\n3333333\n4\n')
  const missing = temp.path('missing.jsonl')
  const readers = {
    readLines: (path, options) => collect(readLines(path, options)),
    readLinesSync: (path, options) => [...readLinesSync(path, options)],
    readJsonLines: (path, options) => collect(readJsonLines(path, options)),
    readJsonLinesSync: (path, options) => [...readJsonLinesSync(path, options)],
    readLastLines: (path, options) => readLastLines(path, 10, options),
    // These make no lines, so take no maxLineLength: they fail at the open only.
    countLines: (path, options) => countLines(path, options),
    readChunks: (path, options) => collect(readChunks(path, options)),
  }
  const failures = [
    ['ENOENT', missing, {}],
    ['ERR_LINE_TOO_LONG', file, { maxLineLength: 3 }],
  ]
  for (const [name, read] of Object.entries(readers)) {
    for (const [code, path, options] of failures) {
      if (code === 'ERR_LINE_TOO_LONG' && (name === 'countLines' || name === 'readChunks')) continue
      const { signal } = new AbortController()
      const what = `${name}, ${code}`
      await t.throwsAsync(async () => read(path, { ...options, signal }), { code }, what)
      t.is(getEventListeners(signal, 'abort').length, 0, `${what}: a listener is left on the signal`)
    }
  }
})

test('an abort takes effect at the next step, even inside a loaded batch', async (t) => {
  const file = temp.file(numberedLines(20_000))
  const controller = new AbortController()
  const reader = readLines(file, { signal: controller.signal })
  await reader.next()
  controller.abort()
  await t.throwsAsync(reader.next(), { name: 'AbortError' })

  const syncController = new AbortController()
  const sync = readLinesSync(file, { signal: syncController.signal })
  sync.next()
  syncController.abort()
  t.throws(() => sync.next(), { name: 'AbortError' })
})

test("an abort closes the file of a sync reader at once, as an async reader's, before its next step", (t) => {
  // It cleared the lines loaded and closed the file only at the next step: one never taken (a
  // loop that stopped stepping) kept it open until the reader was collected.
  const file = temp.file(Array.from({ length: 20_000 }, (_, i) => `${i}\n`).join(''))
  for (const open of [readLinesSync, readJsonLinesSync]) {
    const controller = new AbortController()
    const reader = open(file, { signal: controller.signal, highWaterMark: 1024 })
    t.is(reader.next().value, open === readLinesSync ? '0' : 0)
    t.true(isOpen(file))
    controller.abort()
    t.false(isOpen(file), `${open.name}: closed at the abort`)
    t.throws(() => reader.next(), { name: 'AbortError' })
    t.is(getEventListeners(controller.signal, 'abort').length, 0, `${open.name}: no listener is left`)
  }
})

test('return() and throw() close the file', async (t) => {
  const file = temp.file(numberedLines(100))
  const returning = readLines(file)
  await returning.next()
  t.deepEqual(await returning.return('v'), { value: 'v', done: true })
  t.false(isOpen(file))

  const throwing = readLines(file).batches()
  await throwing.next()
  const error = new Error('consumer failed')
  t.is(await t.throwsAsync(throwing.throw(error)), error)
  t.false(isOpen(file))
})

test('a reader nobody iterates opens nothing', async (t) => {
  const file = temp.file('a\nb\n')
  const reader = readLines(file)
  await sleep(50)
  t.false(isOpen(file))
  await reader.close()
})

test('a step pending at close(), or taken after a close() not awaited, gives the end once the file is closed', async (t) => {
  // A loop ended by a close() from elsewhere (a signal handler's) found the file still open
  // after it, in 1 to 30 of 50 tries: the end was given before the close finished. A line a
  // number, so that the JSON Lines reader reads it too.
  const file = temp.file(Array.from({ length: 200_000 }, (_, i) => `${i}\n`).join(''))
  const readers = {
    lines: () => readLines(file, { highWaterMark: 1 << 20 }),
    batches: () => readLines(file, { highWaterMark: 1 << 20 }).batches(),
    chunks: () => readChunks(file, { highWaterMark: 1 << 20 }),
    json: () => readJsonLines(file, { highWaterMark: 1 << 20 }),
  }
  for (const [name, open] of Object.entries(readers)) {
    for (let i = 0; i < 30; i++) {
      const pendingAtClose = open()
      const step = pendingAtClose.next()
      const closing = pendingAtClose.close()
      t.true((await step).done, `${name}: the pending step gives the end`)
      t.false(isOpen(file), `${name}, try ${i}: closed when the pending step gave the end`)
      await closing
      const closedUnawaited = open()
      await closedUnawaited.next()
      closedUnawaited.close()
      t.true((await closedUnawaited.next()).done, `${name}: the step after close() gives the end`)
      t.false(isOpen(file), `${name}, try ${i}: closed when the step after close() gave the end`)
    }
  }
})

test('a failed step nobody handles is an unhandled rejection, as a failed step of readline is', async (t) => {
  // The queue of steps handled each step's promise itself, and so marked the caller's handled:
  // the process ended with status 0, and nothing said why it read nothing.
  const missing = JSON.stringify(temp.path('missing.log'))
  const long = JSON.stringify(temp.file(`short\n${'x'.repeat(100)}\n`))
  const cases = {
    'a missing file': `fastlines.readLines(${missing}).next()`,
    'its batches': `fastlines.readLines(${missing}).batches().next()`,
    'its chunks': `fastlines.readChunks(${missing}).next()`,
    'its values': `fastlines.readJsonLines(${missing}).next()`,
    'an abort': `const controller = new AbortController()
      fastlines.readLines(${long}, { signal: controller.signal }).next()
      controller.abort()`,
    'a line too long': `const reader = fastlines.readLines(${long}, { maxLineLength: 10 })
      await reader.next()
      reader.next()`,
  }
  const runs = await Promise.all(Object.values(cases).map((code, i) => runScript(`unhandled-${i}`, code)))
  for (const [i, name] of Object.keys(cases).entries()) {
    const run = runs[i]
    t.false(run.timedOut, `${name}: ${describeRun(run)}`)
    t.not(run.status, 0, `${name}: the process fails, as for any rejection nobody handles: ${describeRun(run)}`)
    t.regex(run.stderr, /ENOENT|AbortError|maxLineLength/, name)
  }
})

test('close() settles a step that is waiting for data, and closes a FIFO at once', async (t) => {
  const { fifo, writer } = await fifoWithWriter(t)
  const reader = readLines(fifo)
  const pending = reader.next()
  await writer
  await until(() => openCount(fifo) === 2, "the reader's open of the FIFO") // and the writer's
  await reader.close()
  t.deepEqual(await pending, { value: undefined, done: true })
  t.is(openCount(fifo), 1)
})

test('a FIFO that holds many batches and then waits for its writer: every line comes before the next write', async (t) => {
  // Unlike a file's reader, which wakes a waiting consumer for every few batches (the next read
  // comes at once), a pipe's may hold none back: the next write may never come.
  const fifo = temp.path('batches.fifo')
  execFileSync('mkfifo', [fifo])
  const both = fs.openSync(fifo, fs.constants.O_RDWR)
  t.teardown(() => fs.closeSync(both))
  const lines = 8000 // 480 KB: about ten batches, in a pipe that holds 1 MiB once widened
  const text = numberedLines(lines)
  const last = text.trimEnd().split('\n').at(-1)
  for (const way of ['lines', 'batches']) {
    const reader = readLines(fifo)
    const pending = reader.next() // opens the FIFO, and widens it before the write
    await until(() => openCount(fifo) === 2, "the reader's open of the FIFO")
    fs.writeSync(both, text)
    let count = 1
    const untilLast = async () => {
      if ((await pending).value === last) return
      const steps = way === 'lines' ? reader : reader.batches()
      for await (const got of steps) {
        count += way === 'lines' ? 1 : got.length
        if ((way === 'lines' ? got : got.at(-1)) === last) return
      }
    }
    await within(untilLast(), 2_000, `${way}: the last line written, with the writer still there`)
    t.is(count, lines, way)
    await reader.close()
  }
})

test('a FIFO is read from where it is with start 0, and any other start fails as seeking it does', async (t) => {
  const fifo = temp.path('start.fifo')
  execFileSync('mkfifo', [fifo])
  // Held open for reading and writing, so that no open of the FIFO waits for the other end.
  const both = fs.openSync(fifo, fs.constants.O_RDWR)
  t.teardown(() => fs.closeSync(both))
  fs.writeSync(both, 'first\nsecond\n')
  const reader = readLines(fifo, { start: 0 })
  t.deepEqual(await reader.next(), { value: 'first', done: false }, 'start 0 is where a FIFO is')
  t.deepEqual(await reader.next(), { value: 'second', done: false })
  await reader.close()
  // fs.createReadStream(fifo, { start }) fails the same way, at its first read.
  const seeking = { code: 'ESPIPE', syscall: 'read', path: fifo }
  t.like(await t.throwsAsync(readLines(fifo, { start: 2 }).next()), seeking)
  t.like(await t.throwsAsync(countLines(fifo, { start: 2 })), seeking)
  t.like(
    t.throws(() => readLinesSync(fifo, { start: 2 }).next()),
    seeking,
  )
  t.is(openCount(fifo), 1, "only the test's own end is open")
})

test('aborting the signal rejects the pending step with an AbortError and closes the file', async (t) => {
  const { fifo, writer } = await fifoWithWriter(t)
  const controller = new AbortController()
  const reader = readLines(fifo, { signal: controller.signal })
  const pending = reader.next()
  await (await writer).write('first\n')
  t.deepEqual(await pending, { value: 'first', done: false })
  const waiting = reader.next()
  const reason = new Error('user cancelled')
  controller.abort(reason)
  const error = await t.throwsAsync(waiting)
  t.is(error.name, 'AbortError')
  t.is(error.code, 'ABORT_ERR')
  t.is(error.cause, reason)
  await reader.close()
  t.is(openCount(fifo), 1) // only the writer's end
  await t.throwsAsync(reader.next(), { name: 'AbortError' })
})

test('an abort rejects the waiting step at once, and the file closes right after: readLines and readJsonLines alike', async (t) => {
  // readJsonLines held the AbortError back until its file was closed.
  for (const read of [readLines, readJsonLines]) {
    const { fifo, writer } = await fifoWithWriter(t)
    const controller = new AbortController()
    const reader = read(fifo, { signal: controller.signal })
    const pending = reader.next()
    await (await writer).write('1\n')
    t.deepEqual(await pending, { value: read === readLines ? '1' : 1, done: false })
    const order = []
    const waiting = reader.next().catch((error) => order.push(error.code))
    controller.abort()
    const closed = reader.close().then(() => order.push('closed'))
    await Promise.all([waiting, closed])
    t.deepEqual(order, ['ABORT_ERR', 'closed'], read.name)
    t.is(openCount(fifo), 1, `${read.name}: only the writer's end`)
  }
})

test('aborting countLines of a FIFO whose writer is idle closes it at once, and frees the thread', async (t) => {
  // The count waited in read(2) until the writer wrote or left: the descriptor stayed open, and
  // 32 such counts held every blocking thread, so that every other read of the process waited.
  for (let i = 0; i < 33; i++) {
    // One at a time: opening a FIFO's write end holds one of libuv's 4 threads until a reader opens it.
    const { fifo, writer } = await fifoWithWriter(t)
    const controller = new AbortController()
    const counting = countLines(fifo, { signal: controller.signal })
    await (await writer).write('one line\n')
    await until(() => openCount(fifo) === 2, "the count's open of the FIFO") // and the writer's
    controller.abort()
    await t.throwsAsync(counting, { name: 'AbortError' })
    await until(() => openCount(fifo) === 1, 'the FIFO closed after the abort')
  }
  t.is(await countLines(temp.file('a\nb\n')), 2)
})

/**
 * A read of a terabyte line failing at maxLineLength: 5-60 ms alone, and up to 7.9 s (Deno) in
 * a quiet run of the whole suite, beside this file's other tests.
 */
const TERABYTE_LINE_QUIET_MS = 8_000

/** A file of a 1 TiB line of NULs, then `a` and `b`: sparse, it takes no disk. */
function terabyteLine(name) {
  const file = temp.path(name)
  fs.writeFileSync(file, '')
  fs.truncateSync(file, 2 ** 40)
  fs.appendFileSync(file, 'a\nb\n')
  return file
}

test('close() of a follower still looking for its last lines resolves once the file is closed', async (t) => {
  // The scan ran on in a blocking task after close(), holding the file for a few ms more; the
  // stream heard the file was closed when the task was dropped, not when the scan let go.
  const file = temp.file('x\n'.repeat(5e6))
  for (let i = 0; i < 20; i++) {
    const reader = followLines(file, { lastLines: 4e6 })
    const step = reader.next()
    await new Promise((resolve) => setImmediate(resolve))
    await reader.close()
    t.false(isOpen(file), `round ${i}: the file is open after close()`)
    // A scan that was done by then may have handed out its first line.
    const { value, done } = await step
    t.true(done || value === 'x', `round ${i}: ${value}`)
  }
})

test('a search with maxLineLength fails at a line of a terabyte without looking through it', async (t) => {
  // A search of a large file reads it in parts, and looked for the end of each part's last
  // line to the end of that line: minutes here, before the line failed.
  const file = terabyteLine('terabyte-search')
  const reader = readLines(file, { match: 'zz', maxLineLength: 1e6 })
  await t.throwsAsync(within(collect(reader), TERABYTE_LINE_QUIET_MS, 'the line to fail'), {
    code: 'ERR_LINE_TOO_LONG',
  })
  await reader.close()
  t.false(isOpen(file))
})

test('a share with maxLineLength fails at a line of a terabyte without looking for its end', async (t) => {
  // The first share looked for where its last line ends, through 512 GiB, before that line
  // failed (a share cut inside the line still looks through it for its first line: its lines
  // are those that start in it).
  const file = terabyteLine('terabyte-share')
  const options = { share: [0, 2], maxLineLength: 1e6 }
  const reader = readLines(file, options)
  await t.throwsAsync(within(collect(reader), TERABYTE_LINE_QUIET_MS, 'the line to fail'), {
    code: 'ERR_LINE_TOO_LONG',
  })
  t.throws(() => [...readLinesSync(file, options)], { code: 'ERR_LINE_TOO_LONG' })
  t.false(isOpen(file))
})

test("an abort inside a line of a terabyte lets the file go at once: a count in parts, a search, a share, a follower's last lines", async (t) => {
  // Sparse: a 1 TiB line of NULs takes no disk, and minutes to look through for its end. The
  // count in parts, a search's parts, a share's reader looking for its first line and a
  // follower's backward scan looked through it to the end, past an abort, holding the file and
  // a core.
  const file = terabyteLine('terabyte-line')
  const readers = {
    'countLines in parts': (signal) => countLines(file, { threads: 2, signal }),
    'a search': async (signal) => {
      for await (const _ of readLines(file, { match: 'zz', signal }));
    },
    "a share's reader": async (signal) => {
      for await (const _ of readLines(file, { share: [1, 2], signal }));
    },
    'countLines of a share': (signal) => countLines(file, { share: [1, 2], signal }),
    "a follower's last lines": async (signal) => {
      for await (const _ of followLines(file, { lastLines: 2, signal }));
    },
  }
  for (const [what, read] of Object.entries(readers)) {
    const controller = new AbortController()
    const reading = read(controller.signal)
    await until(() => isOpen(file), `${what} to open the file`)
    controller.abort()
    await t.throwsAsync(reading, { name: 'AbortError' }, what)
    await until(() => !isOpen(file), `${what} to close the file after the abort`)
  }
})

test('an already aborted signal rejects the first step without opening the file', async (t) => {
  const file = temp.file('a\n')
  const signal = AbortSignal.abort()
  await t.throwsAsync(readLines(file, { signal }).next(), { name: 'AbortError', code: 'ABORT_ERR' })
  await t.throwsAsync(readChunks(file, { signal }).next(), { name: 'AbortError' })
  await t.throwsAsync(countLines(file, { signal }), { name: 'AbortError' })
  t.throws(() => readLinesSync(file, { signal }).next(), { name: 'AbortError' })
  t.false(isOpen(file))
})

test('aborting after the end, a break or close() changes nothing: later steps give the end', async (t) => {
  // As a Node stream's iterator, done before the abort, gives the end after it.
  const file = temp.file('a\nb\n')
  const json = temp.file('1\n2\n')
  const readers = {
    readLines: (signal) => readLines(file, { signal }),
    'readLines().batches()': (signal) => readLines(file, { signal }).batches(),
    readChunks: (signal) => readChunks(file, { signal }),
    readJsonLines: (signal) => readJsonLines(json, { signal }),
    readLinesSync: (signal) => readLinesSync(file, { signal }),
    readJsonLinesSync: (signal) => readJsonLinesSync(json, { signal }),
  }
  const stops = {
    end: async (reader) => {
      for await (const _ of reader);
    },
    break: async (reader) => {
      for await (const _ of reader) break
    },
    'close()': async (reader) => {
      await reader.next()
      await (reader.close?.() ?? reader.return())
    },
  }
  for (const [name, make] of Object.entries(readers)) {
    for (const [how, stop] of Object.entries(stops)) {
      const controller = new AbortController()
      const reader = make(controller.signal)
      await stop(reader)
      controller.abort()
      t.deepEqual(await reader.next(), { value: undefined, done: true }, `${name}, aborted after ${how}`)
    }
    // Aborted while open, the next step still gives the AbortError.
    const controller = new AbortController()
    const reader = make(controller.signal)
    await reader.next()
    controller.abort()
    await t.throwsAsync(async () => reader.next(), { name: 'AbortError' }, `${name}, aborted while open`)
  }
})

test('readLinesSync closes on break, on close() and at the end; countLines and readChunks close too', async (t) => {
  const file = temp.file(numberedLines(1000))
  for (const line of readLinesSync(file, { highWaterMark: 1024 })) {
    t.true(isOpen(file))
    if (line.startsWith('00000005')) break
  }
  t.false(isOpen(file))
  const reader = readLinesSync(file)
  reader.next()
  reader.close()
  t.false(isOpen(file))
  t.deepEqual(reader.next(), { value: undefined, done: true })
  t.is([...readLinesSync(file)].length, 1000)
  t.false(isOpen(file))

  t.is(await countLines(file), 1000)
  // Larger than the read-ahead, so the chunk reader still holds it when the loop breaks.
  const large = temp.file(numberedLines(40_000))
  for await (const chunk of readChunks(large, { highWaterMark: 1024 })) {
    t.true(chunk.length > 0)
    t.true(isOpen(large))
    break
  }
  t.false(isOpen(large))
})

test('the file is closed by the time a for-await ends or its step rejects', async (t) => {
  const file = temp.file(numberedLines(5000))
  for (let round = 0; round < 20; round++) {
    for await (const batch of readLines(file, { highWaterMark: 4096 }).batches()) t.true(batch.length > 0)
    t.false(isOpen(file))
    let chunks = 0
    for await (const chunk of readChunks(file)) chunks += chunk.length > 0
    t.false(isOpen(file))
    // A directory opens, then fails at the first read: the rejection comes after the close.
    await t.throwsAsync(readLines(temp.dir).next(), { code: 'EISDIR' })
    t.false(isOpen(temp.dir))
  }
})

test('read-ahead is bounded: a consumer that waits stops the native reads', async (t) => {
  const highWaterMark = 64 * 1024
  const file = temp.file(numberedLines(500_000)) // 30 MB
  const reader = readLines(file, { highWaterMark })
  await reader.next()
  await sleep(300)
  const readWhileWaiting = reader.bytesRead
  // The documented bound: 1 MiB of read-ahead, plus the read in progress and the batch in JS.
  const bound = 1024 * 1024 + 2 * highWaterMark
  t.true(readWhileWaiting <= bound, `read ${readWhileWaiting} bytes ahead`)
  await sleep(300)
  t.is(reader.bytesRead, readWhileWaiting)
  await reader.close()
})

test('read-ahead of lines longer than it is a few lines: a file, and an endless source', async (t) => {
  // A batch holds whole lines: counted in batches, the read-ahead of 8 MiB lines was 21 of them.
  const line = 'x'.repeat(8 * 2 ** 20 - 1) + '\n'
  const file = temp.file(line.repeat(24))
  const reader = readLines(file)
  t.is((await reader.next()).value.length, line.length - 1)
  await sleep(300)
  const fromFile = reader.bytesRead
  // The line taken, two waiting, one read and waiting for room, one being read.
  t.true(
    fromFile <= 5 * line.length,
    `read ${(fromFile / 2 ** 20).toFixed(1)} MiB ahead of a consumer that took 1 line`,
  )
  await sleep(300)
  t.is(reader.bytesRead, fromFile, 'and then reads nothing while it waits')
  await reader.close()

  // 64 KiB chunks, every 128th ending a line: lines of 8 MiB again.
  let pulled = 0
  const plain = Buffer.alloc(64 * 1024, 'x')
  const last = Buffer.from(plain).fill('\n', plain.length - 1)
  const endless = {
    [Symbol.iterator]: () => ({
      next: () => ({ value: ++pulled % 128 === 0 ? last : plain, done: false }),
    }),
  }
  const fromSource = readLines(endless)
  t.is((await fromSource.next()).value.length, line.length - 1)
  await sleep(300)
  const pulledBytes = pulled * plain.length
  // As from the file, and the 1 MiB fed ahead of the reader.
  t.true(pulledBytes <= 5 * line.length + 2 ** 20, `pulled ${(pulledBytes / 2 ** 20).toFixed(1)} MiB`)
  await fromSource.close()
})

test('a reader that keeps ahead of JS still lets the event loop turn', async (t) => {
  // 900 KB: after a pause the whole file sits in the 1 MiB read-ahead, so every later step could
  // be taken synchronously, and a consumer that works 2 ms per batch would never yield.
  const file = temp.file(numberedLines(15_000))
  const reader = readLines(file, { highWaterMark: 32 * 1024 }).batches()
  let lines = (await reader.next()).value.length
  await sleep(200)
  let turns = 0
  let turning = true
  const turn = () => {
    turns++
    if (turning) setImmediate(turn)
  }
  setImmediate(turn)
  let batches = 0
  for await (const batch of reader) {
    lines += batch.length
    batches++
    const busyUntil = performance.now() + 2
    while (performance.now() < busyUntil);
  }
  turning = false
  t.is(lines, 15_000)
  t.true(batches >= 20)
  // The reader lets the loop turn every 2 ms; on a loaded machine expect one per 5 ms at least.
  t.true(turns >= Math.floor((batches * 2) / 10), `${turns} turns over ${batches} batches`)
})

test('reading a file far larger than the read-ahead keeps memory flat', async (t) => {
  const file = temp.path('256mb.txt')
  const block = numberedLines(16_384, 128) // 2 MiB
  const fd = fs.openSync(file, 'w')
  for (let i = 0; i < 128; i++) fs.writeSync(fd, block)
  fs.closeSync(fd)
  // RSS is sampled after full collections, so what is measured is memory kept, not how far a
  // busy machine lets the garbage collector fall behind.
  const result = await runScript(
    'rss',
    `const collect = typeof Bun === 'undefined' ? globalThis.gc : () => Bun.gc(true)
     const retainedMiB = () => (collect(), process.memoryUsage().rss / 1048576)
     const samples = [retainedMiB()]
     let lines = 0
     for await (const line of fastlines.readLines(${JSON.stringify(file)})) {
       if (++lines % 400_000 === 0) samples.push(retainedMiB())
     }
     for await (const batch of fastlines.readLines(${JSON.stringify(file)}).batches()) {
       lines += batch.length
       if (lines % 400_000 < batch.length) samples.push(retainedMiB())
     }
     console.log(JSON.stringify({ lines, samples }))`,
    6_000,
  )
  t.is(result.status, 0, result.stderr)
  const { lines, samples } = JSON.parse(result.stdout)
  t.is(lines, 2 * 128 * 16_384)
  const growth = Math.max(...samples) - samples[0]
  t.true(growth < 64, `memory grew by ${growth} MiB while reading 256 MiB twice: ${samples}`)
})

test('lines kept after their batch was read stay intact while later reads reuse its memory', async (t) => {
  // Where batches are lent to the engine as external strings (those over 128 KiB),
  // their buffer goes back to a pool when the engine collects the string: a kept line must keep
  // its memory from being reused.
  const kept = temp.file(numberedLines(20_000))
  const other = temp.file(numberedLines(20_000).replaceAll('x', 'y'))
  const result = await runScript(
    'kept-lines',
    `import { createHash } from 'node:crypto'
     const collect = typeof Bun === 'undefined' ? globalThis.gc : () => Bun.gc(true)
     const churn = async () => {
       for await (const batch of fastlines.readLines(${JSON.stringify(other)}).batches()) batch.length
       for (const line of fastlines.readLinesSync(${JSON.stringify(other)})) line.length
     }
     const batches = [], lines = [], sync = []
     let steps = 0
     for await (const batch of fastlines.readLines(${JSON.stringify(kept)}).batches()) {
       batches.push(...batch)
       if (++steps % 5 === 0) (collect(), await churn())
     }
     // Reads of 256 KiB make batches that V8 too gets as external strings.
     for await (const line of fastlines.readLines(${JSON.stringify(kept)}, { highWaterMark: 262144 })) {
       lines.push(line)
       if (lines.length % 5000 === 0) (collect(), await churn())
     }
     for (const line of fastlines.readLinesSync(${JSON.stringify(kept)})) sync.push(line)
     for (let round = 0; round < 3; round++) (collect(), await churn())
     const sha256 = (lines) => createHash('sha256').update(lines.join('\\n')).digest('hex')
     console.log(JSON.stringify([batches, lines, sync].map(sha256)))`,
    5_000,
  )
  t.is(result.status, 0, result.stderr)
  const expected = createHash('sha256').update(numberedLines(20_000).trimEnd()).digest('hex')
  t.deepEqual(JSON.parse(result.stdout), [expected, expected, expected])
})

test('a process whose iteration finished exits by itself', async (t) => {
  const file = temp.file(numberedLines(20_000))
  const result = await runScript(
    'finished',
    `let n = 0
     for await (const line of fastlines.readLines(${JSON.stringify(file)})) n++
     for await (const batch of fastlines.readLines(${JSON.stringify(file)}).batches()) n += batch.length
     n += await fastlines.countLines(${JSON.stringify(file)})
     console.log(n)`,
    4_000,
  )
  t.is(result.status, 0, result.stderr)
  t.is(result.stdout.trim(), '60000')
})

test('a process that closed or abandoned a half-read iterator exits by itself', async (t) => {
  const file = temp.file(numberedLines(200_000))
  const result = await runScript(
    'abandoned',
    `const closed = fastlines.readLines(${JSON.stringify(file)}, { highWaterMark: 4096 })
     await closed.next()
     await closed.close()
     const abandoned = fastlines.readLines(${JSON.stringify(file)}, { highWaterMark: 4096 })
     console.log((await abandoned.next()).value)`,
    4_000,
  )
  t.is(result.status, 0, result.stderr)
  t.is(result.stdout.trim(), numberedLines(1).trimEnd())
})

test('a pending iteration keeps the process alive until its line arrives', async (t) => {
  const fifo = temp.path('keepalive-fifo')
  execFileSync('mkfifo', [fifo])
  const script = temp.file(
    `import { readLines } from ${JSON.stringify(indexPath)}
     for await (const line of readLines(${JSON.stringify(fifo)})) console.log('got', line)`,
    'keepalive.mjs',
  )
  const reader = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] })
  let output = ''
  reader.stdout.on('data', (data) => (output += data))
  const writer = spawn(process.execPath, [fixture('fifo-writer.mjs'), fifo, '2', '500'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let writerErrors = ''
  writer.stderr.on('data', (data) => (writerErrors += data))
  // 'close', not 'exit': a child's output may still be on its way when it has exited.
  const [code, writerCode] = await Promise.all([
    new Promise((resolve) => reader.on('close', resolve)),
    new Promise((resolve) => writer.on('close', resolve)),
  ])
  t.is(writerCode, 0, `the writer failed: ${writerErrors}`)
  t.is(code, 0)
  t.regex(output, /^got 0 \d+\ngot 1 \d+\n$/)
})

test('readers of FIFOs without writers hold no thread: other files are read, and close() ends them at once', async (t) => {
  // Opening a FIFO waited for a writer in open(2) on a blocking thread that nothing could free:
  // 40 such readers held all 32 of them, so the file below was never read, and close() left
  // each thread in open(2) until a writer came.
  const dir = fs.mkdtempSync(`${temp.dir}/unwritten-`)
  const file = temp.file(numberedLines(10))
  const result = await runScript(
    'unwritten-fifos',
    `import { execFileSync } from 'node:child_process'
     import fs from 'node:fs'
     const fifos = Array.from({ length: 40 }, (_, i) => ${JSON.stringify(dir)} + '/fifo-' + i)
     for (const fifo of fifos) execFileSync('mkfifo', [fifo])
     const readers = fifos.map((fifo) => fastlines.readLines(fifo))
     const steps = readers.map((reader) => reader.next())
     let lines = 0
     for await (const _ of fastlines.readLines(${JSON.stringify(file)})) lines++
     // A writer that comes and goes without writing ends the first; one that writes, the second.
     fs.closeSync(fs.openSync(fifos[0], 'w'))
     fs.writeFileSync(fifos[1], 'written\\n')
     const written = [await steps[1], await readers[1].next()]
     await Promise.all(readers.slice(2).map((reader) => reader.close()))
     const ended = (await Promise.all(steps.slice(2))).every((step) => step.done)
     const inOpen = fs.readdirSync('/proc/self/task')
       .filter((task) => fs.readFileSync('/proc/self/task/' + task + '/wchan', 'utf8').includes('fifo')).length
     console.log(JSON.stringify({ lines, first: await steps[0], written, ended, inOpen }))`,
    2_000,
  )
  t.is(result.status, 0, result.stderr)
  t.deepEqual(JSON.parse(result.stdout), {
    lines: 10,
    first: { done: true },
    written: [{ value: 'written', done: false }, { done: true }],
    ended: true,
    inOpen: 0,
  })
})

/** The CPU a reader of a FIFO uses while it waits 1.6 s for 8 lines, on a quiet machine. */
const FIFO_WAIT_QUIET_CPU_MS = 15

test('a FIFO delivers each line as it is written, with no CPU spent waiting (no polling)', async (t) => {
  const fifo = temp.path('cpu-fifo')
  execFileSync('mkfifo', [fifo])
  const writer = spawn(process.execPath, [fixture('fifo-writer.mjs'), fifo, '8', '200'])
  const reader = await runProcess([fixture('fifo-reader.mjs'), fifo], { quietMs: 3_000 }).result
  await new Promise((resolve) => (writer.exitCode === null ? writer.on('exit', resolve) : resolve()))
  t.is(reader.status, 0, reader.stderr)
  const { delays, cpuMs, wallMs } = JSON.parse(reader.stdout)
  t.is(delays.length, 8)
  t.true(wallMs >= 1400, `waited ${wallMs} ms`)
  // A line comes within a few ms when the machine is quiet, but one may come late on a loaded one
  // (103 ms on Node 24 in a CI run) or in Deno's known stall (366 ms; README, "Deno"). A reader
  // that slept between polls would make half the lines late by half its period or more: the
  // median is checked.
  const median = [...delays].sort((a, b) => a - b)[delays.length >> 1]
  t.true(median < 100, `half the lines arrived ${median} ms or more after they were written: ${delays}`)
  // A reader that polled would burn CPU for the whole wait (1.6 s); one that sleeps in the kernel
  // uses 11-15 ms on Node and Deno, quiet. The bound is 20 times that, as for a hang limit: a
  // CI machine's load has made it 100 ms.
  t.true(cpuMs < 20 * FIFO_WAIT_QUIET_CPU_MS, `used ${cpuMs} ms of CPU in ${wallMs} ms`)
})

test('abandoned readers are collected, and their files closed, though the signal they share lives on', async (t) => {
  // Numbers: lines of JSON, read by every reader below.
  const file = temp.file(Array.from({ length: 200_000 }, (_, i) => `${i}\n`).join(''))
  const files = new URL('./helpers/files.mjs', import.meta.url).href
  const result = await runScript(
    'abandoned-with-signal',
    `import { openCount } from ${JSON.stringify(files)}
     const collect = typeof Bun === 'undefined' ? globalThis.gc : () => Bun.gc(true)
     const file = ${JSON.stringify(file)}
     const { signal } = new AbortController()
     for (let i = 0; i < 5; i++) {
       await fastlines.readLines(file, { signal, highWaterMark: 4096 }).next()
       fastlines.readLinesSync(file, { signal, highWaterMark: 4096 }).next()
       await fastlines.readJsonLines(file, { signal, highWaterMark: 4096 }).next()
       fastlines.readJsonLinesSync(file, { signal, highWaterMark: 4096 }).next()
     }
     const open = openCount(file)
     // Finalizers run after a collection, in later turns: a few rounds of both.
     for (let round = 0; round < 50 && openCount(file) > 0; round++) {
       collect()
       await new Promise((resolve) => setImmediate(resolve))
     }
     console.log(JSON.stringify({ open, left: openCount(file) }))`,
    2_000,
  )
  t.is(result.status, 0, result.stderr)
  const { open, left } = JSON.parse(result.stdout)
  // A reader may be collected as soon as it is abandoned: some are by the time they are counted.
  t.true(open > 0, 'the readers held their files open when abandoned')
  t.is(left, 0, 'every file closed once its reader was collected')
})

test('a byte source read to its end, or abandoned, is collected with its chunks', async (t) => {
  // The native source's callback held the source through a strong engine handle: every source
  // stayed, with all its chunks, for the life of the process.
  const result = await runScript(
    'sources-collected',
    `import { Readable } from 'node:stream'
     const collect = typeof Bun === 'undefined' ? globalThis.gc : () => Bun.gc(true)
     const registry = new FinalizationRegistry(() => collected++)
     let collected = 0
     let made = 0
     const chunks = () => Array.from({ length: 3000 }, (_, i) => new TextEncoder().encode(i + '\\n'))
     const sources = [
       () => chunks(),
       () => Readable.from(chunks()),
       () => new ReadableStream({ start(c) { for (const chunk of chunks()) c.enqueue(chunk); c.close() } }),
       async function* () { yield* chunks() },
     ]
     for (const make of sources) {
       for (let i = 0; i < 3; i++) {
         const read = async () => {
           const source = make()
           registry.register(source, null)
           made++
           const reader = fastlines.readLines(source)
           if (i === 2) return reader.next() // abandoned after one line
           let lines = 0
           for await (const _ of reader) lines++
           if (lines !== 3000) throw new Error('lines: ' + lines)
         }
         await read()
       }
     }
     for (let round = 0; round < 50 && collected < made; round++) {
       collect()
       await new Promise((resolve) => setTimeout(resolve, 10))
     }
     console.log(JSON.stringify({ made, collected }))`,
    2_000,
  )
  t.is(result.status, 0, result.stderr)
  const { made, collected } = JSON.parse(result.stdout)
  t.is(collected, made, 'every source was collected')
})

test('readers abandoned while a step waits on a quiet source are collected, though their signal lives on', async (t) => {
  // The signal must settle such a step at an abort for whoever awaits it, and held the whole
  // reader for that, with its buffers (340 KB each), for as long as the signal lived. Each kind
  // below waits another way: a step taken at once (prompt), one taken after more than a reader
  // goes without a turn of the event loop (slow), readChunks, readJsonLines, and a step that
  // waited on the native side when the source's last chunk (of more than 4 KiB) completed no line
  // (late): each of these alone kept all its readers before the fix it tests.
  const result = await runScript(
    'abandoned-waiting',
    `import { setMaxListeners } from 'node:events'
     const collect = typeof Bun === 'undefined' ? globalThis.gc : () => Bun.gc(true)
     const kinds = ['prompt', 'slow', 'chunks', 'json', 'late']
     const collected = Object.fromEntries(kinds.map((kind) => [kind, 0]))
     const registry = new FinalizationRegistry((kind) => collected[kind]++)
     const controller = new AbortController()
     setMaxListeners(0, controller.signal)
     const made = 6 * kinds.length
     const awaited = []
     const encode = (text) => new TextEncoder().encode(text)
     const first = { json: '[' + '1,'.repeat(50_000) + '1]\\n{"a"', late: 'a\\n' }
     async function abandon(i) {
       const kind = kinds[i % kinds.length]
       let source
       const quiet = new ReadableStream({
         start(controller) {
           source = controller
           controller.enqueue(encode(first[kind] ?? 'x'.repeat(100_000) + '\\nb'))
         },
       })
       const read = { chunks: fastlines.readChunks, json: fastlines.readJsonLines }[kind] ?? fastlines.readLines
       const reader = read(quiet, { signal: controller.signal })
       registry.register(reader, kind)
       // readChunks hands the 100,002 bytes out in 48 KiB Buffers: all of them are taken.
       for (let taken = 0; taken < (kind === 'chunks' ? 100_002 : 1); ) {
         const { value } = await reader.next()
         taken += kind === 'chunks' ? value.length : 1
       }
       if (kind === 'slow') for (const start = performance.now(); performance.now() - start < 5; );
       const step = reader.next() // waits on the quiet source
       // Half are awaited; the others are dropped, their rejection at the abort handled.
       if (i % 2 === 0) awaited.push(step.then(() => 'resolved', (error) => error.code))
       else step.catch(() => {})
       await new Promise((resolve) => setTimeout(resolve, 1))
       if (kind === 'late') {
         source.enqueue(encode('b'.repeat(10_000)))
         await new Promise((resolve) => setTimeout(resolve, 5))
       }
       source = undefined
     }
     for (let i = 0; i < made; i++) await abandon(i)
     const all = () => Object.values(collected).reduce((sum, count) => sum + count)
     for (let round = 0; round < 50 && all() < made; round++) {
       collect()
       await new Promise((resolve) => setTimeout(resolve, 10))
     }
     controller.abort()
     console.log(JSON.stringify({ collected, settled: await Promise.all(awaited) }))`,
    2_000,
  )
  t.is(result.status, 0, result.stderr)
  const { collected, settled } = JSON.parse(result.stdout)
  t.deepEqual(collected, { prompt: 6, slow: 6, chunks: 6, json: 6, late: 6 }, 'readers collected, by kind')
  t.deepEqual(settled, Array(15).fill('ABORT_ERR'), 'the abort settled every awaited step')
})

test('no unhandled rejection when a failing reader is abandoned', async (t) => {
  const result = await runScript(
    'unhandled',
    `process.on('unhandledRejection', (e) => { console.log('unhandled', e); process.exitCode = 1 })
     const reader = fastlines.readLines('/nonexistent/fastlines')
     reader.next().catch(() => console.log('rejected'))`,
    1_000,
  )
  t.is(result.status, 0, result.stderr)
  t.is(result.stdout.trim(), 'rejected')
})

test("a reader of a child's stdout dropped before its first step gives the stream back once collected: a later listener gets its bytes, and the child closes", async (t) => {
  // Made, the reader has the stream ignore resume() until its first step (byte-source.js); one
  // never stepped and collected must not keep that, nor keep the stream from closing.
  const result = await runScript(
    'dropped-unstepped',
    `import { spawn } from 'node:child_process'
     import { once } from 'node:events'
     const collect = typeof Bun === 'undefined' ? globalThis.gc : () => Bun.gc(true)
     const turns = async () => {
       for (let turn = 0; turn < 5; turn++) (collect(), await new Promise((resolve) => setImmediate(resolve)))
     }
     // A child that writes, then waits for its stdin to end: its stdout is read later.
     const waiting = spawn(process.execPath, ['-e', "process.stdout.write('a\\\\nb\\\\n'); process.stdin.resume()"])
     ;(() => void fastlines.readLines(waiting.stdout))()
     await turns()
     const chunks = []
     waiting.stdout.on('data', (chunk) => chunks.push(chunk))
     const closed = once(waiting, 'close')
     waiting.stdin.end()
     await closed
     // A child that exits first, which resumes its unused stdout (the reader ignores that while
     // it lives): once the reader is collected, the stream is resumed and the child closes.
     const exiting = spawn(process.execPath, ['-e', "process.stdout.write('c\\\\n')"])
     ;(() => void fastlines.readLines(exiting.stdout))()
     const exitingClosed = once(exiting, 'close')
     await once(exiting, 'exit')
     await turns()
     await exitingClosed
     console.log(JSON.stringify({ read: Buffer.concat(chunks).toString(), ownResume: Object.hasOwn(exiting.stdout, 'resume') }))`,
    3_000,
  )
  t.is(result.status, 0, describeRun(result))
  t.deepEqual(JSON.parse(result.stdout), { read: 'a\nb\n', ownResume: false })
})
