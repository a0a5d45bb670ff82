// Inputs that are hostile by size or that change under the reader: a line length limit, a
// 200 MB line without one, a line longer than the engine's longest string, offsets past 4 GiB in a sparse file, and a file truncated, appended
// to, overwritten, replaced or deleted while it is being read. What a reader yields is what was
// on disk when each of its reads happened; the read-ahead bound (about 1 MiB) makes "not yet
// read" predictable in these tests. Also /dev/stdin fed by a pipe, and /dev/zero.
import { constants as bufferConstants } from 'node:buffer'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import fs from 'node:fs'
import { fileURLToPath } from 'node:url'

import test from 'ava'

import { countLines, readChunks, readJsonLines, readLines, readLinesSync } from '../index.js'
import { isOpen, makeTempDir, numberedLines } from './helpers/files.mjs'
import { evalArgs, scriptArgs, shellCommand } from './helpers/runtimes.mjs'
import { until } from './helpers/tail.mjs'

const temp = makeTempDir(test)
const { MAX_STRING_LENGTH } = bufferConstants

/**
 * Writes `text` at byte `position` of `fd`. As a Buffer with offset and length: Deno 2.9's
 * `fs.writeSync(fd, string, position)` ignores the position and writes at the file's offset.
 */
const writeAt = (fd, text, position) => {
  const bytes = Buffer.from(text)
  fs.writeSync(fd, bytes, 0, bytes.length, position)
}

async function collect(iterable) {
  const items = []
  for await (const item of iterable) items.push(item)
  return items
}

/** Lines from `reader` until it ends or fails: the lines, and the error if any. */
async function linesUntilFailure(reader) {
  const lines = []
  try {
    for await (const line of reader) lines.push(line)
    return { lines, error: null }
  } catch (error) {
    return { lines, error }
  }
}

// maxLineLength

const LIMIT = 100
const before = ['short', 'x'.repeat(LIMIT), 'ends with crlf', 'y'.repeat(LIMIT - 1)]
/** A file with an overlong line after `before`, one per test: they run concurrently. */
const limitedFile = () => temp.file(`${before.join('\n')}\r\n${'z'.repeat(LIMIT + 1)}\nnever\nseen\n`)

test('maxLineLength: every line before the overlong one, then ERR_LINE_TOO_LONG', async (t) => {
  const limited = limitedFile()
  for (const highWaterMark of [1, 7, 64, 1000, 64 * 1024]) {
    const reader = readLines(limited, { maxLineLength: LIMIT, highWaterMark })
    const { lines, error } = await linesUntilFailure(reader)
    t.deepEqual(lines, before, `highWaterMark ${highWaterMark}`)
    t.is(error.code, 'ERR_LINE_TOO_LONG')
    t.is(error.message, `A line in '${limited}' is longer than maxLineLength (${LIMIT} bytes)`)
    t.is(error.path, limited)
    t.is(error.maxLineLength, LIMIT)
    t.is(reader.linesRead, before.length)
    t.false(isOpen(limited))
    t.deepEqual(await reader.next(), { value: undefined, done: true })
  }
})

test('maxLineLength: the same for batches() and readLinesSync', async (t) => {
  const limited = limitedFile()
  const batched = []
  const error = await t.throwsAsync(async () => {
    for await (const batch of readLines(limited, { maxLineLength: LIMIT, highWaterMark: 16 }).batches()) {
      batched.push(...batch)
    }
  })
  t.deepEqual([batched, error.code], [before, 'ERR_LINE_TOO_LONG'])

  const synced = []
  const syncError = t.throws(() => {
    for (const line of readLinesSync(limited, { maxLineLength: LIMIT, highWaterMark: 16 })) synced.push(line)
  })
  t.deepEqual([synced, syncError.code], [before, 'ERR_LINE_TOO_LONG'])
  t.false(isOpen(limited))
})

test('maxLineLength: a line of exactly the limit passes, as does a file within it', async (t) => {
  const limited = limitedFile()
  const all = [...before, 'z'.repeat(LIMIT + 1), 'never', 'seen']
  t.deepEqual(await collect(readLines(limited, { maxLineLength: LIMIT + 1 })), all)
  const lastLine = temp.file(`ok\n${'w'.repeat(LIMIT + 1)}`)
  const { lines, error } = await linesUntilFailure(readLines(lastLine, { maxLineLength: LIMIT }))
  t.deepEqual([lines, error.code], [['ok'], 'ERR_LINE_TOO_LONG'])
})

