// The sources section of the benchmark (issue 20): reading the lines of a source that is not a
// path (process.stdin, a child's stdout, a file stream, chunks fed from JS as an async generator or
// a web ReadableStream, a gzip file stream, a producer flushing a line per chunk), by fastlines'
// `readLines(source)` and by what users do without it (source-readers.mjs). Each contender runs in
// a worker process per runtime × case (source-worker.mjs); stdin's in a fresh process per run, fed
// by `cat`, which also gives each run's peak RSS. Every run's line count (and summed line lengths,
// where it sees lines) is checked against what the case fed. run.mjs calls runSourcesSection and
// formatSourcesSection; targets.mjs and readme.mjs read the rows.
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import {
  contenderRows,
  formatAmount,
  formatCount,
  formatSize,
  joinRows,
  kibToMB,
  markdownTable,
  measureRows,
  measuredApart,
  medianOf,
  sectionRows,
} from './report.mjs'
import { cellLegend, inRuntimeOrder, runtimeLabel, wrongRuntime } from './runtimes.mjs'
import {
  SMALL_CHUNKS_LIMIT_BYTES,
  SOURCE_CASES,
  SOURCE_CASE_NAMES,
  SOURCE_READERS,
  SOURCE_READER_NAMES,
  TRICKLE_CHUNKS,
  expectedFor,
  notApplicable,
  readsCase,
} from './source-readers.mjs'

const WORKER = fileURLToPath(new URL('./source-worker.mjs', import.meta.url))
const WORKER_TIMEOUT_MS = 10 * 60 * 1000
/** Idle processes per runtime, for the stdin case's peak RSS (as many as the probe's). */
const IDLE_RUNS = 3
const execFileAsync = promisify(execFile)

/** The contender every other is measured relative to; the JS-fed cases also against HAND_SPLIT. */
export const SOURCES_BASELINE = 'readline'
export const HAND_SPLIT = 'hand-split'
/** The JS-thread work left to any reader of line strings over JS-fed chunks (source-readers.mjs). */
export const SPLIT_FLOOR = 'split-floor'
/** The chunks of a source taken in JS, with no line made: what every reader fed from JS pays. */
export const RAW_CHUNKS = 'raw-chunks'
/** A stream's chunks taken in JS with the same text split alongside: the floor of batches over it. */
export const CHUNKS_SPLIT_FLOOR = 'chunks-split-floor'
export { SOURCE_CASE_NAMES, SOURCE_READER_NAMES }

/** The last line a failed process wrote to stderr, or its error's first line. */
function failureOf(error) {
  const stderr = String(error.stderr ?? '')
    .trim()
    .split('\n')
    .filter(Boolean)
  return stderr[stderr.length - 1] ?? error.message.split('\n')[0]
}

/**
 * Runs the worker `script` (this section's by default; the JSON Lines section's workers print the
 * same kind of line) with `args`, its stdin fed by `cat stdinFile` when given (bash with
 * `pipefail`): `{ output }`, `{ error }`, or `{ overMs }` when it was stopped after `limitMs`.
 * A worker that reports its own error (or skip) is believed before the exit status, which a
 * `cat` cut short by the worker's exit makes 141. With `stdinFile`, the output also has
 * `catCpuMs`, the CPU time `cat` took (bash's `time`), where it was measured.
 */
export async function runWorker(runtime, args, stdinFile, limitMs = WORKER_TIMEOUT_MS, script = WORKER) {
  const worker = [runtime.command, ...runtime.args, script, ...args.map(String)]
  const catTimes = stdinFile === undefined ? undefined : path.join(os.tmpdir(), `fastlines-cat-${process.pid}.txt`)
  const [command, commandArgs] =
    stdinFile === undefined
      ? [worker[0], worker.slice(1)]
      : ['bash', ['-c', CAT_INTO_WORKER, 'bash', stdinFile, catTimes, ...worker]]
  let stdout
  let failure
  try {
    ;({ stdout } = await execFileAsync(command, commandArgs, { timeout: limitMs, maxBuffer: 1024 * 1024 }))
  } catch (error) {
    if (error.killed && limitMs < WORKER_TIMEOUT_MS) return { overMs: limitMs }
    stdout = String(error.stdout ?? '')
    failure = failureOf(error)
  }
  // Read, and removed, whatever became of the worker.
  const cat = catTimes === undefined ? undefined : catCpuMs(catTimes)
  let output
  try {
    output = JSON.parse(stdout)
  } catch {
    return { error: failure ?? `unreadable output: ${stdout.slice(0, 200)}` }
  }
  const wrong = wrongRuntime(output, runtime)
  if (wrong !== undefined) return { error: wrong }
  if (output.error !== undefined || output.skipped !== undefined) return output
  if (catTimes !== undefined) output.catCpuMs = cat
  return failure === undefined ? { output } : { error: failure }
}

