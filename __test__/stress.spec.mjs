// Stress: a thousand readers at once, ten thousand open/break cycles, processes that end in the
// middle of a read, workers terminated mid-read, and a slow consumer on a 1 GB file. Threads,
// descriptors and memory must stay bounded, every line must be right, and every process must
// end by itself with the right status. The in-process tests run serially, first, so their thread
// and memory figures are this process's alone; the child-process tests then run concurrently.
import { once } from 'node:events'
import fs from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'

import test from 'ava'

import { countLines, readLines } from '../index.js'
import { isOpen, makeTempDir, numberedLines, openPaths } from './helpers/files.mjs'
import { describeRun, runProcess } from './helpers/processes.mjs'
import { runtime, scriptArgs } from './helpers/runtimes.mjs'
import { until } from './helpers/tail.mjs'

const temp = makeTempDir(test)
const fixture = (name) => fileURLToPath(new URL(`fixtures/${name}`, import.meta.url))
const onBun = typeof Bun !== 'undefined'
const MiB = 2 ** 20
/** The four stress-lifetime children run at once: 9.9 s each at most in a quiet run (Bun). */
const LIFETIME_QUIET_MS = 10_000

/** Threads of this process, from /proc: what the OS sees, whatever the runtime reports. */
const threadCount = () => fs.readdirSync('/proc/self/task').length

/** A file of `blocks` copies of a 1 MiB block of numbered lines (64 bytes each, 16,384 a block). */
function bigFile(name, blocks) {
  const file = temp.path(name)
  const block = numberedLines(16_384, 64)
  const fd = fs.openSync(file, 'w')
  for (let i = 0; i < blocks; i++) fs.writeSync(fd, block)
  fs.closeSync(fd)
  return file
}

let sharedBigFile
/** One 64 MiB file for the tests that end a process in the middle of reading it. */
const midReadFile = () => (sharedBigFile ??= bigFile('64mb.txt', 64))

/**
 * Runs a fixture in a fresh process of this runtime (Node with --expose-gc and `nodeFlags`). A
 * child still running past the hang limit for a run of `quietMs` (see helpers/hang.mjs: each
 * caller's is the longest its fixture took in a quiet run of the suite, with the other
 * children of this file beside it) is killed, and reported with `timedOut`: that is how a hang
 * shows.
 */
function runFixture(name, args, { quietMs, nodeFlags = [], env = {} }) {
  const flags = onBun ? [] : ['--expose-gc', ...nodeFlags]
  return runProcess([...flags, fixture(name), ...args], { quietMs, env }).result
}

const describe = describeRun

