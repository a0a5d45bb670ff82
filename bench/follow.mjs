// The follow section of the benchmark (issue 11): how soon a follower hands JS a line appended by
// another process, what it costs while nothing is written, whether it loses or repeats lines
// under a flood of writes and across log rotations, and how fast the last lines of a large file
// are read. Each follower runs in a worker process of its own (follow-worker.mjs) against a writer
// process (follow-writer.mjs, always Node); the last-lines readers in last-lines-worker.mjs.
// run.mjs calls runFollowSection; see bench/README.md, "Following".
import { execFile, spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { FOLLOWERS, HELLO, LAST_LINES, lineText } from './followers.mjs'
import { progress } from './progress.mjs'

const FOLLOW_WORKER = fileURLToPath(new URL('./follow-worker.mjs', import.meta.url))
const LAST_LINES_WORKER = fileURLToPath(new URL('./last-lines-worker.mjs', import.meta.url))
const WRITER = fileURLToPath(new URL('./follow-writer.mjs', import.meta.url))

/**
 * The parts of the follow section, in run order; `no-loss`, `rename` and `copytruncate` flood;
 * `neighbour` writes to another file in the followed file's directory.
 */
export const FOLLOW_PARTS = ['latency', 'idle', 'neighbour', 'no-loss', 'rename', 'copytruncate', 'last-lines']
/** The rotation each flood part makes halfway through. */
export const ROTATIONS = { 'no-loss': 'none', rename: 'rename', copytruncate: 'copytruncate' }
export const FOLLOWER_NAMES = Object.keys(FOLLOWERS)

export const FOLLOW_SETTINGS = {
  /** latency: this many lines, one every intervalMs. */
  pacedLines: 1000,
  intervalMs: 5,
  /**
   * idle: how long the followers wait with nothing written, measured after idleSettleMs: start-up
   * leaves work behind that is not the follower's idle cost (V8's memory reducer collects the
   * start-up's garbage about 8 s after it, 5-20 ms of CPU time).
   */
  idleMs: 10_000,
  idleSettleMs: 10_000,
  /**
   * neighbour: this many lines written to another file of the followed file's directory, one
   * every neighbourIntervalMs (10,000 a second), after idleSettleMs.
   */
  neighbourLines: 50_000,
  neighbourIntervalMs: 0.1,
  /** no loss: this many lines, as fast as the writer can. */
  floodLines: 1_000_000,
  /** How long after the writer finished a follower is given to catch up before it is stopped. */
  catchUpMs: 5000,
  /** readLastLines: the n measured, the runs of the fast readers and of those reading it all. */
  lastLines: [10, 1000],
  lastLinesRuns: 30,
  lastLinesSlowRuns: 3,
}

/** How often the driver appends a `hello` line until the follower says it saw one. */
const HELLO_MS = 50
const START_TIMEOUT_MS = 20_000
const READY_TIMEOUT_MS = 20_000
/** How long a worker may take to report once told `done`, beyond the catch-up time. */
const REPORT_TIMEOUT_MS = 30_000
const EXIT_TIMEOUT_MS = 5000
const WRITER_TIMEOUT_MS = 5 * 60 * 1000
const execFileAsync = promisify(execFile)

/** A worker process spoken to in lines (see follow-worker.mjs). */
class Worker {
  #lines = []
  #waiters = new Set()
  #exit = undefined

  constructor(command, args) {
    this.child = spawn(command, args.map(String), { stdio: ['pipe', 'pipe', 'inherit'] })
    this.child.stdin.on('error', () => {})
    this.exited = new Promise((resolve) => {
      this.child.on('close', (code, signal) => {
        this.#exit = signal === null ? `exited with ${code}` : `killed by ${signal}`
        this.#wake()
        resolve({ code, signal })
      })
      this.child.on('error', (error) => {
        this.#exit = error.message
        this.#wake()
        resolve({ error })
      })
    })
    readline.createInterface({ input: this.child.stdout }).on('line', (line) => {
      this.#lines.push(line)
      this.#wake()
    })
  }

  #wake() {
    for (const waiter of this.#waiters) waiter()
  }

  /** The first line `match` accepts (the lines before it are dropped); rejects after `timeoutMs`. */
  next(match, timeoutMs, what) {
    return new Promise((resolve, reject) => {
      const settle = (error, line) => {
        clearTimeout(timer)
        this.#waiters.delete(look)
        if (error === undefined) resolve(line)
        else reject(error)
      }
      const look = () => {
        while (this.#lines.length > 0) {
          const line = this.#lines.shift()
          if (match(line)) return settle(undefined, line)
        }
        if (this.#exit !== undefined) settle(new Error(`${this.#exit} before it could ${what}`))
      }
      const timer = setTimeout(() => settle(new Error(`did not ${what} within ${timeoutMs / 1000} s`)), timeoutMs)
      this.#waiters.add(look)
      look()
    })
  }

  send(command) {
    this.child.stdin.write(`${command}\n`)
  }

  kill() {
    if (this.#exit === undefined) this.child.kill('SIGKILL')
  }
}

/** A fresh directory with an empty `app.log`; `remove()` deletes it. */
function scratchFile() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fastlines-follow-'))
  const file = path.join(dir, 'app.log')
  fs.writeFileSync(file, '')
  return { file, remove: () => fs.rmSync(dir, { recursive: true, force: true }) }
}

/**
 * Starts a follower's worker and waits until it follows `file`: it starts at the file's end, so
 * the driver appends a `hello` line every HELLO_MS until the worker says one arrived.
 */
async function startFollower(runtime, follower, file, count, scenario, settings) {
  const args = [FOLLOW_WORKER, follower, file, count, scenario, settings.catchUpMs]
  const worker = new Worker(runtime.command, [...runtime.args, ...args])
  worker.reportTimeoutMs = settings.catchUpMs + REPORT_TIMEOUT_MS
  try {
    const started = await worker.next(
      (line) => line === 'following' || line.startsWith('error '),
      START_TIMEOUT_MS,
      'start following',
    )
    if (started !== 'following') throw new Error(started.slice('error '.length))
    let ready = false
    const seen = worker.next((line) => line === 'ready', READY_TIMEOUT_MS, `see a ${HELLO} line`)
    seen.then(
      () => (ready = true),
      () => (ready = true),
    )
    while (!ready) {
      fs.appendFileSync(file, `${HELLO}\n`)
      await Promise.race([sleep(HELLO_MS), seen.catch(() => {})])
    }
    await seen
    return worker
  } catch (error) {
    worker.kill()
    throw error
  }
}

/** Sends a command and waits for the worker to acknowledge it. */
async function command(worker, name) {
  const acknowledged = worker.next((line) => line === `ack ${name}`, START_TIMEOUT_MS, `acknowledge ${name}`)
  worker.send(name)
  await acknowledged
}

/** Takes the worker's report, once told `done`; notes a worker that does not exit after it. */
async function report(worker) {
  const result = JSON.parse(await worker.next((line) => line.startsWith('{'), worker.reportTimeoutMs, 'report'))
  const exit = await Promise.race([worker.exited, sleep(EXIT_TIMEOUT_MS, undefined, { ref: false })])
  if (exit === undefined) {
    worker.kill()
    result.errors.push(`the process did not exit within ${EXIT_TIMEOUT_MS / 1000} s of its report: killed`)
    result.errorCount++
    result.hung = true
  }
  return result
}

async function runWriter(args) {
  try {
    const { stdout } = await execFileAsync(process.execPath, [WRITER, ...args.map(String)], {
      timeout: WRITER_TIMEOUT_MS,
      maxBuffer: 64 * 1024 * 1024,
    })
    return JSON.parse(stdout)
  } catch (error) {
    throw new Error(`writer: ${processError(error)}`)
  }
}

/** Runs `body(worker, file)` against a started follower in a scratch file; `{ error }` if it fails. */
async function withFollower(runtime, follower, count, scenario, settings, body) {
  const scratch = scratchFile()
  let worker
  try {
    worker = await startFollower(runtime, follower, scratch.file, count, scenario, settings)
    return await body(worker, scratch.file)
  } catch (error) {
    worker?.kill()
    return { error: error.message }
  } finally {
    await worker?.exited
    scratch.remove()
  }
}

function percentile(sorted, fraction) {
  return sorted[Math.max(0, Math.ceil(fraction * sorted.length) - 1)]
}

const lineProblems = ({ duplicates, outOfOrder, garbled }) => ({ duplicates, outOfOrder, garbled })
const followerErrors = ({ errorCount, errors, hung }) => ({ errorCount, errors, hung: hung === true })

/** Latency: one line every intervalMs; each arrival minus the return of its write. */
async function measureLatency(runtime, follower, settings) {
  const { pacedLines: count, intervalMs } = settings
  const base = { runtime: runtime.name, version: runtime.version, follower, count }
  const outcome = await withFollower(runtime, follower, count, 'paced', settings, async (worker, file) => {
    const writer = await runWriter(['paced', file, count, intervalMs])
    await command(worker, 'done')
    return { writer, result: await report(worker) }
  })
  if (outcome.error !== undefined) return { ...base, error: outcome.error }
  const { writer, result } = outcome
  const latencies = []
  result.arrivals.forEach((arrival, seq) => {
    if (arrival !== null) latencies.push((arrival - writer.returns[seq]) / 1e6)
  })
  const sorted = latencies.toSorted((a, b) => a - b)
  return {
    ...base,
    received: result.distinct,
    lost: count - result.distinct,
    ...lineProblems(result),
    median: sorted.length === 0 ? null : percentile(sorted, 0.5),
    p99: sorted.length === 0 ? null : percentile(sorted, 0.99),
    max: sorted.length === 0 ? null : sorted[sorted.length - 1],
    min: sorted.length === 0 ? null : sorted[0],
    cpuMs: result.cpuMs.readyToDone,
    ...followerErrors(result),
    latencies,
  }
}

/** Runs `step(run)` for each run without an error, at once; a step that fails sets its error. */
async function eachRun(runs, step) {
  const pending = runs.filter((run) => run.error === undefined)
  const outcomes = await Promise.allSettled(pending.map(step))
  outcomes.forEach((outcome, i) => {
    if (outcome.status === 'fulfilled') return
    pending[i].error = outcome.reason.message
    pending[i].worker?.kill()
  })
}

/**
 * Idle: every follower at once, each on its own file, for idleMs with nothing written, after
 * idleSettleMs; then one line each, to show it still follows. Idle followers do not disturb each
 * other's CPU time.
 */
async function measureIdle(runtime, followers, settings) {
  const runs = followers.map((follower) => ({ follower, scratch: scratchFile() }))
  try {
    await eachRun(runs, async (run) => {
      const count = FOLLOWERS[run.follower].floor ? 0 : 1
      run.worker = await startFollower(runtime, run.follower, run.scratch.file, count, 'idle', settings)
    })
    await sleep(settings.idleSettleMs)
    await eachRun(runs, (run) => command(run.worker, 'mark'))
    const idleStart = performance.now()
    await sleep(settings.idleMs)
    await eachRun(runs, (run) => command(run.worker, 'done'))
    const wallMs = performance.now() - idleStart
    for (const run of runs) if (run.error === undefined) fs.appendFileSync(run.scratch.file, lineText(0))
    await eachRun(runs, async (run) => {
      run.result = await report(run.worker)
    })
    return runs.map(({ follower, result, error }) => {
      const base = { runtime: runtime.name, version: runtime.version, follower, idleMs: settings.idleMs }
      if (error !== undefined) return { ...base, error }
      const stillFollows = FOLLOWERS[follower].floor ? null : result.distinct === 1
      return { ...base, wallMs, cpuMs: result.cpuMs.idle, stillFollows, ...followerErrors(result) }
    })
  } finally {
    for (const run of runs) {
      run.worker?.kill()
      await run.worker?.exited
      run.scratch.remove()
    }
  }
}

/**
 * Neighbour: every follower at once, each on its own file of one directory, while a writer
 * appends neighbourLines lines to another file there, paced (after idleSettleMs, as for idle).
 * What a follower does for writes that are not to its file is its whole cost here.
 */
async function measureNeighbour(runtime, followers, settings) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fastlines-neighbour-'))
  const neighbour = path.join(dir, 'other.log')
  const runs = followers.map((follower) => ({ follower, file: path.join(dir, `${follower}.log`) }))
  try {
    for (const run of runs) fs.writeFileSync(run.file, '')
    await eachRun(runs, async (run) => {
      const count = FOLLOWERS[run.follower].floor ? 0 : 1
      run.worker = await startFollower(runtime, run.follower, run.file, count, 'idle', settings)
    })
    await sleep(settings.idleSettleMs)
    await eachRun(runs, (run) => command(run.worker, 'mark'))
    const started = performance.now()
    const writer = await runWriter(['paced', neighbour, settings.neighbourLines, settings.neighbourIntervalMs])
    const wallMs = performance.now() - started
    await eachRun(runs, (run) => command(run.worker, 'done'))
    for (const run of runs) if (run.error === undefined) fs.appendFileSync(run.file, lineText(0))
    await eachRun(runs, async (run) => {
      run.result = await report(run.worker)
    })
    const writesPerSecond = settings.neighbourLines / ((writer.endNs - writer.returns[0]) / 1e9)
    return runs.map(({ follower, result, error }) => {
      const base = { runtime: runtime.name, version: runtime.version, follower, writes: settings.neighbourLines }
      if (error !== undefined) return { ...base, error }
      const stillFollows = FOLLOWERS[follower].floor ? null : result.distinct === 1
      return { ...base, wallMs, writesPerSecond, cpuMs: result.cpuMs.idle, stillFollows, ...followerErrors(result) }
    })
  } finally {
    for (const run of runs) {
      run.worker?.kill()
      await run.worker?.exited
    }
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/** No loss: floodLines lines as fast as the writer can, rotated halfway as `part` says. */
async function measureFlood(runtime, follower, part, settings) {
  const count = settings.floodLines
  const rotation = ROTATIONS[part]
  const base = { runtime: runtime.name, version: runtime.version, follower, part, rotation, count }
  const outcome = await withFollower(runtime, follower, count, 'flood', settings, async (worker, file) => {
    const writer = await runWriter(['flood', file, count, rotation])
    await command(worker, 'done')
    return { writer, result: await report(worker) }
  })
  if (outcome.error !== undefined) return { ...base, error: outcome.error }
  const { writer, result } = outcome
  const gotLast = result.finalArrivalNs !== null
  return {
    ...base,
    received: result.distinct,
    lost: count - result.distinct,
    ...lineProblems(result),
    lines: result.lines,
    writerMs: (writer.endNs - writer.startNs) / 1e6,
    lagMs: gotLast ? (result.finalArrivalNs - writer.endNs) / 1e6 : null,
    gotLast,
    timedOut: result.timedOut,
    cpuMs: FOLLOWERS[follower].native ? result.cpuMs.child : result.cpuMs.readyToEnd,
    ...followerErrors(result),
  }
}

/** The last `n` lines of a file that ends with `\n` and holds no `\r`, read from its end. */
function expectedLastLines(file, n) {
  const size = fs.statSync(file).size
  let length = 64 * 1024
  for (;;) {
    const start = Math.max(0, size - length)
    const buffer = Buffer.alloc(size - start)
    const fd = fs.openSync(file, 'r')
    fs.readSync(fd, buffer, 0, buffer.length, start)
    fs.closeSync(fd)
    const lines = buffer.toString('utf8').split('\n')
    lines.pop()
    if (start > 0) lines.shift()
    if (lines.length >= n || start === 0) return lines.slice(Math.max(0, lines.length - n))
    length *= 4
  }
}

/** What an execFile failure says: the last line of the process's stderr, or its message. */
function processError(error) {
  const stderr = String(error.stderr ?? '')
    .trim()
    .split('\n')
  const last = stderr[stderr.length - 1]
  return last === undefined || last === '' ? error.message.split('\n')[0] : last
}

const digest = (lines) => createHash('sha256').update(lines.join('\n')).digest('hex')

/** readLastLines and the others on the corpus: one worker per contender; lines checked. */
async function measureLastLines(runtime, corpus, settings) {
  const { lastLines: counts, lastLinesRuns, lastLinesSlowRuns } = settings
  const expected = new Map(counts.map((n) => [n, digest(expectedLastLines(corpus.path, n))]))
  const rows = []
  for (const contender of Object.keys(LAST_LINES)) {
    const base = {
      runtime: runtime.name,
      version: runtime.version,
      corpus: corpus.name,
      bytes: corpus.bytes,
      contender,
    }
    const args = [LAST_LINES_WORKER, contender, corpus.path, counts.join(','), lastLinesRuns, lastLinesSlowRuns]
    let output
    try {
      const { stdout } = await execFileAsync(runtime.command, [...runtime.args, ...args], {
        timeout: WRITER_TIMEOUT_MS,
        maxBuffer: 64 * 1024 * 1024,
      })
      output = JSON.parse(stdout)
      if (output.error !== undefined) throw new Error(output.error)
    } catch (error) {
      rows.push(...counts.map((n) => ({ ...base, n, error: processError(error) })))
      continue
    }
    for (const { n, times, lines, sha256, shared } of output.results) {
      const sorted = times.toSorted((a, b) => a - b)
      rows.push({
        ...base,
        n,
        runs: times.length,
        median: percentile(sorted, 0.5),
        min: sorted[0],
        max: sorted[sorted.length - 1],
        times,
        lines,
        same: sha256 === expected.get(n),
        shared: shared === true,
      })
    }
  }
  return rows
}

/**
 * The followers that run in `scenario` (and flood `part`) on `runtime`: a native one only once, on
 * `nativeRuntime`.
 */
function followersFor(followers, scenario, runtime, nativeRuntime, part) {
  return followers.filter((name) => {
    const { only, parts, native } = FOLLOWERS[name]
    if (only !== undefined && !only.includes(scenario)) return false
    if (parts !== undefined && part !== undefined && !parts.includes(part)) return false
    return !native || runtime === nativeRuntime
  })
}

/**
 * Runs the selected parts of the follow section on each runtime, in order; `onRows(kind, rows)`
 * is called after each measurement (to report progress and save the results so far). Returns
 * `{ settings, writer, latency, idle, neighbour, flood, lastLines }`.
 */
export async function runFollowSection({ runtimes, followers, parts, corpus, settings = FOLLOW_SETTINGS, onRows }) {
  const results = {
    startedAt: new Date().toISOString(),
    settings,
    parts,
    writer: { runtime: 'node', version: process.versions.node },
    latency: [],
    idle: [],
    neighbour: [],
    flood: [],
    lastLines: [],
  }
  const add = (kind, rows) => {
    results[kind].push(...rows)
    onRows?.(kind, rows, results)
  }
  const nativeRuntime = runtimes.find((runtime) => runtime.name === 'node') ?? runtimes[0]
  for (const runtime of runtimes) {
    const select = (scenario, part) => followersFor(followers, scenario, runtime, nativeRuntime, part)
    const step = (what) => progress.step(`${runtime.name} · ${what}`)
    if (parts.includes('latency')) {
      for (const follower of select('paced')) {
        step(`latency · ${follower}`)
        add('latency', [await measureLatency(runtime, follower, settings)])
      }
    }
    if (parts.includes('idle') && select('idle').length > 0) {
      step('idle')
      add('idle', await measureIdle(runtime, select('idle'), settings))
    }
    if (parts.includes('neighbour') && select('idle').length > 0) {
      step('neighbour')
      add('neighbour', await measureNeighbour(runtime, select('idle'), settings))
    }
    for (const part of Object.keys(ROTATIONS).filter((name) => parts.includes(name))) {
      for (const follower of select('flood', part)) {
        step(`${part} · ${follower}`)
        add('flood', [await measureFlood(runtime, follower, part, settings)])
      }
    }
    if (parts.includes('last-lines') && corpus !== undefined) {
      step('last lines')
      add('lastLines', await measureLastLines(runtime, corpus, settings))
    }
  }
  return results
}
