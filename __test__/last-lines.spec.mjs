// readLastLines: exactly the last n lines readLines yields (collected, then sliced), on the line
// contract's inputs at every small read size, with `end`, `encoding` and `maxLineLength`; its
// argument errors and fs-shaped failures; and its reads bounded by the lines asked for, seen in
// the bytes a fresh process reads (/proc/self/io), on a 10 GiB sparse file too.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import { fileURLToPath } from 'node:url'

import test from 'ava'

import { followLines, readLastLines, readLines } from '../index.js'
import { isOpen, makeTempDir, numberedLines } from './helpers/files.mjs'
import { runProcess } from './helpers/processes.mjs'
import { evalArgs, shellCommand } from './helpers/runtimes.mjs'
import {
  EDGE_INPUTS,
  EVERY_READ_SIZE,
  LATIN1_INPUTS,
  SMALL_READS,
  STRADDLERS,
  straddlerInputs,
} from './helpers/line-inputs.mjs'
import { byteRange, bytesOf, randomSoup, referenceLines, seededRandom } from './helpers/lines-reference.mjs'
import { collect, take, until, within } from './helpers/tail.mjs'

const SEED = Number(process.env.FASTLINES_SEED ?? 0x5eed1e5)
const GiB = 2 ** 30
const MiB = 2 ** 20

const temp = makeTempDir(test)
const indexPath = fileURLToPath(new URL('../index.js', import.meta.url))

function hex(bytes) {
  if (bytes.length === 0) return '(empty)'
  const shown = Buffer.from(bytes.subarray(0, 200)).toString('hex')
  return bytes.length > 200 ? `${shown}... (${bytes.length} bytes)` : shown
}

/** The counts to ask for: none, one, two, three, all of them and more than all. */
const countsFor = (total) => [...new Set([0, 1, 2, 3, total, total + 1, total + 7])]

/** The last `n` of `lines` (`slice(-0)` would be all of them). */
const lastOf = (lines, n) => (n === 0 ? [] : lines.slice(-n))

/**
 * What readLines yields for the file with `options` (checked against the reference on the same
 * bytes), and readLastLines for every count at every read size gives its last n.
 */
async function assertLastLines(t, { file, bytes, label }, options = {}, readSizes = EVERY_READ_SIZE) {
  const { encoding, end } = options
  const all = await collect(readLines(file, options))
  t.deepEqual(all, referenceLines(byteRange(bytes, { end }), encoding), `readLines, ${label}`)
  for (const highWaterMark of readSizes) {
    for (const n of countsFor(all.length)) {
      const got = await readLastLines(file, n, { ...options, highWaterMark })
      const context = `n=${n} options=${JSON.stringify({ ...options, highWaterMark })} ${label} bytes=${hex(bytes)}`
      t.deepEqual(got, lastOf(all, n), context)
    }
  }
}

const writeInput = (bytes, label) => ({ file: temp.file(bytes), bytes, label })

// ---- the line contract's inputs --------------------------------------------------------------

const EDGE_FILES = EDGE_INPUTS.map(([name, bytes]) => writeInput(bytes, name))
const LATIN1_FILES = LATIN1_INPUTS.map(([name, bytes]) => writeInput(bytes, name))

test('utf8 edge cases: the last n lines of readLines at every highWaterMark', async (t) => {
  for (const input of EDGE_FILES) await assertLastLines(t, input)
})

test('the edge cases read as Latin-1, and the Latin-1 cases', async (t) => {
  for (const input of [...LATIN1_FILES, ...EDGE_FILES]) await assertLastLines(t, input, { encoding: 'latin1' })
})

for (const [name, token] of STRADDLERS) {
  const inputs = straddlerInputs(bytesOf(token)).map((bytes, i) => writeInput(bytes, `${name} #${i}`))
  test(`${name} straddling backward read boundaries at every highWaterMark`, async (t) => {
    for (const input of inputs) await assertLastLines(t, input, {}, [...SMALL_READS, undefined])
  })
}

const SOUP_INPUTS = 160
const soupRandom = seededRandom(SEED ^ 0x1a57)
const soup = Array.from({ length: SOUP_INPUTS }, (_, index) => ({
  ...writeInput(randomSoup(soupRandom, soupRandom() < 0.1 ? 200 : 40), `soup #${index} (seed ${SEED})`),
  highWaterMark: soupRandom.int(1, 16),
}))

