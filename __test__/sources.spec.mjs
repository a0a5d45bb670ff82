// Byte sources (issue 20): readLines, countLines and readChunks read a Node Readable, a web
// ReadableStream, a FileHandle, or an (async) iterable of Uint8Array and string chunks, as they
// read a file. Checked here: the lines are exactly a file's with the same bytes however chunks
// cut them (the line contract's inputs and seeded byte soup, cut every 1, 2, 3, 7 and 64 bytes, at
// random and not at all, through every kind of source; strings as their UTF-8 bytes); numbers,
// offsets, `match`, `decompress`, `maxLineLength` and `encoding` as on a file; process.stdin in a
// child (redirected from a file, piped from another process, written through a pipe), a child's
// stdout, fetch() bodies and http responses from a local server; a source's own error after the
// complete lines before it; the argument errors at the call; pulled, not pushed: nothing read
// before the first step, the source let go on break, return(), close() and abort, reading
// bounded under a slow consumer of an endless source, a child that stops reading a stdin that
// never ends exits by itself; and linear time on a 64 MiB line in small chunks.
import { execFileSync, spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { once } from 'node:events'
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import http from 'node:http'
import { PassThrough, Readable } from 'node:stream'
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises'
import { pathToFileURL } from 'node:url'
import vm from 'node:vm'
import { inspect } from 'node:util'
import zlib from 'node:zlib'

import test from 'ava'

import {
  countLines,
  followLines,
  readChunks,
  readJsonLines,
  readLastLines,
  readLines,
  readLinesSync,
} from '../index.js'
import { zstd } from './helpers/compressed.mjs'
import { isOpen, makeTempDir, numberedLines } from './helpers/files.mjs'
import { hangLimit } from './helpers/hang.mjs'
import { EDGE_INPUTS, LATIN1_INPUTS, STRADDLERS, straddlerInputs } from './helpers/line-inputs.mjs'
import { bytesOf, randomSoup, referenceLines, seededRandom } from './helpers/lines-reference.mjs'
import { randomMatchOptions } from './helpers/match-reference.mjs'
import { describeRun } from './helpers/processes.mjs'
import { evalArgs, scriptArgs, shellCommand } from './helpers/runtimes.mjs'
import { collect, fixturePath, until, within } from './helpers/tail.mjs'

const SEED = Number(process.env.FASTLINES_SEED ?? 0x50a2ce)
const MiB = 1024 * 1024
const DONE = { value: undefined, done: true }
const temp = makeTempDir(test)
const STDIN_READER = fixturePath('sources-stdin.mjs')

// The sweeps over every source and chunk size run serially (ava runs them before the concurrent
// tests): their thousands of one-byte chunks, run together, held up each other's steps in this
// one process (a PassThrough written a byte per event-loop turn waited 40 ms a turn) past the
// hang limits below. The tests that wait on processes, servers and pipes run concurrently.

// Hang detectors (see helpers/hang.mjs): what each wait is expected to take on a quiet machine,
// with the concurrent tests below holding this process's event loop beside it: in a quiet run
// of the whole suite, a read of a few hundred KB that takes milliseconds alone took up to 2.4 s
// (Node), since what it waits for needs the loop between its chunks (a limit of 10 s for it
// ran out once under CI's load).
/** Reading a few hundred bytes or KB from a source, or taking a step. */
const READ_QUIET_MS = 2_500
/** Reading a few MB from a source, or a server or child process answering (3.4 s at most, Node). */
const BIG_READ_QUIET_MS = 4_000
/** A child process of this runtime that starts and reads a few MB from its stdin (Deno is slowest). */
const CHILD_QUIET_MS = 2_000
/** Reading a 64 MiB line in 1,460-byte chunks (0.4 s on Deno; work that grew with the square of
 * the line's length, such as rescanning it for a terminator at each chunk, would take minutes). */
const LONG_LINE_QUIET_MS = 500

const guard = (promise, what) => within(promise, READ_QUIET_MS, what)
const guardBig = (promise, what) => within(promise, BIG_READ_QUIET_MS, what)

function hex(bytes, max = 96) {
  if (bytes.length === 0) return '(empty)'
  const shown = Buffer.from(bytes.subarray(0, max)).toString('hex')
  return bytes.length > max ? `${shown}... (${bytes.length} bytes)` : shown
}

/** Many lines as their count and a hash (the stdin fixture prints the same), for short diffs. */
const summarize = (lines) => ({
  count: lines.length,
  sha256: createHash('sha256').update(JSON.stringify(lines)).digest('hex'),
})

/** A few MB with every terminator, invalid UTF-8 and many lines: what pipes and servers carry. */
const bigRandom = seededRandom(SEED ^ 0xb16)
const BIG_BYTES = bytesOf(...Array.from({ length: 3000 }, () => randomSoup(bigRandom, 40)), numberedLines(40_000))
const BIG_LINES = referenceLines(BIG_BYTES)
const BIG_SUMMARY = summarize(BIG_LINES)
const BIG_FILE = temp.file(BIG_BYTES, 'big.txt')

// ---- chunks and the kinds of sources ------------------------------------------------------------

/** `bytes` cut every `size` bytes (views of it, not copies). */
function cutEvery(bytes, size) {
  const chunks = []
  for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size))
  return chunks
}

/** `bytes` cut at seeded random sizes from 0 to `maxSize` bytes, so a few chunks are empty. */
function cutAtRandom(bytes, seed, maxSize = 20) {
  const random = seededRandom(seed)
  const chunks = []
  for (let at = 0; at < bytes.length;) {
    const size = random.int(0, maxSize)
    chunks.push(bytes.subarray(at, at + size))
    at += size
  }
  return chunks
}

/** `bytes` cut at seeded random sizes of 2 to 20 KiB, with an empty chunk now and then. */
function cutFramedHere(bytes, seed) {
  const random = seededRandom(seed)
  const chunks = []
  for (let at = 0; at < bytes.length;) {
    const size = random() < 0.05 ? 0 : random.int(2 * 1024, 20 * 1024)
    chunks.push(bytes.subarray(at, at + size))
    at += size
  }
  return chunks
}

/**
 * `bytes` cut just after a `\n`, one to three lines a chunk (seeded): whole lines, as a producer
 * that flushes a line at a time sends them, which a reader waiting for them may frame on its own
 * thread (lib/frame-here.js).
 */
function cutAtLineEnds(bytes, seed) {
  const random = seededRandom(seed)
  const chunks = []
  let start = 0
  let lines = 0
  let take = random.int(1, 3)
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] !== 0x0a || ++lines < take) continue
    chunks.push(bytes.subarray(start, i + 1))
    start = i + 1
    lines = 0
    take = random.int(1, 3)
  }
  if (start < bytes.length) chunks.push(bytes.subarray(start))
  return chunks
}

const RANDOM_CUT = 'random chunks, some empty'
const LINE_CUT = 'chunks of whole lines'
const WHOLE = 'one chunk'
const CHUNK_SIZES = [1, 2, 3, 7, 64]
const sizeCut = (size) => `${size}-byte chunks`

/** The ways to cut an input into chunks, by name. */
const CUTS = {
  ...Object.fromEntries(CHUNK_SIZES.map((size) => [sizeCut(size), (bytes) => cutEvery(bytes, size)])),
  [RANDOM_CUT]: (bytes) => cutAtRandom(bytes, SEED ^ bytes.length),
  [LINE_CUT]: (bytes) => cutAtLineEnds(bytes, SEED ^ bytes.length),
  [WHOLE]: (bytes) => [bytes],
}

/**
 * Writes `chunks` to `stream` one by one, a turn of the event loop apart (so that they arrive as
 * separate chunks where the reader keeps up), heeding backpressure.
 */
async function writeChunks(stream, chunks) {
  for (const chunk of chunks) {
    if (!stream.write(chunk)) await once(stream, 'drain')
    await nextTurn()
  }
}

/** A PassThrough (a byte-mode Readable) that is written `chunks`, then `finish`ed: ended by default. */
function writtenStream(chunks, finish = (stream) => stream.end()) {
  const stream = new PassThrough()
  writeChunks(stream, chunks)
    .then(() => finish(stream))
    .catch(() => {}) // a stream fastlines destroyed takes no more
  return stream
}

/** Bytes as a web stream gives them (a plain Uint8Array, on the same memory); anything else as it is. */
const asUint8Array = (chunk) =>
  chunk instanceof Uint8Array ? new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength) : chunk

/**
 * A web ReadableStream of `chunks`, one enqueued per pull (a high-water mark of 0: nothing is
 * pulled before it is read), then `finish(controller)`: closed by default.
 */
function webStream(chunks, finish = (controller) => controller.close()) {
  let next = 0
  const pull = (controller) =>
    next < chunks.length ? controller.enqueue(asUint8Array(chunks[next++])) : finish(controller)
  return new ReadableStream({ pull }, { highWaterMark: 0 })
}

/** An async generator of `chunks`, then `finish()`. */
async function* generate(chunks, finish = () => {}) {
  yield* chunks
  finish()
}

/** A generator of `chunks`, then `finish()`. */
function* generateSync(chunks, finish = () => {}) {
  yield* chunks
  finish()
}

/** Each kind of source, as a fresh source that gives `chunks` in order and ends. */
const SOURCES = {
  'Readable.from': (chunks) => Readable.from(chunks),
  'a PassThrough written to': (chunks) => writtenStream(chunks),
  'a web ReadableStream': (chunks) => webStream(chunks),
  'an async generator': (chunks) => generate(chunks),
  'an array': (chunks) => chunks,
}

/** The kinds that hand any value on as a chunk (a PassThrough takes only bytes and strings). */
const ANY_VALUE_SOURCES = Object.entries(SOURCES).filter(([kind]) => kind !== 'a PassThrough written to')

// ---- what reading a source gives ----------------------------------------------------------------

/** A reader's lines and counters once it has read `source` to its end, per line. */
async function readWhole(source, options) {
  const reader = readLines(source, options)
  const lines = await collect(reader)
  return { lines, linesRead: reader.linesRead, bytesRead: reader.bytesRead, position: reader.position }
}

/** What readWhole must give for a source of `bytes`: a file's lines, with every byte read. */
function wholeRead(bytes, encoding) {
  const lines = referenceLines(bytes, encoding)
  return { lines, linesRead: lines.length, bytesRead: bytes.length, position: bytes.length }
}

/** Runs `read(handle)` on a FileHandle of `file`, closed after. */
async function withFileHandle(file, read) {
  const handle = await fsp.open(file)
  try {
    return await read(handle)
  } finally {
    await handle.close()
  }
}

/**
 * Every kind of source of `bytes`, cut each way named in `cuts`, gives per line exactly what a
 * file of `bytes` gives (its lines, linesRead, bytesRead and final position); at the random cut,
 * also batches (none empty), countLines and readChunks; and a FileHandle on such a file.
 */
async function assertEverySource(t, bytes, cuts, encoding) {
  const want = wholeRead(bytes, encoding)
  const options = { encoding }
  for (const cut of cuts) {
    for (const [kind, make] of Object.entries(SOURCES)) {
      const fresh = () => make(CUTS[cut](bytes))
      const what = `${kind}, ${cut}, ${encoding ?? 'utf8'}: ${hex(bytes)}`
      t.deepEqual(await guard(readWhole(fresh(), options), what), want, what)
      if (cut !== RANDOM_CUT) continue
      const batches = await guard(collect(readLines(fresh(), options).batches()), what)
      t.deepEqual(batches.flat(), want.lines, `batches: ${what}`)
      t.false(
        batches.some((batch) => batch.length === 0),
        `an empty batch: ${what}`,
      )
      t.is(await guard(countLines(fresh()), what), want.lines.length, `countLines: ${what}`)
      const chunks = await guard(collect(readChunks(fresh())), what)
      t.is(Buffer.concat(chunks).toString('hex'), bytes.toString('hex'), `readChunks: ${what}`)
    }
  }
  const what = `FileHandle, ${encoding ?? 'utf8'}: ${hex(bytes)}`
  const got = await withFileHandle(temp.file(bytes), (handle) => guard(readWhole(handle, options), what))
  t.deepEqual(got, want, what)
}

// ---- the line contract, whatever the chunks -----------------------------------------------------

const EVERY_CUT = Object.keys(CUTS)
const EDGE_GROUPS = 4

for (let group = 0; group < EDGE_GROUPS; group++) {
  const inputs = EDGE_INPUTS.filter((_, index) => index % EDGE_GROUPS === group)
  test.serial(
    `utf8 edge cases through every source at every chunk size, group ${group + 1}/${EDGE_GROUPS}`,
    async (t) => {
      for (const [, bytes] of inputs) await assertEverySource(t, bytes, EVERY_CUT)
    },
  )
}

test.serial('latin1 through every source at every chunk size', async (t) => {
  for (const [, bytes] of LATIN1_INPUTS) await assertEverySource(t, bytes, EVERY_CUT, 'latin1')
})