test.serial('1,000 readers at once: every line right, native threads bounded, every file closed after', async (t) => {
  const count = 1000
  const linesPerFile = 2000
  // Each line names its file and its number, so a line from another file or out of place shows.
  const lineOf = (file, line) => `${file}:${line} ${'x'.repeat((file * 7 + line) % 40)}`
  const files = []
  for (let i = 0; i < count; i++) {
    let text = ''
    for (let line = 0; line < linesPerFile; line++) text += `${lineOf(i, line)}\n`
    files.push(temp.file(text, `many-${i}.txt`))
  }
  // ~60 KB files and 512-768 B reads: 66 reads of read-ahead never reach the end of a file, so
  // every reader holds its file open until it is consumed.
  const highWaterMarkOf = (i) => (i % 2 === 0 ? 512 : 768)

  // Start the runtime's threads before the baseline: only what the readers add is bounded here.
  t.is(await countLines(files[0]), linesPerFile)
  const baseline = threadCount()
  let maxThreads = baseline
  const sample = () => (maxThreads = Math.max(maxThreads, threadCount()))
  // A timer as well, but it cannot be the only sampler: a busy loop can starve timers.
  const sampler = setInterval(sample, 5)

  let waiting = count
  let openAtOnce = 0
  let release
  const allStarted = new Promise((resolve) => (release = resolve))
  // Every reader waits here after its first line, so all 1,000 are open at the same moment.
  const arrive = () => {
    if (--waiting === 0) {
      const open = new Set(openPaths())
      openAtOnce = files.filter((file) => open.has(file)).length
      sample()
      release()
    }
    return allStarted
  }

  const mismatches = []
  const check = (i, line, n) => {
    if (line !== lineOf(i, n) && mismatches.length < 10) mismatches.push({ file: i, line: n, got: line })
  }
  const readOne = async (i) => {
    const reader = readLines(files[i], { highWaterMark: highWaterMarkOf(i) })
    let n = 0
    let arrived = false
    try {
      if (i % 2 === 0) {
        for await (const line of reader) {
          check(i, line, n)
          if (n++ === 0) {
            arrived = true
            await arrive()
          }
          if (n % 64 === 0) sample()
        }
      } else {
        for await (const batch of reader.batches()) {
          for (const line of batch) check(i, line, n++)
          if (!arrived) {
            arrived = true
            await arrive()
          }
          sample()
        }
      }
    } finally {
      if (!arrived) arrive() // a reader that failed must not keep the others waiting
    }
    return n
  }
  let counts
  try {
    counts = await Promise.all(files.map((_, i) => readOne(i)))
  } finally {
    clearInterval(sampler)
  }

  t.deepEqual(mismatches, [])
  t.deepEqual(
    counts.flatMap((lines, i) => (lines === linesPerFile ? [] : [{ file: i, lines }])),
    [],
  )
  t.is(openAtOnce, count, 'every file open at the same moment')
  // The bound: 2 async workers and 32 blocking threads, plus a few of the JS runtime's own.
  const bound = baseline + 2 + 32 + 4
  t.log(`threads: ${baseline} before, at most ${maxThreads} with ${count} readers (bound ${bound})`)
  t.true(maxThreads <= bound, `${maxThreads} threads, more than ${bound}`)
  const open = new Set(openPaths())
  t.deepEqual(
    files.filter((file) => open.has(file)),
    [],
  )
})

test.serial('a slow consumer on a 1 GB file: bounded read-ahead, no reading while it waits, flat memory', async (t) => {
  const file = bigFile('1gb.txt', 1024)
  t.teardown(() => fs.rmSync(file, { force: true }))
  const highWaterMark = 64 * 1024
  // The documented bound (as in lifecycle.spec): 1 MiB of read-ahead, plus the read in progress
  // and the batch in JS.
  const bound = MiB + 2 * highWaterMark
  const rssBefore = process.memoryUsage().rss
  let peakRss = rssBefore
  const reader = readLines(file, { highWaterMark })
  const batches = reader.batches()
  let consumed = 0
  let lines = 0
  let misnumbered = 0
  let maxAhead = 0
  const measure = () => {
    maxAhead = Math.max(maxAhead, reader.bytesRead - consumed)
    peakRss = Math.max(peakRss, process.memoryUsage().rss)
  }
  const take = async () => {
    const { value, done } = await batches.next()
    t.false(done)
    for (const line of value) {
      // Lines are numbered 0-16383 in every 1 MiB block: a lost or repeated line shows.
      if (Number(line.slice(0, 8)) !== lines++ % 16_384) misnumbered++
      consumed += line.length + 1
    }
    measure()
  }

  for (let i = 0; i < 100; i++) {
    await take()
    await sleep(5)
    measure() // after the wait too: the read-ahead has had time to refill
  }
  // Taking the last batch may have started one read; let it finish, then nothing may be read.
  await sleep(50)
  const readAtPause = reader.bytesRead
  await sleep(250)
  const readAfterPause = reader.bytesRead
  measure()
  for (let i = 0; i < 20; i++) await take()

  await reader.close()
  t.false(isOpen(file))
  const rssGrowth = (peakRss - rssBefore) / MiB
  t.log(
    `consumed ${(consumed / MiB).toFixed(1)} MiB in ${lines} lines; read ahead at most ` +
      `${(maxAhead / 1024).toFixed(0)} KiB (bound ${bound / 1024} KiB); ` +
      `bytesRead ${readAtPause} at the start of the pause, ${readAfterPause} at its end; ` +
      `peak RSS ${(peakRss / MiB).toFixed(1)} MiB, ${rssGrowth.toFixed(1)} MiB above the start`,
  )
  t.is(misnumbered, 0)
  t.true(maxAhead <= bound, `read ${maxAhead} bytes ahead of the consumer`)
  t.is(readAfterPause, readAtPause, 'the native side kept reading while the consumer paused')
  t.true(rssGrowth < 64, `RSS grew by ${rssGrowth.toFixed(1)} MiB`)
})

