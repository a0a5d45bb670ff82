// Times one reader of a file's last lines (LAST_LINES in followers.mjs) in the runtime running
// this script (Node, Bun or Deno), and prints, as one line of JSON, for each n: the times, how many
// lines it returned and a SHA-256 of them joined by `\n`, which the driver checks.
// Usage: <runtime> bench/last-lines-worker.mjs <contender> <file> <n,n,...> <runs> <slow-runs>
// A contender marked `slow` (it reads the whole file) runs <slow-runs> times, without a warm-up,
// once for the largest n: its time does not depend on n, and the smaller n's lines are the end of
// those. The others run WARMUP_RUNS times untimed, then <runs> times, for each n.
import { createHash } from 'node:crypto'
import { LAST_LINES, loadLibrary } from './followers.mjs'
import { currentRuntime } from './runtimes.mjs'

const WARMUP_RUNS = 3

const digest = (lines) => createHash('sha256').update(lines.join('\n')).digest('hex')

async function timeRuns(contender, file, n, runs, lib) {
  const times = []
  let lines
  for (let i = 0; i < runs; i++) {
    const started = performance.now()
    lines = await contender.run(file, n, { lib })
    times.push(performance.now() - started)
  }
  return { times, lines }
}

async function main([name, file, ns, runs, slowRuns]) {
  const contender = LAST_LINES[name]
  if (contender === undefined) throw new Error(`unknown contender: ${name}`)
  const counts = ns.split(',').map(Number)
  const lib = await loadLibrary(contender)
  const results = []
  if (contender.slow) {
    const { times, lines } = await timeRuns(contender, file, Math.max(...counts), Number(slowRuns), lib)
    for (const n of counts) {
      const last = n === 0 ? [] : lines.slice(-n)
      results.push({ n, times, lines: last.length, sha256: digest(last), shared: true })
    }
  } else {
    for (const n of counts) {
      await timeRuns(contender, file, n, WARMUP_RUNS, lib)
      const { times, lines } = await timeRuns(contender, file, n, Number(runs), lib)
      results.push({ n, times, lines: lines.length, sha256: digest(lines) })
    }
  }
  return { ...currentRuntime(), contender: name, results }
}

/** A failure as one line: the error's code, if it has one, and message. */
const describe = (error) => (error.code === undefined ? error.message : `${error.code}: ${error.message}`)

process.stdout.write(
  `${JSON.stringify(await main(process.argv.slice(2)).catch((error) => ({ error: describe(error) })))}\n`,
)
