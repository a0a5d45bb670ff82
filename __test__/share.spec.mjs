// `share: [index, count]` (crates/fastlines-core/src/share.rs): shares 0..n-1 read in order give
// exactly readLines(path)'s lines, with file offsets, for every cut (inside a `\r\n`, after a
// `\r`, inside a character, inside a line longer than several shares, at the end); countLines
// in shares and in parts (`threads`) gives the one-pass count; the refused options; a share read
// from a worker thread and from a child process; a file that grows while its shares are read.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import { Worker } from 'node:worker_threads'

import test from 'ava'

import { countLines, followLines, readLastLines, readLines, readLinesSync } from '../index.js'
import { makeTempDir, numberedLines } from './helpers/files.mjs'
import { EDGE_INPUTS, LATIN1_INPUTS, STRADDLERS, straddlerInputs } from './helpers/line-inputs.mjs'
import { bytesOf, randomSoup, referenceLines, seededRandom } from './helpers/lines-reference.mjs'
import { describeRun, runProcess } from './helpers/processes.mjs'
import { collect, within } from './helpers/tail.mjs'

const temp = makeTempDir(test)
const SHARE_READER = new URL('./fixtures/share-reader.mjs', import.meta.url)
const indexPath = new URL('../index.js', import.meta.url).pathname
/** A worker or child process that loads fastlines and reads a small file's share. */
const PROCESS_QUIET_MS = 2_000

/** [name, bytes, encoding] of the line contract's inputs, and a straddler of each kind. */
const INPUTS = [
  ...EDGE_INPUTS.map(([name, bytes]) => [name, bytes, 'utf8']),
  ...LATIN1_INPUTS.map(([name, bytes]) => [name, bytes, 'latin1']),
  ...STRADDLERS.map(([name, token]) => [`${name} straddling`, straddlerInputs(token, 4).at(-1), 'utf8']),
].map(([name, bytes, encoding]) => ({ name, bytes, encoding, file: temp.file(bytes) }))

/**
 * Share counts that put a cut at every offset of a `size`-byte file (`size` shares cut at each
 * byte), with a few counts around it and the small ones users pick.
 */
function shareCounts(size) {
  return [...new Set([1, 2, 3, 4, 5, 7, 8, 16, size, size + 1, size + 7].filter((count) => count >= 1))]
}

/** The lines of `reader`, each with its lineNumber, lineOffset and position after its step. */
async function stepsOf(reader) {
  const steps = []
  for await (const line of reader) steps.push([line, reader.lineNumber, reader.lineOffset, reader.position])
  return steps
}

function stepsOfSync(reader) {
  const steps = []
  for (const line of reader) steps.push([line, reader.lineNumber, reader.lineOffset, reader.position])
  return steps
}

/** Steps read share by share, lineNumber made absolute by the lines of the shares before. */
function joined(shares) {
  let before = 0
  return shares.flatMap((steps) => {
    const absolute = steps.map(([line, number, offset, position]) => [line, before + number, offset, position])
    before += steps.length
    return absolute
  })
}

test('shares 0..n-1 in order give the lines, numbers, offsets and positions of readLines(path), for every cut', async (t) => {
  for (const { name, bytes, encoding, file } of INPUTS) {
    const whole = await stepsOf(readLines(file, { encoding }))
    t.deepEqual(
      whole.map(([line]) => line),
      referenceLines(bytes, encoding),
      `${name}: the whole file`,
    )
    for (const count of shareCounts(bytes.length)) {
      const shares = []
      const sync = []
      for (let index = 0; index < count; index++) {
        shares.push(await stepsOf(readLines(file, { encoding, share: [index, count] })))
        sync.push(stepsOfSync(readLinesSync(file, { encoding, share: [index, count] })))
      }
      t.deepEqual(joined(shares), whole, `${name}: ${count} shares`)
      t.deepEqual(joined(sync), whole, `${name}: ${count} shares, readLinesSync`)
    }
  }
})