// Each token lands at every offset of a chunk of each small size: after `pad` bytes, right after
// itself, and at the very end (the end-of-input case for the truncated ones).
const SMALL_CHUNK_SIZES = CHUNK_SIZES.filter((size) => size < 64)
const MAX_PAD = Math.max(...SMALL_CHUNK_SIZES)
const LARGE_CUTS = [sizeCut(64), RANDOM_CUT, WHOLE]

for (const [name, token] of STRADDLERS) {
  test.serial(`${name} straddling chunk boundaries, through every source`, async (t) => {
    // straddlerInputs gives three inputs per pad, pad by pad.
    for (const [index, bytes] of straddlerInputs(token, MAX_PAD).entries()) {
      const pad = Math.floor(index / 3)
      const cuts = SMALL_CHUNK_SIZES.filter((size) => pad < size).map(sizeCut)
      await assertEverySource(t, bytes, pad === 0 ? [...cuts, ...LARGE_CUTS] : cuts)
    }
  })
}

const SOUP_GROUPS = 4
const soupRandom = seededRandom(SEED)
const SOUP = Array.from({ length: 120 }, () => randomSoup(soupRandom, soupRandom() < 0.1 ? 200 : 40))

for (let group = 0; group < SOUP_GROUPS; group++) {
  const inputs = SOUP.filter((_, index) => index % SOUP_GROUPS === group)
  test.serial(
    `random byte soup through every source, utf8 and latin1, group ${group + 1}/${SOUP_GROUPS} (seed ${SEED})`,
    async (t) => {
      for (const bytes of inputs) {
        await assertEverySource(t, bytes, EVERY_CUT)
        await assertEverySource(t, bytes, [sizeCut(1), RANDOM_CUT], 'latin1')
      }
    },
  )
}

/** Valid UTF-8 with every terminator and multi-byte characters: strings carry it without loss. */
const TEXT = [...EDGE_INPUTS.map(([, bytes]) => bytes.toString()), ...STRADDLERS.map(([, token]) => token)]
  .filter((part) => typeof part === 'string' && !part.includes('\uFFFD'))
  .join('|')

/** An async generator of `chunks`, each yielded on a turn of the event loop of its own. */
async function* turnsApart(chunks) {
  for (const chunk of chunks) {
    await nextTurn()
    yield chunk
  }
}

/** `text` cut every `size` code points, so no chunk splits a surrogate pair. */
function cutCodePoints(text, size) {
  const points = Array.from(text)
  const strings = []
  for (let at = 0; at < points.length; at += size) strings.push(points.slice(at, at + size).join(''))
  return strings
}

test.serial('string chunks give the lines of their UTF-8 bytes, alone or mixed with bytes', async (t) => {
  const bytes = Buffer.from(TEXT)
  const want = wholeRead(bytes)
  t.true(want.lines.length > 20, 'the text has many lines')
  const kinds = {
    'an array of strings': (strings) => strings,
    'an async generator of strings': (strings) => generate(strings),
    'Readable.from(strings)': (strings) => Readable.from(strings),
    'strings and Buffers in turn': (strings) => strings.map((s, i) => (i % 2 ? Buffer.from(s) : s)),
  }
  for (const size of CHUNK_SIZES) {
    for (const [kind, make] of Object.entries(kinds)) {
      const what = `${kind}, ${size} code points each`
      t.deepEqual(await guard(readWhole(make(cutCodePoints(TEXT, size))), what), want, what)
    }
  }
  // Readables that decode their bytes themselves, and so give strings, characters split or not.
  const file = temp.file(bytes)
  for (const size of CHUNK_SIZES) {
    const what = `createReadStream with encoding utf8, highWaterMark ${size}`
    const stream = fs.createReadStream(file, { encoding: 'utf8', highWaterMark: size })
    t.deepEqual(await guard(readWhole(stream), what), want, what)
    const decoding = writtenStream(cutEvery(bytes, size)).setEncoding('utf8')
    t.deepEqual(await guard(readWhole(decoding), `setEncoding('utf8'), ${size}-byte writes`), want)
  }
})

test.serial('string chunks cut inside a surrogate pair give the lines of the whole text', async (t) => {
  // A stream that decodes UTF-16 hands out strings cut at any code unit.
  const text = `${TEXT}|🎉🎉\r\n😀|\n𝄞`
  const bytes = Buffer.from(text)
  const want = wholeRead(bytes)
  for (const size of CHUNK_SIZES) {
    const strings = []
    for (let at = 0; at < text.length; at += size) strings.push(text.slice(at, at + size))
    const cutPairs = strings.filter((string) => /[\ud800-\udbff]$/.test(string)).length
    t.true(size === 1 || size === 64 || cutPairs > 0, `${size}-unit strings cut a pair`)
    const what = `${size} UTF-16 code units each`
    t.deepEqual(await guard(readWhole(strings), what), want, what)
    // A turn apart, each is framed as it comes, for the reader that waits for it.
    const apart = `${what}, a turn apart`
    t.deepEqual(await guard(readWhole(turnsApart(strings)), apart), want, apart)
    const mixed = strings.map((string, i) => (i % 3 === 2 ? Buffer.from(string) : string))
    // The text of strings that follow each other is one; a pair cut by bytes is two U+FFFD.
    const parts = []
    for (const chunk of mixed) {
      if (typeof chunk === 'string' && typeof parts.at(-1) === 'string') parts[parts.length - 1] += chunk
      else parts.push(chunk)
    }
    t.deepEqual(
      await guard(collect(readLines(mixed)), `${what}, every third as bytes`),
      referenceLines(Buffer.concat(parts.map((part) => Buffer.from(part)))),
      `${what}, every third as bytes`,
    )
  }
  // A high surrogate at the very end stays one U+FFFD.
  t.deepEqual(await collect(readLines(['a\nb\ud83c'])), ['a', 'b\uFFFD'])
  // And so it does before a failure of the source.
  const chunks = []
  const failing = readChunks(
    (function* () {
      yield 'a\nb\ud83c'
      throw new Error('boom')
    })(),
  )
  await t.throwsAsync(
    async () => {
      for await (const chunk of failing) chunks.push(chunk)
    },
    { message: 'boom' },
  )
  t.is(Buffer.concat(chunks).toString('hex'), Buffer.from('a\nb\uFFFD').toString('hex'))
  t.is(failing.bytesRead, 6)
})

test.serial('string chunks read as latin1 give the lines of their Latin-1 bytes', async (t) => {
  const text = 'café\r\nnaïve\n\u00ff\u0080|\r\nÀ la carte'
  const bytes = Buffer.from(text, 'latin1')
  const want = wholeRead(bytes, 'latin1')
  t.deepEqual(want.lines, ['café', 'naïve', '\u00ff\u0080|', 'À la carte'])
  for (const size of CHUNK_SIZES) {
    const strings = []
    for (let at = 0; at < text.length; at += size) strings.push(text.slice(at, at + size))
    const what = `${size}-character strings`
    t.deepEqual(await guard(readWhole(strings, { encoding: 'latin1' }), what), want, what)
    t.deepEqual(await guard(readWhole(Readable.from(strings), { encoding: 'latin1' }), `Readable.from, ${what}`), want)
  }
  t.is(await countLines(text.split(/(?<=\n)/), { encoding: 'latin1', match: 'ï' }), 1)
})

test('a source that fills one buffer again for each chunk: every byte once, in order, however its chunks are gathered', async (t) => {
  // A FileHandle's reads, fed on Windows, reuse one buffer, and so may a user's generator: a chunk
  // must be taken before the next is pulled. Small chunks that come in one turn are gathered.
  const bytes = Buffer.from(Array.from({ length: 3_000 }, (_, i) => `line ${i}\n`).join(''))
  async function* reusing(size) {
    const buffer = Buffer.alloc(size)
    for (let at = 0; at < bytes.length; at += size) yield buffer.subarray(0, bytes.copy(buffer, 0, at, at + size))
  }
  for (const size of [1, 7, 20, 100, 3_000, 5_000]) {
    const what = `${size}-byte chunks`
    t.deepEqual(await guard(collect(readLines(reusing(size))), what), referenceLines(bytes), what)
    t.is(await guard(countLines(reusing(size)), what), 3_000, what)
    const chunks = await guard(collect(readChunks(reusing(size))), what)
    t.is(Buffer.concat(chunks).toString(), bytes.toString(), what)
  }
})

test('a FileHandle is read from its current position, and left open, however reading ends', async (t) => {
  const bytes = bytesOf('skipped\r\n', SOUP[1], 'é中😀\r\nlast')
  const file = temp.file(bytes)
  const skip = 'skipped\r'.length // the read starts between the CR and the LF
  await withFileHandle(file, async (handle) => {
    const { bytesRead } = await handle.read(Buffer.alloc(skip), 0, skip, null)
    t.is(bytesRead, skip)
    t.deepEqual(await guard(collect(readLines(handle)), 'lines'), referenceLines(bytes.subarray(skip)))
    t.true(isOpen(file))
    t.is((await handle.read(Buffer.alloc(4), 0, 4, 0)).bytesRead, 4, 'the handle still reads')
  })
  await withFileHandle(file, async (handle) => {
    for await (const line of readLines(handle)) {
      t.is(line, 'skipped')
      break
    }
    t.true(isOpen(file), 'break leaves the handle open')
    t.is((await handle.stat()).size, bytes.length)
  })
  await withFileHandle(file, async (handle) => {
    const reader = readLines(handle)
    await reader.next()
    await reader.close()
    t.true(isOpen(file), 'close() leaves the handle open')
  })
  const count = await withFileHandle(file, (handle) => guard(countLines(handle), 'countLines'))
  t.is(count, referenceLines(bytes).length)
  const chunks = await withFileHandle(file, (handle) => guard(collect(readChunks(handle)), 'readChunks'))
  t.is(Buffer.concat(chunks).toString('hex'), bytes.toString('hex'))
})

/** The flags of this process's descriptor `fd` (Linux's /proc). */
function descriptorFlags(fd) {
  return Number.parseInt(/^flags:\s*([0-7]+)$/m.exec(fs.readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))[1], 8)
}

test("a pipe's FileHandle read natively is left as blocking as it was", async (t) => {
  const O_NONBLOCK = 0o4000
  const fifo = temp.path('fifo-handle')
  execFileSync('mkfifo', [fifo])
  // Read and write, so that opening waits for no writer, and the FIFO never ends.
  const handle = await fsp.open(fifo, 'r+')
  try {
    const before = descriptorFlags(handle.fd)
    t.is(before & O_NONBLOCK, 0)
    await handle.write('one\ntwo\n')
    const lines = []
    for await (const line of readLines(handle)) if (lines.push(line) === 2) break
    t.deepEqual(lines, ['one', 'two'])
    // The duplicate read shares the handle's open file: made non-blocking, it left the handle's
    // next read failing with EAGAIN where there is nothing yet (and a shell's pipe into stdin).
    t.is(descriptorFlags(handle.fd), before)
  } finally {
    await handle.close()
  }
})

test('a file stream nothing has read is read as its file: no chunk passes through JS', async (t) => {
  const bytes = bytesOf('first\r\n', SOUP[1], 'é中😀\r\nlast')
  const file = temp.file(bytes)
  const expected = referenceLines(bytes)
  // Not open yet (as createReadStream is until a later turn): its path is read, and it is let go.
  const pending = fs.createReadStream(file)
  const reader = readLines(pending)
  t.false(pending.destroyed, 'nothing happens to the stream before the first step')
  t.deepEqual(await guard(collect(reader), 'lines'), expected)
  t.true(pending.destroyed, 'the stream is let go')
  t.is(pending.bytesRead, 0, 'the stream read nothing')
  const unread = fs.createReadStream(file)
  t.throws(() => readLines(unread, { start: 1 }), { code: 'ERR_INVALID_ARG_VALUE' })
  await t.throwsAsync(countLines(unread, { encoding: 'utf16' }), { code: 'ERR_INVALID_ARG_VALUE' })
  t.false(unread.destroyed, 'a call refused for its options leaves the stream alone')
  t.is(unread.listenerCount('error'), 0, 'and listens to none of its events')
  t.deepEqual(await guard(collect(readLines(unread)), 'lines after the refusals'), expected)
  // Already open: its descriptor is read, from the file's start.
  const opened = fs.createReadStream(file)
  await once(opened, 'ready')
  const events = []
  for (const name of ['end', 'close']) opened.on(name, () => events.push(name))
  t.deepEqual(await guard(collect(readLines(opened)), 'lines of an open stream'), expected)
  t.is(opened.bytesRead, 0, 'the open stream read nothing')
  // Handed back at the end, it reads that end itself, as after a `for await` over it.
  if (!events.includes('close')) await guard(once(opened, 'close'), 'the open stream to close')
  t.deepEqual(events, ['end', 'close'], 'and ends, then closes')
  t.is(await guard(countLines(fs.createReadStream(file)), 'countLines'), expected.length)
  const chunks = await guard(collect(readChunks(fs.createReadStream(file))), 'readChunks')
  t.is(Buffer.concat(chunks).toString('hex'), bytes.toString('hex'))
  // A stream with a range, an encoding, or that has been read from, is fed: its own bytes.
  const ranged = fs.createReadStream(file, { start: 7, end: 20 })
  t.deepEqual(await guard(collect(readLines(ranged)), 'a range'), referenceLines(bytes.subarray(7, 21)))
  t.true(ranged.bytesRead > 0, 'a ranged stream is fed')
  const started = fs.createReadStream(file, { highWaterMark: 4 })
  await once(started, 'readable')
  t.is(started.read(2).toString(), 'fi')
  t.deepEqual(await guard(collect(readLines(started)), 'the rest'), referenceLines(bytes.subarray(2)))
})

