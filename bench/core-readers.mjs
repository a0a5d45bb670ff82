// The cores section's cases and contenders (issue 23): using more than one core on one file. The
// count cases time fastlines' `countLines` in one pass (`threads: 1`), in automatic parts and in
// 2 parts, against `wc -l` and `grep -F -c` as processes. The share cases time n worker_threads
// (node:worker_threads, on Node, Bun and Deno alike) each reading `share: [i, n]` of the file and
// tallying the log level of each line (core-thread.mjs), the aggregate posted once per worker,
// against one reader doing the same in the main thread. Each contender's `run(path, case, { lib })`
// returns its result: `{ lines }` for the counters, a level tally (`LevelTally.toJSON()`) for the
// readers, and, for the workers, `settled`, a promise of their exit that the worker process
// awaits after stopping its clock. cores.mjs drives them, core-worker.mjs runs them.
import { execFileSync } from 'node:child_process'
import { Worker } from 'node:worker_threads'

const THREAD = new URL('./core-thread.mjs', import.meta.url)

/** The literal of the count-match case: the log level of about 12% of the lines of the logs corpora. */
export const CORE_MATCH = 'ERROR'

/**
 * In run and table order. `kind` says which contenders read the case (CORE_CONTENDERS' `kind`);
 * `match` is the literal counted, `mode` how the share readers take their lines; `baseline` is
 * the contender every other is measured relative to and checked against. `title` heads the table.
 */
export const CORE_CASES = {
  count: {
    kind: 'count',
    baseline: 'fastlines-1-thread',
    title: 'counting every line: `countLines(p, { threads })` against `wc -l p`',
  },
  'count-match': {
    kind: 'count',
    match: CORE_MATCH,
    baseline: 'fastlines-1-thread',
    title: `counting the lines that hold \`${CORE_MATCH}\`: \`countLines(p, { match: '${CORE_MATCH}', threads })\` against \`grep -F -c ${CORE_MATCH} p\``,
  },
  'shares-batches': {
    kind: 'shares',
    mode: 'batches',
    baseline: 'main-thread',
    title:
      "tallying each line's level with `batches()`: n worker_threads each reading `share: [i, n]`, against one " +
      'reader in the main thread',
  },
  'shares-lines': {
    kind: 'shares',
    mode: 'lines',
    baseline: 'main-thread',
    title: 'the same per line: `for await (const line of readLines(p, { share }))`',
  },
}

export const CORE_CASE_NAMES = Object.keys(CORE_CASES)

/**
 * What the share readers do with each line: count it, sum its length (so that the line count and
 * lengths are checked against the corpus, as everywhere in the bench), and count it under its log
 * level, the second space-separated field (`2024-03-14T09:26:53.025Z INFO  [db.pool] ...`), as a
 * script that sums a column of a log does.
 */
export class LevelTally {
  lines = 0
  chars = 0
  levels = new Map()

  add(line) {
    this.lines++
    this.chars += line.length
    const start = line.indexOf(' ') + 1
    const level = line.slice(start, line.indexOf(' ', start))
    this.levels.set(level, (this.levels.get(level) ?? 0) + 1)
  }