test('maxLineLength: invalid values are rejected like other options', async (t) => {
  const limited = limitedFile()
  t.throws(() => readLines(limited, { maxLineLength: '100' }), { code: 'ERR_INVALID_ARG_TYPE' })
  for (const bad of [0, -1, 1.5, NaN, 2 ** 53]) {
    t.throws(() => readLines(limited, { maxLineLength: bad }), { code: 'ERR_OUT_OF_RANGE' }, String(bad))
  }
  t.notThrows(() => readLines(limited, { maxLineLength: Infinity }))
  // It means nothing to the readers that make no lines, so they refuse it rather than ignore it.
  await t.throwsAsync(countLines(limited, { maxLineLength: 10 }), { code: 'ERR_INVALID_ARG_VALUE' })
  t.throws(() => readChunks(limited, { maxLineLength: 10 }), { code: 'ERR_INVALID_ARG_VALUE' })
})

const MiB = 1024 * 1024
const HUGE = 200 * MiB
const block = Buffer.alloc(MiB, 'abcdefghijklmnopqrstuvwxyz0123456789')
const huge = (() => {
  const file = temp.path('one-200MB-line.txt')
  const fd = fs.openSync(file, 'w')
  for (let written = 0; written < HUGE; written += block.length) fs.writeSync(fd, block)
  fs.writeSync(fd, '\nafter\n')
  fs.closeSync(fd)
  return file
})()

test('without maxLineLength a 200 MB line is one string; with it, reading stops early', async (t) => {
  const reader = readLines(huge)
  const first = await reader.next()
  t.is(first.value.length, HUGE)
  const expectedBlock = block.toString('latin1')
  for (const at of [0, 1, 99, 199]) t.is(first.value.slice(at * MiB, (at + 1) * MiB), expectedBlock, `MiB ${at}`)
  t.deepEqual(await collect(reader), ['after'])

  const limitedReader = readLines(huge, { maxLineLength: MiB })
  await t.throwsAsync(limitedReader.next(), { code: 'ERR_LINE_TOO_LONG' })
  // It read about the limit plus one read, not the whole line.
  t.true(limitedReader.bytesRead <= MiB + 2 * 48 * 1024, `${limitedReader.bytesRead} bytes read`)
})

// A line longer than the engine's longest string

/**
 * A file whose third line is one character longer than the engine's longest string (a hole of
 * NUL bytes, so it takes no disk: 512 MiB in V8, 2 GiB in Bun), with lines around it.
 */
const tooLongForTheEngine = (() => {
  const file = temp.path('line-too-long-for-the-engine.txt')
  const head = 'first\nsecond\r\n'
  const fd = fs.openSync(file, 'w')
  fs.writeSync(fd, head)
  writeAt(fd, '\nafter\n', head.length + MAX_STRING_LENGTH + 1)
  fs.closeSync(fd)
  return file
})()

test('a line longer than the engine can hold: the lines before it, then ERR_STRING_TOO_LONG, in every API', async (t) => {
  const expected = {
    code: 'ERR_STRING_TOO_LONG',
    path: tooLongForTheEngine,
    message: `A line in '${tooLongForTheEngine}' is longer than the longest string this engine can hold (0x${MAX_STRING_LENGTH.toString(16)} characters); pass maxLineLength to bound the lines read`,
  }
  const perLine = await linesUntilFailure(readLines(tooLongForTheEngine))
  t.deepEqual(perLine.lines, ['first', 'second'])
  t.like(perLine.error, expected)

  const batches = []
  const batchReader = readLines(tooLongForTheEngine).batches()
  const batchError = await t.throwsAsync(async () => {
    for await (const batch of batchReader) batches.push(...batch)
  })
  t.deepEqual(batches, ['first', 'second'])
  t.like(batchError, expected)

  const sync = []
  const syncError = t.throws(() => {
    for (const line of readLinesSync(tooLongForTheEngine)) sync.push(line)
  })
  t.deepEqual(sync, ['first', 'second'])
  t.like(syncError, expected)
  t.false(isOpen(tooLongForTheEngine))

  // With match too, though the line does not match: to know, it would be held to its end.
  const searched = await linesUntilFailure(readLines(tooLongForTheEngine, { match: ['first', 'after'] }))
  t.deepEqual(searched.lines, ['first'])
  t.like(searched.error, expected)

  // maxLineLength stops at the line early, as the message says.
  const limited = await linesUntilFailure(readLines(tooLongForTheEngine, { maxLineLength: MiB }))
  t.deepEqual(limited.lines, ['first', 'second'])
  t.is(limited.error.code, 'ERR_LINE_TOO_LONG')

  // On V8, readJsonLines' batches come as JSON arrays' texts, 3 characters longer than a line
  // alone (crates/fastlines-core/src/json.rs): its longest line is that much shorter.
  const longestJsonLine = MAX_STRING_LENGTH - (process.versions.bun === undefined ? 3 : 0)
  const jsonError = await t.throwsAsync(collect(readJsonLines(tooLongForTheEngine, { onError: 'skip' })))
  t.like(jsonError, {
    ...expected,
    message: expected.message.replace(MAX_STRING_LENGTH.toString(16), longestJsonLine.toString(16)),
  })
})

