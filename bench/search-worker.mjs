// Times one searcher (searchers.mjs) on one query in the runtime running this script (Node, Bun or
// Deno), then runs it once more, untimed, hashing the lines it found, and prints one line of JSON:
// `{ times, lines, chars, sha256 }` (sha256 of every line followed by `\n`; none for counters),
// or `{ error }`. The driver checks the lines against readline's; every timed run must have found
// as many lines, and as many UTF-16 units in them, as the hashed one, or the worker fails.
// Usage: <runtime> bench/search-worker.mjs <searcher> <file> <query> <runs> <slow-runs> <slow-ms>
// One untimed warm-up run first; if it took at least <slow-ms>, <slow-runs> measured runs.
import { createHash } from 'node:crypto'
import { SEARCHERS, SEARCH_QUERIES } from './searchers.mjs'
import { Tally, loadLibrary } from './contenders.mjs'
import { collectGarbage, currentRuntime } from './runtimes.mjs'

/** A Tally that also hashes the lines, for the untimed check run. */
class CheckingTally extends Tally {
  #hash = createHash('sha256')

  add(line) {
    super.add(line)
    this.#hash.update(`${line}\n`)
  }

  digest() {
    return this.#hash.digest('hex')
  }
}

async function timeRun(searcher, file, strings, lib) {
  collectGarbage()
  const started = performance.now()
  const found = await searcher.run(file, strings, { lib, tally: new Tally() })
  return { ms: performance.now() - started, found }
}

async function main([name, file, query, runs, slowRuns, slowMs]) {
  const searcher = SEARCHERS[name]
  const strings = SEARCH_QUERIES[query]
  if (searcher === undefined || strings === undefined) throw new Error(`unknown searcher or query: ${name} ${query}`)
  const lib = await loadLibrary(searcher)
  const warmUp = await timeRun(searcher, file, strings, lib)
  const count = warmUp.ms >= Number(slowMs) ? Math.min(Number(runs), Number(slowRuns)) : Number(runs)
  const timed = []
  for (let i = 0; i < count; i++) timed.push(await timeRun(searcher, file, strings, lib))
  const checked = await searcher.run(file, strings, { lib, tally: new CheckingTally() })
  const sha256 = checked instanceof CheckingTally ? checked.digest() : undefined
  // A searcher right only some of the time (a race between threads) is caught in any run.
  for (const { found } of [warmUp, ...timed]) {
    if (found.lines !== checked.lines || found.chars !== checked.chars) {
      throw new Error(
        `a run found ${found.lines} lines (${found.chars} units), the hashed run ${checked.lines} (${checked.chars})`,
      )
    }
  }
  return {
    ...currentRuntime(),
    searcher: name,
    query,
    times: timed.map((run) => run.ms),
    capped: count < Number(runs),
    lines: checked.lines,
    sha256,
  }
}

/** A failure as one line: the error's code, if it has one, and message. */
const describe = (error) => (error.code === undefined ? error.message : `${error.code}: ${error.message}`)

process.stdout.write(
  `${JSON.stringify(await main(process.argv.slice(2)).catch((error) => ({ error: describe(error) })))}\n`,
)
