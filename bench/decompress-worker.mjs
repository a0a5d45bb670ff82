// Measures one contender of the compressed section (decompressors.mjs) on one compressed file in
// the runtime running this script (Node, Bun or Deno): one warm-up run, then the measured runs,
// printed as one line of JSON on stdout: `{ runtime, version, warmup, samples, capped }`, each run
// `{ ms, lines, chars?, bytesRead? }`, or `{ skipped }` where the contender cannot run here.
// Usage: <runtime> bench/decompress-worker.mjs <contender> <gzip|zstd> <file> <runs> <slow-runs> <slow-ms>
// Measured runs are capped at <slow-runs> when the warm-up run took at least <slow-ms> ms.
import { NotApplicable, loadLibrary } from './contenders.mjs'
import { DECOMPRESSORS } from './decompressors.mjs'
import { collectGarbage, currentRuntime } from './runtimes.mjs'

async function timeRun(contender, format, file, lib) {
  collectGarbage()
  const started = performance.now()
  const { lines, chars, bytesRead } = await contender.run(file, format, { lib })
  return { ms: performance.now() - started, lines, chars, bytesRead }
}

async function measure([name, format, file, runs, slowRuns, slowMs]) {
  const contender = DECOMPRESSORS[name]
  if (contender === undefined) throw new Error(`unknown contender: ${name}`)
  const lib = await loadLibrary(contender)
  const warmup = await timeRun(contender, format, file, lib)
  const count = warmup.ms >= Number(slowMs) ? Math.min(Number(runs), Number(slowRuns)) : Number(runs)
  const samples = []
  for (let i = 0; i < count; i++) samples.push(await timeRun(contender, format, file, lib))
  return { warmup, samples, capped: count < Number(runs) }
}

async function main(args) {
  try {
    return { ...currentRuntime(), ...(await measure(args)) }
  } catch (error) {
    if (error instanceof NotApplicable) return { ...currentRuntime(), skipped: error.message }
    throw error
  }
}

process.stdout.write(`${JSON.stringify(await main(process.argv.slice(2)))}\n`)
