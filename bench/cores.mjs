// The cores section of the benchmark (issue 23): more than one core on one file. fastlines'
// `countLines` in parts on several threads against one pass, `wc -l` and `grep -F -c`; and n
// worker_threads each reading one `share: [i, n]` of the file, with `batches()` and per line,
// against one reader in the main thread (core-readers.mjs). Each contender runs in a worker process
// per runtime × case (core-worker.mjs), twice: as it is, on every core, and pinned to one core
// (`taskset -c 0 <runtime> ...`), which gives each case's scaling on this machine. Every run's
// result is checked: line counts against the corpus (the count of `match` against the one-thread
// count), and the share readers' tallies against the one reader's. run.mjs calls runCoresSection
// and formatCoresSection; targets.mjs and readme.mjs read the rows.
import { execFile, spawnSync } from 'node:child_process'
import os from 'node:os'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { CORE_CASES, CORE_CASE_NAMES, CORE_CONTENDERS, CORE_CONTENDER_NAMES, readsCoreCase } from './core-readers.mjs'
import {
  contenderRows,
  formatAmount,
  formatCount,
  formatSize,
  joinRows,
  markdownTable,
  measureRows,
  measuredApart,
  medianOf,
  sectionRows,
} from './report.mjs'
import { cellLegend, inRuntimeOrder, runtimeLabel, wrongRuntime } from './runtimes.mjs'

const WORKER = fileURLToPath(new URL('./core-worker.mjs', import.meta.url))
const WORKER_TIMEOUT_MS = 10 * 60 * 1000
/** How the pinned runs start a worker: on core 0 alone, it and every thread and child it starts. */
export const PIN = ['taskset', '-c', '0']
const execFileAsync = promisify(execFile)

export { CORE_CASE_NAMES, CORE_CONTENDER_NAMES }

/** The last line a failed process wrote to stderr, or its error's first line. */
function failureOf(error) {
  const stderr = String(error.stderr ?? '')
    .trim()
    .split('\n')
    .filter(Boolean)
  return stderr[stderr.length - 1] ?? error.message.split('\n')[0]
}

/** Why pinned runs cannot be made here (`taskset` missing or refused), or undefined. */
export function pinProblem() {
  const child = spawnSync(PIN[0], [...PIN.slice(1), 'true'], { stdio: 'ignore' })
  if (child.error !== undefined) return `no ${PIN[0]} (${child.error.code ?? child.error.message})`
  if (child.status !== 0) return `\`${PIN.join(' ')} true\` exited with ${child.status ?? child.signal}`
  return undefined
}

/** Runs the worker, pinned to core 0 when `pinned`: `{ output }` or `{ error }`. */
async function runWorker(runtime, args, pinned) {
  const worker = [runtime.command, ...runtime.args, WORKER, ...args.map(String)]
  const [command, ...commandArgs] = pinned ? [...PIN, ...worker] : worker
  let stdout
  let failure
  try {
    ;({ stdout } = await execFileAsync(command, commandArgs, { timeout: WORKER_TIMEOUT_MS, maxBuffer: 1024 * 1024 }))
  } catch (error) {
    stdout = String(error.stdout ?? '')
    failure = failureOf(error)
  }
  let output
  try {
    output = JSON.parse(stdout)
  } catch {
    return { error: failure ?? `unreadable output: ${stdout.slice(0, 200)}` }
  }
  const wrong = wrongRuntime(output, runtime)
  if (wrong !== undefined) return { error: wrong }
  if (output.error !== undefined) return { error: output.error }
  return failure === undefined ? { output } : { error: failure }
}

/** A result as one string, to compare results. */
const key = (result) => JSON.stringify(result)

/** `8,000,000 lines`, and a tally's levels: `(DEBUG 2,000,000, ERROR 1,000,000, ...)`. */
export function describeResult(result) {
  if (result === undefined) return '?'
  const levels =
    result.levels === undefined
      ? ''
      : ` (${Object.entries(result.levels)
          .map(([level, count]) => `${level} ${formatCount(count)}`)
          .join(', ')})`
  return `${formatCount(result.lines)} lines${levels}`
}

/**
 * How runs disagree with what the case must give: each run's result must be the first run's, and
 * a whole-file count or tally must have the corpus's lines (and line lengths).
 */
