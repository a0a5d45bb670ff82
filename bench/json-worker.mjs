// Measures one contender of the JSON Lines section (json-readers.mjs) on one case in the runtime
// running this script, printed as one line of JSON: `{ runtime, version, warmup, samples,
// capped }`, each run `{ ms, values, sum }`; `{ skipped }` where it cannot run here; `{ error }`.
// Usage: <runtime> bench/json-worker.mjs <case> <contender> <file> <runs> <slow-runs> <slow-ms>
// One warm-up run, then <runs> measured runs (<slow-runs> when the warm-up took >= <slow-ms> ms).
import { NotApplicable } from './contenders.mjs'
import { JSON_CASES, JSON_READERS, loadJsonLibrary } from './json-readers.mjs'
import { collectGarbage, currentRuntime } from './runtimes.mjs'

/** What each run hands `add`: values counted, and their `level` or `id` summed. */
class ValueTally {
  values = 0
  sum = 0

  add = (value) => {
    this.values++
    this.sum += value.level ?? value.id ?? 0
  }
}

async function timeRun(reader, file, context) {
  collectGarbage()
  const tally = new ValueTally()
  const started = performance.now()
  // The floor times its parse alone, without the splits it makes between (json-readers.mjs).
  const timed = await reader.run(file, tally.add, context)
  const ms = timed?.timedMs ?? performance.now() - started
  return { ms, values: tally.values, sum: tally.sum }
}

async function measure([caseName, name, file, runs, slowRuns, slowMs]) {
  const jsonCase = JSON_CASES[caseName]
  const reader = JSON_READERS[name]
  if (jsonCase === undefined || reader === undefined) throw new Error(`unknown case or contender: ${caseName} ${name}`)
  const context = {
    lib: await loadJsonLibrary(reader.library),
    prepared: reader.prepare?.(file),
    options: jsonCase.options,
  }
  const warmup = await timeRun(reader, file, context)
  const count = warmup.ms >= Number(slowMs) ? Math.min(Number(runs), Number(slowRuns)) : Number(runs)
  const samples = []
  for (let i = 0; i < count; i++) samples.push(await timeRun(reader, file, context))
  return { warmup, samples, capped: count < Number(runs) }
}

async function main(args) {
  try {
    return { ...currentRuntime(), ...(await measure(args)) }
  } catch (error) {
    if (error instanceof NotApplicable) return { ...currentRuntime(), skipped: error.message }
    return { ...currentRuntime(), error: String(error?.stack ?? error).split('\n')[0] }
  }
}

process.stdout.write(`${JSON.stringify(await main(process.argv.slice(2)))}\n`, () => process.exit(0))