test('random files, 1 to 16 shares: in order they give the lines of the file, and their counts its count', async (t) => {
  const seed = Number(process.env.FASTLINES_SEED ?? 0x5eed1e5)
  const random = seededRandom(seed)
  for (let i = 0; i < 40; i++) {
    const bytes = randomSoup(random, random() < 0.2 ? 400 : 60)
    const encoding = random() < 0.2 ? 'latin1' : 'utf8'
    const file = temp.file(bytes)
    const count = random.int(1, 16)
    const lines = []
    let counted = 0
    for (let index = 0; index < count; index++) {
      lines.push(...(await collect(readLines(file, { encoding, share: [index, count] }))))
      counted += await countLines(file, { share: [index, count] })
    }
    const what = `seed ${seed}, file ${i} (${bytes.toString('hex')}), ${count} shares`
    t.deepEqual(lines, referenceLines(bytes, encoding), what)
    t.is(counted, referenceLines(bytes).length, what)
    t.is(await countLines(file, { threads: count }), counted, `${what}, threads`)
  }
})

test('batches() and entries() of shares give the whole file, numbered from each share', async (t) => {
  const { bytes, file } = INPUTS.find(({ name }) => name === 'every terminator')
  const lines = referenceLines(bytes)
  for (const count of shareCounts(bytes.length)) {
    const batches = []
    const entries = []
    for (let index = 0; index < count; index++) {
      for await (const batch of readLines(file, { share: [index, count] }).batches()) batches.push(...batch)
      const numbers = []
      for await (const [number, line] of readLines(file, { share: [index, count] }).entries()) {
        numbers.push(number)
        entries.push(line)
      }
      t.deepEqual(
        numbers,
        numbers.map((_, i) => i + 1),
        `${count} shares, share ${index}: numbered from 1`,
      )
    }
    t.deepEqual(batches, lines, `${count} shares, batches`)
    t.deepEqual(entries, lines, `${count} shares, entries`)
  }
})

test('countLines of each share adds up to the count, and threads 1 to 16 give the one-pass count', async (t) => {
  for (const { name, bytes, file } of INPUTS) {
    const expected = referenceLines(bytes).length
    t.is(await countLines(file, { threads: 1 }), expected, name)
    for (const count of shareCounts(bytes.length)) {
      let sum = 0
      for (let index = 0; index < count; index++) sum += await countLines(file, { share: [index, count] })
      t.is(sum, expected, `${name}: ${count} shares`)
    }
    for (const threads of [2, 3, 7, 16]) {
      t.is(await countLines(file, { threads }), expected, `${name}: threads ${threads}`)
      const matching = referenceLines(bytes).filter((line) => line.includes('a')).length
      t.is(await countLines(file, { threads, match: 'a' }), matching, `${name}: threads ${threads}, match`)
    }
  }
})

test('a line longer than several shares belongs to the share it starts in; the shares it covers are empty', async (t) => {
  const bytes = bytesOf('a\r\n', 'x'.repeat(1000), '\r\nb\rc')
  const file = temp.file(bytes)
  const count = 10
  const shares = []
  for (let index = 0; index < count; index++) shares.push(await collect(readLines(file, { share: [index, count] })))
  t.deepEqual(shares[0], ['a', 'x'.repeat(1000)])
  t.deepEqual(shares.slice(1, -1).flat(), [], 'the shares inside the long line hold nothing')
  t.deepEqual(shares.at(-1), ['b', 'c'], 'the last share: the lines after it, the final one unterminated')
  t.deepEqual(shares.flat(), referenceLines(bytes))
})

test('an empty file has empty shares, and a count of 0 in each', async (t) => {
  const file = temp.file('')
  for (const count of [1, 2, 5]) {
    for (let index = 0; index < count; index++) {
      t.deepEqual(await collect(readLines(file, { share: [index, count] })), [])
      t.deepEqual([...readLinesSync(file, { share: [index, count] })], [])
      t.is(await countLines(file, { share: [index, count] }), 0)
    }
  }
})

