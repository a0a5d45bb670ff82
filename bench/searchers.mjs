// The search section's queries and contenders (issue 12). Each searcher's
// `run(path, strings, { lib, tally })` finds the lines of the file that contain any of `strings`
// and adds each to `tally` (`add(line)`), or returns `{ lines }` when it only counts them. The JS
// contenders filter with `includes`, as users write it; grep runs as a process, like `wc -l` in
// the corpus section, so its time includes the spawn.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import readline from 'node:readline'
import { splitStream } from './contenders.mjs'

/** The queries on logs-1g: about 12% of the lines, none, and three literals at once. */
export const SEARCH_QUERIES = {
  ERROR: ['ERROR'],
  none: ['OutOfMemoryError'],
  three: ['ERROR', 'FATAL', 'timeout'],
}

/** `line.includes(s)` for any of `strings`, as a user writes it (a single `includes` for one). */
function includesAny(strings) {
  if (strings.length === 1) {
    const [string] = strings
    return (line) => line.includes(string)
  }
  return (line) => strings.some((string) => line.includes(string))
}

async function filterLines(lines, strings, tally) {
  const matches = includesAny(strings)
  for await (const line of lines) if (matches(line)) tally.add(line)
  return tally
}

async function tallyLines(lines, tally) {
  for await (const line of lines) tally.add(line)
  return tally
}

/** The corpus section's hand-written `createReadStream` split (contenders.mjs), filtered. */
async function streamSplitIncludes(path, strings, { tally }) {
  const matches = includesAny(strings)
  await splitStream(path, (line) => {
    if (matches(line)) tally.add(line)
  })
  return tally
}

/** GNU grep in the C locale (bytes, as fastlines matches), with `stdout` as spawnSync takes it. */
function grep(args, strings, path, stdout) {
  const patterns = strings.flatMap((string) => ['-e', string])
  const child = spawnSync('grep', [...args, ...patterns, path], {
    stdio: ['ignore', stdout, 'inherit'],
    env: { ...process.env, LC_ALL: 'C' },
    maxBuffer: 2 ** 31 - 1,
  })
  if (child.error !== undefined) throw child.error
  // Status 1: no line matched.
  if (child.status !== 0 && child.status !== 1) throw new Error(`grep exited with ${child.status ?? child.signal}`)
  return child
}

/**
 * `grep -F`, its output read through a pipe and split into lines, as a script that shells out to
 * grep gets them. (Not to /dev/null: GNU grep notices it and stops at the first match.)
 */
function grepLines(path, strings, { tally }) {
  const lines = grep(['-F'], strings, path, 'pipe').stdout.toString('utf8').split('\n')
  lines.pop() // after the last line's `\n`
  for (const line of lines) tally.add(line)
  return tally
}

function grepCount(path, strings) {
  return { lines: Number.parseInt(grep(['-F', '-c'], strings, path, 'pipe').stdout.toString(), 10) }
}

/** In table order; the first is the baseline the ratios are against. `note` goes under the table. */
export const SEARCHERS = {
  'readline+includes': {
    run: (path, strings, { tally }) =>
      filterLines(readline.createInterface({ input: fs.createReadStream(path), crlfDelay: Infinity }), strings, tally),
  },
  'stream-split+includes': { run: streamSplitIncludes },
  'grep -F': {
    run: grepLines,
    note: '`grep -F` (GNU, `LC_ALL=C`) as a process, its output read through a pipe and split into lines; time includes the spawn',
  },
  'grep -F -c': { run: grepCount, note: 'counts only; time includes the spawn' },
  'fastlines-batches+includes': {
    library: 'fastlines',
    run: async (path, strings, { lib, tally }) => {
      const matches = includesAny(strings)
      for await (const batch of lib.readLines(path).batches())
        for (const line of batch) if (matches(line)) tally.add(line)
      return tally
    },
    note: "fastlines' batches without `match`, filtered with `includes` in JS: what matching natively saves",
  },
  'fastlines-lines': {
    library: 'fastlines',
    run: (path, strings, { lib, tally }) => tallyLines(lib.readLines(path, { match: strings }), tally),
  },
  'fastlines-batches': {
    library: 'fastlines',
    run: async (path, strings, { lib, tally }) => {
      for await (const batch of lib.readLines(path, { match: strings }).batches())
        for (const line of batch) tally.add(line)
      return tally
    },
  },
  'fastlines-count': {
    library: 'fastlines',
    run: async (path, strings, { lib }) => ({ lines: await lib.countLines(path, { match: strings }) }),
  },
  'fastlines-count-1-thread': {
    library: 'fastlines',
    run: async (path, strings, { lib }) => ({ lines: await lib.countLines(path, { match: strings, threads: 1 }) }),
    note:
      "the same count on one thread: what a reader's reading thread does (read, search, number the lines between " +
      'matches) with no batch framed and no string made; readers of a file this large read it in parts on two ' +
      'threads, as the count does, whose time is their floor',
  },
}