for (let group = 0; group < 4; group++) {
  test(`random byte soup, group ${group + 1}/4 (seed ${SEED})`, async (t) => {
    for (const input of soup.filter((_, i) => i % 4 === group)) {
      for (const encoding of ['utf8', 'latin1']) {
        await assertLastLines(t, input, { encoding }, [input.highWaterMark, undefined])
      }
    }
  })
}

test('many lines of every terminator, across many reads', async (t) => {
  const terminators = ['\n', '\r\n', '\r']
  let text = ''
  for (let i = 0; i < 3000; i++) text += (i % 11 === 0 ? '' : `${i} é中😀 ${'x'.repeat(i % 70)}`) + terminators[i % 3]
  const input = writeInput(bytesOf(text), 'many lines')
  const all = await collect(readLines(input.file))
  for (const highWaterMark of [7, 100, 4096, undefined]) {
    for (const n of [1, 10, 999, 1000, 1001, all.length - 1, all.length]) {
      t.deepEqual(await readLastLines(input.file, n, { highWaterMark }), lastOf(all, n), `n=${n} hwm=${highWaterMark}`)
    }
  }
})

// ---- end -------------------------------------------------------------------------------------

test('end: the file is taken as ending there, as readLines takes it', async (t) => {
  const inputs = [
    bytesOf('héllo\r\nwörld\r中文\n😀 end'),
    bytesOf('caf', [0xe9], '\r\n\r\n', [0xf0, 0x9f, 0x98, 0x80], '\r', [0xe4, 0xb8], '\n\n'),
    bytesOf(randomSoup(seededRandom(SEED ^ 0xe11d), 120), '\r\n中'),
  ].map((bytes, i) => writeInput(bytes, `end file ${i + 1}`))
  for (const input of inputs) {
    const { bytes } = input
    const cr = bytes.indexOf('\r\n')
    const lead = bytes.findIndex((byte) => byte >= 0xc2 && byte <= 0xf4)
    const ends = [0, 1, 2, 6, cr, cr + 1, lead, lead + 1, bytes.length - 2, bytes.length - 1, bytes.length]
    ends.push(bytes.length + 10, Infinity)
    for (const end of new Set(ends)) {
      for (const encoding of ['utf8', 'latin1']) {
        await assertLastLines(t, input, { end, encoding }, [1, 2, 3, 5, undefined])
      }
    }
  }
})

// ---- options and errors ------------------------------------------------------------------------

test('n must be a safe integer >= 0', async (t) => {
  const file = temp.file('a\nb\n')
  for (const n of ['1', undefined, null, 1n, {}, [1]]) {
    await t.throwsAsync(
      async () => readLastLines(file, n),
      { instanceOf: TypeError, code: 'ERR_INVALID_ARG_TYPE' },
      `n=${String(n)}`,
    )
  }
  for (const n of [-1, -0.5, 1.5, NaN, 2 ** 53, -(2 ** 53)]) {
    await t.throwsAsync(
      async () => readLastLines(file, n),
      { instanceOf: RangeError, code: 'ERR_OUT_OF_RANGE' },
      `n=${n}`,
    )
  }
  t.deepEqual(await readLastLines(file, 0), [])
  t.deepEqual(await readLastLines(file, Number.MAX_SAFE_INTEGER), ['a', 'b'])
})

test('start is refused; bad options and paths fail as they do for readLines', async (t) => {
  const file = temp.file('a\nb\n')
  for (const start of [0, 1]) {
    await t.throwsAsync(async () => readLastLines(file, 1, { start }), { code: 'ERR_INVALID_ARG_VALUE' })
  }
  await t.throwsAsync(async () => readLastLines(file, 1, { end: -1 }), { code: 'ERR_OUT_OF_RANGE' })
  await t.throwsAsync(async () => readLastLines(file, 1, { highWaterMark: 0 }), { code: 'ERR_OUT_OF_RANGE' })
  await t.throwsAsync(async () => readLastLines(file, 1, { maxLineLength: 0 }), { code: 'ERR_OUT_OF_RANGE' })
  await t.throwsAsync(async () => readLastLines(file, 1, { encoding: 'utf16le' }), { code: 'ERR_INVALID_ARG_VALUE' })
  await t.throwsAsync(async () => readLastLines(file, 1, { signal: {} }), { code: 'ERR_INVALID_ARG_TYPE' })
  await t.throwsAsync(async () => readLastLines(42, 1), { instanceOf: TypeError, code: 'ERR_INVALID_ARG_TYPE' })
  await t.throwsAsync(async () => readLastLines('a\0b', 1), { code: 'ERR_INVALID_ARG_VALUE' })
  // The arguments in order, as Node checks them: with both bad, the path is told of.
  await t.throwsAsync(async () => readLastLines(42, 'x'), { message: /^The "path" argument/ })
  await t.throwsAsync(async () => readLastLines(), { message: /^The "path" argument/ })
})

