// The runtimes the benchmark runs on, in the order of every table's columns and cells (`Node /
// Bun / Deno`): how the driver starts a script on each, and which one a process is running on.
// Every module that names runtimes takes them from here.
import fs from 'node:fs'
import { fileURLToPath } from 'node:url'

const bin = (name) => fileURLToPath(new URL(`../node_modules/.bin/${name}`, import.meta.url))

/**
 * `command` and `args` start a script (`[...args, script, ...its args]`), each with the garbage
 * collector exposed to JS where it takes a flag (Bun's `Bun.gc` needs none); `label` is how tables
 * name it. Deno runs with every permission (`-A`: the files, the processes the contenders spawn,
 * and `Deno.dlopen` for the clock, bench/clock.mjs).
 */
export const RUNTIMES = {
  node: { label: 'Node', command: process.execPath, args: ['--expose-gc'] },
  bun: { label: 'Bun', command: bin('bun'), args: [] },
  deno: { label: 'Deno', command: bin('deno'), args: ['run', '-A', '--v8-flags=--expose-gc'] },
}

export const RUNTIME_NAMES = Object.keys(RUNTIMES)

/** How tables name a runtime: `Node`, `Bun`, `Deno` (an unknown name as it is). */
export const runtimeLabel = (name) => RUNTIMES[name]?.label ?? name

/** The distinct runtime names among `names`, in table order (unknown names last, as they came). */
export function inRuntimeOrder(names) {
  const rank = (name) => (RUNTIME_NAMES.includes(name) ? RUNTIME_NAMES.indexOf(name) : RUNTIME_NAMES.length)
  return [...new Set(names)].sort((a, b) => rank(a) - rank(b))
}

/** Says which runtime each value in a cell is: `each cell is Node / Bun / Deno`, or `on Bun`. */
export function cellLegend(runtimes) {
  const labels = runtimes.map(runtimeLabel)
  return labels.length === 1 ? `on ${labels[0]}` : `each cell is ${labels.join(' / ')}`
}

/**
 * The version in what `<runtime> --version` prints: `v20.20.2` (Node), `1.4.5` (Bun), `deno 2.9.6
 * (stable, ...)` and more lines (Deno).
 */
export function parseVersion(output) {
  const first = output.trim().split('\n')[0]
  return /\d+\.\d+\.\d+\S*/.exec(first)?.[0] ?? first
}

/** The runtime running this process, as the workers report it: `{ runtime, version }`. */
export function currentRuntime() {
  const { deno, bun, node } = process.versions
  if (deno !== undefined) return { runtime: 'deno', version: deno }
  if (bun !== undefined) return { runtime: 'bun', version: bun }
  return { runtime: 'node', version: node }
}

/**
 * Collects garbage where the runtime lets JS ask: `gc()` on Node and Deno (exposed by the flags
 * above), `Bun.gc(true)` on Bun. The workers call it before each timed run.
 */
export function collectGarbage() {
  if (typeof globalThis.gc === 'function') globalThis.gc()
  else if (typeof globalThis.Bun?.gc === 'function') globalThis.Bun.gc(true)
}

/**
 * This process's peak RSS in KiB: on Linux its `VmHWM`, which starts afresh at `execve`, where
 * `process.resourceUsage().maxRSS` (getrusage) keeps the peak of the process that forked it, so
 * that a worker started by a driver holding hundreds of MB reported them as its own; elsewhere
 * `maxRSS`.
 */
export function peakRssKiB() {
  try {
    const status = fs.readFileSync('/proc/self/status', 'utf8')
    const peak = /^VmHWM:\s*(\d+) kB$/m.exec(status)
    if (peak !== null) return Number(peak[1])
  } catch {
    // Not Linux.
  }
  return process.resourceUsage().maxRSS
}

/**
 * Why a worker's output cannot be used when it says another runtime ran it than `runtime` (the
 * driver's `{ name }`), or undefined: a check that each runtime's command starts that runtime.
 */
export function wrongRuntime(output, runtime) {
  if (output?.runtime === undefined || output.runtime === runtime.name) return undefined
  return `ran on ${output.runtime}, not ${runtime.name}`
}
