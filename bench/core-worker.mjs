// Measures one contender of the cores section (core-readers.mjs) on one case in the runtime running
// this script (Node, Bun or Deno), printed as one line of JSON on stdout: `{ runtime, version, cpus,
// warmup, samples, capped }`, each run `{ ms, cpuMs, result }` (`{ lines }`, or a level tally;
// `cpuMs` the CPU time of the process's threads over the run, not of the processes it spawns), and `cpus`
// the cores this process may run on (`available`: os.availableParallelism(), which honours the CPU
// affinity mask; `allowed`: Linux's Cpus_allowed_list), which shows a pinned run (`taskset -c 0`)
// was pinned; `{ error }` when it failed.
// Usage: [taskset -c 0] <runtime> bench/core-worker.mjs <case> <contender> <file> <runs> <slow-runs> <slow-ms>
// One warm-up run, then <runs> measured runs (<slow-runs> when the warm-up took >= <slow-ms> ms).
import fs from 'node:fs'
import os from 'node:os'
import { loadLibrary } from './contenders.mjs'
import { CORE_CASES, CORE_CONTENDERS, readsCoreCase } from './core-readers.mjs'
import { collectGarbage, currentRuntime } from './runtimes.mjs'

/** The cores this process may run on, as the runtime and Linux say. */
function cpus() {
  const available = typeof os.availableParallelism === 'function' ? os.availableParallelism() : undefined
  let allowed
  try {
    allowed = /Cpus_allowed_list:\s*(\S+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1]
  } catch {
    allowed = undefined
  }
  return { available, allowed }
}

/** CPU time this process has used, every thread of it, in ms (not its child processes'). */
function cpuMs() {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}

/**
 * One timed run, with the CPU time the process used meanwhile; workers' exit (`settled`) is
 * awaited after the clock stops.
 */
async function timeRun(contender, path, coreCase, lib) {
  collectGarbage()
  const cpuBefore = cpuMs()
  const started = performance.now()
  const { settled, ...result } = await contender.run(path, coreCase, { lib })
  const ms = performance.now() - started
  const cpu = cpuMs() - cpuBefore
  await settled
  return { ms, cpuMs: cpu, result }
}

async function measure([caseName, name, path, runs, slowRuns, slowMs]) {
  const coreCase = CORE_CASES[caseName]
  const contender = CORE_CONTENDERS[name]
  if (coreCase === undefined || contender === undefined)
    throw new Error(`unknown case or contender: ${caseName} ${name}`)
  if (!readsCoreCase(name, caseName)) throw new Error(`${name} does not read ${caseName}`)
  const lib = await loadLibrary(contender)
  const warmup = await timeRun(contender, path, coreCase, lib)
  const count = warmup.ms >= Number(slowMs) ? Math.min(Number(runs), Number(slowRuns)) : Number(runs)
  const samples = []
  for (let i = 0; i < count; i++) samples.push(await timeRun(contender, path, coreCase, lib))
  return { cpus: cpus(), warmup, samples, capped: count < Number(runs) }
}

/** A failure as one line: the error's code, if it has one and the message does not start with it, and message. */
function describe(error) {
  const message = String(error?.message ?? error)
    .trim()
    .replace(/\s*\n\s*/g, '; ')
  return error?.code === undefined || message.startsWith(`${error.code}:`) ? message : `${error.code}: ${message}`
}

async function main(args) {
  try {
    return { ...currentRuntime(), ...(await measure(args)) }
  } catch (error) {
    return { ...currentRuntime(), error: describe(error) }
  }
}

// Exits once the line is out: a worker thread left running after a failure would keep the
// process alive.
process.stdout.write(`${JSON.stringify(await main(process.argv.slice(2)))}\n`, () => process.exit(0))