test('match and maxLineLength apply within a share: the matching lines, and the long line fails its own share', async (t) => {
  const text = numberedLines(200)
  const file = temp.file(text)
  const lines = text.split('\n').slice(0, -1)
  const count = 3
  const matched = []
  let counted = 0
  for (let index = 0; index < count; index++) {
    matched.push(...(await collect(readLines(file, { share: [index, count], match: '7' }))))
    counted += await countLines(file, { share: [index, count], match: '7', invert: true })
  }
  t.deepEqual(
    matched,
    lines.filter((line) => line.includes('7')),
  )
  t.is(counted, lines.filter((line) => !line.includes('7')).length)

  const long = temp.file(`short\n${'y'.repeat(300)}\nafter\n${'z'.repeat(50)}\n`)
  const first = readLines(long, { share: [0, 2], maxLineLength: 100 })
  t.is((await first.next()).value, 'short')
  const error = await t.throwsAsync(first.next())
  t.is(error.code, 'ERR_LINE_TOO_LONG')
  // The second share's cut falls inside the long line, which is the first share's.
  t.deepEqual(await collect(readLines(long, { share: [1, 2], maxLineLength: 100 })), ['after', 'z'.repeat(50)])
})

test('a share is refused with start, end or decompress, by readLastLines, followLines and a byte source, and out of range', async (t) => {
  const file = temp.file('a\nb\n')
  for (const other of [{ start: 1 }, { end: 1 }, { decompress: 'gzip' }]) {
    const name = Object.keys(other)[0]
    for (const call of [
      () => readLines(file, { share: [0, 2], ...other }),
      () => readLinesSync(file, { share: [0, 2], ...other }),
    ]) {
      t.throws(call, {
        code: 'ERR_INCOMPATIBLE_OPTION_PAIR',
        message: `Option "share" cannot be used in combination with option "${name}"`,
      })
    }
    await t.throwsAsync(countLines(file, { share: [0, 2], ...other }), { code: 'ERR_INCOMPATIBLE_OPTION_PAIR' })
  }
  await t.throwsAsync(readLastLines(file, 1, { share: [0, 2] }), {
    code: 'ERR_INCOMPATIBLE_OPTION_PAIR',
    message: /^Option "share" cannot be used with readLastLines/,
  })
  t.throws(() => followLines(file, { share: [0, 2] }), {
    code: 'ERR_INCOMPATIBLE_OPTION_PAIR',
    message: /^Option "share" cannot be used with followLines/,
  })
  t.throws(() => readLines(fs.createReadStream(file).pause(), { share: [0, 2] }), {
    code: 'ERR_INVALID_ARG_VALUE',
    message: /options\.share' applies to files read by path/,
  })
  await t.throwsAsync(countLines([Buffer.from('a\n')], { threads: 2 }), {
    code: 'ERR_INVALID_ARG_VALUE',
    message: /options\.threads' applies to files read by path/,
  })
  for (const share of [
    [2, 2],
    [-1, 3],
    [0.5, 2],
    [0, 0],
    [0, 1.5],
    [0, Infinity],
  ]) {
    t.throws(() => readLines(file, { share }), { code: 'ERR_OUT_OF_RANGE', instanceOf: RangeError }, `${share}`)
  }
  t.throws(() => readLines(file, { share: '0/2' }), { code: 'ERR_INVALID_ARG_TYPE' })
  t.throws(() => readLines(file, { share: ['0', 2] }), { code: 'ERR_INVALID_ARG_TYPE' })
  t.throws(() => readLines(file, { share: [0] }), { code: 'ERR_INVALID_ARG_VALUE' })
  for (const threads of [0, 1.5, -1]) {
    await t.throwsAsync(countLines(file, { threads }), { code: 'ERR_OUT_OF_RANGE' }, `threads ${threads}`)
  }
  await t.throwsAsync(countLines(file, { threads: '2' }), { code: 'ERR_INVALID_ARG_TYPE' })
})

test('a share of a FIFO fails as seeking it does: ESPIPE, with the path', async (t) => {
  const fifo = temp.path('share.fifo')
  execFileSync('mkfifo', [fifo])
  // A writer, so that opening the FIFO for reading does not wait.
  const writer = fs.openSync(fifo, fs.constants.O_RDWR)
  try {
    const error = await t.throwsAsync(readLines(fifo, { share: [0, 2] }).next())
    t.like(error, { code: 'ESPIPE', syscall: 'read', path: fifo })
  } finally {
    fs.closeSync(writer)
  }
})