// Serial: other tests check that /dev/zero is closed, which it is not while this reads it.
test.serial(
  'a line that never ends fails with ERR_STRING_TOO_LONG once it is too long, not when memory runs out',
  async (t) => {
    // /dev/zero is one line of NULs with no end: read to the engine's limit and a read more.
    const reader = readLines('/dev/zero')
    const error = await t.throwsAsync(reader.next(), { code: 'ERR_STRING_TOO_LONG' })
    t.is(error.path, '/dev/zero')
    t.true(reader.bytesRead <= MAX_STRING_LENGTH + 2 * MiB, `${reader.bytesRead} bytes read`)
    t.throws(() => readLinesSync('/dev/zero').next(), { code: 'ERR_STRING_TOO_LONG' })
    // The same from a byte source: pulled no further than the limit and what is on its way (the
    // feed's queue, the read-ahead, the pump's chunks, pushed as each read makes room until JS
    // hears of the failure): 2-3 MiB on Node, 7-33 MiB on Bun, where the limit is 2 GiB
    // (measured: 7-30 MiB in 12 quiet runs, 33 in a clean-clone CI); without the check, until
    // the allocator aborts, at 16 GiB.
    const chunk = Buffer.alloc(MiB, 'a')
    let pulled = 0
    function* endless() {
      for (;;) {
        pulled++
        yield chunk
      }
    }
    await t.throwsAsync(readLines(endless()).next(), { code: 'ERR_STRING_TOO_LONG' })
    t.true(pulled * MiB <= MAX_STRING_LENGTH + 64 * MiB, `${pulled} MiB pulled`)
  },
)

// Past 4 GiB

const FOUR_GIB = 2 ** 32
const farText = 'first\nstraddles 4 GiB\nlast\n'
const farStart = FOUR_GIB - 10 // 'straddles 4 GiB' crosses the 2^32 boundary
const sparse = (() => {
  const file = temp.path('sparse-4GiB.txt')
  const fd = fs.openSync(file, 'w')
  writeAt(fd, farText, farStart)
  fs.closeSync(fd)
  return file
})()

test('offsets past 4 GiB are exact for start and end, in every API', async (t) => {
  t.is(fs.statSync(sparse).size, farStart + farText.length)
  const reader = readLines(sparse, { start: farStart })
  t.deepEqual(await collect(reader), ['first', 'straddles 4 GiB', 'last'])
  t.is(reader.bytesRead, farText.length)

  const middle = { start: farStart + 6, end: farStart + 6 + 'straddles 4 GiB'.length - 1 }
  t.deepEqual(await collect(readLines(sparse, middle)), ['straddles 4 GiB'])
  t.deepEqual([...readLinesSync(sparse, middle)], ['straddles 4 GiB'])
  t.is(await countLines(sparse, middle), 1)
  t.is(Buffer.concat(await collect(readChunks(sparse, middle))).toString(), 'straddles 4 GiB')
  t.deepEqual(await collect(readLines(sparse, { start: FOUR_GIB + 5 })), [' 4 GiB', 'last'])
})

