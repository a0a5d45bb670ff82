// Measures one contender of the sources section (source-readers.mjs) on one case in the runtime
// running this script (Node, Bun or Deno), printed as one line of JSON on stdout: `{ runtime,
// version, warmup, samples, capped }`, each run `{ ms, lines, chars?, cpuMs, jsCpuMs }`; `{ skipped }` where the
// contender cannot run here; `{ error }` when it failed.
// Usage: <runtime> bench/source-worker.mjs <case> <contender> <corpus file> <runs> <slow-runs> <slow-ms>
// One warm-up run, then <runs> measured runs (<slow-runs> when the warm-up took >= <slow-ms> ms).
// The stdin case reads process.stdin, which a process reads once: one run, no warm-up (the driver
// starts a process per run), after loading every package any contender loads (as the probe does),
// and the sample has the process's peak RSS, `maxRssKiB`.
// `<runtime> bench/source-worker.mjs idle` loads the same packages, reads nothing and reports
// `{ maxRssKiB }`: the baseline the stdin case's peak RSS is taken above.
import fs from 'node:fs'

import { NotApplicable, loadAllLibraries, loadLibrary } from './contenders.mjs'
import { SOURCE_CASES, SOURCE_READERS, caseFile, notApplicable, prepareCase, readSource } from './source-readers.mjs'
import { collectGarbage, currentRuntime, peakRssKiB } from './runtimes.mjs'

const IDLE = 'idle'

/**
 * One timed run: its ms, lines and chars, the CPU time every thread of the process took
 * meanwhile, and the JS thread's alone (`jsCpuMs`, where /proc tells it).
 */
async function timeRun(name, caseName, context) {
  collectGarbage()
  const cpu = process.cpuUsage()
  const js = jsThreadCpuMs()
  const started = performance.now()
  const { lines, chars } = await readSource(name, caseName, context)
  const ms = performance.now() - started
  const { user, system } = process.cpuUsage(cpu)
  return { ms, lines, chars, cpuMs: (user + system) / 1000, jsCpuMs: jsThreadCpuMs() - js }
}

/**
 * The CPU time the JS thread took so far, in ms: the process's main thread, on Node, Bun and
 * Deno alike. From the first field of Linux's `schedstat` (ns on a CPU); NaN elsewhere.
 */
function jsThreadCpuMs() {
  try {
    const schedstat = fs.readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8')
    return Number(schedstat.split(' ')[0]) / 1e6
  } catch {
    return Number.NaN
  }
}

async function measure([caseName, name, corpusPath, runs, slowRuns, slowMs]) {
  if (caseName === IDLE) {
    await loadAllLibraries()
    return { maxRssKiB: peakRssKiB() }
  }
  const sourceCase = SOURCE_CASES[caseName]
  const reader = SOURCE_READERS[name]
  if (sourceCase === undefined || reader === undefined)
    throw new Error(`unknown case or contender: ${caseName} ${name}`)
  const skip = notApplicable(name, caseName, currentRuntime().runtime)
  if (skip !== undefined) throw new NotApplicable(skip)
  if (sourceCase.perProcess) await loadAllLibraries()
  const lib = await loadLibrary(reader)
  const bytes = prepareCase(caseName, corpusPath)
  const file = caseFile(caseName, corpusPath)
  const prepared = reader.prepare === undefined ? bytes : reader.prepare(bytes, sourceCase, file)
  const context = { file, prepared, lib }
  if (sourceCase.perProcess) {
    const sample = await timeRun(name, caseName, context)
    // A contender that read the file `cat` pipes in leaves the pipe full: drained after timing,
    // so that `cat` ends as it does for the others.
    if (reader.reads === 'file') for await (const _ of process.stdin);
    return { samples: [{ ...sample, maxRssKiB: peakRssKiB() }] }
  }
  const warmup = await timeRun(name, caseName, context)
  const count = warmup.ms >= Number(slowMs) ? Math.min(Number(runs), Number(slowRuns)) : Number(runs)
  const samples = []
  for (let i = 0; i < count; i++) samples.push(await timeRun(name, caseName, context))
  return { warmup, samples, capped: count < Number(runs) }
}

/** A failure as one line: the error's code, if it has one, and message. */
const describe = (error) =>
  error?.code === undefined ? String(error?.message ?? error) : `${error.code}: ${error.message}`

async function main(args) {
  try {
    return { ...currentRuntime(), ...(await measure(args)) }
  } catch (error) {
    if (error instanceof NotApplicable) return { ...currentRuntime(), skipped: error.message }
    return { ...currentRuntime(), error: describe(error) }
  }
}

// Exits once the line is out: a contender that failed may leave a child (`cat`) blocked on a
// full pipe, or stdin unread, which would keep the process alive.
process.stdout.write(`${JSON.stringify(await main(process.argv.slice(2)))}\n`, () => process.exit(0))
