// Probes one contender reading one file, once, in the fresh process of the runtime running this
// script (Node or Bun): peak RSS, event-loop delay p99 while reading and time to the first line,
// printed as one line of JSON on stdout.
// Usage: <node|bun> bench/probe.mjs <contender|idle> <file>
// Every process, `idle` included, loads every package any contender uses (fastlines, split2,
// n-readlines) before it starts; `idle` then monitors the same way but reads nothing: the baseline
// that peak RSS is reported above.
import * as perfHooks from 'node:perf_hooks'
import { CONTENDERS, NotApplicable, loadAllLibraries, loadLibrary } from './contenders.mjs'

const IDLE = 'idle'
/** Event-loop delay histogram resolution, ms. */
const RESOLUTION_MS = 1
/**
 * How long the monitor runs before and after the read. The histogram records the time between
 * two ticks of its timer, so it needs a tick before a read that blocks the loop, and one after
 * it, which only comes once the loop turns again.
 */
const SETTLE_MS = 20

const idle = { run: async () => ({ lines: 0 }) }

function contenderNamed(name) {
  if (name === IDLE) return idle
  const contender = CONTENDERS[name]
  if (contender === undefined) throw new Error(`unknown contender: ${name}`)
  if (contender.floor !== undefined) throw new NotApplicable(contender.floor)
  return contender
}

const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS))

/** An enabled, ticking event-loop delay histogram, or undefined where the runtime has none. */
async function startDelayMonitor() {
  if (typeof perfHooks.monitorEventLoopDelay !== 'function') return undefined
  const histogram = perfHooks.monitorEventLoopDelay({ resolution: RESOLUTION_MS })
  histogram.enable()
  await settle()
  return histogram
}

/** The p99 event-loop delay in ms since the monitor started, or null without a monitor. */
async function stopDelayMonitor(histogram) {
  if (histogram === undefined) return null
  await settle()
  histogram.disable()
  return histogram.count > 0 ? histogram.percentile(99) / 1e6 : null
}

async function probe(name, file) {
  const contender = contenderNamed(name)
  await loadAllLibraries()
  const lib = await loadLibrary(contender)
  const prepared = await contender.prepare?.(file, { lib })
  let firstLineMs = null
  const histogram = await startDelayMonitor()
  const started = performance.now()
  const onFirst = () => {
    firstLineMs ??= performance.now() - started
  }
  const { lines } = await contender.run(file, { lib, prepared, onFirst })
  const totalMs = performance.now() - started
  const eldP99Ms = await stopDelayMonitor(histogram)
  const maxRssKiB = process.resourceUsage().maxRSS
  return { maxRssKiB, eldP99Ms, firstLineMs, totalMs, lines }
}

async function main([name, file]) {
  try {
    return await probe(name, file)
  } catch (error) {
    if (error instanceof NotApplicable) return { skipped: error.message }
    throw error
  }
}

process.stdout.write(`${JSON.stringify(await main(process.argv.slice(2)))}\n`)