test('a missing file rejects with the error fs gives', async (t) => {
  const file = temp.path('missing.log')
  const expected = await t.throwsAsync(fs.promises.open(file))
  for (const n of [0, 1, 5]) {
    const error = await t.throwsAsync(readLastLines(file, n), { instanceOf: Error }, `n=${n}`)
    t.like(error, { code: 'ENOENT', errno: expected.errno, syscall: 'open', path: file }, `n=${n}`)
    t.is(error.message, expected.message, `n=${n}`)
  }
  // A directory fails as reading it does, whatever n (0 read nothing and resolved).
  for (const n of [0, 1]) {
    const error = await t.throwsAsync(readLastLines(temp.dir, n), undefined, `a directory, n=${n}`)
    t.like(error, { code: 'EISDIR', syscall: 'read', path: temp.dir }, `a directory, n=${n}`)
  }
})

test('a FIFO or a pipe, which has no end to read back from: read to its end, its last lines kept', async (t) => {
  const fifo = temp.path('last.fifo')
  execFileSync('mkfifo', [fifo])
  const text = numberedLines(5000, 30) + 'ERROR one\nlast, unterminated'
  const lines = text.split('\n')
  for (const [n, options, expected] of [
    [3, {}, lines.slice(-3)],
    [0, {}, []],
    [lines.length + 5, {}, lines],
    [1, { match: 'ERROR' }, ['ERROR one']],
    [2, { end: 61 }, ['00000000 xxxxxxxxxxxxxxxxxxxxx', '00000001 xxxxxxxxxxxxxxxxxxxxx']],
  ]) {
    const what = `last ${n} of a FIFO, ${JSON.stringify(options)}`
    // With `end`, the reader stops before the writer is done, which then fails (EPIPE).
    const writer = fs.promises.writeFile(fifo, text).catch(() => {})
    const last = await within(readLastLines(fifo, n, options), 1_200, what)
    t.deepEqual([...last], expected, what)
    t.is(last.position, options.end === undefined ? Buffer.byteLength(text) : options.end + 1, what)
    await writer
  }
  // /dev/stdin fed by a pipe from `cat`, in a child process (spawn's own stdin is a socket).
  const code = `require(${JSON.stringify(indexPath)}).readLastLines('/dev/stdin', 2).then((l) => console.log(JSON.stringify(l)))`
  const piped = shellCommand('cat', temp.file(text)) + ' | ' + shellCommand(process.execPath, ...evalArgs(code))
  const run = await runProcess(['-c', piped], { command: 'sh' }).result
  t.is(run.status, 0, run.stderr)
  t.deepEqual(JSON.parse(run.stdout), lines.slice(-2))
})

