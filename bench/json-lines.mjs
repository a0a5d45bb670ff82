// The JSON Lines section of the benchmark (issue 24): readJsonLines against what users parse JSON
// Lines with (readline + JSON.parse, split2(JSON.parse), ndjson, stream-json's JSONL parser, the
// hand split + JSON.parse, Bun.JSONL on Bun) and the floor (JSON.parse of each line, timed
// alone), on a pino-style log, nested records with non-ASCII strings, the log gzipped, the log
// searched (`match`), and the log with 1% of its lines broken (`onError: 'skip'`): the contenders
// and cases in json-readers.mjs, the corpora in json-corpora.mjs. Each contender runs in a worker
// process per runtime × case (json-worker.mjs); every run's value count and sum are checked against
// the case's first contender's. run.mjs calls runJsonSection and formatJsonSection; targets.mjs and
// readme.mjs read the rows.
import fs from 'node:fs'
import { fileURLToPath } from 'node:url'
import { brokenExpected } from './json-corpora.mjs'
import { JSON_CASES, JSON_CASE_NAMES, JSON_READER_NAMES } from './json-readers.mjs'
import {
  formatAmount,
  formatCount,
  contenderRows,
  formatSize,
  markdownTable,
  measureRows,
  measuredApart,
  medianOf,
  sectionRows,
} from './report.mjs'
import { cellLegend, inRuntimeOrder, runtimeLabel } from './runtimes.mjs'
import { runWorker } from './sources.mjs'

const WORKER = fileURLToPath(new URL('./json-worker.mjs', import.meta.url))
/**
 * A contender whose warm-up took this long runs SLOW_RUNS times, not --runs: on the 1 GB log, a
 * run of the per-value readers takes 10-30 s.
 */
const SLOW_MS = 20_000
const SLOW_RUNS = 1
/** The pino log's size in MB unless run.mjs's --json-pino-mb says (the nested file is a fifth of it). */
export const JSON_PINO_MB = 1024

export { JSON_CASE_NAMES, JSON_READER_NAMES }

/** The selected contenders of a case, in its order. */
const contendersOf = (caseName, contenders) =>
  JSON_CASES[caseName].contenders.filter((name) => contenders.includes(name))

/** One contender on one case and runtime: its row, with a problem if its runs gave different values. */
async function measure(base, runtime, file, settings) {
  const args = [base.case, base.contender, file, settings.runs, settings.slowRuns, settings.slowMs]
  const { output, error, skipped } = await runWorker(runtime, args, undefined, undefined, WORKER)
  if (error !== undefined) return { ...base, error }
  if (skipped !== undefined) return { ...base, skipped }
  const { warmup, samples, capped } = output
  const times = samples.map((sample) => sample.ms)
  const { values, sum } = samples[0]
  const differ = [warmup, ...samples].some((run) => run.values !== values || run.sum !== sum)
  return {
    ...base,
    runs: times.length,
    capped,
    median: medianOf(times),
    times,
    warmupMs: warmup.ms,
    values,
    sum,
    problems: differ ? ['its runs gave different values'] : [],
  }
}

/** Adds a problem to the rows of a case whose values disagree with its first measured contender's. */
function checkAgreement(rows) {
  const reference = rows.find((row) => row.median !== undefined)
  for (const row of rows) {
    if (row.median === undefined || row === reference) continue
    if (row.values !== reference.values || row.sum !== reference.sum) {
      row.problems.push(
        `${row.values} values (sum ${row.sum}), ${reference.contender} ${reference.values} (sum ${reference.sum})`,
      )
    }
  }
}

/** Adds a problem to the rows whose values are not `expected` (`{ values, sum }`). */
function checkExpected(rows, expected) {
  for (const row of rows) {
    if (row.median === undefined) continue
    if (row.values !== expected.values || row.sum !== expected.sum) {
      row.problems.push(`${row.values} values (sum ${row.sum}), expected ${expected.values} (sum ${expected.sum})`)
    }
  }
}

/**
 * Every selected contender on every selected case, per runtime; `onRows(rows, section)` after each
 * runtime × case. `files` are ensureJsonCorpora's, made for `settings.pinoMB`. Returns `{ cases,
 * settings, rows }`, `cases` giving each case's file and its size.
 */
export async function runJsonSection({ runtimes, files, cases, contenders, settings, onRows }) {
  const section = {
    cases: Object.fromEntries(
      cases.map((name) => {
        const { file } = JSON_CASES[name]
        return [name, { file, bytes: fs.statSync(files[file]).size }]
      }),
    ),
    settings: { ...settings, slowRuns: SLOW_RUNS, slowMs: SLOW_MS },
    rows: [],
  }
  const measureGroup = async (runtime, caseName) => {
    const file = files[JSON_CASES[caseName].file]
    const names = contendersOf(caseName, contenders)
    const rows = await contenderRows(runtime, 'case', caseName, names, section.settings, (base, pass) =>
      measure(base, runtime, file, pass),
    )
    checkAgreement(rows)
    if (caseName === 'broken') checkExpected(rows, brokenExpected(file))
    return rows
  }
  return measureRows({ section, runtimes, groups: cases, measureGroup, onRows })
}

const { failed, failures, row, ratio } = sectionRows('case', (caseName) => JSON_CASES[caseName].baseline)

/** The rows that failed or gave other values than the case's first contender. */
export const jsonFailures = failures
/** A measured row without problems, for one runtime, case and contender. */
export const jsonRow = row

/**
 * `other`'s median / `contender`'s on one runtime and case (the case's baseline unless told; none
 * on `broken`), if both were measured; `{ ratio, row, base }`.
 */
