// Probes one contender reading one file, once, in the fresh process of the runtime running this
// script (Node, Bun or Deno): peak RSS, event-loop delay p99 while reading and time to the first line,
// printed as one line of JSON on stdout, with the runtime that ran it.
// Usage: <runtime> bench/probe.mjs <contender|idle> <file>
// Every process, `idle` included, loads every package any contender uses (fastlines, split2,
// n-readlines) before it starts; `idle` then monitors the same way but reads nothing: the baseline
// that peak RSS is reported above.
import * as perfHooks from 'node:perf_hooks'
import { CONTENDERS, NotApplicable, loadAllLibraries, loadLibrary } from './contenders.mjs'
import { currentRuntime, peakRssKiB } from './runtimes.mjs'

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

/**
 * The times between the ticks of a `setInterval` of RESOLUTION_MS, as `monitorEventLoopDelay`
 * records the times between the ticks of its timer, with the same `enable`, `disable`, `count` and
 * `percentile` (in ns). For Deno, whose `monitorEventLoopDelay` (2.9) does not measure what Node's
 * does: an idle loop reads 0 ms, it holds more samples than a 1 ms timer can tick (so its p99 stays
 * near 0 however the loop is blocked), and a loop blocked for 30 ms showed in its max in some tries
 * and not in others. Deno's timers tick every 2 ms at best, so these figures cannot go below that.
 */
class IntervalMonitor {
  #gaps = []
  #last
  #timer

  /** Like Node's histogram, records from the second tick on: the first has no tick before it. */
  enable() {
    this.#timer = setInterval(() => {
      const now = performance.now()
      if (this.#last !== undefined) this.#gaps.push(now - this.#last)
      this.#last = now
    }, RESOLUTION_MS)
  }

  disable() {
    clearInterval(this.#timer)
  }

  get count() {
    return this.#gaps.length
  }

  percentile(percent) {
    const sorted = this.#gaps.toSorted((a, b) => a - b)
    return sorted[Math.max(0, Math.ceil((percent / 100) * sorted.length) - 1)] * 1e6
  }
}

/** How this runtime's event-loop delay is measured: `monitorEventLoopDelay`, `setInterval` or none. */
function delayMonitorKind() {
  if (process.versions.deno !== undefined) return 'setInterval'
  return typeof perfHooks.monitorEventLoopDelay === 'function' ? 'monitorEventLoopDelay' : undefined
}

/** An enabled, ticking event-loop delay histogram, or undefined where the runtime has none. */
async function startDelayMonitor(kind) {
  if (kind === undefined) return undefined
  const histogram =
    kind === 'setInterval' ? new IntervalMonitor() : perfHooks.monitorEventLoopDelay({ resolution: RESOLUTION_MS })
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
  const eldMonitor = delayMonitorKind()
  const histogram = await startDelayMonitor(eldMonitor)
  const started = performance.now()
  const onFirst = () => {
    firstLineMs ??= performance.now() - started
  }
  let lines
  try {
    ;({ lines } = await contender.run(file, { lib, prepared, onFirst }))
  } catch (error) {
    // Deno's monitor is a timer: left running, it keeps the process alive past the failure.
    histogram?.disable()
    throw error
  }
  const totalMs = performance.now() - started
  const eldP99Ms = await stopDelayMonitor(histogram)
  const maxRssKiB = peakRssKiB()
  return { maxRssKiB, eldP99Ms, eldMonitor: eldMonitor ?? null, firstLineMs, totalMs, lines }
}

async function main([name, file]) {
  try {
    return await probe(name, file)
  } catch (error) {
    if (error instanceof NotApplicable) return { skipped: error.message }
    throw error
  }
}

process.stdout.write(`${JSON.stringify({ ...currentRuntime(), ...(await main(process.argv.slice(2))) })}\n`)