test('a file stream that changed between the call and the first step is read as it is then', async (t) => {
  const file = temp.file('old 1\nold 2\n')
  // It opened its file after the call, which was then rotated: its descriptor names the old file.
  const rotated = fs.createReadStream(file)
  const reader = readLines(rotated)
  await once(rotated, 'ready')
  fs.renameSync(file, `${file}.1`)
  fs.writeFileSync(file, 'new 1\n')
  t.deepEqual(await guard(collect(reader), 'a stream opened since the call'), ['old 1', 'old 2'])
  // Destroyed after the call: its error, or a premature close, as for any other stream.
  const failed = fs.createReadStream(file)
  const failing = readLines(failed)
  const error = new Error('destroyed before the first step')
  failed.destroy(error)
  t.is(await t.throwsAsync(guard(collect(failing), 'a destroyed stream')), error)
  const closed = fs.createReadStream(file)
  const closing = readLines(closed)
  closed.destroy()
  await t.throwsAsync(guard(collect(closing), 'a closed stream'), { code: 'ERR_STREAM_PREMATURE_CLOSE' })
})

test('a file stream asked to read before (a read() that gave null) is fed: no byte is lost', async (t) => {
  const bytes = Buffer.from(numberedLines(20_000, 12))
  const file = temp.file(bytes)
  const expected = referenceLines(bytes)
  for (const when of ['before the call', 'after the call']) {
    const stream = fs.createReadStream(file)
    await once(stream, 'ready')
    if (when === 'before the call') t.is(stream.read(), null, 'the read is under way')
    const reader = readLines(stream)
    if (when === 'after the call') t.is(stream.read(), null, 'the read is under way')
    t.deepEqual(await guard(collect(reader), when), expected, when)
  }
})

test('a stream given its descriptor, with autoClose: false, is left open however it is read to its end', async (t) => {
  const bytes = bytesOf('one\r\ntwo\nthree')
  const file = temp.file(bytes)
  const ways = {
    readLines: async (stream) => t.deepEqual(await collect(readLines(stream)), referenceLines(bytes)),
    countLines: async (stream) => t.is(await countLines(stream), 3),
    readChunks: async (stream) => t.is(Buffer.concat(await collect(readChunks(stream))).toString(), bytes.toString()),
  }
  for (const [name, read] of Object.entries(ways)) {
    const fd = fs.openSync(file, 'r')
    try {
      await guard(read(fs.createReadStream(null, { fd, autoClose: false })), name)
      // As a `for await` over the stream leaves it: the descriptor is still the caller's.
      t.notThrows(() => fs.fstatSync(fd), `${name}: the descriptor is open`)
    } finally {
      fs.closeSync(fd)
    }
  }
})

test('a file stream that reads through an fs of its own, or its own _read, is fed its own bytes, not the path', async (t) => {
  // The path names a real file with other lines: reading it would give those.
  const decoy = temp.file('the file on disk\n')
  const own = Buffer.from('from its own fs\r\nsecond\n')
  /** An `fs` for createReadStream that serves `own` from memory, whatever the path. */
  const memoryFs = () => {
    let at = 0
    return {
      open: (path, flags, mode, callback) => callback(null, 99),
      read: (fd, buffer, offset, length, position, callback) => {
        const n = Math.min(length, own.length - at)
        own.copy(buffer, offset, at, at + n)
        at += n
        process.nextTick(callback, null, n, buffer)
      },
      close: (fd, callback) => callback(null),
    }
  }
  const expected = referenceLines(own)
  t.deepEqual(await guard(collect(readLines(fs.createReadStream(decoy, { fs: memoryFs() }))), 'readLines'), expected)
  t.is(await guard(countLines(fs.createReadStream(decoy, { fs: memoryFs() })), 'countLines'), expected.length)
  const chunks = await guard(collect(readChunks(fs.createReadStream(decoy, { fs: memoryFs() }))), 'readChunks')
  t.is(Buffer.concat(chunks).toString(), own.toString())
  // A subclass with a _read of its own.
  class OwnRead extends fs.ReadStream {
    _read(size) {
      fs.ReadStream.prototype._read.call(this, size)
    }
  }
  const ownRead = new OwnRead(decoy)
  t.deepEqual(await guard(collect(readLines(ownRead)), 'a subclass'), ['the file on disk'])
  t.true(ownRead.bytesRead > 0, 'the subclass is fed: it read its file itself')
})

test("a file stream of a missing file: the open's ENOENT, with the path, however late the first step", async (t) => {
  const missing = temp.path('missing.log')
  const rejectsWithENOENT = async (promise, what) => {
    const error = await t.throwsAsync(guard(promise, what), { code: 'ENOENT' }, what)
    t.like(error, { syscall: 'open', path: missing }, what)
  }
  await rejectsWithENOENT(collect(readLines(fs.createReadStream(missing))), 'readLines')
  await rejectsWithENOENT(countLines(fs.createReadStream(missing)), 'countLines')
  // The stream's own open fails before the first step: nothing goes unhandled, the step reports it.
  const stream = fs.createReadStream(missing)
  const late = readLines(stream)
  await new Promise((resolve) => stream.once('close', resolve)) // its own open has failed by now
  await rejectsWithENOENT(collect(late), 'a late first step')
  const failed = fs.createReadStream(missing)
  await once(failed, 'error')
  await rejectsWithENOENT(collect(readLines(failed)), 'a stream that failed already')
})

test('a string, Buffer, Uint8Array or URL is still a path, not a source', async (t) => {
  const file = temp.file('path\r\nlines\n')
  for (const path of [file, Buffer.from(file), new Uint8Array(Buffer.from(file)), pathToFileURL(file)]) {
    t.deepEqual(await collect(readLines(path)), ['path', 'lines'], inspect(path))
    t.is(await countLines(path), 2, inspect(path))
  }
})

// ---- process.stdin, and a child's stdout --------------------------------------------------------

/**
 * Runs `command` with `args`, stdin as spawn's stdio[0] (`'pipe'`, `'ignore'` or a descriptor):
 * as processes.mjs' runProcess, with any command and stdin. A child still running past the hang
 * limit for a run of `quietMs` is killed and reported with `timedOut`.
 */
function runChild(command, args, { stdin = 'pipe', quietMs = CHILD_QUIET_MS } = {}) {
  const child = spawn(command, args, { stdio: [stdin, 'pipe', 'pipe'] })
  child.stdin?.on('error', () => {}) // EPIPE from a child that stopped reading
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (data) => (stdout += data))
  child.stderr.setEncoding('utf8').on('data', (data) => (stderr += data))
  let timer
  const result = new Promise((resolve, reject) => {
    const settle = (status, signal, timedOut) => {
      clearTimeout(timer)
      resolve({ status, signal, stdout, stderr, timedOut })
    }
    // Settled at the kill itself: a shell's own children may hold its stdout open after it.
    timer = setTimeout(() => {
      child.kill('SIGKILL')
      settle(null, 'SIGKILL', true)
    }, hangLimit(quietMs))
    child.on('error', reject)
    child.on('close', (status, signal) => settle(status, signal, false))
  })
  return { child, result }
}

/** The stdin fixture's output, once it exited with status 0. */
function fixtureOutput(t, run, what) {
  t.is(run.status, 0, `${what}: ${describeRun(run)}`)
  return run.status === 0 ? JSON.parse(run.stdout) : undefined
}

/** Ways to give BIG_BYTES to the stdin fixture run with `args`: each gives the run's outcome. */
const STDIN_FEEDS = {
  'redirected from a file': (args) => {
    const fd = fs.openSync(BIG_FILE, 'r')
    return runChild(process.execPath, args, { stdin: fd }).result.finally(() => fs.closeSync(fd))
  },
  // A shell pipeline: the shell runs this runtime's executable itself, with the runtime's own arguments.
  'piped from another process': (args) => {
    const pipeline = `${shellCommand('cat', BIG_FILE)} | ${shellCommand(process.execPath, ...scriptArgs(...args))}`
    return runChild('sh', ['-c', pipeline], { stdin: 'ignore' }).result
  },
  'written by this process through a pipe': async (args) => {
    const { child, result } = runChild(process.execPath, args)
    await writeChunks(child.stdin, cutAtRandom(BIG_BYTES, SEED, 64 * 1024)).catch(() => {})
    child.stdin.end()
    return result
  },
}

for (const [feed, run] of Object.entries(STDIN_FEEDS)) {
  test(`readLines(process.stdin) in a child, stdin ${feed}: the lines of the same bytes`, async (t) => {
    for (const way of ['lines', 'batches', 'count']) {
      const output = fixtureOutput(t, await run([STDIN_READER, way]), way)
      t.deepEqual(output, way === 'count' ? { count: BIG_SUMMARY.count } : BIG_SUMMARY, way)
    }
    // Read to its end, the stream ends as after a `for await` over it; and asked to read first (a
    // read(0), which starts one), it is fed rather than read natively behind that read's back.
    for (const way of ['ends', 'read-first']) {
      t.deepEqual(fixtureOutput(t, await run([STDIN_READER, way]), way), { ...BIG_SUMMARY, ended: true }, way)
    }
  })
}

test("the runtime's own stdin (Bun.stdin, Deno.stdin; a web stream of process.stdin on Node) is a source", async (t) => {
  for (const [feed, run] of Object.entries(STDIN_FEEDS)) {
    t.deepEqual(fixtureOutput(t, await run([STDIN_READER, 'runtime-stdin']), feed), BIG_SUMMARY, feed)
  }
})

test('a child that stops reading a stdin that never ends exits by itself', async (t) => {
  for (const way of ['break', 'close']) {
    // A socket (spawn's pipe) this process holds open and never ends.
    const { child, result } = runChild(process.execPath, [STDIN_READER, way])
    child.stdin.write('first\nsecond\n')
    const overSocket = await result
    child.stdin.destroy()
    t.deepEqual(fixtureOutput(t, overSocket, `${way}, a socket`), { first: 'first' })

    // A FIFO opened for reading and writing: the child holds a writer itself, so it never ends.
    const fifo = temp.path(`never-ends-${way}`)
    execFileSync('mkfifo', [fifo])
    const fd = fs.openSync(fifo, 'r+')
    try {
      fs.writeSync(fd, 'first\nsecond\n')
      const overFifo = await runChild(process.execPath, [STDIN_READER, way], { stdin: fd }).result
      t.deepEqual(fixtureOutput(t, overFifo, `${way}, a FIFO`), { first: 'first' })
    } finally {
      fs.closeSync(fd)
    }
  }
})

test("a child's stdout is a source: spawn('cat', [file]).stdout", async (t) => {
  const cat = () => spawn('cat', [BIG_FILE], { stdio: ['ignore', 'pipe', 'inherit'] }).stdout
  t.deepEqual(summarize(await guardBig(collect(readLines(cat())), 'lines')), BIG_SUMMARY)
  const batches = await guardBig(collect(readLines(cat()).batches()), 'batches')
  t.deepEqual(summarize(batches.flat()), BIG_SUMMARY)
  t.is(await guardBig(countLines(cat()), 'countLines'), BIG_SUMMARY.count)
  const chunks = await guardBig(collect(readChunks(cat())), 'readChunks')
  t.true(Buffer.concat(chunks).equals(BIG_BYTES), 'readChunks gives every byte')
})

/** Whether a child's stdout is read through its descriptor here (see takeablePipe, lib/byte-source.js). */
const STDOUT_READ_NATIVELY = process.versions.bun === undefined

/**
 * The readers of a stream made now and stepped later: `make(stream)` takes hold of it and reads
 * nothing yet; `toEnd(reader)` reads it to its end and summarizes what it gave, to compare.
 */
const READ_LATER = {
  lines: { make: readLines, toEnd: async (reader) => summarize(await collect(reader)) },
  batches: { make: readLines, toEnd: async (reader) => summarize((await collect(reader.batches())).flat()) },
  readChunks: {
    make: readChunks,
    toEnd: async (reader) => summarize(referenceLines(Buffer.concat(await collect(reader)))),
  },
}