test('10,000 open / read a little / break cycles: no growth in descriptors, threads or memory', async (t) => {
  // 128 KiB: larger than the read-ahead at 1 KiB reads, so some cycles close a reader blocked on
  // a full channel, and others one that has read the whole file ahead. (A closed reader keeps its
  // read-ahead until it is collected, so a larger file mostly measures when the GC runs.)
  const file = temp.file(numberedLines(2048, 64), 'cycles.txt')
  // Two sources of RSS noise that are not memory kept, taken out so that growth means a leak:
  // V8 grows its young generation in steps of up to 32 MB as allocation speeds up, and keeps it
  // after a full GC (pinned here); glibc gives each new thread its own arena, which keeps freed
  // buffers resident (one arena here; a leak grows RSS in any arena).
  // And RSS is a high-water mark: after 1,000 warm-up cycles it still rose by 26-40 MiB over
  // the next 10,000 (Node 22); after 5,000, Node's rises by under 1 MiB, but Deno's steps up
  // once more by 8-40 MiB in the next 10,000 (more on a loaded machine) and then stays within
  // 2 MiB for 40,000 more. So two windows of 10,000 cycles: a leak grows RSS in both, a
  // high-water step in one.
  const run = await runFixture('stress-cycles.mjs', [file, '5000', '10000', '2'], {
    quietMs: 19_000,
    nodeFlags: ['--max-semi-space-size=1'],
    env: { MALLOC_ARENA_MAX: '1' },
  })
  t.true(run.status === 0 && !run.timedOut, describe(run))
  const marks = JSON.parse(run.stdout)
  const figures = (m) =>
    `${m.fds} fds, ${m.threads} threads (${m.runtimeThreads} fastlines), RSS ${m.rssMiB.toFixed(1)} MiB, ` +
    `heap ${m.heapUsedMiB.toFixed(1)} MiB`
  t.log(`after 5,000 warm-up cycles: ${figures(marks[0])}`)
  t.log(`after 10,000 more cycles:   ${figures(marks[1])}`)
  t.log(`after 10,000 more cycles:   ${figures(marks[2])}`)
  const [before, after] = [marks[0], marks.at(-1)]
  t.true(after.fds <= before.fds + 2, `descriptors: ${before.fds} -> ${after.fds}`)
  // The runtime's blocking pool legitimately grows (up to its bound) when a closed reader's last
  // read is still finishing as the next one starts, and keeps idle threads for a while: bound it,
  // and hold every other thread to no growth.
  const otherThreads = (m) => m.threads - m.runtimeThreads
  t.true(otherThreads(after) <= otherThreads(before) + 2, `threads: ${figures(before)} -> ${figures(after)}`)
  t.true(after.runtimeThreads <= 2 + 32, `${after.runtimeThreads} fastlines threads`)
  const growth = (key) => [marks[1][key] - marks[0][key], marks[2][key] - marks[1][key]]
  const rssGrowth = Math.min(...growth('rssMiB'))
  t.true(rssGrowth < 16, `RSS grew by ${growth('rssMiB').map((g) => g.toFixed(1))} MiB in two windows of 10,000 cycles`)
  const heapGrowth = Math.min(...growth('heapUsedMiB'))
  t.true(heapGrowth < 8, `the JS heap grew by ${growth('heapUsedMiB').map((g) => g.toFixed(1))} MiB in two windows`)
})

test('process.exit() in the middle of a for-await exits at once with its code', async (t) => {
  const run = await runFixture('stress-lifetime.mjs', ['exit', midReadFile()], { quietMs: LIFETIME_QUIET_MS })
  t.is(run.status, 7, describe(run))
  t.false(run.timedOut)
  t.is(run.stdout.trim(), 'exiting after 100000 lines')
})