/**
 * `cat "$1" | "${@:3}"` with `pipefail`, and the CPU time `cat` took (user, then system, in
 * seconds) written by bash's `time` to the file `$2`, after anything `cat` said on stderr.
 */
const CAT_INTO_WORKER = 'set -o pipefail; TIMEFORMAT="%3U %3S"; { time cat -- "$1"; } 2>"$2" | "${@:3}"'

/** The CPU time `cat` took, in ms, from the file CAT_INTO_WORKER wrote; undefined if it is not there. */
function catCpuMs(file) {
  let text
  try {
    text = fs.readFileSync(file, 'utf8')
    fs.rmSync(file)
  } catch {
    return undefined
  }
  const last = text.trim().split('\n').at(-1) ?? ''
  const [user, system] = last.split(' ').map(Number)
  return Number.isFinite(user) && Number.isFinite(system) ? (user + system) * 1000 : undefined
}

/** How a case's runs disagree with what it fed: lines, and lengths where seen. */
function runProblems(runs, expected) {
  const problems = new Set()
  for (const run of runs) {
    if (run.lines !== expected.lines) problems.add(`${run.lines} lines, expected ${expected.lines}`)
    else if (run.chars !== undefined && run.chars !== expected.chars) {
      problems.add(`${run.chars} UTF-16 units in lines, expected ${expected.chars}`)
    }
  }
  return [...problems]
}

/** A measured row from the warm-up and the measured runs. */
function measuredRow(base, { warmup, samples, capped }, expected) {
  const times = samples.map((sample) => sample.ms)
  const sorted = times.toSorted((a, b) => a - b)
  return {
    ...base,
    runs: times.length,
    capped,
    median: medianOf(times),
    min: sorted[0],
    max: sorted[sorted.length - 1],
    times,
    warmupMs: warmup.ms,
    lines: samples[0].lines,
    chars: samples[0].chars,
    problems: runProblems([warmup, ...samples], expected),
  }
}

/** One contender on one case that a process can read many times: warm-up and runs in one worker. */
async function measureInWorker(base, runtime, corpus, expected, settings) {
  const args = [base.case, base.contender, corpus.path, settings.runs, settings.slowRuns, settings.slowMs]
  const { output, error, skipped, overMs } = await runWorker(runtime, args, undefined, SOURCE_CASES[base.case].limitMs)
  if (overMs !== undefined) return { ...base, overMs }
  if (error !== undefined) return { ...base, error }
  if (skipped !== undefined) return { ...base, skipped }
  return measuredRow(base, output, expected)
}

/**
 * One contender on the stdin case: a fresh `cat p | <runtime> worker` per run, the first a
 * warm-up whose figures are checked but not counted; capped like the others. Each run's peak RSS
 * is taken above the runtime's idle process (`idle.maxRssKiB`).
 */
async function measurePerProcess(base, runtime, corpus, expected, settings, idle) {
  const once = async () => {
    const args = [base.case, base.contender, corpus.path, 1, 1, 0]
    const { output, error, skipped } = await runWorker(runtime, args, corpus.path)
    if (error !== undefined || skipped !== undefined) return { error, skipped }
    return { sample: { ...output.samples[0], catCpuMs: output.catCpuMs } }
  }
  const first = await once()
  if (first.error !== undefined) return { ...base, error: first.error }
  if (first.skipped !== undefined) return { ...base, skipped: first.skipped }
  const count = first.sample.ms >= settings.slowMs ? Math.min(settings.runs, settings.slowRuns) : settings.runs
  const samples = []
  for (let i = 0; i < count; i++) {
    const run = await once()
    if (run.sample === undefined) return { ...base, error: run.error ?? `n/a after a run: ${run.skipped}` }
    samples.push(run.sample)
  }
  const row = measuredRow(base, { warmup: first.sample, samples, capped: count < settings.runs }, expected)
  const perRun = {
    rssSamplesKiB: samples.map((sample) => sample.maxRssKiB),
    cpuSamplesMs: samples.map((sample) => sample.cpuMs),
    jsCpuSamplesMs: samples.map((sample) => sample.jsCpuMs),
    catCpuSamplesMs: samples.map((sample) => sample.catCpuMs),
  }
  return { ...row, ...perProcessFigures(perRun, idle) }
}