test('a share of a FIFO that no writer opened fails at once, read synchronously too', async (t) => {
  const fifo = temp.path('unwritten.fifo')
  execFileSync('mkfifo', [fifo])
  // In a child: a sync reader waiting in open(2) for a writer would hold this process's thread.
  const script = `
    const { readLines, readLinesSync, readJsonLinesSync } = require(${JSON.stringify(indexPath)})
    const fifo = ${JSON.stringify(fifo)}
    const codes = []
    for (const open of [readLinesSync, readJsonLinesSync]) {
      try { open(fifo, { share: [0, 2] }).next() } catch (error) { codes.push(error.code + ' ' + error.syscall) }
    }
    readLines(fifo, { share: [1, 2] }).next().catch((error) => {
      codes.push(error.code + ' ' + error.syscall)
      console.log(JSON.stringify(codes))
    })`
  const { result } = runProcess(['-e', script])
  const outcome = await result
  t.false(outcome.timedOut, describeRun(outcome))
  t.deepEqual(JSON.parse(outcome.stdout), ['ESPIPE read', 'ESPIPE read', 'ESPIPE read'], describeRun(outcome))
})

test('shares given one size meet in a file that grows between their opens: every line before it once', async (t) => {
  const before = numberedLines(100)
  const file = temp.file(`${before}partial`)
  const size = fs.statSync(file).size
  const lines = `${before}partial line`.split('\n')
  const count = 4
  const read = []
  for (let index = 0; index < count; index++) {
    // Every share opens after the file grew more: by the rest of its last line, then by more lines.
    fs.appendFileSync(file, index === 0 ? ' line\n' : numberedLines(30))
    read.push(...(await collect(readLines(file, { share: [index, count, size] }))))
  }
  t.deepEqual(read, lines, 'the lines that start before the size, the last read to its end')
  let counted = 0
  for (let index = 0; index < count; index++) counted += await countLines(file, { share: [index, count, size] })
  t.is(counted, lines.length)
  t.deepEqual(await collect(readLines(file, { share: [0, 1, 0] })), [], 'a size of 0: no line starts before it')
  t.throws(() => readLines(file, { share: [0, 2, -1] }), { code: 'ERR_OUT_OF_RANGE', message: /share\[2\]/ })
  t.throws(() => readLines(file, { share: [0, 2, '9'] }), { code: 'ERR_INVALID_ARG_TYPE', message: /share\[2\]/ })
  t.throws(() => readLines(file, { share: [0, 2, 9, 9] }), { code: 'ERR_INVALID_ARG_VALUE' })
})

test('each share uses the size it took when it opened: lines appended later are in no open share', async (t) => {
  const before = numberedLines(100)
  const file = temp.file(before)
  const lines = before.split('\n').slice(0, -1)
  const first = readLines(file, { share: [0, 2] })
  const last = readLines(file, { share: [1, 2] })
  const firstLines = [(await first.next()).value]
  const lastLines = [(await last.next()).value]
  fs.appendFileSync(file, numberedLines(50))
  for await (const line of first) firstLines.push(line)
  for await (const line of last) lastLines.push(line)
  t.deepEqual([...firstLines, ...lastLines], lines, 'the lines of the file as it was when they opened')
  t.true(firstLines.length > 0 && lastLines.length > 0)
})