  /** The tally as plain data, levels in name order, so that equal tallies print alike. */
  toJSON() {
    const levels = Object.fromEntries([...this.levels].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    return { lines: this.lines, chars: this.chars, levels }
  }
}

/** The sum of tallies (`toJSON()` forms), as one reader of the whole file would have counted. */
export function mergeTallies(tallies) {
  const merged = new LevelTally()
  for (const tally of tallies) {
    merged.lines += tally.lines
    merged.chars += tally.chars
    for (const [level, count] of Object.entries(tally.levels)) {
      merged.levels.set(level, (merged.levels.get(level) ?? 0) + count)
    }
  }
  return merged.toJSON()
}

/**
 * Tallies the lines of `path` (of its share `share`, when given) read by fastlines (`lib`), with
 * `batches()` or per line: what the main-thread reader does, and what each worker does with its
 * share (core-thread.mjs).
 */
export async function tallyLevels(lib, path, mode, share) {
  const tally = new LevelTally()
  const reader = lib.readLines(path, share === undefined ? undefined : { share })
  if (mode === 'batches') {
    for await (const batch of reader.batches()) for (const line of batch) tally.add(line)
  } else {
    for await (const line of reader) tally.add(line)
  }
  return tally.toJSON()
}

/**
 * `count` worker_threads, worker i reading `share: [i, count]` of `path` (core-thread.mjs: it
 * loads fastlines, tallies its share and posts the tally, once): the merged tally once every
 * worker has posted its own, and `settled`, when they have all exited.
 */
async function inWorkers(path, mode, count) {
  const workers = Array.from(
    { length: count },
    (_, index) => new Worker(THREAD, { workerData: { path, mode, share: [index, count] } }),
  )
  const exits = workers.map((worker) => new Promise((resolve) => worker.once('exit', resolve)))
  const posted = workers.map(
    (worker, index) =>
      new Promise((resolve, reject) => {
        worker.once('message', resolve)
        worker.once('error', reject)
        worker.once('exit', (code) =>
          reject(new Error(`worker ${index} of ${count} exited with ${code} before its tally`)),
        )
      }),
  )
  try {
    const tallies = await Promise.all(posted)
    return { ...mergeTallies(tallies), settled: Promise.all(exits) }
  } catch (error) {
    await Promise.all(workers.map((worker) => worker.terminate()))
    throw error
  }
}

/** `wc -l p` as a process, as the corpora's `wc -l` runs it: its time includes the spawn. */
function wcLines(path) {
  return { lines: Number.parseInt(execFileSync('wc', ['-l', path], { encoding: 'utf8' }), 10) }
}

/** `grep -F -c s p` (GNU grep in the C locale, bytes as fastlines matches) as a process. */
function grepCount(path, string) {
  try {
    const output = execFileSync('grep', ['-F', '-c', '-e', string, path], {
      encoding: 'utf8',
      env: { ...process.env, LC_ALL: 'C' },
    })
    return { lines: Number.parseInt(output, 10) }
  } catch (error) {
    // Status 1: no line matched.
    if (error.status === 1) return { lines: Number.parseInt(error.stdout, 10) }
    throw error
  }
}

/** `countLines(p, { match?, threads? })`: `threads` undefined leaves fastlines' automatic choice. */
function countWith(threads) {
  return async (path, { match }, { lib }) => {
    const options = {}
    if (match !== undefined) options.match = match
    if (threads !== undefined) options.threads = threads
    return { lines: await lib.countLines(path, options) }
  }
}

function workers(count) {
  return {
    kind: 'shares',
    workers: count,
    run: (path, { mode }) => inWorkers(path, mode, count),
    note:
      `${count} \`new Worker(...)\` (node:worker_threads), worker i reading \`share: [i, ${count}]\` and posting ` +
      'its tally once; timed from before the first `new Worker` until every tally is in, worker start-up ' +
      '(the runtime, fastlines loaded in each) included',
  }
}

/**
 * In table order. `kind` says which cases a contender reads (CORE_CASES' `kind`), `cases`
 * narrows them; `library` names the package it loads (as in contenders.mjs); `note` goes under
 * the tables.
 */
export const CORE_CONTENDERS = {
  'fastlines-1-thread': {
    kind: 'count',
    library: 'fastlines',
    run: countWith(1),
    note: '`countLines(p, { threads: 1 })`: one pass, one thread (the baseline)',
  },
  'fastlines-auto': {
    kind: 'count',
    library: 'fastlines',
    run: countWith(undefined),
    note: '`countLines(p)`: automatic, one part per core it may use (the CPU affinity mask: 1 when pinned) if each gets 8 MiB or more',
  },
  'fastlines-2-threads': {
    kind: 'count',
    library: 'fastlines',
    run: countWith(2),
    note: '`countLines(p, { threads: 2 })`: 2 line-aligned parts, on 2 threads while the process has a helper thread free (cores - 1)',
  },
  'wc -l': {
    kind: 'count',
    cases: ['count'],
    run: (path) => wcLines(path),
    note: '`wc -l p` (GNU coreutils) as a process, spawned from the runtime; its time includes the spawn',
  },
  'grep -F -c': {
    kind: 'count',
    cases: ['count-match'],
    run: (path, { match }) => grepCount(path, match),
    note: `\`grep -F -c ${CORE_MATCH} p\` (GNU, \`LC_ALL=C\`) as a process, spawned from the runtime; its time includes the spawn`,
  },
  'main-thread': {
    kind: 'shares',
    library: 'fastlines',
    run: (path, { mode }, { lib }) => tallyLevels(lib, path, mode),
    note: 'one reader in the main thread, no worker: `readLines(p)` (the baseline)',
  },
  '1-worker': workers(1),
  '2-workers': workers(2),
  '4-workers': workers(4),
}

export const CORE_CONTENDER_NAMES = Object.keys(CORE_CONTENDERS)

/** Whether `contender` reads `caseName`. */
export function readsCoreCase(contender, caseName) {
  const { kind, cases } = CORE_CONTENDERS[contender]
  return kind === CORE_CASES[caseName].kind && (cases === undefined || cases.includes(caseName))
}