test('FIFOs with no writer yet hold no thread while they wait, and an abort closes each at once', async (t) => {
  // Each waited for its writer in open(2) on a blocking thread: 32 of them held every one (the
  // file below was not read), and an aborted one kept its process alive until a writer came.
  const fifos = Array.from({ length: 40 }, (_, i) => temp.path(`waiting-${i}.fifo`))
  for (const fifo of fifos) execFileSync('mkfifo', [fifo])
  const controller = new AbortController()
  const waiting = fifos.map((fifo) => readLastLines(fifo, 2, { signal: controller.signal }))
  const file = temp.file('one\ntwo\nthree\n')
  t.deepEqual([...(await within(readLastLines(file, 2), 500, 'a file beside 40 waiting FIFOs'))], ['two', 'three'])
  await until(() => fifos.every(isOpen), 'every FIFO to be opened')
  controller.abort()
  for (const step of waiting) await t.throwsAsync(within(step, 500, 'an aborted wait'), { code: 'ABORT_ERR' })
  await until(() => !fifos.some(isOpen), 'every FIFO to be closed')

  // The process of an aborted one exits by itself.
  const fifo = temp.path('exits.fifo')
  execFileSync('mkfifo', [fifo])
  const code = `const c = new AbortController(); require(${JSON.stringify(indexPath)}).readLastLines(${JSON.stringify(fifo)}, 2, { signal: c.signal }).catch((e) => console.log(e.code)); setTimeout(() => c.abort(), 50)`
  const run = await runProcess(evalArgs(code), { quietMs: 1_000 }).result
  t.is(run.status, 0, `${run.signal ?? ''} ${run.stderr}`)
  t.is(run.stdout.trim(), 'ABORT_ERR')
})

test('a path may be a Buffer or a file: URL', async (t) => {
  const file = temp.file('one\ntwo\nthree\n')
  t.deepEqual(await readLastLines(Buffer.from(file), 2), ['two', 'three'])
  t.deepEqual(await readLastLines(new URL(`file://${file}`), 2), ['two', 'three'])
})

test('encoding latin1 makes each byte a character', async (t) => {
  const file = temp.file(bytesOf('x\n', [0xe9, 0xff], '\r\n', [0xc3, 0xa9]))
  t.deepEqual(await readLastLines(file, 2, { encoding: 'latin1' }), ['éÿ', 'Ã©'])
  t.deepEqual(await readLastLines(file, 2), ['\uFFFD\uFFFD', 'é'])
})

test('maxLineLength: only a line of the result that is too long rejects', async (t) => {
  const long = 'L'.repeat(100)
  const file = temp.file(`a\n${long}\nb\nc\n`)
  const maxLineLength = 50
  t.deepEqual(await readLastLines(file, 2, { maxLineLength }), ['b', 'c'])
  for (const highWaterMark of [1, 7, 64, undefined]) {
    const error = await t.throwsAsync(readLastLines(file, 3, { maxLineLength, highWaterMark }))
    t.like(error, { code: 'ERR_LINE_TOO_LONG', path: file, maxLineLength }, `hwm=${highWaterMark}`)
    t.regex(error.message, /longer than maxLineLength \(50 bytes\)/)
  }
  t.deepEqual(await readLastLines(file, 3, { maxLineLength: 100 }), [long, 'b', 'c'])
  // The limit is in bytes, without the terminator.
  const wide = temp.file(`${'é'.repeat(30)}\r\nz\r\n`)
  await t.throwsAsync(readLastLines(wide, 2, { maxLineLength: 59 }), { code: 'ERR_LINE_TOO_LONG' })
  t.deepEqual(await readLastLines(wide, 2, { maxLineLength: 60 }), ['é'.repeat(30), 'z'])
})

test('maxLineLength with match: a longer line fails only where it lies among the lines looked at, however far back', async (t) => {
  // With a filter, the file was framed back in pieces of 1 MiB, each line of which was checked:
  // a longer line before the last match failed within a piece of it and not beyond.
  const maxLineLength = 10
  const long = 'x'.repeat(11)
  for (const filler of ['', 'f\n'.repeat(350_000)]) {
    const file = temp.file(`${long}\n${filler}E\n`)
    const options = { match: 'E', maxLineLength }
    t.deepEqual(await readLastLines(file, 1, options), ['E'], `${filler.length} bytes between`)
    const follower = followLines(file, { ...options, lastLines: 1 })
    t.deepEqual(await within(follower.next(), 1_000, 'the last match'), { value: 'E', done: false })
    await follower.close()
    // Two matches reach back past it: it lies among the lines looked at.
    const among = temp.file(`E1\n${long}\n${filler}E2\n`)
    await t.throwsAsync(readLastLines(among, 2, options), { code: 'ERR_LINE_TOO_LONG' })
  }
})

test('an aborted signal rejects with an AbortError', async (t) => {
  const file = temp.file('a\nb\n')
  const reason = new Error('stop')
  const error = await t.throwsAsync(readLastLines(file, 1, { signal: AbortSignal.abort(reason) }))
  t.like(error, { name: 'AbortError', code: 'ABORT_ERR', cause: reason })
  t.deepEqual(await readLastLines(file, 1, { signal: new AbortController().signal }), ['b'])
})

