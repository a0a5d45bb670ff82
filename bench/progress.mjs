// What a benchmark run is doing, on stderr: the part (the corpora or a section), the runtime and
// contender being measured, the time elapsed and an estimate of what is left. On a terminal it is
// one live line under the finished rows, redrawn every second; otherwise a plain line as each
// measurement starts. The estimate comes from the last run's figures (each part's time, or its
// rows' medians), scaled by how this run compares with them so far.
// run.mjs plans the parts and reports the rows; the sections' loops say what they start.

/** The status line is redrawn this often on a terminal (a clock for the eye; nothing waits on it). */
const REDRAW_MS = 1000
/** A part with no figures from an earlier run: assumed to take this long a runtime. */
const UNKNOWN_PART_MS = 60_000
/** How much estimated time the correction of the estimate needs before it counts for half. */
const SCALE_DAMPING_MS = 20_000
/** Starting a worker process, loading its packages, generating nothing: per measurement. */
const PROCESS_MS = 150

/** `ms` as `1 min 23 s` (or `42 s`). */
export function formatDuration(ms) {
  const seconds = Math.round(ms / 1000)
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`
}

/** What a measurement takes at `median` ms a run: a warm-up and `runs` runs, and a process start. */
export function measurementMs(median, runs) {
  return median * (runs + 1) + PROCESS_MS
}

/**
 * What an earlier run's section takes on `runtimes`: its recorded time (`recordedMs`, on
 * `recordedRuntimes` runtimes, scaled to this run's), if this run measures all of it; else
 * summed from the medians of its rows that this run measures again (`measures(row)`); else, or
 * when this run measures other data (`sameData` false: another corpus), UNKNOWN_PART_MS a runtime.
 */
export function sectionMs(section, recordedMs, runtimes, { measures, recordedRuntimes, sameData = true } = {}) {
  if (!sameData) return UNKNOWN_PART_MS * runtimes.length
  if (recordedMs !== undefined && measures === undefined) {
    return recordedRuntimes > 0 ? (recordedMs * runtimes.length) / recordedRuntimes : recordedMs
  }
  const rows = (section?.rows ?? []).filter(
    (row) => runtimes.includes(row.runtime) && row.median !== undefined && (measures?.(row) ?? true),
  )
  const total = rows.reduce((sum, row) => sum + measurementMs(row.median, row.runs ?? 1), 0)
  return total > 0 ? total : UNKNOWN_PART_MS * runtimes.length
}

class Progress {
  #stream = process.stderr
  #live = false
  #timer = null
  #started = 0
  /** The parts planned, in order: `{ name, estimateMs }`, with `startedAt`/`endedAt` once run. */
  #parts = []
  #current = null
  /** What is being measured now, in the current part. */
  #step = ''

  /** Starts reporting a run of `parts` (`{ name, estimateMs }`). Live on a terminal. */
  begin(parts, stream = process.stderr) {
    this.#stream = stream
    this.#live = stream.isTTY === true
    this.#started = performance.now()
    this.#parts = parts.map((part) => ({ ...part }))
    if (this.#live) {
      this.#timer = setInterval(() => this.#draw(), REDRAW_MS)
      this.#timer.unref()
    }
  }

  /** The part `name` starts (ending the one before it). */
  part(name) {
    const now = performance.now()
    if (this.#current !== null) this.#current.endedAt = now
    this.#current = this.#parts.find((part) => part.name === name) ?? null
    if (this.#current !== null) this.#current.startedAt = now
    this.#step = ''
    if (this.#live) this.#draw()
    else if (this.#current !== null) this.#stream.write(`[${this.#status()}]\n`)
  }

  /** A measurement starts: `what` names it (`readline`, `node · ERROR · fastlines-count`). */
  step(what) {
    this.#step = what
    if (this.#live) this.#draw()
  }

  /** Writes a finished row's line (or any line) above the status line. */
  log(line) {
    if (this.#live) this.#stream.write('\r\x1b[K')
    this.#stream.write(line.endsWith('\n') ? line : `${line}\n`)
    if (this.#live) this.#draw()
  }

  /** Prints `text` (a table) on stdout, the status line out of its way. */
  print(text) {
    if (this.#live) this.#stream.write('\r\x1b[K')
    process.stdout.write(`${text}\n`)
    if (this.#live) this.#draw()
  }

  /** Stops reporting; returns how long each part took, by name, for the results. */
  end() {
    if (this.#current !== null) this.#current.endedAt = performance.now()
    this.#current = null
    if (this.#timer !== null) clearInterval(this.#timer)
    this.#timer = null
    if (this.#live) this.#stream.write('\r\x1b[K')
    return Object.fromEntries(
      this.#parts
        .filter((part) => part.endedAt !== undefined)
        .map((part) => [part.name, part.endedAt - part.startedAt]),
    )
  }

  /** `part · what · 1 min 2 s elapsed · ~3 min left`. */
  #status() {
    const now = performance.now()
    const left = this.#leftMs(now)
    const where = [this.#current?.name, this.#step].filter(Boolean).join(' · ')
    const estimate = left === undefined ? '' : ` · ~${formatDuration(left)} left`
    return `${where} · ${formatDuration(now - this.#started)} elapsed${estimate}`
  }

  /**
   * What is left: the current part's estimate less the time it has run (at most 95% of it), and
   * the parts after it, all scaled by how long the finished parts took against their estimates.
   */
  #leftMs(now) {
    if (this.#current === null) return undefined
    let estimatedDone = 0
    let tookDone = 0
    for (const part of this.#parts) {
      if (part.endedAt === undefined) continue
      estimatedDone += part.estimateMs
      tookDone += part.endedAt - part.startedAt
    }
    const current = this.#current
    const inCurrent = now - current.startedAt
    const shareDone = Math.min(inCurrent / Math.max(current.estimateMs, 1), 0.95)
    if (shareDone > 0) {
      estimatedDone += current.estimateMs * shareDone
      tookDone += inCurrent
    }
    // Damped: the first parts are small, and one slow process among them says little of the rest.
    const scale = (tookDone + SCALE_DAMPING_MS) / (estimatedDone + SCALE_DAMPING_MS)
    const after = this.#parts.slice(this.#parts.indexOf(current) + 1)
    const planned = current.estimateMs * (1 - shareDone) + after.reduce((sum, part) => sum + part.estimateMs, 0)
    return Math.max(0, planned * scale)
  }

  #draw() {
    if (this.#current === null) return
    const columns = this.#stream.columns ?? 100
    this.#stream.write(`\r\x1b[K${this.#status().slice(0, columns - 1)}`)
  }
}

/** The run's progress: run.mjs begins and ends it; the sections' loops report their steps. */
export const progress = new Progress()
