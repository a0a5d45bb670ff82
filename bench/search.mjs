// The search section of the benchmark (issue 12): finding the lines of logs-1g that contain a
// literal, by fastlines' native `match` and by what users do without it (`readline` or a
// hand-written split filtered with `includes`, grep as a process). Each searcher runs in a worker
// process per runtime × query (search-worker.mjs); every searcher's lines are checked against
// `readline` + `includes` in the same run. run.mjs calls runSearchSection and formatSearchSection;
// targets.mjs and readme.mjs read the rows.
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { SEARCHERS, SEARCH_QUERIES } from './searchers.mjs'
import {
  formatAmount,
  formatCount,
  formatSize,
  inTwoPasses,
  markdownTable,
  measuredApart,
  medianOf,
} from './report.mjs'
import { progress } from './progress.mjs'
import { cellLegend, inRuntimeOrder, runtimeLabel, wrongRuntime } from './runtimes.mjs'

const SEARCH_WORKER = fileURLToPath(new URL('./search-worker.mjs', import.meta.url))
const WORKER_TIMEOUT_MS = 10 * 60 * 1000
const execFileAsync = promisify(execFile)

/** The searcher every other is checked against and measured relative to. */
export const SEARCH_BASELINE = 'readline+includes'
export const SEARCHER_NAMES = Object.keys(SEARCHERS)
export const SEARCH_QUERY_NAMES = Object.keys(SEARCH_QUERIES)

/** Runs one searcher on one query in a worker: its row, or one with `error`. */
async function measureSearcher(runtime, corpus, searcher, query, settings, second) {
  progress.step(`${runtime.name} · ${query} · ${searcher}${second ? ' (second pass)' : ''}`)
  const base = { runtime: runtime.name, version: runtime.version, query, searcher }
  const args = [SEARCH_WORKER, searcher, corpus.path, query, settings.runs, settings.slowRuns, settings.slowMs]
  try {
    const { stdout } = await execFileAsync(runtime.command, [...runtime.args, ...args], {
      timeout: WORKER_TIMEOUT_MS,
      maxBuffer: 1024 * 1024,
    })
    const output = JSON.parse(stdout)
    if (output.error !== undefined) return { ...base, error: output.error }
    const wrong = wrongRuntime(output, runtime)
    if (wrong !== undefined) return { ...base, error: wrong }
    const { times, capped, lines, sha256 } = output
    return { ...base, runs: times.length, capped, median: medianOf(times), times, lines, sha256 }
  } catch (error) {
    return { ...base, error: error.message.split('\n')[0] }
  }
}

/**
 * Whether a row found the baseline's lines: the same SHA-256 of its lines, or, for a searcher
 * that only counts, the same count. Undefined when there is no baseline to check against.
 */
function sameLines(row, baseline) {
  if (baseline === undefined || baseline.error !== undefined || row.error !== undefined) return undefined
  return row.sha256 === undefined ? row.lines === baseline.lines : row.sha256 === baseline.sha256
}

/**
 * Every selected searcher on every query, per runtime; `onRows(rows)` after each runtime.
 * Returns `{ corpus, bytes, lines, settings, queries, rows }`.
 */
export async function runSearchSection({ runtimes, corpus, searchers, settings, onRows }) {
  const results = {
    corpus: corpus.name,
    bytes: corpus.bytes,
    lines: corpus.lines,
    settings,
    queries: SEARCH_QUERIES,
    rows: [],
  }
  const ordered = [SEARCH_BASELINE, ...searchers.filter((name) => name !== SEARCH_BASELINE)]
  const names = ordered.filter((name) => searchers.includes(name))
  for (const runtime of runtimes) {
    const rows = []
    for (const query of SEARCH_QUERY_NAMES) {
      const found = await inTwoPasses(names, settings, (searcher, pass, second) =>
        measureSearcher(runtime, corpus, searcher, query, pass, second),
      )
      const baseline = found.find((row) => row.searcher === SEARCH_BASELINE)
      for (const row of found) row.same = sameLines(row, baseline)
      rows.push(...found)
      onRows?.(found, results)
    }
    results.rows.push(...rows)
  }
  return results
}

/** The rows that failed or found other lines than the baseline. */
export function searchFailures(search) {
  return (search?.rows ?? []).filter((row) => row.error !== undefined || row.same === false)
}

/**
 * `row`'s speed relative to the baseline's on the same runtime and query, if both ran and found
 * the baseline's lines.
 */
export function searchRatio(search, runtime, query, searcher, other = SEARCH_BASELINE) {
  const find = (name) =>
    search.rows.find(
      (row) =>
        row.runtime === runtime &&
        row.query === query &&
        row.searcher === name &&
        row.error === undefined &&
        row.same !== false,
    )
  const row = find(searcher)
  const base = find(other)
  if (row === undefined || base === undefined) return undefined
  return { ratio: base.median / row.median, row, base }
}

const quoted = (strings) => strings.map((string) => `\`${string}\``).join(', ')