function runProblems(runs, coreCase, corpus, label) {
  const problems = new Set()
  const [first] = runs
  for (const run of runs) {
    if (key(run.result) !== key(first.result)) {
      problems.add(`${label}runs disagree: ${describeResult(run.result)} after ${describeResult(first.result)}`)
    }
    const { lines, chars } = run.result
    if (coreCase.match === undefined && lines !== corpus.lines) {
      problems.add(`${label}${lines} lines, expected ${corpus.lines}`)
    } else if (chars !== undefined && chars !== corpus.chars) {
      problems.add(`${label}${chars} UTF-16 units in lines, expected ${corpus.chars}`)
    }
  }
  return [...problems]
}

/** A measurement's figures from the worker's output. */
function figures({ warmup, samples, capped, cpus }) {
  const times = samples.map((sample) => sample.ms)
  const sorted = times.toSorted((a, b) => a - b)
  return {
    runs: times.length,
    capped,
    median: medianOf(times),
    busy: medianOf(samples.map((sample) => sample.cpuMs / sample.ms)),
    busyRatios: samples.map((sample) => sample.cpuMs / sample.ms),
    min: sorted[0],
    max: sorted[sorted.length - 1],
    times,
    warmupMs: warmup.ms,
    cpus,
  }
}

/**
 * One contender on one case: its worker on every core, then pinned to core 0 (unless `pin`
 * says why it cannot be), the pinned figures under `pinned`. A pinned run that was not pinned
 * (more than one core available to it) is a problem, like a wrong count.
 */
async function measureContender(base, runtime, corpus, settings, pin) {
  const coreCase = CORE_CASES[base.case]
  const args = [base.case, base.contender, corpus.path, settings.runs, settings.slowRuns, settings.slowMs]
  const free = await runWorker(runtime, args, false)
  if (free.error !== undefined) return { ...base, error: free.error }
  const row = {
    ...base,
    ...figures(free.output),
    result: free.output.samples[0].result,
    problems: runProblems([free.output.warmup, ...free.output.samples], coreCase, corpus, ''),
  }
  if (pin !== undefined) return { ...row, pinned: { skipped: pin } }
  const pinned = await runWorker(runtime, args, true)
  if (pinned.error !== undefined) {
    return { ...row, pinned: { error: pinned.error }, problems: [...row.problems, `pinned: ${pinned.error}`] }
  }
  const runs = [pinned.output.warmup, ...pinned.output.samples]
  const problems = runProblems(runs, coreCase, corpus, 'pinned: ')
  if (key(runs[0].result) !== key(row.result)) {
    problems.push(`pinned: ${describeResult(runs[0].result)}, on every core ${describeResult(row.result)}`)
  }
  const { available } = pinned.output.cpus
  if (available !== undefined && available !== 1) {
    problems.push(`pinned: not pinned, ${available} cores available to it (allowed: ${pinned.output.cpus.allowed})`)
  }
  return { ...row, pinned: figures(pinned.output), problems: [...row.problems, ...problems] }
}

/**
 * A contender's row from its two passes (see report.mjs's inTwoPasses): their times and cores
 * busy, on every core and pinned; a pass whose pinned runs failed (or were skipped) gives its
 * `pinned` as it is.
 */
function joinCoreRows(first, second) {
  const row = joinFigures(first, second)
  if (row === second) return row
  const pinned = first.pinned.times === undefined ? first.pinned : joinFigures(first.pinned, second.pinned)
  return { ...row, pinned }
}

/** Two passes' figures (see figures()) as one. */
function joinFigures(first, second) {
  const joined = joinRows(first, second)
  if (joined === second) return joined
  const busyRatios = [...first.busyRatios, ...second.busyRatios]
  return { ...joined, busyRatios, busy: medianOf(busyRatios) }
}

/** Checks each row's result against the case's baseline's (measured first), when it was measured. */
function checkAgainstBaseline(rows, coreCase) {
  const baseline = rows.find((row) => row.contender === coreCase.baseline && row.result !== undefined)
  if (baseline === undefined) return
  for (const row of rows) {
    if (row === baseline || row.result === undefined) continue
    if (key(row.result) !== key(baseline.result)) {
      row.problems.push(`${describeResult(row.result)}, \`${coreCase.baseline}\` ${describeResult(baseline.result)}`)
    }
  }
}

/** The contenders of a case, in table order, the baseline first. */
function contendersOf(caseName, contenders) {
  const { baseline } = CORE_CASES[caseName]
  const ordered = [baseline, ...CORE_CONTENDER_NAMES.filter((name) => name !== baseline)]
  return ordered.filter((name) => contenders.includes(name) && readsCoreCase(name, caseName))
}