/**
 * The medians of a stdin contender's per-run figures, `perRun` (kept with them): the peak RSS
 * (`maxRssKiB`, and above the runtime's `idle`), the process's CPU time while it read
 * (`cpuMs`: every thread's; `jsCpuMs`: the JS thread's) and `cat`'s (`catCpuMs`), where
 * measured in every run. The process's and `cat`'s CPU times together are what the pipeline
 * took of the machine's cores, which bounds how fast it can go.
 */
function perProcessFigures(perRun, idle) {
  const maxRssKiB = medianOf(perRun.rssSamplesKiB)
  const rss = idle?.maxRssKiB === undefined ? {} : { rssAboveIdleMB: kibToMB(maxRssKiB - idle.maxRssKiB) }
  const measured = (samples) => (samples.length > 0 && samples.every(Number.isFinite) ? medianOf(samples) : undefined)
  const cpu = {
    cpuMs: measured(perRun.cpuSamplesMs),
    jsCpuMs: measured(perRun.jsCpuSamplesMs),
    catCpuMs: measured(perRun.catCpuSamplesMs),
  }
  return { ...perRun, maxRssKiB, ...rss, ...cpu }
}

/**
 * A contender's row from its two passes (see report.mjs's inTwoPasses): their times, and on the
 * stdin case the per-run figures of all their runs (see perProcessFigures).
 */
function joinSourceRows(first, second, idle) {
  const row = joinRows(first, second)
  if (row === second || first.rssSamplesKiB === undefined) return row
  const joined = (key) => [...(first[key] ?? []), ...(second[key] ?? [])]
  const keys = ['rssSamplesKiB', 'cpuSamplesMs', 'jsCpuSamplesMs', 'catCpuSamplesMs']
  const perRun = Object.fromEntries(keys.map((key) => [key, joined(key)]))
  return { ...row, ...perProcessFigures(perRun, idle) }
}

/** The runtime's idle peak RSS: the median of IDLE_RUNS processes that load the packages and read nothing. */
async function measureIdle(runtime) {
  const samples = []
  for (let i = 0; i < IDLE_RUNS; i++) {
    // Started the way the stdin runs are (bash, cat | worker): a process exec'd straight from
    // this driver's fork keeps the driver's peak RSS as its own (Linux keeps maxrss across
    // execve), which made the idle process look 90 MB larger than the readers.
    const { output, error } = await runWorker(runtime, ['idle'], '/dev/null')
    if (error !== undefined) return { error }
    samples.push(output.maxRssKiB)
  }
  return { maxRssKiB: medianOf(samples), samples }
}

/** The contenders of a case, in table order, the baseline first. */
function readersOf(caseName, contenders) {
  const ordered = [SOURCES_BASELINE, ...SOURCE_READER_NAMES.filter((name) => name !== SOURCES_BASELINE)]
  return ordered.filter((name) => contenders.includes(name) && readsCase(name, caseName))
}

/**
 * Every selected contender on every selected case, per runtime; `onRows(rows, section)` after each
 * runtime × case. `corpus` is from ensureCorpus; for gzip-stream its `.gz` (ensureCompressed)
 * must exist. Returns `{ corpus, bytes, lines, chars, cases, settings, idle, rows }`.
 */
export async function runSourcesSection({ runtimes, corpus, cases, contenders, settings, onRows }) {
  const section = {
    corpus: corpus.name,
    bytes: corpus.bytes,
    lines: corpus.lines,
    chars: corpus.chars,
    cases: Object.fromEntries(
      cases.map((name) => {
        const { chunkBytes, limitBytes } = SOURCE_CASES[name]
        return [name, { ...expectedFor(name, corpus), chunkBytes, limitBytes }]
      }),
    ),
    settings: { ...settings, smallChunksLimitBytes: SMALL_CHUNKS_LIMIT_BYTES, trickleChunks: TRICKLE_CHUNKS },
    /** The cores the stdin case's pipeline (`cat` and the reader) shares. */
    cores: os.availableParallelism(),
    idle: {},
    rows: [],
  }
  const onRuntime = async (runtime) => {
    if (cases.some((name) => SOURCE_CASES[name].perProcess)) section.idle[runtime.name] = await measureIdle(runtime)
  }
  const measureGroup = (runtime, caseName) => {
    const expected = section.cases[caseName]
    const idle = section.idle[runtime.name]
    const measure = (base, pass) => {
      const skip = notApplicable(base.contender, caseName, runtime.name)
      if (skip !== undefined) return { ...base, skipped: skip }
      if (SOURCE_CASES[caseName].perProcess) return measurePerProcess(base, runtime, corpus, expected, pass, idle)
      return measureInWorker(base, runtime, corpus, expected, pass)
    }
    const join = (first, second) => joinSourceRows(first, second, idle)
    return contenderRows(runtime, 'case', caseName, readersOf(caseName, contenders), settings, measure, join)
  }
  return measureRows({ section, runtimes, groups: cases, onRuntime, measureGroup, onRows })
}