test('an uncaught exception inside a for-await ends the process with code 1 and its message', async (t) => {
  const run = await runFixture('stress-lifetime.mjs', ['throw', midReadFile()], { quietMs: LIFETIME_QUIET_MS })
  t.is(run.status, 1, describe(run))
  t.false(run.timedOut)
  t.regex(run.stderr, /thrown inside the loop after \d+ lines/)
  t.is(run.stdout, '')
})

test('a read of more empty lines than an engine array holds gives them all, in batches JS can split', async (t) => {
  // 144 Mi lines in one read (a highWaterMark that large, as over a decompression bomb) made one
  // batch, and V8 aborted the process splitting it: "Fatal JavaScript invalid size error".
  const bytes = 144 * MiB
  const file = temp.path('empty-lines.txt')
  fs.writeFileSync(file, Buffer.alloc(bytes, '\n'))
  const run = await runFixture('many-lines-batch.mjs', [file, String(bytes)], { quietMs: 16_000 })
  fs.rmSync(file)
  t.is(run.status, 0, describe(run))
  t.deepEqual(JSON.parse(run.stdout), { lines: bytes, sourceLines: bytes })
})

test('a half-read iterator abandoned without close() closes its file once collected', async (t) => {
  const run = await runFixture('stress-lifetime.mjs', ['abandon', midReadFile()], { quietMs: LIFETIME_QUIET_MS })
  t.true(run.status === 0 && !run.timedOut, describe(run))
  const { first, openBefore, openAfter, collections } = JSON.parse(run.stdout)
  t.log(`closed after ${collections} collection(s)`)
  t.is(first, numberedLines(1, 64).trimEnd())
  t.true(openBefore, 'the file was open while the iterator was alive')
  t.false(openAfter, `still open after ${collections} collections`)
})

test('readers dropped without close() are collected as their read-ahead adds up', async (t) => {
  // Each holds its file and up to 1 MiB read ahead until collected. The engine was told none of
  // it, and weighed each by its small JS object: 300 of them were alive at once on Node and 130
  // on Bun, holding 490 and 293 MB; told, about 70 and 11. Deno 2.9 collects them no sooner for
  // being told (about 350 with or without), so its bound is only that they do not pile up.
  const run = await runFixture('stress-lifetime.mjs', ['drop', midReadFile()], { quietMs: LIFETIME_QUIET_MS })
  t.true(run.status === 0 && !run.timedOut, describe(run))
  const { mostOpen } = JSON.parse(run.stdout)
  t.log(`at most ${mostOpen} of 3,000 open at once`)
  t.true(mostOpen <= (runtime === 'deno' ? 1000 : 150), `${mostOpen} dropped readers open at once`)
})

test('workers terminated mid-read (50, 12 on Deno) leave a healthy process that exits by itself', async (t) => {
  // The whole scenario runs in a child: a crash or a hang of the runtime is the child's failure.
  // What goes wrong at a termination depends on the moment, so two children run it, each with
  // its own files and seeded moments. Deno's `new Worker` blocks its caller until the worker has
  // started, so no worker is terminated before the last has started, and a start takes longer
  // the more workers already run: 50 busy ones take 43 s to start on 2 cores (Node: 2 s; a
  // pure-JS worker shows the same), 12 take 3 s.
  const workers = runtime === 'deno' ? 12 : 50
  const scenario = async (seed) => {
    const files = Array.from({ length: workers }, (_, i) =>
      temp.file(numberedLines(20_000 + i), `worker-${seed}-${i}.txt`),
    )
    const run = await runFixture('stress-workers.mjs', [String(seed), ...files], { quietMs: 9_000 })
    return { seed, run }
  }
  for (const { seed, run } of await Promise.all([scenario(20_261_122), scenario(20_261_123)])) {
    t.true(run.status === 0 && !run.timedOut, `seed ${seed}: ${describe(run)}`)
    if (run.status !== 0) continue
    const { outcomes, stillOpen, holders, readBack } = JSON.parse(run.stdout)
    t.is(outcomes.length, workers)
    t.deepEqual(
      outcomes.filter(({ error }) => error !== null),
      [],
      `seed ${seed}`,
    )
    t.deepEqual(stillOpen, [], `seed ${seed}: ${JSON.stringify({ outcomes, holders })}`)
    t.true(readBack, `seed ${seed}: the main thread read a file correctly after the workers`)
  }
})