/** The ways a reader takes a stream to its end, and what each gives, summarized to compare. */
const READ_TO_END = {
  ...Object.fromEntries(
    Object.entries(READ_LATER).map(([way, { make, toEnd }]) => [way, (stream) => toEnd(make(stream))]),
  ),
  countLines: (stream) => countLines(stream),
}

test("a child's stdout, taken at once or after it buffered, ends and closes as if read; on Node and Deno, its bytes mostly pass no JS", async (t) => {
  for (const when of ['at once', 'after it buffered']) {
    for (const [way, read] of Object.entries(READ_TO_END)) {
      const what = `${way}, ${when}`
      const child = spawn('cat', [BIG_FILE], { stdio: ['ignore', 'pipe', 'inherit'] })
      const { stdout } = child
      let ended = false
      stdout.once('end', () => (ended = true))
      const closed = once(child, 'close')
      if (when === 'after it buffered') {
        await guardBig(once(stdout, 'readable'), `${what}: the first bytes`)
        t.true(stdout.readableLength > 0, `${what}: the stream holds bytes already`)
      }
      const expected = way === 'countLines' ? BIG_SUMMARY.count : BIG_SUMMARY
      t.deepEqual(await guardBig(read(stdout), what), expected, what)
      t.deepEqual(await guardBig(closed, `${what}: the child's 'close'`), [0, null], what)
      t.true(ended, `${what}: the stream emitted 'end'`)
      if (STDOUT_READ_NATIVELY) {
        // The runtime counts what it read from the pipe itself: at most what it had read before the first step.
        t.true(stdout.bytesRead < BIG_BYTES.length / 2, `${what}: the runtime read ${stdout.bytesRead} bytes itself`)
      }
    }
  }
})

test("a reader made before a child exits and stepped after: every line, though the child drops an unused stdout's bytes at its exit", async (t) => {
  const bytes = Buffer.from('first\nsecond\r\nlast')
  const file = temp.file(bytes, 'stepped-late.txt')
  for (const [way, { make, toEnd }] of Object.entries(READ_LATER)) {
    const child = spawn('cat', [file], { stdio: ['ignore', 'pipe', 'ignore'] })
    const exited = once(child, 'exit')
    const closed = once(child, 'close')
    const reader = make(child.stdout)
    // The first step comes once the child exited and the runtime had its turns to resume the
    // stream, as it resumes a stdout nothing has used.
    await guardBig(exited, `${way}: cat's exit`)
    for (let turn = 0; turn < 5; turn++) await nextTurn()
    t.deepEqual(await guard(toEnd(reader), way), summarize(referenceLines(bytes)), way)
    await guard(closed, `${way}: the child's 'close'`)
  }
})

test("a reader made before a child's writes and stepped after them: every write's lines, though the stream holds them as several chunks", async (t) => {
  // Writes 20 ms apart, so that the runtime reads each into a chunk of its own before the first
  // step (Deno's and Bun's read() gives only the first of them).
  const writes = ['first\n', 'second\n', 'third\r\n', 'fourth\n', 'last']
  const script = `const w = ${JSON.stringify(writes)}; let i = 0; const next = () => { process.stdout.write(w[i++]); if (i < w.length) setTimeout(next, 20) }; next()`
  const expected = referenceLines(Buffer.from(writes.join('')))
  for (const [way, { make, toEnd }] of Object.entries(READ_LATER)) {
    const child = spawn(process.execPath, evalArgs(script), { stdio: ['ignore', 'pipe', 'inherit'] })
    const exited = once(child, 'exit')
    const reader = make(child.stdout)
    await guardBig(exited, `${way}: the child's exit`)
    t.deepEqual(await guard(toEnd(reader), way), summarize(expected), way)
  }
  const child = spawn(process.execPath, evalArgs(script), { stdio: ['ignore', 'pipe', 'inherit'] })
  const exited = once(child, 'exit')
  const counted = countLines(child.stdout)
  await guardBig(exited, "countLines: the child's exit")
  t.is(await guard(counted, 'countLines'), expected.length)
})

test('a child that exits while its stdout is still being read: every line once, though Node resumes an unused stdout then', async (t) => {
  // 96 KiB: more than the stream buffers, little enough for the pipe to hold the rest once cat exits.
  const bytes = Buffer.from(numberedLines(1536, 64))
  const file = temp.file(bytes, 'exits-early.txt')
  const child = spawn('cat', [file], { stdio: ['ignore', 'pipe', 'ignore'] })
  const exited = once(child, 'exit')
  const reader = readLines(child.stdout)
  const lines = [(await guard(reader.next(), 'the first line')).value]
  await guardBig(exited, "cat's exit")
  // Node resumes a child's unused stdio streams on a later turn of the event loop after its exit.
  for (let turn = 0; turn < 5; turn++) await nextTurn()
  for await (const line of reader) lines.push(line)
  t.deepEqual(lines, referenceLines(bytes))
})

test("a child's stdout whose descriptor cannot be duplicated (EMFILE) is fed instead, the bytes already taken first", async (t) => {
  // A shell lowers the fixture's descriptor limit, so that using them all up is quick.
  const fixture = shellCommand(process.execPath, ...scriptArgs(fixturePath('stdout-no-descriptors.mjs'), BIG_FILE))
  const run = await runChild('sh', ['-c', `ulimit -n 256 && exec ${fixture}`], { stdin: 'ignore' }).result
  const output = fixtureOutput(t, run, 'with no descriptor left')
  if (output === undefined) return
  t.like(output, { ...BIG_SUMMARY, ended: true, closed: true })
  t.true(output.held > 0, 'every descriptor was in use when it read')
  if (typeof output.bytesRead === 'number') {
    t.is(output.bytesRead, BIG_BYTES.length, 'the runtime read the whole pipe itself: it was fed')
  }
})

test("stopping early on a child's endless stdout lets the child go: the pipe closes and it exits", async (t) => {
  for (const [stop, run] of Object.entries(STOPS)) {
    const child = spawn('yes', ['line'], { stdio: ['ignore', 'pipe', 'ignore'] })
    const closed = once(child, 'close')
    await guard(run(readLines(child.stdout)), stop)
    t.true(child.stdout.destroyed, `${stop}: the stream is destroyed`)
    // yes writes until its pipe has no reader left: then its write fails (EPIPE, or SIGPIPE
    // where the signal is not ignored) and it exits.
    const [status, signal] = await guardBig(closed, `${stop}: the child's exit`)
    t.true(status === 1 || signal === 'SIGPIPE', `${stop}: exit status ${status}, signal ${signal}`)
  }
})

// ---- fetch() and http ---------------------------------------------------------------------------

/** A block of numbered lines that endless sources and responses repeat: 64 KiB. */
const BLOCK = Buffer.from(numberedLines(1024, 64))
const BLOCK_LINES = referenceLines(BLOCK)
/** Line `i` (from 0) of BLOCK repeated. */
const blockLine = (i) => BLOCK_LINES[i % BLOCK_LINES.length]

/** An HTTP server on 127.0.0.1 that answers every request with `respond(response)`; its URL. */
async function serve(t, respond) {
  const server = http.createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'application/octet-stream', connection: 'close' })
    respond(response)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => {
    server.closeAllConnections?.()
    return new Promise((resolve) => server.close(resolve))
  })
  return `http://127.0.0.1:${server.address().port}/`
}

/** A server that sends `bytes`, in random pieces of up to 64 KiB, a turn of the event loop apart. */
const serveBytes = (t, bytes) =>
  serve(t, (response) => {
    writeChunks(response, cutAtRandom(bytes, SEED, 64 * 1024)).then(
      () => response.end(),
      () => {},
    )
  })

/** A server whose responses never end; `gone` resolves once a client has closed one. */
async function serveEndlessly(t) {
  let clientGone
  const gone = new Promise((resolve) => (clientGone = resolve))
  const url = await serve(t, async (response) => {
    let open = true
    const closed = new Promise((resolve) => response.once('close', resolve)).then(() => {
      open = false
      clientGone()
    })
    while (open) {
      if (!response.write(BLOCK)) await Promise.race([once(response, 'drain').catch(() => {}), closed])
      await nextTurn()
    }
  })
  return { url, gone }
}

const fetchBody = async (url) => (await fetch(url)).body
const httpGet = (url) => new Promise((resolve, reject) => http.get(url, resolve).on('error', reject))

test('a fetch() body and an http.get response from a local server are sources', async (t) => {
  const url = await serveBytes(t, BIG_BYTES)
  const linesOf = async (source, options) => summarize(await guardBig(collect(readLines(source, options)), 'lines'))
  t.deepEqual(await linesOf(await fetchBody(url)), BIG_SUMMARY, 'fetch() body, per line')
  const batches = await guardBig(collect(readLines(await fetchBody(url)).batches()), 'batches')
  t.deepEqual(summarize(batches.flat()), BIG_SUMMARY, 'fetch() body, batches')
  t.is(await guardBig(countLines(await fetchBody(url)), 'countLines'), BIG_SUMMARY.count, 'countLines(fetch() body)')
  t.deepEqual(await linesOf(await httpGet(url)), BIG_SUMMARY, 'http.get: an IncomingMessage')
  t.is(await guardBig(countLines(await httpGet(url)), 'countLines'), BIG_SUMMARY.count, 'countLines(IncomingMessage)')

  const gzipUrl = await serveBytes(t, zlib.gzipSync(BIG_BYTES))
  for (const decompress of ['gzip', 'auto']) {
    t.deepEqual(await linesOf(await fetchBody(gzipUrl), { decompress }), BIG_SUMMARY, `a gzip body, ${decompress}`)
  }
})

test('a fetch() Response is read through its body: none is no lines, and one already read is refused', async (t) => {
  const url = await serveBytes(t, BIG_BYTES)
  const response = await fetch(url)
  t.deepEqual(summarize(await guardBig(collect(readLines(response)), 'a Response')), BIG_SUMMARY)
  t.true(response.bodyUsed, 'its body read')
  t.is(await guardBig(countLines(await fetch(url)), 'countLines'), BIG_SUMMARY.count, 'countLines(a Response)')
  const empty = new Response(null, { status: 204 })
  t.deepEqual(await guard(collect(readLines(empty)), 'no body'), [], 'a Response with no body')
  const read = await fetch(url)
  await read.arrayBuffer()
  t.throws(() => readLines(read), { code: 'ERR_INVALID_STATE' }, 'a body already read')
})

test('break on an endless fetch() body or http response closes the connection', async (t) => {
  for (const [what, get] of [
    ['fetch() body', fetchBody],
    ['http.get response', httpGet],
  ]) {
    const { url, gone } = await serveEndlessly(t)
    let lines = 0
    for await (const line of readLines(await get(url))) {
      t.is(line, blockLine(lines), what)
      if (++lines === 3000) break
    }
    await within(gone, BIG_READ_QUIET_MS, `the server to see the ${what} closed`)
    t.pass(what)
  }
})

// ---- decompress ---------------------------------------------------------------------------------

test('decompress over a stream: a gzip or zstd file stream gives the plain lines, count and bytes', async (t) => {
  const compressed = { gzip: temp.file(zlib.gzipSync(BIG_BYTES)), zstd: temp.file(zstd(BIG_BYTES)) }
  const stream = (file) => fs.createReadStream(file)
  for (const [format, file] of Object.entries(compressed)) {
    for (const decompress of [format, 'auto']) {
      const what = `${format} with decompress: ${decompress}`
      t.deepEqual(summarize(await guardBig(collect(readLines(stream(file), { decompress })), what)), BIG_SUMMARY, what)
      t.is(await guardBig(countLines(stream(file), { decompress }), what), BIG_SUMMARY.count, `countLines: ${what}`)
      const chunks = await guardBig(collect(readChunks(stream(file), { decompress })), what)
      t.true(Buffer.concat(chunks).equals(BIG_BYTES), `readChunks: ${what}`)
    }
  }
  const gunzipped = () => stream(compressed.gzip).pipe(zlib.createGunzip())
  t.is(await guardBig(countLines(gunzipped()), 'countLines'), BIG_SUMMARY.count, 'countLines(a Gunzip stream)')
  t.deepEqual(summarize(await guardBig(collect(readLines(gunzipped())), 'lines')), BIG_SUMMARY, 'a Gunzip stream')
  const plain = await guardBig(collect(readLines(stream(BIG_FILE), { decompress: 'auto' })), 'auto on plain text')
  t.deepEqual(summarize(plain), BIG_SUMMARY, "'auto' leaves plain text as it is")
})