test('counting a 4 GiB file reads all of it: the hole is one line of NULs before "first"', async (t) => {
  t.is(await countLines(sparse), 3)
  t.is(await countLines(sparse, { start: FOUR_GIB }), 2)
})

// Files that change while they are read

const WIDTH = 64
const LINES = 64 * 1024 // 4 MiB: the reader cannot be more than about 1 MiB ahead of us
const original = numberedLines(LINES, WIDTH)
const originalLines = original.trimEnd().split('\n')

/** A reader over a fresh copy of the original, with its first batch taken. */
async function startedReader(name, options = {}) {
  const file = temp.file(original, name)
  const reader = readLines(file, { highWaterMark: 16 * 1024, ...options })
  const batches = reader.batches()
  const first = (await batches.next()).value
  return { file, batches, first }
}

async function rest(batches) {
  const lines = []
  for await (const batch of batches) lines.push(...batch)
  return lines
}

/**
 * Where `text` first differs from `original`, or -1 if it is a prefix of it. A byte at or past
 * `size`, where the file was cut, may read as NUL: Linux zero-fills the pages that a read racing
 * `truncate(2)` meets (seen with `pread` and `truncate` alone, in C), so a reader ahead of the cut
 * may get zeros there, as `cat` would (a clean-clone run on Bun did).
 */
function firstDifference(text, original, size) {
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== original[i] && !(i >= size && text[i] === '\0')) return i
  }
  return -1
}

test('a file truncated while read: a prefix of its lines, the last maybe cut short, then the end', async (t) => {
  for (const size of [0, 100_000]) {
    const { file, batches, first } = await startedReader(`truncated-${size}.txt`)
    fs.truncateSync(file, size)
    const text = [...first, ...(await rest(batches))].join('\n')
    t.true(text.length < original.length - 1)
    t.is(firstDifference(text, original, size), -1, `${text.length} characters read`)
    t.false(isOpen(file))
  }
})

test('a file appended to while read: the appended lines come too, unless `end` was set', async (t) => {
  const appended = numberedLines(1000, 20).replaceAll(' ', '+')
  const { file, batches, first } = await startedReader('appended.txt')
  fs.appendFileSync(file, appended)
  t.deepEqual([...first, ...(await rest(batches))], [...originalLines, ...appended.trimEnd().split('\n')])

  const bounded = await startedReader('appended-end.txt', { end: original.length - 1 })
  fs.appendFileSync(bounded.file, appended)
  t.deepEqual([...bounded.first, ...(await rest(bounded.batches))], originalLines)
})

test('bytes overwritten ahead of the reader are read as they are on disk then', async (t) => {
  const { file, batches, first } = await startedReader('overwritten.txt')
  const from = 48 * 1024 // lines from here on are 3 MiB ahead of what was read
  const changed = originalLines.slice(from).map((line) => line.replaceAll('x', 'o'))
  const fd = fs.openSync(file, 'r+')
  writeAt(fd, `${changed.join('\n')}\n`, from * (WIDTH + 1))
  fs.closeSync(fd)
  t.deepEqual([...first, ...(await rest(batches))], [...originalLines.slice(0, from), ...changed])
})

test('a file replaced or deleted while read: the reader keeps the file it opened', async (t) => {
  const replaced = await startedReader('replaced.txt')
  fs.writeFileSync(temp.path('replacement.txt'), 'other\ncontent\n')
  fs.renameSync(temp.path('replacement.txt'), replaced.file)
  t.deepEqual([...replaced.first, ...(await rest(replaced.batches))], originalLines)

  const deleted = await startedReader('deleted.txt')
  fs.unlinkSync(deleted.file)
  t.deepEqual([...deleted.first, ...(await rest(deleted.batches))], originalLines)
  t.false(isOpen(`${deleted.file} (deleted)`))
})

// Files that are not regular files (FIFOs: lifecycle.spec)