// ---- bounded reads -----------------------------------------------------------------------------
// The bytes read are counted in /proc/self/io around each call, in a fresh process that does
// nothing else: in an ava worker, the messages ava sends it are read by it too (28 KB of them
// once, on a loaded CI machine).

/**
 * Runs `calls` (each `[file, n, options]`) one after another in a fresh process, after one call
 * on a small file loads what loads lazily. Each result is `{ lines }` or `{ error }` (its
 * `code`, `path` and `maxLineLength`), with `read`: the bytes the process read during the call.
 */
async function readsOfLastLines(calls) {
  const code = `
    const fs = require('node:fs')
    const { readLastLines } = require(${JSON.stringify(indexPath)})
    const rchar = () => Number(/^rchar: (\\d+)$/m.exec(fs.readFileSync('/proc/self/io', 'utf8'))[1])
    const settled = (lines) => ({ lines: [...lines] })
    const failed = ({ code, path, maxLineLength }) => ({ error: { code, path, maxLineLength } })
    ;(async () => {
      await readLastLines(${JSON.stringify(temp.file('warm\nup\n'))}, 1)
      const results = []
      for (const [file, n, options] of ${JSON.stringify(calls)}) {
        const before = rchar()
        const result = await readLastLines(file, n, options).then(settled, failed)
        results.push({ ...result, read: rchar() - before })
      }
      console.log(JSON.stringify(results))
    })()`
  const run = await runProcess(evalArgs(code), { quietMs: 2_000 }).result
  if (run.status !== 0) throw new Error(`the reading process failed: ${run.stderr}`)
  return JSON.parse(run.stdout)
}

test('reads the lines asked for plus at most about one read, not the file', async (t) => {
  const lines = numberedLines(300_000) // 18 MB of 60-byte lines
  const file = temp.file(lines, 'big.log')
  const all = lines.trimEnd().split('\n')
  const cases = [
    [1, 4096],
    [10, 4096],
    [1000, 4096],
    [1000, undefined],
    [10, 1],
  ]
  const results = await readsOfLastLines(cases.map(([n, highWaterMark]) => [file, n, { highWaterMark }]))
  for (const [i, [n, highWaterMark]] of cases.entries()) {
    const { lines: got, read } = results[i]
    t.deepEqual(got, all.slice(-n))
    // The lines, the read that ends in the middle of the first of them and one more; and a few
    // hundred bytes of /proc/self/io itself.
    const bound = (n + 1) * 60 + 2 * (highWaterMark ?? 48 * 1024) + 1024
    t.true(read <= bound, `n=${n} hwm=${highWaterMark}: read ${read} bytes (bound ${bound}) of ${lines.length}`)
  }
})

test('the last lines of a 10 GiB sparse file come at once', async (t) => {
  const file = temp.path('sparse.log')
  fs.writeFileSync(file, '')
  fs.truncateSync(file, 10 * GiB)
  // The hole reads as 10 GiB of NUL bytes: one line, which the last lines must never reach.
  fs.appendFileSync(file, '\nfirst after the hole\r\nsecond\rthird\n')
  const results = await readsOfLastLines([
    [file, 3, {}],
    [file, 1, { highWaterMark: 3 }],
    [file, 2, { end: 10 * GiB + 28 }],
  ])
  t.deepEqual(
    results.map(({ lines }) => lines),
    [['first after the hole', 'second', 'third'], ['third'], ['first after the hole', 'second']],
  )
  const read = results.reduce((sum, result) => sum + result.read, 0)
  t.true(read < 1024 * 1024, `read ${read} bytes of a ${10 * GiB}-byte file`)
})

test('a line over maxLineLength among the last lines is found too long without reading it whole', async (t) => {
  const file = temp.path('sparse-long.log')
  fs.writeFileSync(file, '')
  fs.truncateSync(file, GiB)
  fs.appendFileSync(file, '\nlast\n')
  const maxLineLength = 1024 * 1024
  const [tooLong, last] = await readsOfLastLines([
    [file, 2, { maxLineLength }],
    [file, 1, { maxLineLength }],
  ])
  t.deepEqual(tooLong.error, { code: 'ERR_LINE_TOO_LONG', path: file, maxLineLength })
  // Once more than maxLineLength bytes of it are behind, the line is too long, wherever it starts.
  t.true(
    tooLong.read <= 4 * maxLineLength,
    `read ${tooLong.read} bytes to find a line over ${maxLineLength} bytes too long`,
  )
  t.deepEqual(last.lines, ['last'])
})