const { failed, failures, row, ratio } = sectionRows('case', SOURCES_BASELINE)

/** The rows that failed or saw other lines than expected. */
export const sourcesFailures = failures
/** A measured row without problems, for one runtime, case and contender. */
export const sourcesRow = row
/** `other`'s median / `contender`'s on one runtime and case, if both were measured. */
export const sourcesRatio = ratio

/** The cases a section measured, in table order. */
export const casesOf = (section) => SOURCE_CASE_NAMES.filter((name) => section.rows.some((row) => row.case === name))

/** The per-line contenders (readline, its events, split2, TextLineStream, Bun's console). */
export const PER_LINE_READERS = SOURCE_READER_NAMES.filter((name) => SOURCE_READERS[name].perLine)

/** What a case fed: `1.0 GB, 8,000,000 lines, 15,360 chunks of 64 KiB`. */
function caseLegend(section, caseName) {
  const fed = section.cases[caseName]
  const parts = [formatSize(fed.bytes), `${formatCount(fed.lines)} lines`]
  if (fed.chunks !== undefined) parts.push(`${formatCount(fed.chunks)} chunks`)
  if (fed.bytes < section.bytes && SOURCE_CASES[caseName].limitBytes !== undefined) {
    parts.push(`the corpus's first ${formatSize(SOURCE_CASES[caseName].limitBytes)}, cut after a whole line`)
  }
  return parts.join(', ')
}

/** A case's table: a row per contender, per runtime its median ms and ratios (and peak RSS on stdin). */
function caseTable(section, caseName) {
  const rows = section.rows.filter((row) => row.case === caseName)
  const runtimes = inRuntimeOrder(rows.map((row) => row.runtime))
  const { jsFed, perProcess } = SOURCE_CASES[caseName]
  const columns = [
    'ms',
    `vs ${SOURCES_BASELINE}`,
    ...(jsFed ? [`vs ${HAND_SPLIT}`] : []),
    ...(perProcess ? ['RSS MB', 'CPU ms (JS thread) + cat'] : []),
  ]
  const contenders = SOURCE_READER_NAMES.filter((name) => rows.some((row) => row.contender === name))
  const ratioCell = (runtime, name, other) => {
    const found = sourcesRatio(section, runtime, caseName, name, other)
    return found === undefined ? '–' : `${formatAmount(found.ratio)}x`
  }
  const body = contenders.map((name) => [
    name,
    ...runtimes.flatMap((runtime) => {
      const row = rows.find((candidate) => candidate.runtime === runtime && candidate.contender === name)
      const blank = (first) => [first, ...Array(columns.length - 1).fill('')]
      if (row === undefined) return blank('–')
      if (row.error !== undefined) return blank('ERROR')
      if (row.skipped !== undefined) return blank('n/a')
      if (row.overMs !== undefined) return blank(`> ${formatAmount(row.overMs)}`)
      const mark = row.problems.length > 0 ? ' ✗' : row.capped ? ' †' : ''
      return [
        `${formatAmount(row.median)}${mark}`,
        ratioCell(runtime, name, SOURCES_BASELINE),
        ...(jsFed ? [ratioCell(runtime, name, HAND_SPLIT)] : []),
        ...(perProcess
          ? [row.rssAboveIdleMB === undefined ? '–' : formatAmount(row.rssAboveIdleMB), cpuCell(row)]
          : []),
      ]
    }),
  ])
  const header = [
    'contender',
    ...runtimes.flatMap((runtime) => columns.map((column) => `${runtimeLabel(runtime)} ${column}`)),
  ]
  return markdownTable(header, body)
}

/**
 * A stdin row's CPU time while it read (every thread's, then the JS thread's), and for a reader
 * of the pipe `cat`'s (its whole run, which is the reader's: `cat` waits on the full pipe until
 * the reader starts); not for a reader of the file, whose `cat` is drained after timing.
 */
function cpuCell({ contender, cpuMs, jsCpuMs, catCpuMs }) {
  if (cpuMs === undefined) return '–'
  const js = jsCpuMs === undefined ? '' : ` (JS ${formatAmount(jsCpuMs)})`
  const cat = SOURCE_READERS[contender].reads === 'file' || catCpuMs === undefined ? '' : ` + ${formatAmount(catCpuMs)}`
  return `${formatAmount(cpuMs)}${js}${cat}`
}