test('/dev/stdin fed by a pipe: every way of reading gets the lines as they are written', async (t) => {
  const reader = fileURLToPath(new URL('fixtures/stdin-reader.mjs', import.meta.url))
  const lines = ['first', 'ünïcödé', '', 'after a pause', 'last without newline']
  // A shell pipeline, so stdin is a pipe (spawn's 'pipe' stdio is a socket, which /dev/stdin
  // cannot reopen: ENXIO, as for fs). The writer pauses halfway; no EOF until it exits.
  const writer = [
    `process.stdout.write(${JSON.stringify(`${lines.slice(0, 3).join('\n')}\n`)})`,
    `setTimeout(() => process.stdout.write(${JSON.stringify(lines.slice(3).join('\r\n'))}), 50)`,
  ].join(';')
  for (const way of ['lines', 'batches', 'sync', 'count']) {
    // The shell runs this runtime's executable itself, so the arguments are the runtime's own.
    const commands = [evalArgs(writer), scriptArgs(reader, way)]
    const pipeline = commands.map((args) => shellCommand(process.execPath, ...args)).join(' | ')
    const child = spawn('sh', ['-c', pipeline], { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.on('data', (data) => (out += data))
    // 'close', not 'exit': the pipeline's output may still be on its way when it has exited.
    const [code] = await once(child, 'close')
    t.is(code, 0, way)
    t.deepEqual(JSON.parse(out), way === 'count' ? lines.length : lines, way)
  }
})

test('a terminal read by its path (a pty): each line as soon as it is typed; close() and an abort close it at once', async (t) => {
  // Python holds the pty (Node cannot open one) and types what it is sent. A terminal is read
  // as it becomes ready, as a FIFO is: a blocking read held its reader's close() until the
  // next line was typed. No line read may wait for the next one to be handed out either (a
  // regular file's reads are woken for in groups, see channel.rs).
  const typist = [
    'import os, sys, termios',
    'master, slave = os.openpty()',
    'attrs = termios.tcgetattr(slave)',
    'attrs[3] &= ~termios.ECHO',
    'termios.tcsetattr(slave, termios.TCSANOW, attrs)',
    'print(os.ttyname(slave), flush=True)',
    'for line in sys.stdin: os.write(master, line.encode())',
  ].join('\n')
  const child = spawn('python3', ['-c', typist], { stdio: ['pipe', 'pipe', 'inherit'] })
  const [ttyPath] = (await once(child.stdout, 'data')).toString().split('\n')
  for (const way of ['lines', 'batches']) {
    const reader = readLines(ttyPath)
    const steps = way === 'lines' ? reader : reader.batches()
    for (const line of ['first', 'ünïcödé', '', 'fourth', 'fifth', 'sixth']) {
      child.stdin.write(`${line}\n`)
      const step = await steps.next()
      t.deepEqual(step, { value: way === 'lines' ? line : [line], done: false }, way)
    }
    await reader.close()
    t.false(isOpen(ttyPath), way)
  }
  const counting = countLines(ttyPath, { signal: AbortSignal.timeout(50) })
  await t.throwsAsync(counting, { name: 'AbortError' })
  await until(() => !isOpen(ttyPath), 'the aborted count to close the terminal')
  child.stdin.end()
  t.is((await once(child, 'exit'))[0], 0)
})

test('/dev/zero: read up to `end`, or stopped by close() or maxLineLength', async (t) => {
  const end = 256 * 1024 - 1
  const [zeros] = await collect(readLines('/dev/zero', { end }))
  t.is(zeros.length, end + 1)
  t.true(/^\0+$/.test(zeros))
  t.deepEqual([...readLinesSync('/dev/zero', { start: 10, end: 19 })], ['\0'.repeat(10)])
  t.is(await countLines('/dev/zero', { end }), 1)

  const chunks = readChunks('/dev/zero')
  let bytes = 0
  for (let i = 0; i < 10; i++) bytes += (await chunks.next()).value.length
  await chunks.close()
  t.true(bytes > 0)
  t.deepEqual(await chunks.next(), { value: undefined, done: true })

  // Without `end`, /dev/zero is one endless line: a limit is how to bound it.
  const endless = readLines('/dev/zero', { maxLineLength: MiB })
  await t.throwsAsync(endless.next(), { code: 'ERR_LINE_TOO_LONG' })
  t.false(isOpen('/dev/zero'))

  // Counting it never ends; aborting rejects at once and stops the native count, which then
  // closes the device within a read.
  const counting = countLines('/dev/zero', { signal: AbortSignal.timeout(50) })
  const aborted = await t.throwsAsync(counting, { name: 'AbortError' })
  t.is(aborted.cause.name, 'TimeoutError')
  await until(() => !isOpen('/dev/zero'), 'the cancelled count to close /dev/zero')
})