test.serial('the memory readLastLines takes is that of the lines it keeps, not of the bytes it scans', async (t) => {
  // 128 MiB of lines, of which only the first holds "needle": finding the last 2 such lines
  // scans back to the start. And a procfs file (its size says 0) with reads of 1 GiB allowed.
  const file = temp.file(`needle 1\n${'a line without it, of about sixty bytes, as logs have\n'.repeat(2_400_000)}`)
  const code = `
    const fs = require('node:fs')
    const { readLastLines, readLines } = require(${JSON.stringify(indexPath)})
    const peak = () => Number(/^VmHWM:\\s+(\\d+) kB/m.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]) * 1024
    const grownBy = async (read) => { const before = peak(); const got = await read(); return { got, grown: peak() - before } }
    ;(async () => {
      await readLastLines(${JSON.stringify(file)}, 1)
      const kept = await grownBy(() => readLastLines(${JSON.stringify(file)}, 2, { match: 'needle' }))
      const procfs = await grownBy(() => readLastLines('/proc/self/status', 2, { highWaterMark: 2 ** 30 }))
      const status = []
      for await (const line of readLines('/proc/self/status')) status.push(line.split(':')[0])
      console.log(JSON.stringify({ kept, procfs: { ...procfs, got: procfs.got.map((line) => line.split(':')[0]) }, status }))
    })()`
  const run = await runProcess(evalArgs(code), { quietMs: 2_000 }).result
  t.is(run.status, 0, run.stderr)
  const { kept, procfs, status } = JSON.parse(run.stdout)
  t.deepEqual(kept.got, ['needle 1'])
  t.true(kept.grown < 48 * MiB, `peak RSS grew by ${kept.grown / MiB} MiB scanning 128 MiB`)
  t.deepEqual(procfs.got, status.slice(-2))
  t.true(procfs.grown < 48 * MiB, `peak RSS grew by ${procfs.grown / MiB} MiB for a procfs file`)
})

test('the lines carry their position: where the file was taken to end, not enumerable', async (t) => {
  const text = 'one\ntwo\r\nthree'
  const file = temp.file(text)
  const last = await readLastLines(file, 2)
  t.deepEqual(last, ['two', 'three'], 'still compares as the plain array')
  t.deepEqual(Object.keys(last), ['0', '1'])
  t.is(last.position, Buffer.byteLength(text))
  t.is((await readLastLines(file, 0)).position, Buffer.byteLength(text), 'no lines: the end all the same')
  t.is((await readLastLines(file, 5, { end: 6 })).position, 7, 'with end: end + 1')
  t.is((await readLastLines(file, 1, { match: 'one' })).position, Buffer.byteLength(text), 'with match: the end')
  t.is((await readLastLines(temp.file(''), 3)).position, 0)
})

test('readLastLines, then followLines from its position: no line appended between the calls is lost', async (t) => {
  const file = temp.file('a\nb\nc\n')
  const last = await readLastLines(file, 2)
  t.deepEqual(last, ['b', 'c'])
  fs.appendFileSync(file, 'between the calls\n')
  const follower = followLines(file, { start: last.position })
  fs.appendFileSync(file, 'after the call\n')
  t.deepEqual(await within(take(follower, 2), 2_000, 'the follower'), ['between the calls', 'after the call'])
  await follower.close()
})

test('a file whose size the OS does not give (procfs: 0): its real last lines', async (t) => {
  for (const file of ['/proc/filesystems', '/proc/self/mountinfo']) {
    t.is(fs.statSync(file).size, 0, file)
    const lines = await collect(readLines(file))
    t.true(lines.length > 0, file)
    for (const n of [1, 3, lines.length + 1]) {
      const last = await readLastLines(file, n)
      t.deepEqual([...last], lastOf(lines, n), `${file}, last ${n}`)
    }
  }
})