function queryLegend(search) {
  return Object.entries(search.queries)
    .map(([name, strings]) => `${name}: ${quoted(strings)}`)
    .join('; ')
}

/** One runtime's table: a row per searcher, per query its median ms and ratio to the baseline. */
function runtimeTable(search, runtime) {
  const rows = search.rows.filter((row) => row.runtime === runtime)
  const queries = SEARCH_QUERY_NAMES.filter((query) => rows.some((row) => row.query === query))
  const searchers = SEARCHER_NAMES.filter((name) => rows.some((row) => row.searcher === name))
  const body = searchers.map((name) => [
    name,
    ...queries.flatMap((query) => {
      const row = rows.find((candidate) => candidate.searcher === name && candidate.query === query)
      if (row === undefined) return ['–', '']
      if (row.error !== undefined) return ['ERROR', '']
      const ratio = searchRatio(search, runtime, query, name)
      const mark = row.same === false ? ' ✗ lines differ' : row.capped ? ' †' : ''
      return [`${row.median.toFixed(1)}${mark}`, ratio === undefined ? '' : `${formatAmount(ratio.ratio)}x`]
    }),
  ])
  const header = ['searcher', ...queries.flatMap((query) => [`${query} ms`, 'vs readline'])]
  const counts = queries.map((query) => {
    const base = rows.find((row) => row.query === query && row.searcher === SEARCH_BASELINE)
    return `${query} ${base?.lines === undefined ? '?' : formatCount(base.lines)}`
  })
  return [markdownTable(header, body), '', `Lines found: ${counts.join('; ')}.`].join('\n')
}

/** The search section's tables, one per runtime, with what went wrong. */
export function formatSearchSection(search) {
  const { settings } = search
  const parts = [
    `## Search: ${search.corpus} (${formatSize(search.bytes)}, ${formatCount(search.lines)} lines)`,
    '',
    `Queries: ${queryLegend(search)}. Median ms of ${settings.runs} runs after a warm-up († ` +
      `${settings.slowRuns} runs: the warm-up took over ${settings.slowMs / 1000} s); vs readline: ` +
      `\`${SEARCH_BASELINE}\`'s median / the searcher's. Each searcher's lines are checked against ` +
      `\`${SEARCH_BASELINE}\`'s (their SHA-256, or their count for the counters).`,
  ]
  for (const runtime of inRuntimeOrder(search.rows.map((row) => row.runtime))) {
    parts.push('', `### ${runtimeLabel(runtime)}`, '', runtimeTable(search, runtime))
  }
  const notes = SEARCHER_NAMES.filter((name) => SEARCHERS[name].note !== undefined).map(
    (name) => `- \`${name}\`: ${SEARCHERS[name].note}`,
  )
  parts.push('', ...notes)
  const failures = searchFailures(search).map(
    (row) =>
      `- **${row.error === undefined ? 'WRONG LINES' : 'ERROR'}** ${row.runtime} · ${row.query} · ${row.searcher}` +
      (row.error === undefined ? '' : `: ${row.error}`),
  )
  if (failures.length > 0) parts.push('', ...failures)
  return `${parts.join('\n')}\n`
}

/** The "Search" part of the README summary: each searcher's speed relative to the baseline, per query. */
export function searchReadme(search) {
  const runtimes = inRuntimeOrder(search.rows.map((row) => row.runtime))
  const legend = cellLegend(runtimes)
  const queries = SEARCH_QUERY_NAMES.filter((query) => search.rows.some((row) => row.query === query))
  const searchers = SEARCHER_NAMES.filter((name) => search.rows.some((row) => row.searcher === name))
  const cell = (name, query) =>
    runtimes
      .map((runtime) => {
        const row = search.rows.find(
          (candidate) => candidate.runtime === runtime && candidate.query === query && candidate.searcher === name,
        )
        if (row === undefined) return '–'
        if (row.error !== undefined || row.same === false) return 'ERROR'
        const ratio = searchRatio(search, runtime, query, name)
        return ratio === undefined ? '–' : `${formatAmount(ratio.ratio)}x`
      })
      .join(' / ')
  const body = searchers.map((name) => [`\`${name}\``, ...queries.map((query) => cell(name, query))])
  const base = (query) => search.rows.find((row) => row.query === query && row.searcher === SEARCH_BASELINE)
  const found = queries.map(
    (query) => `${query} ${base(query)?.lines === undefined ? '?' : formatCount(base(query).lines)}`,
  )
  const agreed = searchFailures(search).length === 0 ? ' Every searcher found the same lines.' : ''
  return [
    '### Search',
    `${measuredApart(search)}Finding the lines of ${search.corpus} (${formatSize(search.bytes)}) that contain a literal (${queryLegend(search)}): ` +
      `speed relative to the same runtime's \`${SEARCH_BASELINE}\` (median of the measured runs, higher is ` +
      `faster); ${legend}. Lines found: ${found.join(', ')}.${agreed}`,
    markdownTable(['searcher', ...queries], body),
  ].join('\n\n')
}