test('readers left open in workers that end free what they read ahead: memory stays flat', async (t) => {
  // 40 workers with four readers each holding 512 KiB or more: 80 MiB or more if it were kept
  // (on Deno, which runs no finalizer as a worker ends, it was, until the process exited).
  const file = temp.file(numberedLines(100_000, 60), 'read-ahead.txt')
  await assertWorkersFreeWhatTheyRead(t, 'stress-read-ahead-worker.mjs', file, { workers: 40, maxMiB: 40 })
})

/**
 * Runs `workers` workers of `script` (a fixture) on `file` one after another, after 5 to warm up,
 * and asserts that the process's RSS grew by less than `maxMiB` over them.
 */
async function assertWorkersFreeWhatTheyRead(t, script, file, { workers, maxMiB }) {
  const args = [script, file, '5', String(workers)]
  const run = await runFixture('stress-read-ahead-workers.mjs', args, { quietMs: 15_000 })
  t.true(run.status === 0 && !run.timedOut, describe(run))
  const { before, after } = JSON.parse(run.stdout)
  const grownMiB = (after - before) / 2 ** 20
  t.true(grownMiB < maxMiB, `RSS grew by ${grownMiB.toFixed(1)} MiB over ${workers} workers`)
}

test('long lines a worker still holds when it ends are freed: memory stays flat', async (t) => {
  // Lines of 200 KB come in batches the engine may be lent rather than copied: 40 of them, 8 MB,
  // held by each of 30 workers, would be 240 MB if kept. Bun never finalized the lent strings a
  // worker held as it ended, and lost about 20 MB a worker.
  const line = (i) => `${i} ${'y'.repeat(200_000)}\n`
  const file = temp.file(Array.from({ length: 20 }, (_, i) => line(i)).join(''), 'long-lines.txt')
  await assertWorkersFreeWhatTheyRead(t, 'stress-long-lines-worker.mjs', file, { workers: 30, maxMiB: 80 })
})

test('recycled workers that alone load fastlines keep its threads bounded', async (t) => {
  // The runtime outlives every env: no env keeps it, and none may replace it with an unbounded one.
  const files = Array.from({ length: 100 }, (_, i) => temp.file(numberedLines(2000 + i, 30), `pool-${i}.txt`))
  const run = await runFixture('stress-worker-pool.mjs', files, { quietMs: 7_500 })
  t.true(run.status === 0 && !run.timedOut, describe(run))
  const { atStart, rounds } = JSON.parse(run.stdout)
  t.is(rounds.length, 3)
  // Tokio threads there before fastlines was loaded are the runtime's own: none in Node and Bun,
  // Deno's (it is built on Tokio) in Deno. Any other one would be a runtime fastlines started.
  const runtimeOwn = new Set(atStart.filter(({ name }) => name.startsWith('tokio')).map(({ tid }) => tid))
  if (runtime !== 'deno') t.is(runtimeOwn.size, 0, `${runtime} has no Tokio threads of its own`)
  for (const [round, { peakThreads, lines, after }] of rounds.entries()) {
    t.deepEqual(
      lines,
      files.flatMap((_, i) => [2000 + i, 2000 + i]),
      `round ${round}`,
    )
    const native = after.filter(({ name }) => name === 'fastlines').length
    t.log(`round ${round}: at most ${peakThreads} threads in the process; after it, ${native} fastlines threads`)
    t.true(native <= 2 + 32, `round ${round}: ${native} fastlines threads`)
    t.deepEqual(
      after.filter(({ tid, name }) => name.startsWith('tokio') && !runtimeOwn.has(tid)),
      [],
      `round ${round}: threads of another runtime`,
    )
  }
})