function verdict(section, caseName) {
  const rows = section.rows.filter((row) => row.case === caseName)
  const wrong = rows.filter(failed)
  if (wrong.length === 0) {
    const measured = rows.filter((row) => row.lines !== undefined).length
    const over = rows
      .filter((row) => row.overMs !== undefined)
      .map((row) => `${runtimeLabel(row.runtime)} ${row.contender}`)
    const stopped =
      over.length === 0
        ? ''
        : ` (> ms: stopped after that long, its warm-up and ${section.settings.runs} runs unfinished: ${over.join(', ')})`
    return `Line counts: all ${measured} contenders measured saw ${formatCount(section.cases[caseName].lines)} lines ✓${stopped}`
  }
  const reasons = wrong.map(
    (row) => `- ${runtimeLabel(row.runtime)} · ${row.contender}: ${row.error ?? row.problems.join('; ')}`,
  )
  return ['**✗ LINE COUNT MISMATCH OR FAILURE**', ...reasons].join('\n')
}

/** The idle processes' peak RSS, under the stdin table. */
function idleLegend(section) {
  const entries = Object.entries(section.idle ?? {})
  if (entries.length === 0) return ''
  const figures = entries.map(([runtime, idle]) =>
    idle.error === undefined
      ? `${runtimeLabel(runtime)} ${formatAmount(kibToMB(idle.maxRssKiB))} MB`
      : `${runtimeLabel(runtime)} ERROR`,
  )
  return (
    "RSS MB: the run processes' median peak RSS (`VmHWM`) above that of an idle " +
    `process of the same runtime that loaded the same packages and read nothing (median of ${IDLE_RUNS}: ` +
    `${figures.join(', ')}).`
  )
}

/** The sources section's tables, one per case, with their verdicts. */
export function formatSourcesSection(section) {
  const { settings } = section
  const parts = [
    `## Sources: ${section.corpus} (${formatSize(section.bytes)}, ${formatCount(section.lines)} lines)`,
    '',
    `Median ms of ${settings.runs} runs after a warm-up († ${settings.slowRuns} runs: the warm-up took over ` +
      `${settings.slowMs / 1000} s); stdin: a fresh process per run, the first one the warm-up. vs ` +
      `${SOURCES_BASELINE}: its median / the contender's on the same case and runtime; vs ${HAND_SPLIT} likewise. ` +
      "Every run's line count, and its lines' summed lengths where it sees lines, is checked against what the " +
      'case fed.',
  ]
  for (const caseName of casesOf(section)) {
    parts.push('', `### ${caseName}: ${SOURCE_CASES[caseName].title} (${caseLegend(section, caseName)})`, '')
    parts.push(caseTable(section, caseName), '')
    if (SOURCE_CASES[caseName].perProcess) parts.push(idleLegend(section), '')
    parts.push(verdict(section, caseName))
  }
  const shown = SOURCE_READER_NAMES.filter((name) => section.rows.some((row) => row.contender === name))
  const notes = shown
    .filter((name) => SOURCE_READERS[name].note !== undefined)
    .map((name) => `- \`${name}\`: ${SOURCE_READERS[name].note}.`)
  parts.push('', ...notes)
  return `${parts.join('\n')}\n`
}

/** The "Sources" part of the README summary: fastlines' ratios to readline per case and runtime. */
export function sourcesReadme(section) {
  const runtimes = inRuntimeOrder(section.rows.map((row) => row.runtime))
  const cell = (caseName, name) =>
    runtimes
      .map((runtime) => {
        const row = section.rows.find(
          (candidate) => candidate.runtime === runtime && candidate.case === caseName && candidate.contender === name,
        )
        if (row === undefined) return '–'
        if (failed(row)) return 'ERROR'
        const found = sourcesRatio(section, runtime, caseName, name)
        return found === undefined ? '–' : `${formatAmount(found.ratio)}x`
      })
      .join(' / ')
  const names = ['fastlines-lines', 'fastlines-batches']
  const body = casesOf(section).map((caseName) => [`\`${caseName}\``, ...names.map((name) => cell(caseName, name))])
  const agreed = sourcesFailures(section).length === 0 ? ' Every contender saw the same lines.' : ''
  return [
    '### Sources',
    `${measuredApart(section)}Reading the lines of ${section.corpus} (${formatSize(section.bytes)}) from a source rather than a path ` +
      `(\`readLines(source)\`): speed relative to \`${SOURCES_BASELINE}\` on the same source (its median / ours, ` +
      `higher is faster); ${cellLegend(runtimes)}.${agreed}`,
    markdownTable(['case', ...names.map((name) => `\`${name}\``)], body),
  ].join('\n\n')
}
