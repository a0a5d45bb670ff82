// Measures one contender on one file in the runtime running this script (Node, Bun or Deno): one
// warm-up run, which also takes the fingerprint of the lines, then the measured runs, printed as
// one line of JSON on stdout.
// Usage: <runtime> bench/worker.mjs <contender> <file> <runs> <slow-runs> <slow-ms>
// Measured runs are capped at <slow-runs> when the warm-up run took at least <slow-ms> ms.
import { CONTENDERS, NotApplicable, checkLines, loadLibrary } from './contenders.mjs'
import { collectGarbage, currentRuntime } from './runtimes.mjs'

async function timeRun(contender, file, lib, prepared) {
  collectGarbage()
  const started = performance.now()
  const { lines, chars, hash } = await contender.run(file, { lib, prepared })
  return { ms: performance.now() - started, lines, chars, hash }
}

/** The warm-up run, which also takes the fingerprint of the lines (line-hash.mjs). */
async function checkedRun(contender, file, lib, prepared) {
  checkLines(true)
  try {
    return await timeRun(contender, file, lib, prepared)
  } finally {
    checkLines(false)
  }
}

async function measure({ name, file, runs, slowRuns, slowMs }) {
  const contender = CONTENDERS[name]
  if (contender === undefined) throw new Error(`unknown contender: ${name}`)
  const lib = await loadLibrary(contender)
  const prepared = await contender.prepare?.(file, { lib })
  const warmup = await checkedRun(contender, file, lib, prepared)
  const count = warmup.ms >= slowMs ? Math.min(runs, slowRuns) : runs
  const samples = []
  for (let i = 0; i < count; i++) samples.push(await timeRun(contender, file, lib, prepared))
  return { warmup, samples, capped: count < runs }
}

async function main([name, file, runs, slowRuns, slowMs]) {
  const job = { name, file, runs: Number(runs), slowRuns: Number(slowRuns), slowMs: Number(slowMs) }
  try {
    return { ...currentRuntime(), ...(await measure(job)) }
  } catch (error) {
    if (error instanceof NotApplicable) return { ...currentRuntime(), skipped: error.message }
    throw error
  }
}

process.stdout.write(`${JSON.stringify(await main(process.argv.slice(2)))}\n`)