test.serial(
  'decompress over sources cut at every chunk size: magic numbers, members and frames split anywhere',
  async (t) => {
    const plain = Buffer.concat(EDGE_INPUTS.map(([, bytes]) => bytes))
    const half = plain.length >> 1
    const formats = {
      gzip: Buffer.concat([zlib.gzipSync(plain.subarray(0, half)), zlib.gzipSync(plain.subarray(half))]),
      zstd: zstd(plain),
    }
    const lines = referenceLines(plain)
    for (const [format, bytes] of Object.entries(formats)) {
      // Offsets and positions count decompressed bytes; bytesRead counts the source's, as for a file.
      const want = { lines, linesRead: lines.length, bytesRead: bytes.length, position: plain.length }
      for (const decompress of [format, 'auto']) {
        for (const [cut, split] of Object.entries(CUTS)) {
          for (const [kind, make] of Object.entries(SOURCES)) {
            const what = `${format}, decompress: ${decompress}, ${kind}, ${cut}`
            t.deepEqual(await guard(readWhole(make(split(bytes)), { decompress }), what), want, what)
          }
        }
      }
    }
  },
)

// ---- match, line numbers and offsets, counts ----------------------------------------------------

/** `[lineNumber, lineOffset, position, line]` of each line a reader hands out, from its getters. */
async function placedLines(reader) {
  const placed = []
  for await (const line of reader) placed.push([reader.lineNumber, reader.lineOffset, reader.position, line])
  return placed
}

/** `[lineNumber, offset, line]` of each line of a reader's numbered batches. */
async function numberedBatchLines(reader) {
  const numbered = []
  for await (const { lines, lineNumbers, offsets } of reader.batches({ numbered: true })) {
    lines.forEach((line, i) => numbered.push([lineNumbers[i], offsets[i], line]))
  }
  return numbered
}

const NUMBERED_WAYS = {
  'lineNumber, lineOffset and position per line': placedLines,
  'entries()': (reader) => collect(reader.entries()),
  'batches({ numbered: true })': numberedBatchLines,
}

const NUMBERED_GROUPS = 2
const NUMBERED_INPUTS = [...EDGE_INPUTS.map(([, bytes]) => bytes), ...SOUP.slice(0, 30), BLOCK.subarray(0, 4000)]

for (let group = 0; group < NUMBERED_GROUPS; group++) {
  const inputs = NUMBERED_INPUTS.filter((_, index) => index % NUMBERED_GROUPS === group)
  test.serial(
    `match, line numbers and offsets over a source are the file's, and so are the counts, group ${group + 1}/${NUMBERED_GROUPS} (seed ${SEED})`,
    async (t) => {
      const random = seededRandom(SEED ^ (0x6 + group))
      for (const bytes of inputs) {
        const file = temp.file(bytes)
        for (const options of [{}, randomMatchOptions(random, referenceLines(bytes))]) {
          const label = `${JSON.stringify(options)}: ${hex(bytes)}`
          for (const [way, read] of Object.entries(NUMBERED_WAYS)) {
            const want = await read(readLines(file, options))
            const viaHandle = await withFileHandle(file, (handle) => guard(read(readLines(handle, options)), label))
            t.deepEqual(viaHandle, want, `${way}, FileHandle, ${label}`)
            for (const cut of [sizeCut(1), sizeCut(3), RANDOM_CUT, LINE_CUT]) {
              for (const [kind, make] of Object.entries(SOURCES)) {
                const what = `${way}, ${kind}, ${cut}, ${label}`
                t.deepEqual(await guard(read(readLines(make(CUTS[cut](bytes)), options)), what), want, what)
              }
            }
          }
          const count = await countLines(file, options)
          for (const cut of [RANDOM_CUT, LINE_CUT]) {
            for (const [kind, make] of Object.entries(SOURCES)) {
              const what = `countLines, ${kind}, ${cut}, ${label}`
              t.is(await guard(countLines(make(CUTS[cut](bytes)), options), what), count, what)
            }
          }
        }
      }
    },
  )
}

test.serial(
  'whole lines a turn apart, framed or counted on the JS thread, between chunks that are not: the lines, numbers, offsets, bytesRead and count of the file',
  async (t) => {
    // Chunks of whole lines that a waiting reader frames itself (ASCII, other UTF-8, Latin-1
    // text), each next to what it must leave to the native side: a line cut in two, a lone CR and
    // a CRLF, invalid UTF-8, a real U+FFFD, a chunk past the frame-here size, a blank line.
    const chunks = [
      'first line\n',
      'é中😀 two\nthree\n',
      'a line cut ',
      'in two\n',
      'after the cut\n',
      'crlf\r\nthen lf\n',
      'lone cr\rthen lf\n',
      'ends in cr\r',
      '\nlf after it\n',
      Buffer.from([0x62, 0x61, 0x64, 0xff, 0x0a]),
      Buffer.from([0xe2, 0x82, 0x0a, 0x6f, 0x6b, 0x0a]),
      'real \ufffd\n',
      '\n',
      'x'.repeat(5000) + '\n' + 'y'.repeat(300) + '\n',
      'caf\xe9 latin\n',
      'unterminated last',
    ].map((chunk) => (typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk))
    const bytes = Buffer.concat(chunks)
    const file = temp.file(bytes)
    for (const encoding of ['utf8', 'latin1']) {
      for (const [way, read] of Object.entries(NUMBERED_WAYS)) {
        const want = await read(readLines(file, { encoding }))
        const what = `${way}, ${encoding}`
        t.deepEqual(await guard(read(readLines(turnsApart(chunks), { encoding })), what), want, what)
      }
      const whole = await guard(readWhole(turnsApart(chunks), { encoding }), encoding)
      t.deepEqual(whole, wholeRead(bytes, encoding), `readWhole, ${encoding}`)
      // countLines counts such chunks on the JS thread too, and the rest natively.
      t.is(
        await guard(countLines(turnsApart(chunks), { encoding }), encoding),
        whole.lines.length,
        `countLines, ${encoding}`,
      )
      // As they come, each line is handed out as soon as its chunk is in, counted so far: the
      // source gives nothing more until the checks are done (on a loaded machine, a turn apart
      // let the pump take the next chunk before the step settled).
      let release
      const held = new Promise((resolve) => (release = resolve))
      const reader = readLines(
        (async function* () {
          yield chunks[0]
          await held
          yield* chunks.slice(1)
        })(),
        { encoding },
      )
      t.deepEqual(await guard(reader.next(), encoding), { value: 'first line', done: false })
      t.is(reader.bytesRead, chunks[0].length, `bytesRead after the first chunk, ${encoding}`)
      t.is(reader.position, chunks[0].length, `position after the first chunk, ${encoding}`)
      release()
      await reader.close()
    }
  },
)

test.serial(
  'ASCII chunks cut anywhere, framed on the JS thread with the partial line carried over, then what only the native side frames: the lines, numbers, offsets and bytesRead of the file',
  async (t) => {
    // A reader of plain lines frames a fed source's ASCII chunks of 2 KiB and more itself,
    // carrying the partial line at each chunk's end over (lib/frame-here.js, CarriedFraming),
    // until a chunk it must leave to the native side, which then frames the line carried and all
    // the rest. The last chunk of each cut is smaller: it goes there too.
    const ascii = Buffer.from(numberedLines(3000, 70))
    const middles = {
      nothing: Buffer.alloc(0),
      'a CRLF': Buffer.from('a crlf line\r\nnext\n'),
      'a lone CR': Buffer.from('a lone\rcr\n'),
      'non-ASCII text': Buffer.from('é中😀 line\n'),
      'invalid UTF-8': Buffer.from([0x61, 0xff, 0x62, 0x0a]),
      'a line of 1.5 MiB': Buffer.from(`${'x'.repeat(1.5 * MiB)}\n`),
    }
    const cuts = {
      '64 KiB chunks': (bytes) => cutEvery(bytes, 64 * 1024),
      '8 KiB chunks': (bytes) => cutEvery(bytes, 8 * 1024),
      'random chunks of 2 to 20 KiB, a few empty': (bytes) => cutFramedHere(bytes, SEED ^ bytes.length),
    }
    const sources = {
      'an async generator': generate,
      'a web ReadableStream': webStream,
      'Readable.from': (chunks) => Readable.from(chunks),
      'an array': (chunks) => chunks,
    }
    for (const [middle, tail] of Object.entries(middles)) {
      // Unterminated at the end: the line carried is the last.
      const bytes = Buffer.concat([ascii, tail, ascii, Buffer.from('the last line')])
      const file = temp.file(bytes)
      const wants = {}
      for (const [way, read] of Object.entries(NUMBERED_WAYS)) wants[way] = await read(readLines(file))
      for (const [cut, cutOf] of Object.entries(cuts)) {
        for (const [kind, make] of Object.entries(sources)) {
          for (const [way, read] of Object.entries(NUMBERED_WAYS)) {
            const what = `${middle}, ${way}, ${kind}, ${cut}`
            t.deepEqual(await guardBig(read(readLines(make(cutOf(bytes)))), what), wants[way], what)
          }
          const what = `${middle}, ${kind}, ${cut}`
          t.deepEqual(await guardBig(readWhole(make(cutOf(bytes))), what), wholeRead(bytes), what)
        }
      }
    }
    // A failure after lines framed here: the lines before it, not the partial one, then the
    // source's own error; a line past maxLineLength: the lines before it, then ERR_LINE_TOO_LONG.
    const lines = referenceLines(ascii)
    const error = new Error('the source broke')
    for (const [cut, cutOf] of Object.entries(cuts)) {
      const failing = readLines(
        generate(cutOf(Buffer.concat([ascii, Buffer.from('a partial line')])), () => {
          throw error
        }),
      )
      const failed = await guardBig(untilFailure(failing), `a failure, ${cut}`)
      t.deepEqual(failed.items, lines, `a failure, ${cut}`)
      t.true(isSourceError(failed.error, error), `a failure, ${cut}: ${inspect(failed.error)}`)
      const long = Buffer.concat([ascii, Buffer.from(`${'y'.repeat(5000)}\n`), ascii])
      const tooLong = await guardBig(untilFailure(readLines(cutOf(long), { maxLineLength: 4000 })), `too long, ${cut}`)
      t.deepEqual(tooLong.items, lines, `too long, ${cut}`)
      t.like(tooLong.error, { code: 'ERR_LINE_TOO_LONG', maxLineLength: 4000 }, `too long, ${cut}`)
    }
  },
)

test.serial('readChunks over every source gives its bytes, and bytesRead counts them', async (t) => {
  for (const [kind, make] of Object.entries(SOURCES)) {
    const reader = readChunks(make(cutAtRandom(BIG_BYTES, SEED, 5000)))
    const chunks = await guardBig(collect(reader), kind)
    t.true(Buffer.concat(chunks).equals(BIG_BYTES), kind)
    t.true(chunks.every(Buffer.isBuffer), `Buffers: ${kind}`)
    t.is(reader.bytesRead, BIG_BYTES.length, kind)
  }
})

// ---- a source that fails, a bad chunk -----------------------------------------------------------

/** What a reader handed out (batches flattened) until it ended or failed, and its error if any. */
async function untilFailure(iterable) {
  const items = []
  try {
    for await (const item of iterable) items.push(...(Array.isArray(item) ? item : [item]))
    return { items, error: null }
  } catch (error) {
    return { items, error }
  }
}

/** Whether `got` is the source's own error, or says so as its cause. */
const isSourceError = (got, error) => got === error || got?.cause === error

/** Each kind of source that gives `chunks`, then fails with `error` its own way. */
const FAILING_SOURCES = {
  'a Readable destroyed with an error': (chunks, error) =>
    writtenStream(chunks, async (stream) => {
      // Once the reader has taken every byte: destroy() drops what a stream still buffers.
      await until(() => stream.writableLength === 0 && stream.readableLength === 0, 'the reader to take every chunk')
      stream.destroy(error)
    }),
  'an async generator that throws': (chunks, error) =>
    generate(chunks, () => {
      throw error
    }),
  'a generator that throws': (chunks, error) =>
    generateSync(chunks, () => {
      throw error
    }),
  'a web stream whose source errors it': (chunks, error) => webStream(chunks, (controller) => controller.error(error)),
}

const BEFORE_FAILURE = bytesOf('one\ntwo é\r\nthr') // 'thr' is cut short by the failure

for (const [kind, make] of Object.entries(FAILING_SOURCES)) {
  test.serial(`${kind}: the complete lines before it, then its own error, and never the partial line`, async (t) => {
    for (const cut of [sizeCut(1), sizeCut(3), sizeCut(7), WHOLE]) {
      const chunks = CUTS[cut](BEFORE_FAILURE)
      for (const way of ['per line', 'batches']) {
        const error = new Error(`${kind} failed`)
        const reader = readLines(make(chunks, error))
        const got = await guard(untilFailure(way === 'batches' ? reader.batches() : reader), `${way}, ${cut}`)
        t.deepEqual(got.items, ['one', 'two é'], `${way}, ${cut}`)
        t.true(isSourceError(got.error, error), `${way}, ${cut}: ${inspect(got.error)}`)
        t.deepEqual(await reader.next(), DONE, `${way}, ${cut}: iteration is over`)
      }
      const error = new Error(`${kind} failed`)
      const counted = await t.throwsAsync(guard(countLines(make(chunks, error)), `countLines, ${cut}`))
      t.true(isSourceError(counted, error), `countLines, ${cut}: ${inspect(counted)}`)
    }
  })
}

