// Follows one file with one follower (followers.mjs) in the runtime running this script (Node, Bun or
// Deno), tallies the numbered lines that arrive, and prints what it saw as one line of JSON.
// Usage: <runtime> bench/follow-worker.mjs <follower> <file> <count> <paced|idle|flood> <catch-up-ms>
//
// It talks to the driver (follow.mjs) in lines. On stdout: `following` once the follower has
// started; `ready` when the first `hello` line arrives (the driver appends one every 50 ms until
// then: the follower starts at the file's end, as users start it, so this is how the driver knows
// it is following); `ack <command>` for each command; then the JSON. On stdin: `mark` (the idle
// measurement starts) and `done` (the writer has finished). After `done` it stops the follower
// once the last line, number <count> - 1, arrived SETTLE_MS ago (duplicates would still show), or
// once no line arrived for QUIET_MS (lines were lost), or <catch-up-ms> after `done` at the latest.
//
// `paced` records when each line arrives on the clock of clock.mjs; `flood` only when the last
// line (number <count> - 1) first did; `idle` reports the CPU time from `mark` to `done`. Each also reports the CPU time from
// `ready` to `done`, and from `ready` to the end; `process.cpuUsage()` counts every thread of the
// process, fastlines' native threads too. `tail -F`'s own CPU time is reported as `child`.
import readline from 'node:readline'
import { fromPerformanceNow, monotonicNs } from './clock.mjs'
import { FOLLOWERS, HELLO, lineNumber, loadLibrary } from './followers.mjs'
import { currentRuntime } from './runtimes.mjs'

const SETTLE_MS = 300
const QUIET_MS = 3000
const CHECK_MS = 100
/** How long stopping the follower may take before the worker reports without waiting for it. */
const STOP_MS = 5000
/** Error messages kept in the output, of all that are counted. */
const KEPT_ERRORS = 20

const say = (text) => process.stdout.write(`${text}\n`)
const describe = (error) => (error.code === undefined ? error.message : `${error.code}: ${error.message}`)
const cpuMs = (usage) => (usage.user + usage.system) / 1000

/** The tally of the numbered lines that arrived. */
class Tally {
  lines = 0
  distinct = 0
  duplicates = 0
  outOfOrder = 0
  garbled = 0
  hellos = 0
  maxSeq = -1
  lastSeq = -1
  lastAt = undefined
  /** When the last line, number count - 1, first arrived (performance.now()). */
  finalAt = undefined
  #seen
  #arrivals

  constructor(count, recordArrivals) {
    this.#seen = new Uint8Array(count)
    this.#arrivals = recordArrivals ? new Array(count).fill(null) : undefined
  }

  add(line) {
    const seq = lineNumber(line)
    this.lastAt = performance.now()
    if (seq === undefined || seq >= this.#seen.length) {
      if (line === HELLO) this.hellos++
      else this.garbled++
      return
    }
    this.lines++
    if (this.#arrivals !== undefined) this.#arrivals[seq] ??= monotonicNs()
    if (this.#seen[seq] === 1) {
      this.duplicates++
    } else {
      this.#seen[seq] = 1
      this.distinct++
      if (seq < this.maxSeq) this.outOfOrder++
    }
    if (seq > this.maxSeq) this.maxSeq = seq
    if (seq === this.#seen.length - 1) this.finalAt ??= this.lastAt
    this.lastSeq = seq
  }

  toJSON() {
    const { lines, distinct, duplicates, outOfOrder, garbled, hellos, maxSeq, lastSeq } = this
    const finalArrivalNs = this.finalAt === undefined ? null : fromPerformanceNow(this.finalAt)
    return {
      lines,
      distinct,
      duplicates,
      outOfOrder,
      garbled,
      hellos,
      maxSeq,
      lastSeq,
      finalArrivalNs,
      arrivals: this.#arrivals,
    }
  }
}

/** Stops the follower; a stop that fails or takes over STOP_MS is reported as an error. */
async function stop(following, onError) {
  let timer
  const late = new Promise((resolve) => {
    timer = setTimeout(() => resolve('late'), STOP_MS)
  })
  try {
    const stopped = await Promise.race([following.stop(), late])
    if (stopped === 'late') onError(`stop did not settle within ${STOP_MS / 1000} s`)
    return stopped === 'late' ? undefined : stopped
  } catch (error) {
    onError(`stop: ${describe(error)}`)
    return undefined
  } finally {
    clearTimeout(timer)
  }
}

async function main([name, file, countArg, scenario, catchUpMs]) {
  const follower = FOLLOWERS[name]
  if (follower === undefined) throw new Error(`unknown follower: ${name}`)
  const count = Number(countArg)
  const tally = new Tally(count, scenario === 'paced')
  const errors = []
  let errorCount = 0
  const cpu = {}
  let ready = false
  let doneAt

  const onError = (message) => {
    errorCount++
    if (errors.length < KEPT_ERRORS) errors.push(message)
  }
  const onLine = (line) => {
    if (ready) return tally.add(line)
    if (line !== HELLO) return tally.add(line)
    ready = true
    cpu.ready = process.cpuUsage()
    say('ready')
  }

  let following
  try {
    const lib = await loadLibrary(follower)
    following = await follower.follow(file, { lib, onLine, onError })
  } catch (error) {
    say(`error ${describe(error)}`)
    return undefined
  }
  say('following')

  const finished = new Promise((resolve) => {
    const commands = readline.createInterface({ input: process.stdin })
    let timer
    const finish = async (timedOut) => {
      clearInterval(timer)
      commands.close()
      process.stdin.destroy()
      const stopped = await stop(following, onError)
      cpu.end = process.cpuUsage()
      resolve({ timedOut, childCpuMs: stopped?.childCpuMs ?? null })
    }
    const check = () => {
      const now = performance.now()
      if (now - doneAt >= Number(catchUpMs)) return finish(true)
      const sinceLine = now - Math.max(doneAt, tally.lastAt ?? doneAt)
      if (sinceLine >= (tally.maxSeq === count - 1 ? SETTLE_MS : QUIET_MS)) finish(false)
    }
    commands.on('line', (command) => {
      if (command === 'mark') {
        cpu.mark = process.cpuUsage()
      } else if (command === 'done' && doneAt === undefined) {
        cpu.done = process.cpuUsage()
        doneAt = performance.now()
        timer = setInterval(check, CHECK_MS)
      }
      say(`ack ${command}`)
    })
  })
  const { timedOut, childCpuMs } = await finished

  const between = (from, to) => (cpu[from] && cpu[to] ? cpuMs(cpu[to]) - cpuMs(cpu[from]) : null)
  return {
    ...currentRuntime(),
    follower: name,
    scenario,
    count,
    ...tally.toJSON(),
    cpuMs: {
      idle: between('mark', 'done'),
      readyToDone: between('ready', 'done'),
      readyToEnd: between('ready', 'end'),
      child: childCpuMs,
    },
    timedOut,
    errorCount,
    errors,
  }
}

const result = await main(process.argv.slice(2))
if (result !== undefined) say(JSON.stringify(result))