export const jsonRatio = ratio

/** The cases a section measured, in table order. */
export const casesOf = (section) => JSON_CASE_NAMES.filter((name) => section.rows.some((found) => found.case === name))

/** The contenders a section measured on a case, in the case's order. */
const measuredOn = (section, caseName) =>
  JSON_CASES[caseName].contenders.filter((name) =>
    section.rows.some((found) => found.case === caseName && found.contender === name),
  )

/** A case's title, size and baseline: `` `pino`, a pino-style log ... (1074 MB, vs `readline`) ``. */
function caseLegend(section, caseName) {
  const { title, baseline } = JSON_CASES[caseName]
  const vs = baseline === undefined ? '' : `, vs \`${baseline}\``
  return `\`${caseName}\`, ${title} (${formatSize(section.cases[caseName].bytes)}${vs})`
}

/** A case's table: per contender, each runtime's median ms and its ratio to the case's baseline. */
function caseTable(section, caseName) {
  const rows = section.rows.filter((found) => found.case === caseName)
  const runtimes = inRuntimeOrder(rows.map((found) => found.runtime))
  const cell = (runtime, name) => {
    const found = rows.find((candidate) => candidate.runtime === runtime && candidate.contender === name)
    if (found === undefined) return '–'
    if (found.error !== undefined) return 'ERROR'
    if (found.skipped !== undefined) return 'n/a'
    const mark = found.problems.length > 0 ? ' ✗' : found.capped ? ' †' : ''
    const vs = jsonRatio(section, runtime, caseName, name)
    return `${formatAmount(found.median)} ms${mark}${vs === undefined ? '' : ` (${formatAmount(vs.ratio)}x)`}`
  }
  return markdownTable(
    ['contender', ...runtimes.map(runtimeLabel)],
    measuredOn(section, caseName).map((name) => [name, ...runtimes.map((runtime) => cell(runtime, name))]),
  )
}

function verdict(section, caseName) {
  const rows = section.rows.filter((found) => found.case === caseName)
  const wrong = rows.filter(failed)
  if (wrong.length === 0) {
    const measured = rows.filter((found) => found.values !== undefined)
    const what = measured.length === 0 ? '' : ` ${formatCount(measured[0].values)} values (sum ${measured[0].sum})`
    return `Values: all ${measured.length} contenders measured gave${what} ✓`
  }
  const reasons = wrong.map(
    (found) => `- ${runtimeLabel(found.runtime)} · ${found.contender}: ${found.error ?? found.problems.join('; ')}`,
  )
  return ['**✗ VALUE MISMATCH OR FAILURE**', ...reasons].join('\n')
}

/** The JSON Lines section's tables, one per case, with their verdicts. */
export function formatJsonSection(section) {
  const { settings } = section
  const parts = [
    '## JSON Lines',
    '',
    `Median ms of ${settings.runs} runs after a warm-up († ${settings.slowRuns} run: the warm-up took over ` +
      `${settings.slowMs / 1000} s), in a worker process per runtime × case × contender; (Nx): the case's ` +
      "baseline median / the contender's. Every run's value count and sum (of `level`, or `id` on nested) " +
      "is checked against the case's first contender's. `floor`: `JSON.parse` of each line (on V8, of short lines 512 to an array, as fastlines parses them), timed alone (the file read, decoded and split, and the arrays' text made, with the clock stopped).",
  ]
  for (const caseName of casesOf(section)) {
    parts.push('', `### ${caseLegend(section, caseName)}`, '', caseTable(section, caseName), '')
    parts.push(verdict(section, caseName))
  }
  return `${parts.join('\n')}\n`
}

/** The "JSON Lines" part of the README summary: per case and contender, its median and its ratio to the baseline. */
export function jsonReadme(section) {
  const runtimes = inRuntimeOrder(section.rows.map((found) => found.runtime))
  const cells = (caseName, name, value) =>
    runtimes
      .map((runtime) => {
        const found = section.rows.find(
          (candidate) => candidate.runtime === runtime && candidate.case === caseName && candidate.contender === name,
        )
        if (found === undefined) return '–'
        if (failed(found)) return 'ERROR'
        if (found.skipped !== undefined) return 'n/a'
        return value(found, runtime) ?? '–'
      })
      .join(' / ')
  const ms = (found) => formatAmount(found.median)
  const vs = (measured, runtime) => {
    const found = jsonRatio(section, runtime, measured.case, measured.contender)
    return found === undefined ? undefined : `${formatAmount(found.ratio)}x`
  }
  const cases = casesOf(section)
  const body = cases.flatMap((caseName) =>
    measuredOn(section, caseName).map((name) => [
      `\`${caseName}\``,
      `\`${name}\``,
      cells(caseName, name, ms),
      cells(caseName, name, vs),
    ]),
  )
  const legends = cases.map((caseName) => caseLegend(section, caseName))
  const agreed = jsonFailures(section).length === 0 ? ' Every contender gave the same values.' : ''
  return [
    '### JSON Lines',
    `${measuredApart(section)}Reading JSON Lines with \`readJsonLines\` (per value, and \`batches()\`) and with ` +
      "what they are read with: median ms, and speed relative to the case's baseline (its median / ours, higher " +
      `is faster; \`floor\` is \`JSON.parse\` of each line, or on V8 of short lines 512 to an array, timed alone); ${cellLegend(runtimes)}. ` +
      `The cases: ${legends.join('; ')}.${agreed}`,
    markdownTable(['case', 'contender', 'ms', 'vs baseline'], body, { left: 2 }),
  ].join('\n\n')
}