test('no step object of an async reader is pretenured by V8, even when stepping begins mid-collection', async (t) => {
  // V8 decides per allocation site, from the share of its objects a collection finds alive,
  // whether to make them in the old generation for the rest of the process. Steps taken while
  // V8 marks its heap are all found alive: with marking made constant and the young generation
  // at the size where it decides, a literal `{ value, done }` per step was pretenured within a
  // few thousand steps (on Node 20, 22 and 24), and a process that began a per-line read during
  // a collection then read 2.5x slower for good (lib/iterator.js); so was an object made per
  // line to keep where `position` had measured to (lib/cursor.js).
  const v8Flags = ['--stress-incremental-marking', '--min-semi-space-size=16', '--trace-pretenuring-statistics']
  const lines = Array.from({ length: 200_000 }, (_, i) => `{"line":${i},"msg":"request served","tags":["a","b"]}`)
  const file = temp.file(`${lines.join('\n')}\n`, 'pretenuring.jsonl')
  for (const kind of ['lines', 'entries', 'batches', 'values', 'value entries', 'lines placed', 'values placed']) {
    const script = [fixture('pretenuring.mjs'), kind, file]
    const args =
      runtime === 'deno'
        ? scriptArgs(...script).toSpliced(1, 0, `--v8-flags=${v8Flags.join(',')}`)
        : [...v8Flags, ...script]
    const run = await runProcess(args, { quietMs: 2_000 }).result
    t.is(run.status, 0, `${kind}: ${describe(run)}`)
    const items =
      kind === 'batches' ? Number(/items (\d+)/.exec(run.stdout)?.[1]) > 0 : run.stdout.includes('items 200000')
    t.true(items, `${kind}: ${describe(run)}`)
    // Each line's bytes and its `\n`, added up: the file's size.
    if (kind.endsWith(' placed')) t.true(run.stdout.includes(`offsets ${fs.statSync(file).size}`), describe(run))
    const pretenured = run.stdout.split('\n').filter((line) => /=> tenure$/.test(line))
    t.deepEqual(pretenured, [], `${kind}: sites pretenured`)
  }
})

test('close() closes the file at once even when every blocking thread is busy', async (t) => {
  const file = bigFile('busy-pool.txt', 8)
  const run = await runFixture('stress-busy-pool.mjs', [file], { quietMs: 3_500 })
  t.true(run.status === 0 && !run.timedOut, describe(run))
  const { closed, closeMs, fileOpenAfterClose, pendingStep } = JSON.parse(run.stdout)
  t.log(`close() took ${closeMs.toFixed(1)} ms with all 32 blocking threads held by counts of /dev/zero`)
  t.true(closed, 'close() waited for a blocking thread')
  t.false(fileOpenAfterClose)
  t.deepEqual(pendingStep, { done: true }, 'the step waiting for the queued read ended with close()')
})

test('counts of FIFOs waiting for their bytes hold no blocking thread', async (t) => {
  const file = temp.file(numberedLines(1000), 'counted-beside-fifos.txt')
  const dir = fs.mkdtempSync(`${temp.dir}/quiet-fifos-`)
  const run = await runFixture('stress-quiet-fifos.mjs', [file, dir], { quietMs: 2_500 })
  t.true(run.status === 0 && !run.timedOut, describe(run))
  const { fileLines, waitingMeanwhile, fifoLines } = JSON.parse(run.stdout)
  t.is(fileLines, 1000, 'the file was counted while 40 counts of FIFOs waited')
  t.is(waitingMeanwhile, 40)
  t.deepEqual(fifoLines, Array(40).fill(2))
})

test('a worker terminated while counting an endless device stops the count', async (t) => {
  // Ending the worker finalizes its objects, and a finalized count cancels itself; otherwise it
  // would read /dev/zero on a blocking thread for ever.
  const index = fileURLToPath(new URL('../index.js', import.meta.url))
  const worker = new Worker(`require(${JSON.stringify(index)}).countLines('/dev/zero')`, { eval: true })
  await once(worker, 'online')
  await until(() => isOpen('/dev/zero'), 'the count to start')
  t.is(await worker.terminate(), 1, 'terminated, not ended by itself')
  await until(() => !isOpen('/dev/zero'), "the terminated worker's count to close /dev/zero")
})