/**
 * Every selected contender on every selected case, per runtime, each on every core and pinned to
 * one; `onRows(rows, section)` after each runtime × case. Returns `{ corpus, bytes, lines, chars,
 * cores, pin, pinned, settings, rows }` (`pinned` false, with `pin` saying why, when `taskset`
 * cannot pin here).
 */
export async function runCoresSection({ runtimes, corpus, cases, contenders, settings, onRows }) {
  const pin = pinProblem()
  const section = {
    corpus: corpus.name,
    bytes: corpus.bytes,
    lines: corpus.lines,
    chars: corpus.chars,
    cores: os.availableParallelism(),
    pin: pin ?? PIN.join(' '),
    pinned: pin === undefined,
    settings,
    rows: [],
  }
  const measureGroup = async (runtime, caseName) => {
    const names = contendersOf(caseName, contenders)
    const rows = await contenderRows(
      runtime,
      'case',
      caseName,
      names,
      settings,
      (base, pass) => measureContender(base, runtime, corpus, pass, pin),
      joinCoreRows,
    )
    checkAgainstBaseline(rows, CORE_CASES[caseName])
    return rows
  }
  return measureRows({ section, runtimes, groups: cases, measureGroup, onRows })
}

const { failed, failures, row, ratio } = sectionRows('case', (caseName) => CORE_CASES[caseName].baseline)

/** The rows that failed or gave another result than expected. */
export const coresFailures = failures
/** A measured row without problems, for one runtime, case and contender. */
export const coresRow = row

/**
 * `other`'s median / `contender`'s on one runtime and case (the case's baseline unless told), if
 * both were measured; `{ ratio, row, base }`.
 */
export const coresRatio = ratio

/** How much faster a row ran on every core than pinned to one: pinned median / median. */
export function scalingOf(found) {
  return found?.pinned?.median === undefined ? undefined : found.pinned.median / found.median
}

/**
 * How many cores a row's process kept busy on every core: its CPU time over the run / the run's
 * time (the median of the runs'); undefined for a contender that works in another process
 * (`wc -l`, `grep`), whose CPU time its runtime's process does not see.
 */
export function busyOf(found) {
  return CORE_CONTENDERS[found.contender].library === undefined ? undefined : found.busy
}

/** The cases a section measured, in table order. */
export const casesOf = (section) => CORE_CASE_NAMES.filter((name) => section.rows.some((row) => row.case === name))

/** The contenders a section measured on a case, in table order. */
const measuredOn = (section, caseName) =>
  CORE_CONTENDER_NAMES.filter((name) => section.rows.some((row) => row.case === caseName && row.contender === name))

/** A case's table: a row per contender, per runtime its medians on every core and pinned, their ratio, and vs the baseline. */
function caseTable(section, caseName) {
  const rows = section.rows.filter((row) => row.case === caseName)
  const runtimes = inRuntimeOrder(rows.map((row) => row.runtime))
  const { baseline } = CORE_CASES[caseName]
  const columns = ['ms', 'cores busy', '1-core ms', '1-core / ms', `vs ${baseline}`]
  const body = measuredOn(section, caseName).map((name) => [
    name,
    ...runtimes.flatMap((runtime) => {
      const found = rows.find((candidate) => candidate.runtime === runtime && candidate.contender === name)
      const blank = (first) => [first, ...Array(columns.length - 1).fill('')]
      if (found === undefined) return blank('–')
      if (found.error !== undefined) return blank('ERROR')
      const mark = found.problems.length > 0 ? ' ✗' : found.capped ? ' †' : ''
      const { pinned } = found
      let pinnedCell = '–'
      if (pinned?.error !== undefined) pinnedCell = 'ERROR'
      else if (pinned?.skipped !== undefined) pinnedCell = 'n/a'
      else if (pinned?.median !== undefined) pinnedCell = `${formatAmount(pinned.median)}${pinned.capped ? ' †' : ''}`
      const scaling = scalingOf(found)
      const vs = coresRatio(section, runtime, caseName, name)
      const busy = busyOf(found)
      return [
        `${formatAmount(found.median)}${mark}`,
        busy === undefined ? '–' : formatAmount(busy),
        pinnedCell,
        scaling === undefined ? '–' : `${formatAmount(scaling)}x`,
        vs === undefined ? '–' : `${formatAmount(vs.ratio)}x`,
      ]
    }),
  ])
  const header = [
    'contender',
    ...runtimes.flatMap((runtime) => columns.map((column) => `${runtimeLabel(runtime)} ${column}`)),
  ]
  return markdownTable(header, body)
}