test('a web stream read to its end, or to its error, is left unlocked, as a for await over it leaves it', async (t) => {
  const chunks = [bytesOf('one\n'), bytesOf('two\n')]
  for (const [what, read] of Object.entries({
    'per line': (source) => collect(readLines(source)),
    batches: (source) => collect(readLines(source).batches()),
    readChunks: (source) => collect(readChunks(source)),
    countLines: (source) => countLines(source),
  })) {
    const ended = webStream(chunks)
    await guard(read(ended), `${what}, to its end`)
    t.false(ended.locked, `${what}: unlocked at its end`)
    const error = new Error('failed')
    const failed = webStream(chunks, (controller) => controller.error(error))
    const got = await t.throwsAsync(guard(read(failed), `${what}, to its error`))
    t.true(isSourceError(got, error), `${what}: ${inspect(got)}`)
    t.false(failed.locked, `${what}: unlocked after its error`)
  }
})

test('a source whose iterator method throws fails once with its error, as a source that fails does', async (t) => {
  for (const symbol of [Symbol.iterator, Symbol.asyncIterator]) {
    const error = new Error('no iterator')
    let calls = 0
    const source = () => ({
      [symbol]() {
        calls++
        throw error
      },
    })
    const what = `${String(symbol)} throws`
    const reader = readLines(source())
    const got = await guard(untilFailure(reader), what)
    t.deepEqual(got.items, [], what)
    t.is(got.error, error, what)
    t.deepEqual(await reader.next(), DONE, `${what}: then the end`)
    t.deepEqual(await reader.next(), DONE, `${what}: then the end`)
    t.is(calls, 1, `${what}: called once`)
    t.is(await t.throwsAsync(guard(countLines(source()), what)), error, `countLines: ${what}`)
  }
})

test('a chunk that is neither bytes nor a string: ERR_INVALID_ARG_TYPE after the lines before it', async (t) => {
  for (const bad of [42, {}, null]) {
    for (const [kind, make] of ANY_VALUE_SOURCES) {
      if (bad === null && kind === 'Readable.from') continue // a null there ends Node's stream itself
      const chunks = () => [Buffer.from('one\ntwo\nthr'), bad, Buffer.from('ee\n')]
      const what = `${kind} giving ${inspect(bad)}`
      const got = await guard(untilFailure(readLines(make(chunks()))), what)
      t.deepEqual(got.items, ['one', 'two'], what)
      t.is(got.error?.code, 'ERR_INVALID_ARG_TYPE', `${what}: ${inspect(got.error)}`)
      await t.throwsAsync(guard(countLines(make(chunks())), what), { code: 'ERR_INVALID_ARG_TYPE' }, what)
    }
  }
})

test('an iterator whose result is not an object fails after the lines before it, as for await over it fails', async (t) => {
  // It read the result's missing chunk as undefined, and failed with ERR_INVALID_ARG_TYPE.
  for (const symbol of [Symbol.iterator, Symbol.asyncIterator]) {
    const iterable = () => {
      const results = [{ value: 'one\ntwo\nthr', done: false }, 5]
      const next = () => (symbol === Symbol.iterator ? results.shift() : Promise.resolve(results.shift()))
      return { [symbol]: () => ({ next }) }
    }
    const what = symbol.description
    const expected = await t.throwsAsync(async () => {
      for await (const chunk of iterable()) void chunk
    })
    const got = await guard(untilFailure(readLines(iterable())), what)
    t.deepEqual(got.items, ['one', 'two'], what)
    t.true(got.error instanceof TypeError && got.error.code === undefined, `${what}: ${inspect(got.error)}`)
    t.regex(expected.message, /is not an object/, `${what}: the engine's own message`)
    t.regex(got.error.message, /is not an object/, what)
  }
})

test('an iterator whose next() fails, or gives no object, is not returned after, as for await leaves it; one given up on for a bad chunk is', async (t) => {
  const failures = {
    'next() throws': () => {
      throw new Error('next failed')
    },
    'next() rejects': () => Promise.reject(new Error('next failed')),
    'a result that is no object': () => 5,
    'a bad chunk': () => ({ value: 42, done: false }),
  }
  for (const symbol of [Symbol.iterator, Symbol.asyncIterator]) {
    for (const [name, fail] of Object.entries(failures)) {
      if (symbol === Symbol.iterator && name === 'next() rejects') continue // a sync next() gives no promise
      const iterable = (log) => ({
        [symbol]() {
          const results = [() => ({ value: 'one\ntwo\nthr', done: false }), fail]
          const settle = (result) =>
            symbol === Symbol.asyncIterator && typeof result?.then !== 'function' ? Promise.resolve(result) : result
          return {
            next: () => settle((results.shift() ?? (() => ({ value: undefined, done: true })))()),
            return: () => {
              log.push('return')
              return settle({ value: undefined, done: true })
            },
          }
        },
      })
      const what = `${symbol.description}, ${name}`
      const expected = name === 'a bad chunk' ? ['return'] : []
      // What for await does, its body giving up on a chunk that is not bytes or a string. Over a
      // sync iterator whose next() throws, Deno 2.9's calls return() too, where Node's and Bun's
      // do not.
      const forAwait = []
      await t.throwsAsync(async () => {
        for await (const chunk of iterable(forAwait)) {
          if (typeof chunk !== 'string') throw new TypeError('not a chunk')
        }
      })
      if (symbol === Symbol.asyncIterator) t.deepEqual(forAwait, expected, `${what}: for await`)
      else if (forAwait.length !== expected.length) t.log(`${what}: for await called return() ${forAwait.length} times`)
      const log = []
      const got = await guard(untilFailure(readLines(iterable(log))), what)
      t.deepEqual(got.items, ['one', 'two'], what)
      t.truthy(got.error, what)
      const counted = []
      await t.throwsAsync(guard(countLines(iterable(counted)), what))
      await nextTurn()
      t.deepEqual(log, expected, what)
      t.deepEqual(counted, expected, `countLines, ${what}`)
    }
  }
})

test("a sync iterable's promises of chunks are awaited, as for await and Readable.from await them", async (t) => {
  const chunks = () => [Promise.resolve(Buffer.from('a\nb')), 'c\n', Promise.resolve('d\n')]
  t.deepEqual(await guard(collect(readLines(chunks())), 'lines'), ['a', 'bc', 'd'])
  t.is(await guard(countLines(chunks()), 'count'), 3)

  const error = new Error('no chunk')
  let returned = 0
  const failing = {
    *[Symbol.iterator]() {
      try {
        yield 'one\ntw'
        yield Promise.reject(error)
        yield 'never\n'
      } finally {
        returned++
      }
    },
  }
  const got = await guard(untilFailure(readLines(failing)), 'a rejected chunk')
  t.deepEqual(got.items, ['one'])
  t.true(isSourceError(got.error, error), inspect(got.error))
  await until(() => returned === 1, 'the iterator to be returned')
})

test('an empty chunk, or one whose buffer was transferred away since, reads as nothing, whether the reader waits or not', async (t) => {
  // A transferred buffer's view reads as empty but cannot be copied from: gathered with chunks
  // from memory, it failed with the engine's TypeError, where a waiting reader took it as empty.
  const transferred = () => {
    const chunk = new Uint8Array([97, 10])
    structuredClone(chunk.buffer, { transfer: [chunk.buffer] })
    return chunk
  }
  for (const paced of [false, true]) {
    for (const empty of [transferred, () => new Uint8Array(0)]) {
      const what = `${empty === transferred ? 'transferred' : 'empty'}, ${paced ? 'a turn apart' : 'from memory'}`
      async function* chunks() {
        yield Buffer.from('q\n')
        if (paced) await nextTurn()
        yield empty()
        if (paced) await nextTurn()
        yield Buffer.from('r\n')
      }
      t.deepEqual(await guard(collect(readLines(chunks())), what), ['q', 'r'], what)
      const bytes = []
      for await (const chunk of readChunks(chunks())) bytes.push(chunk)
      t.is(Buffer.concat(bytes).toString(), 'q\nr\n', what)
      t.is(await guard(countLines(chunks()), what), 2, what)
      // Nothing between the halves of a surrogate pair cut between two strings: one character.
      // It let the high half go alone, and the pair read as two U+FFFD.
      const pair = ['a\uD83D', empty(), '\uDE00b\n']
      const reader = readLines(paced ? turnsApart(pair) : pair)
      t.deepEqual(await guard(collect(reader), what), ['a\u{1F600}b'], `${what}, inside a surrogate pair`)
      t.is(reader.position, 7, `${what}, inside a surrogate pair`)
    }
  }
})

test('bytes made in another realm (a vm context, where test runners load code) are chunks and paths', async (t) => {
  const foreign = vm.runInNewContext('(bytes) => Uint8Array.from(bytes)')
  t.false(foreign([]) instanceof Uint8Array, 'the realm is another')
  // A small chunk (framed on the JS thread or gathered) and one of 8 KiB (pushed as it is).
  const bytes = Buffer.from(`one\r\ntwo é\n${'x'.repeat(8192)}\nlast`)
  const chunks = () => [foreign(bytes.subarray(0, 11)), foreign(bytes.subarray(11))]
  const want = referenceLines(bytes)
  for (const [kind, make] of Object.entries(SOURCES)) {
    t.deepEqual(await guard(collect(readLines(make(chunks()))), kind), want, kind)
    t.is(await guard(countLines(make(chunks())), kind), want.length, kind)
  }
  const path = foreign(Buffer.from(temp.file(bytes)))
  t.deepEqual(await guard(collect(readLines(path)), 'a path'), want, 'readLines of a path')
  t.deepEqual([...readLinesSync(path)], want, 'readLinesSync of a path')
  t.is(await guard(countLines(path), 'a path'), want.length, 'countLines of a path')
})

// ---- at the call --------------------------------------------------------------------------------

test('neither a path nor a byte source: ERR_INVALID_ARG_TYPE at the call', async (t) => {
  // A boxed string is iterable, but neither a path nor a source, as fs says.
  for (const value of [42, {}, null, undefined, true, () => {}, new String('/x/a.txt')]) {
    const what = inspect(value)
    t.throws(() => readLines(value), { code: 'ERR_INVALID_ARG_TYPE' }, `readLines(${what})`)
    t.throws(() => readChunks(value), { code: 'ERR_INVALID_ARG_TYPE' }, `readChunks(${what})`)
    await t.throwsAsync(countLines(value), { code: 'ERR_INVALID_ARG_TYPE' }, `countLines(${what})`)
  }
})

test('a type error names byte sources only where the reader takes them', async (t) => {
  const takes = [
    ['readLines', () => readLines(42)],
    ['readChunks', () => readChunks(42)],
    ['countLines', () => countLines(42)],
  ]
  const refuses = [
    ['readLinesSync', () => readLinesSync(42)],
    ['readLastLines', () => readLastLines(42, 1)],
    ['followLines', () => followLines(42)],
  ]
  const messageOf = async (call) => {
    try {
      await call()
    } catch (error) {
      t.is(error.code, 'ERR_INVALID_ARG_TYPE')
      return error.message
    }
    t.fail('no error')
  }
  for (const [name, call] of takes) t.regex(await messageOf(call), /or a byte source\./, name)
  for (const [name, call] of refuses) t.notRegex(await messageOf(call), /byte source/, name)
})

test('a web stream that is already locked: ERR_INVALID_STATE at the call', async (t) => {
  const locked = () => {
    const stream = webStream([Buffer.from('a\n')])
    stream.getReader()
    return stream
  }
  t.throws(() => readLines(locked()), { code: 'ERR_INVALID_STATE' })
  t.throws(() => readChunks(locked()), { code: 'ERR_INVALID_STATE' })
  await t.throwsAsync(countLines(locked()), { code: 'ERR_INVALID_STATE' })
})

test('a web stream is locked at the first step, not at the call: a reader dropped before it leaves the stream as it was', async (t) => {
  const stream = webStream([Buffer.from('a\nb\n')])
  readLines(stream)
  readChunks(stream)
  t.false(stream.locked, 'not locked by the calls')
  // Another reader takes it whole, as if the two had not been made.
  t.deepEqual(await guard(collect(readLines(stream)), 'the reader after'), ['a', 'b'])

  // Locked by someone else between the call and the first step: the step fails as the call would have.
  const taken = webStream([Buffer.from('a\n')])
  const late = readLines(taken)
  const other = taken.getReader()
  await t.throwsAsync(guard(late.next(), 'a step'), { code: 'ERR_INVALID_STATE', message: /locked/ })
  other.releaseLock()
  t.false(taken.locked, 'left to its other reader')

  // close() before the first step cancels it, as a close after the first step does.
  let cancelled = false
  const closed = new ReadableStream({ cancel: () => (cancelled = true) })
  await readLines(closed).close()
  t.true(cancelled, 'cancelled by close()')
  t.false(closed.locked, 'and unlocked')
})