test('a line being written where a share was cut is read to its end as the file holds it when read', async (t) => {
  // The share opens, its size inside a line the writer has not finished; the writer finishes
  // it, and writes another, long before the reader gets there (20 MiB on, past any
  // read-ahead). The share holds the line whole, and its position resumes at the next line.
  // With `match`, the share is read in parts (crates/fastlines-core/src/parts.rs).
  const body = numberedLines(350_000)
  const file = temp.path('being-written.log')
  const readers = {
    readLines: (size) => readLines(file, { share: [0, 1, size] }),
    readLinesSync: (size) => readLinesSync(file, { share: [0, 1, size] }),
    'readLines with match': (size) => readLines(file, { share: [0, 1, size], match: 'x' }),
    'readLinesSync with match': (size) => readLinesSync(file, { share: [0, 1, size], match: 'x' }),
  }
  const writes = [
    ['\\n', 'partial xx half-writ', 'ten\nnext line\n'],
    ['\\r\\n, its \\n written later', 'partial xx half-written\r', '\nnext line\n'],
  ]
  for (const [name, make] of Object.entries(readers)) {
    for (const [ending, before, after] of writes) {
      fs.writeFileSync(file, body + before)
      const size = fs.statSync(file).size - 4
      const reader = make(size)
      const steps = reader[Symbol.asyncIterator]?.() ?? reader[Symbol.iterator]()
      const lines = [(await steps.next()).value]
      fs.appendFileSync(file, after)
      for (let step; !(step = await steps.next()).done;) lines.push(step.value)
      const at = `${name}, ${ending}`
      t.is(lines.length, 350_001, at)
      t.is(lines.at(-1), 'partial xx half-written', at)
      t.is(reader.position, Buffer.byteLength(body + before + after) - 'next line\n'.length, at)
      t.deepEqual(await collect(readLines(file, { start: reader.position })), ['next line'], at)
    }
  }
})

test('a share read in a worker thread and in a child process gives the lines it gives here', async (t) => {
  const text = `${numberedLines(500)}é中😀\r\nno terminator`
  const file = temp.file(text)
  const count = 3
  const here = []
  for (let index = 0; index < count; index++) {
    here.push(await collect(readLines(file, { share: [index, count] })))
  }
  t.deepEqual(here.flat(), referenceLines(Buffer.from(text)))
  for (let index = 0; index < count; index++) {
    const worker = new Worker(SHARE_READER, { workerData: { file, share: [index, count] } })
    const fromWorker = new Promise((resolve, reject) => {
      worker.once('message', resolve)
      worker.once('error', reject)
    })
    t.deepEqual(await within(fromWorker, PROCESS_QUIET_MS, `worker ${index}`), here[index], `worker, share ${index}`)
    await worker.terminate()
    const { result } = runProcess([SHARE_READER.pathname, file, String(index), String(count)], {
      quietMs: PROCESS_QUIET_MS,
    })
    const run = await result
    t.is(run.status, 0, describeRun(run))
    t.deepEqual(JSON.parse(run.stdout), here[index], `child process, share ${index}`)
  }
})

test('countLines of a large file uses its parts by itself, and counts what one pass counts', async (t) => {
  // 24 MiB: three parts of at least 8 MiB, as many as the machine's cores allow.
  const block = `${numberedLines(1000)}short\r\nlone\rcr\r\n`
  const text = block.repeat(Math.ceil((24 * 2 ** 20) / block.length))
  const file = temp.file(text)
  const one = await countLines(file, { threads: 1 })
  t.is(one, referenceLines(Buffer.from(block)).length * (text.length / block.length))
  t.is(await countLines(file), one)
  t.is(await countLines(file, { match: 'lone' }), await countLines(file, { match: 'lone', threads: 1 }))
  t.is(
    await countLines(file, { start: 12345, end: 20_000_001 }),
    await countLines(file, { start: 12345, end: 20_000_001, threads: 1 }),
  )
})

test('a file whose size the OS does not give (procfs: 0): counted with threads, and its first share reads it all', async (t) => {
  const file = '/proc/filesystems'
  t.is(fs.statSync(file).size, 0, 'procfs gives no size')
  const lines = (await collect(readLines(file))).length
  t.true(lines > 0)
  for (const threads of [1, 2, 4]) t.is(await countLines(file, { threads }), lines, `threads: ${threads}`)
  const shares = []
  for (let index = 0; index < 3; index++) shares.push(await collect(readLines(file, { share: [index, 3] })))
  t.deepEqual(
    shares.map((share) => share.length),
    [lines, 0, 0],
  )
  t.deepEqual([...readLinesSync(file, { share: [0, 2] })], shares[0])
})