function verdict(section, caseName) {
  const rows = section.rows.filter((row) => row.case === caseName)
  const wrong = rows.filter(failed)
  if (wrong.length === 0) {
    const measured = rows.filter((row) => row.result !== undefined)
    const what = describeResult(measured[0]?.result)
    return `Results: all ${measured.length} contenders measured gave ${what}, on every core and pinned ✓`
  }
  const reasons = wrong.map(
    (found) => `- ${runtimeLabel(found.runtime)} · ${found.contender}: ${found.error ?? found.problems.join('; ')}`,
  )
  return ['**✗ RESULT MISMATCH OR FAILURE**', ...reasons].join('\n')
}

/** `pinned to one core with \`taskset -c 0\``, or why it was not. */
function pinLegend(section) {
  return section.pinned
    ? `1-core: the same worker started as \`${section.pin} <runtime> ...\`, pinned to one core with every thread and child process it starts`
    : `1-core: not measured (${section.pin})`
}

/** The cores section's tables, one per case, with their verdicts. */
export function formatCoresSection(section) {
  const { settings } = section
  const parts = [
    `## Cores: ${section.corpus} (${formatSize(section.bytes)}, ${formatCount(section.lines)} lines), ${section.cores} cores`,
    '',
    `Median ms of ${settings.runs} runs after a warm-up († ${settings.slowRuns} runs: the warm-up took over ` +
      `${settings.slowMs / 1000} s), in a worker process per runtime × case × contender. ${pinLegend(section)}; ` +
      "cores busy: the process's CPU time over a run (every thread) / the run's time, the median of the runs' (for " +
      "a contender in the runtime's process). 1-core / ms: the pinned median / the median on every core, what " +
      "the other cores give. vs X: X's median / " +
      "the contender's, on every core. Every run's result is checked: line counts against the corpus (the count " +
      "of `match` against the one-thread count), the share readers' tallies against the main-thread reader's.",
  ]
  for (const caseName of casesOf(section)) {
    parts.push('', `### ${caseName}: ${CORE_CASES[caseName].title}`, '')
    parts.push(caseTable(section, caseName), '', verdict(section, caseName))
  }
  const shown = CORE_CONTENDER_NAMES.filter((name) => section.rows.some((found) => found.contender === name))
  parts.push('', ...shown.map((name) => `- \`${name}\`: ${CORE_CONTENDERS[name].note}.`))
  return `${parts.join('\n')}\n`
}

/** The "Cores" part of the README summary: per case and contender, its ratio to the baseline, on every core and pinned. */
export function coresReadme(section) {
  const runtimes = inRuntimeOrder(section.rows.map((found) => found.runtime))
  const find = (runtime, caseName, name) =>
    section.rows.find(
      (candidate) => candidate.runtime === runtime && candidate.case === caseName && candidate.contender === name,
    )
  const cells = (caseName, name, value) =>
    runtimes
      .map((runtime) => {
        const found = find(runtime, caseName, name)
        if (found === undefined) return '–'
        if (failed(found)) return 'ERROR'
        return value(found, runtime) ?? '–'
      })
      .join(' / ')
  const ms = (found) => formatAmount(found.median)
  const pinnedMs = (found) => (found.pinned?.median === undefined ? undefined : formatAmount(found.pinned.median))
  const vs = (found, runtime) => {
    const ratioFound = coresRatio(section, runtime, found.case, found.contender)
    return ratioFound === undefined ? undefined : `${formatAmount(ratioFound.ratio)}x`
  }
  const body = casesOf(section).flatMap((caseName) =>
    measuredOn(section, caseName).map((name) => [
      `\`${caseName}\``,
      `\`${name}\``,
      cells(caseName, name, ms),
      cells(caseName, name, pinnedMs),
      cells(caseName, name, vs),
    ]),
  )
  const agreed = coresFailures(section).length === 0 ? ' Every contender gave the same counts and tallies.' : ''
  return [
    '### Cores',
    `${measuredApart(section)}More than one core on ${section.corpus} (${formatSize(section.bytes)}), on ${section.cores} cores: median ms on ` +
      "every core, the same pinned to one core (`taskset -c 0`), and speed relative to the case's baseline " +
      '(`countLines` with `threads: 1`, or one reader in the main thread; its median / ours, higher is faster); ' +
      `${cellLegend(runtimes)}.${agreed}`,
    markdownTable(['case', 'contender', 'ms', '1-core ms', 'vs baseline'], body, { left: 2 }),
  ].join('\n\n')
}