// ---- Blobs and web stream pairs -----------------------------------------------------------------

/**
 * Blobs of `bytes`, each read through its `stream()`: one of parts cut at random, a `File`, a
 * file's (`fs.openAsBlob`) and, on Bun, `Bun.file()`'s.
 */
async function blobsOf(bytes) {
  const file = temp.file(bytes)
  const blobs = {
    // Parts of up to 7 bytes, which cut characters and CRLFs; a large Blob's of up to 64 KiB.
    'a Blob of parts': new Blob(cutAtRandom(bytes, SEED, bytes.length > 4096 ? 64 * 1024 : 7)),
    'a File': new File([bytes], 'lines.log'),
    'fs.openAsBlob': await fs.openAsBlob(file),
  }
  if (globalThis.Bun !== undefined) blobs['Bun.file'] = globalThis.Bun.file(file)
  return blobs
}

test("a Blob is a source (a File, fs.openAsBlob's, Bun.file()'s): the lines of a file of the same bytes", async (t) => {
  const inputs = [...EDGE_INPUTS, ['many lines', BIG_BYTES]]
  for (const [name, input] of inputs) {
    const bytes = Buffer.from(input)
    const want = wholeRead(bytes)
    for (const [kind, blob] of Object.entries(await blobsOf(bytes))) {
      const what = `${kind}, ${name}`
      t.deepEqual(await guardBig(readWhole(blob), what), want, what)
      // A Blob is read anew by each reader: the same one, again, in batches.
      const batches = await guardBig(collect(readLines(blob).batches()), what)
      t.deepEqual(batches.flat(), want.lines, `batches: ${what}`)
      t.is(await guardBig(countLines(blob), what), want.lines.length, `countLines: ${what}`)
      const chunks = await guardBig(collect(readChunks(blob)), what)
      t.true(Buffer.concat(chunks).equals(bytes), `readChunks: ${what}`)
    }
  }
  const records = '{"a":1}\n\n[2]\n'
  t.deepEqual(await guard(collect(readJsonLines(new Blob([records]))), 'JSON Lines'), [{ a: 1 }, [2]])
  const gzipped = new Blob([zlib.gzipSync('one\ntwo\n')])
  t.deepEqual(await guard(collect(readLines(gzipped, { decompress: 'gzip' })), 'gzip'), ['one', 'two'])
})

test("a Blob's stream is made at each reader's first step, and ended with the reader", async (t) => {
  let made = 0
  let cancelled = 0
  // A Blob whose stream() never ends, whatever it holds: the reader is stopped while it reads.
  class EndlessBlob extends Blob {
    stream() {
      made += 1
      const chunk = Buffer.from('a\n'.repeat(8 * 1024))
      return new ReadableStream({
        pull: (controller) => controller.enqueue(new Uint8Array(chunk)),
        cancel: () => {
          cancelled += 1
        },
      })
    }
  }
  const blob = new EndlessBlob(['unread'])
  const reader = readLines(blob)
  t.is(made, 0, 'nothing made at the call')
  t.deepEqual(await guard(reader.next(), 'a step'), { value: 'a', done: false })
  t.is(made, 1, 'made at the first step')
  await reader.close()
  t.is(cancelled, 1, 'cancelled by close()')
  for await (const line of readLines(blob)) {
    t.is(line, 'a')
    break
  }
  t.deepEqual([made, cancelled], [2, 2], 'made again for a second reader, and cancelled by its break')
  // A reader closed before its first step makes no stream to end.
  await readLines(blob).close()
  t.is(made, 2, 'none made for a reader closed before its first step')
})

test("a web stream pair (a TransformStream; Deno.open()'s FsFile) is read through its readable side", async (t) => {
  const pair = new TransformStream()
  const writer = pair.writable.getWriter()
  const writes = (async () => {
    for (const chunk of cutAtRandom(BIG_BYTES, SEED, 64 * 1024)) await writer.write(chunk)
    await writer.close()
  })()
  t.deepEqual(summarize(await guardBig(collect(readLines(pair)), 'a TransformStream')), BIG_SUMMARY)
  await writes
  t.false(pair.readable.locked, 'unlocked at its end')
  const locked = new TransformStream()
  locked.readable.getReader()
  t.throws(() => readLines(locked), { code: 'ERR_INVALID_STATE' }, 'a pair whose readable side is locked')
  if (globalThis.Deno !== undefined) {
    const file = await globalThis.Deno.open(BIG_FILE)
    t.deepEqual(summarize(await guardBig(collect(readLines(file)), 'an FsFile')), BIG_SUMMARY)
    const counted = await globalThis.Deno.open(BIG_FILE)
    t.is(await guardBig(countLines(counted), 'an FsFile, counted'), BIG_SUMMARY.count)
  }
})

test('a web stream whose reader cannot be taken fails at the first step, with that error, as for await over it does', async (t) => {
  // Bun's file streams open their file as their reader is taken: of a missing file, getReader()
  // throws ENOENT, which came out of the call itself, past a try around the loop only.
  const failing = () => {
    if (globalThis.Bun !== undefined) return globalThis.Bun.file(temp.path('missing.log')).stream()
    const error = Object.assign(new Error('no reader'), { code: 'ENOENT' })
    return {
      locked: false,
      getReader() {
        throw error
      },
    }
  }
  const readers = {
    readLines: (source) => readLines(source).next(),
    readChunks: (source) => readChunks(source).next(),
    readJsonLines: (source) => readJsonLines(source).next(),
    readLinesBatches: (source) => readLines(source).batches().next(),
    countLines: (source) => countLines(source),
  }
  for (const [name, read] of Object.entries(readers)) {
    let step
    t.notThrows(() => (step = read(failing())), `${name}: the call`)
    await t.throwsAsync(guard(step, name), { code: 'ENOENT' }, name)
  }
})

test('start, end and highWaterMark mean nothing for a source: refused at the call, by name', async (t) => {
  const REFUSED = ['ERR_INVALID_ARG_VALUE', 'ERR_INCOMPATIBLE_OPTION_PAIR']
  const assertRefused = (error, option, what) => {
    t.true(REFUSED.includes(error?.code), `${what}: ${inspect(error)}`)
    t.true(String(error?.message).includes(option), `${what}: the message names ${option}: ${error?.message}`)
  }
  for (const [option, value] of [
    ['start', 3],
    ['end', 10],
    ['highWaterMark', 1024],
  ]) {
    for (const [kind, make] of Object.entries(SOURCES)) {
      const options = { [option]: value }
      const what = `${option} with ${kind}`
      const source = make([Buffer.from('a\n')])
      assertRefused(
        t.throws(() => readLines(source, options)),
        option,
        `readLines, ${what}`,
      )
      assertRefused(
        t.throws(() => readChunks(source, options)),
        option,
        `readChunks, ${what}`,
      )
      assertRefused(await t.throwsAsync(countLines(source, options)), option, `countLines, ${what}`)
      // The refused calls left the source as it was: its one reader reads it all.
      t.false(Object.hasOwn(source, 'resume'), `${what}: a stream's own resume() is its own again`)
      t.false(source.locked === true, `${what}: a web stream is not locked`)
      t.deepEqual(await guard(collect(readLines(source)), what), ['a'], what)
    }
  }
})

test('readLinesSync, readLastLines and followLines take no byte source: ERR_INVALID_ARG_TYPE', async (t) => {
  const file = temp.file('a\nb\n')
  const sources = {
    ...Object.fromEntries(Object.entries(SOURCES).map(([kind, make]) => [kind, () => make([Buffer.from('a\n')])])),
    'a generator': () => generateSync([Buffer.from('a\n')]),
    'a Blob': () => new Blob(['a\n']),
    'a web stream pair': () => new TransformStream(),
  }
  for (const [kind, source] of Object.entries(sources)) {
    t.throws(() => readLinesSync(source()), { code: 'ERR_INVALID_ARG_TYPE' }, `readLinesSync, ${kind}`)
    await t.throwsAsync(readLastLines(source(), 1), { code: 'ERR_INVALID_ARG_TYPE' }, `readLastLines, ${kind}`)
    t.throws(() => followLines(source()), { code: 'ERR_INVALID_ARG_TYPE' }, `followLines, ${kind}`)
  }
  await withFileHandle(file, async (handle) => {
    t.throws(() => readLinesSync(handle), { code: 'ERR_INVALID_ARG_TYPE' }, 'readLinesSync, FileHandle')
    await t.throwsAsync(readLastLines(handle, 1), { code: 'ERR_INVALID_ARG_TYPE' }, 'readLastLines, FileHandle')
    t.throws(() => followLines(handle), { code: 'ERR_INVALID_ARG_TYPE' }, 'followLines, FileHandle')
  })
})

// ---- pulled, not pushed; let go when reading stops ----------------------------------------------

/**
 * Endless sources of each kind, given `take()` for each chunk they give, with `released()`: whether
 * fastlines let them go (a Readable destroyed, a web stream's source cancelled, an iterator's
 * `finally` run). They give a chunk at each pull, or with `trickle` once per turn of the event
 * loop (a producer that writes a line at a time).
 */
function endlessKinds(trickle) {
  return {
    'a Node Readable': (take) => {
      const stream = new Readable({
        read() {
          if (trickle) setImmediate(() => this.destroyed || this.push(take()))
          else this.push(take())
        },
      })
      return { source: stream, released: () => stream.destroyed }
    },
    'a web ReadableStream': (take) => {
      let cancelled = false
      const underlying = {
        pull: trickle
          ? async (controller) => {
              await nextTurn()
              if (!cancelled) controller.enqueue(take())
            }
          : (controller) => controller.enqueue(take()),
        cancel: () => (cancelled = true),
      }
      const source = new ReadableStream(underlying, { highWaterMark: 0 })
      // Cancelled, and its reader released, as a `for await` left early leaves a web stream.
      return { source, released: () => cancelled && !source.locked }
    },
    'an async generator': (take) => {
      let finished = false
      async function* chunks() {
        try {
          for (;;) {
            if (trickle) await nextTurn()
            yield take()
          }
        } finally {
          finished = true
        }
      }
      return { source: chunks(), released: () => finished }
    },
    ...(!trickle && {
      'a generator': (take) => {
        let finished = false
        function* chunks() {
          try {
            for (;;) yield take()
          } finally {
            finished = true
          }
        }
        return { source: chunks(), released: () => finished }
      },
    }),
  }
}

const ENDLESS = endlessKinds(false)
const TRICKLING = endlessKinds(true)

/**
 * An endless source of `kind` (of ENDLESS, or of `kinds`) that gives `chunk` over and over;
 * `pulled()` counts the bytes taken.
 */
function endless(kind, chunk, kinds = ENDLESS) {
  let pulled = 0
  const made = kinds[kind](() => {
    pulled += chunk.length
    return chunk
  })
  return { ...made, pulled: () => pulled }
}

const LINE = Buffer.from('line\n')

test('nothing is pulled from a source before the first step', async (t) => {
  for (const kind of Object.keys(ENDLESS)) {
    const { source, pulled } = endless(kind, LINE)
    const reader = readLines(source)
    for (let turn = 0; turn < 5; turn++) await nextTurn()
    await sleep(20)
    t.is(pulled(), 0, `${kind}, before the first step`)
    t.deepEqual(await guard(reader.next(), kind), { value: 'line', done: false }, kind)
    t.true(pulled() > 0, `${kind}, after it`)
    await reader.close()
  }
})

/** Ways to stop reading before the end. */
const STOPS = {
  break: async (reader) => {
    for await (const line of reader) if (line === 'line') break
  },
  'return()': async (reader) => {
    await reader.next()
    await reader.return()
  },
  'close()': async (reader) => {
    await reader.next()
    await reader.close()
  },
  'break out of batches()': async (reader) => {
    for await (const batch of reader.batches()) if (batch.length > 0) break
  },
}

test('break, return(), close() and leaving batches() let the source go: destroyed, cancelled, returned', async (t) => {
  for (const kind of Object.keys(ENDLESS)) {
    for (const [stop, run] of Object.entries(STOPS)) {
      const { source, released } = endless(kind, LINE)
      const reader = readLines(source)
      await guard(run(reader), `${stop}, ${kind}`)
      t.true(released(), `${stop}, ${kind}`)
      t.deepEqual(await reader.next(), DONE, `${stop}, ${kind}: iteration is over`)
    }
  }
})

/** Sources that give nothing and never end: a step waits on them until it is closed or aborted. */
const QUIET = {
  'a PassThrough nobody writes': () => {
    const stream = new PassThrough()
    return { source: stream, released: () => stream.destroyed }
  },
  'a web stream that never enqueues': () => {
    let cancelled = false
    const source = new ReadableStream({ cancel: () => (cancelled = true) })
    // The stream is referred to until then, as by a program that goes on with it. One that
    // nobody refers to may be collected with its reader before the abort (Bun does it), and
    // then nothing is left to cancel.
    return { source, released: () => source !== undefined && cancelled && !source.locked }
  },
}

test('close() settles a step that waits on a quiet source, and lets the source go', async (t) => {
  for (const [kind, make] of Object.entries(QUIET)) {
    const { source, released } = make()
    const reader = readLines(source)
    const pending = reader.next()
    await sleep(20)
    await guard(reader.close(), `close(), ${kind}`)
    t.deepEqual(await guard(pending, `the pending step, ${kind}`), DONE, kind)
    t.true(released(), kind)
  }
})

test('an abort rejects the pending step with an AbortError and lets the source go; an aborted signal pulls nothing', async (t) => {
  const assertAbortError = (error, reason, what) =>
    t.like(error, { name: 'AbortError', code: 'ABORT_ERR', cause: reason }, `${what}: ${inspect(error)}`)
  for (const kind of Object.keys(ENDLESS)) {
    const { source, released } = endless(kind, LINE)
    const controller = new AbortController()
    const reader = readLines(source, { signal: controller.signal })
    await guard(reader.next(), kind)
    const reason = new Error('user cancelled')
    controller.abort(reason)
    assertAbortError(await t.throwsAsync(guard(reader.next(), kind)), reason, kind)
    await until(released, `${kind} to be let go after the abort`)

    // A stream is let go of as after an abort (countLines kept it); an iterable was never
    // started, so there is nothing to return, as a for await never run calls nothing.
    const stream = !kind.includes('generator')
    const never = endless(kind, LINE)
    const aborted = readLines(never.source, { signal: AbortSignal.abort(reason) })
    assertAbortError(await t.throwsAsync(guard(aborted.next(), kind)), reason, `${kind}, aborted before`)
    t.is(never.pulled(), 0, `${kind}: an aborted signal pulls nothing`)
    t.is(never.released(), stream, `${kind}: aborted before, let go of`)
    const uncounted = endless(kind, LINE)
    const counting = countLines(uncounted.source, { signal: AbortSignal.abort(reason) })
    assertAbortError(await t.throwsAsync(guard(counting, kind)), reason, `countLines, ${kind}, aborted before`)
    t.is(uncounted.pulled(), 0, `countLines, ${kind}: an aborted signal pulls nothing`)
    t.is(uncounted.released(), stream, `countLines, ${kind}: aborted before, let go of`)
  }
  for (const [kind, make] of Object.entries(QUIET)) {
    const { source, released } = make()
    const controller = new AbortController()
    const pending = readLines(source, { signal: controller.signal }).next()
    await sleep(20)
    const reason = new Error('user cancelled')
    controller.abort(reason)
    assertAbortError(await t.throwsAsync(guard(pending, kind)), reason, kind)
    await until(released, `${kind} to be let go after the abort`)
  }
})

test('countLines of an endless source that gives chunks from memory lets timers run: an abort from one rejects it', async (t) => {
  // The count keeps up with such a source, so its pump never waited for room, and pulled it in
  // microtasks alone: no timer, I/O or abort ran until the source ended, and this one never does.
  for (const kind of Object.keys(ENDLESS)) {
    const { source, released, pulled } = endless(kind, LINE)
    const controller = new AbortController()
    const reason = new Error('enough')
    setTimeout(() => controller.abort(reason), 20)
    const error = await t.throwsAsync(guard(countLines(source, { signal: controller.signal }), kind))
    t.like(error, { name: 'AbortError', cause: reason }, kind)
    t.true(pulled() > 0, kind)
    await until(released, `${kind} to be let go after the abort`)
  }
})

test('an abort from the source itself as the first step pulls it rejects that step, for every reader and countLines, and lets it go', async (t) => {
  // A byte source is pulled as the first step opens it (a sync iterable for up to a read-ahead,
  // an async generator up to its first await, a Readable through its _read). An abort then came
  // when there was no native reader to close: a reader's first step gave the end, as if the
  // source were empty, and countLines counted all of it.
  const CHUNKS = 400_000
  const sources = {
    'a sync iterable that aborts at its 1,000th chunk': (controller, seen) =>
      (function* () {
        try {
          for (let i = 0; i < CHUNKS; i++) {
            seen.pulled++
            if (i === 1000) controller.abort()
            yield '1\n'
          }
        } finally {
          seen.released = true
        }
      })(),
    'an async generator that aborts before its first yield': (controller, seen) =>
      (async function* () {
        try {
          seen.pulled++
          controller.abort()
          yield '1\n'
        } finally {
          seen.released = true
        }
      })(),
    'a Readable whose _read aborts': (controller, seen) =>
      new Readable({
        read() {
          seen.pulled++
          controller.abort()
          this.push('1\n')
          this.push(null)
        },
        destroy(error, callback) {
          seen.released = true
          callback(error)
        },
      }),
  }
  const readers = {
    readLines: (source, options) => collect(readLines(source, options)),
    readJsonLines: (source, options) => collect(readJsonLines(source, options)),
    readChunks: (source, options) => collect(readChunks(source, options)),
    countLines: (source, options) => countLines(source, options),
  }
  for (const [kind, make] of Object.entries(sources)) {
    for (const [name, read] of Object.entries(readers)) {
      const what = `${name}, ${kind}`
      const controller = new AbortController()
      const seen = { pulled: 0, released: false }
      await t.throwsAsync(
        guard(read(make(controller, seen), { signal: controller.signal }), what),
        { name: 'AbortError' },
        what,
      )
      t.true(seen.pulled < CHUNKS, `${what}: pulled to its end`)
      await until(() => seen.released || kind.startsWith('a Readable'), `${what}: the source to be let go`)
    }
  }
})

// ---- bounded memory and linear time (serial: measured alone in this process) --------------------

const rss = () => process.memoryUsage().rss

test.serial('a slow consumer of an endless source: the bytes pulled and the memory stay bounded', async (t) => {
  for (const kind of ['an async generator', 'a Node Readable', 'a web ReadableStream']) {
    const { source, pulled, released } = endless(kind, BLOCK)
    const rssBefore = rss()
    let lines = 0
    let wrong = 0
    for await (const line of readLines(source)) {
      if (line !== blockLine(lines)) wrong++
      // A slow consumer: a turn of the event loop per line, and a few ms every 200 lines.
      if (++lines % 200 === 0) await sleep(5)
      else await nextTurn()
      if (lines === 2000) break
    }
    const grown = (rss() - rssBefore) / MiB
    t.is(wrong, 0, `${kind}: every line right`)
    t.true(pulled() < 16 * MiB, `${kind}: ${(pulled() / MiB).toFixed(1)} MiB pulled for 2,000 lines`)
    t.true(grown < 64, `${kind}: RSS grew by ${grown.toFixed(1)} MiB`)
    t.true(released(), kind)
  }
})

test.serial(
  'a consumer that keeps up with 64 KiB chunks from memory is never more than the read-ahead behind the pull',
  async (t) => {
    // The feed's queue holds 1 MiB and the batches' read-ahead 1 MiB, each plus a chunk or a
    // batch. A pump resumed by a reader that emptied the read-ahead asked the native side again
    // for room, and every ask left a call to come that let one more chunk in past the bound: the
    // queue grew to 4 MiB, the pull ran 2.8-3.8 MiB ahead (Node, Bun) and about 40% of the
    // chunks took fresh memory.
    const CHUNK = 64 * 1024
    const CHUNKS = 2048
    const chunk = Buffer.alloc(CHUNK, 'x')
    for (let at = 99; at < CHUNK; at += 100) chunk[at] = 0x0a
    chunk[CHUNK - 1] = 0x0a
    const kinds = {
      'an async generator': (pulled) =>
        (async function* () {
          for (let i = 0; i < CHUNKS; i++) {
            pulled.bytes += CHUNK
            yield chunk.subarray()
          }
        })(),
      'a web ReadableStream': (pulled) => {
        let left = CHUNKS
        return new ReadableStream({
          pull(controller) {
            if (left-- === 0) return controller.close()
            pulled.bytes += CHUNK
            controller.enqueue(new Uint8Array(chunk))
          },
        })
      },
    }
    for (const [kind, make] of Object.entries(kinds)) {
      for (const step of ['per line', 'batches']) {
        const pulled = { bytes: 0 }
        const reader = readLines(make(pulled))
        let taken = 0
        let lead = 0
        const take = (line) => {
          taken += Buffer.byteLength(line) + 1
          lead = Math.max(lead, pulled.bytes - taken)
        }
        const read = async () => {
          if (step === 'batches') for await (const batch of reader.batches()) batch.forEach(take)
          else for await (const line of reader) take(line)
        }
        await guardBig(read(), `${kind}, ${step}`)
        t.is(taken, CHUNKS * CHUNK, `${kind}, ${step}: every byte`)
        t.true(lead <= 2.5 * MiB, `${kind}, ${step}: pulled ${(lead / MiB).toFixed(2)} MiB ahead of the consumer`)
      }
    }
  },
)

test.serial('a consumer that stops stepping stops the pull of a source that gives a small chunk a turn', async (t) => {
  // Under 4 KiB, so each is gathered and handed over at the end of its turn: that hand-over's
  // "full" was once dropped, and such a source was pulled without end.
  const line = 't'.repeat(2999)
  for (const kind of Object.keys(TRICKLING)) {
    const { source, pulled, released } = endless(kind, Buffer.from(`${line}\n`), TRICKLING)
    const reader = readLines(source)
    t.deepEqual(await guard(reader.next(), kind), { value: line, done: false }, kind)
    // Unbounded, these turns would pull 60 MB; the read-ahead's bound is about 2 MiB.
    for (let turn = 0; turn < 20_000; turn++) await nextTurn()
    t.true(pulled() < 16 * MiB, `${kind}: ${(pulled() / MiB).toFixed(1)} MiB pulled for 1 line`)
    await reader.close()
    await until(released, `${kind} to be let go`)
  }
})

test.serial(
  'a 64 MiB line in 1,460-byte chunks takes linear time, from an async generator and from an array',
  async (t) => {
    const length = 64 * MiB
    const bytes = Buffer.alloc(length + 1, 'x')
    bytes[length] = 0x0a
    const chunks = cutEvery(bytes, 1460)
    for (const [kind, make] of [
      ['an async generator', generate],
      ['an array', (chunks) => chunks],
    ]) {
      const started = performance.now()
      const reader = readLines(make(chunks))
      // The hang limit is the check: quadratic work would take minutes (see LONG_LINE_QUIET_MS).
      const first = await within(reader.next(), LONG_LINE_QUIET_MS, kind)
      const end = await within(reader.next(), READ_QUIET_MS, kind)
      t.log(`${kind}: ${(performance.now() - started).toFixed(0)} ms`)
      t.is(first.value?.length, length, kind)
      t.true(first.value?.startsWith('xxx') && first.value.endsWith('xxx'), kind)
      t.deepEqual(end, DONE, kind)
    }
  },
)

test.serial(
  'maxLineLength applies to each line of a source: ERR_LINE_TOO_LONG after the lines before it',
  async (t) => {
    const limit = 100
    const before = ['short', 'x'.repeat(limit), 'é'.repeat(limit / 2)] // 100 bytes, 50 characters
    const bytes = bytesOf(`${before.join('\r\n')}\n${'z'.repeat(limit + 1)}\nnever\nseen\n`)
    for (const cut of [sizeCut(1), sizeCut(7), sizeCut(64), LINE_CUT, WHOLE]) {
      for (const [kind, make] of Object.entries({ ...SOURCES, 'chunks a turn apart': turnsApart })) {
        const what = `${kind}, ${cut}`
        const reader = readLines(make(CUTS[cut](bytes)), { maxLineLength: limit })
        const got = await guard(untilFailure(reader), what)
        t.deepEqual(got.items, before, what)
        t.like(got.error, { code: 'ERR_LINE_TOO_LONG', maxLineLength: limit }, `${what}: ${inspect(got.error)}`)
        t.is(reader.linesRead, before.length, what)
      }
    }
    // A line that never ends, from a source that never ends: the limit stops it, and the source is let go.
    for (const kind of Object.keys(ENDLESS)) {
      const { source, pulled, released } = endless(kind, Buffer.alloc(4096, 'y'))
      const reader = readLines(source, { maxLineLength: MiB })
      await t.throwsAsync(guardBig(reader.next(), kind), { code: 'ERR_LINE_TOO_LONG' }, kind)
      t.true(pulled() < 16 * MiB, `${kind}: ${(pulled() / MiB).toFixed(1)} MiB pulled`)
      await until(released, `${kind} to be let go after the failure`)
    }
  },
)
