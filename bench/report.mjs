// Turns worker and probe measurements into result rows, markdown tables and line-count verdicts.
import { progress } from './progress.mjs'

const MB = 1_000_000
const KIB = 1024
const COLUMNS = ['contender', 'median ms', 'min', 'max', 'MB/s', 'vs readline', 'lines']
/** Shown after `vs readline` in the tables of corpora where the cold read was measured. */
const COLD_COLUMNS = ['cold ms', 'cold vs readline']
export const PROBE_COLUMNS = ['peak RSS above idle MB', 'ELD p99 ms', 'first line ms']

function median(sorted) {
  const middle = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/** The median of numbers in any order; null if any of them is null. */
export function medianOf(values) {
  if (values.some((value) => value === null)) return null
  return median(values.toSorted((a, b) => a - b))
}

export const kibToMB = (kib) => (kib * KIB) / MB
export const formatCount = (count) => count.toLocaleString('en-US')
const formatMs = (ms) => ms.toFixed(ms < 100 ? 2 : 1)
export const formatSize = (bytes) => `${(bytes / MB).toFixed(bytes < 100 * MB ? 1 : 0)} MB`

/** Two decimals below 1, one below 10, none above; null reads n/a. */
export function formatAmount(value) {
  if (value === null) return 'n/a'
  const magnitude = Math.abs(value)
  return value.toFixed(magnitude < 1 ? 2 : magnitude < 10 ? 1 : 0)
}

export const formatRatio = (ratio) => `${formatAmount(ratio)}x`

/** The readline row among one runtime × corpus's rows, if readline was measured. */
export function baselineOf(rows) {
  return rows.find((row) => row.contender === 'readline' && row.median !== undefined)
}

/** How many times faster than the baseline a row is; undefined if either was not measured. */
export function speedup(row, baseline) {
  if (baseline === undefined || row.median === undefined) return undefined
  return baseline.median / row.median
}

/** Whether a row holds a measured cold read (not skipped, not failed). */
export const hasCold = (row) => row?.cold?.median !== undefined

/**
 * How many times faster than the baseline's a row's cold read is; undefined if either was not
 * measured.
 */
export function coldSpeedup(row, baseline) {
  if (!hasCold(row) || !hasCold(baseline)) return undefined
  return baseline.cold.median / row.cold.median
}

/** Rows grouped by corpus × runtime, in run order: { corpus, runtime, version, bytes, rows }. */
export function groupSections(rows) {
  const sections = new Map()
  for (const row of rows) {
    const key = `${row.corpus}\0${row.runtime}`
    if (!sections.has(key)) {
      const { corpus, runtime, version, bytes } = row
      sections.set(key, { corpus, runtime, version, bytes, rows: [] })
    }
    sections.get(key).rows.push(row)
  }
  return [...sections.values()]
}

/**
 * How a measurement disagrees with its corpus: line counts always, line lengths where seen, and
 * the lines' fingerprint where the warm-up run took it (line-hash.mjs).
 */
function countProblems(runs, corpus) {
  const problems = new Set()
  for (const run of runs) {
    if (run.lines !== corpus.lines) {
      problems.add(`${run.lines} lines, expected ${corpus.lines}`)
    } else if (run.chars !== undefined && run.chars !== corpus.chars) {
      problems.add(`${run.chars} UTF-16 units in lines, expected ${corpus.chars}`)
    } else if (run.hash !== undefined && run.hash !== corpus.hash) {
      problems.add(
        `lines other than the corpus's, or in another order (fingerprint ${run.hash}, expected ${corpus.hash})`,
      )
    }
  }
  return [...problems]
}

/** Median, min and max of a list of times in ms, with the times themselves. */
function timeStats(times) {
  const sorted = times.toSorted((a, b) => a - b)
  return { median: median(sorted), min: sorted[0], max: sorted[sorted.length - 1], times }
}

/**
 * The cold part of a row, from the fresh processes' `{ samples }` (or `{ skipped }`, or
 * `{ error }`); undefined if the cold read was not measured.
 */
function toCold(cold) {
  if (cold === undefined) return undefined
  if (cold.error !== undefined) return { error: cold.error }
  if (cold.skipped !== undefined) return { skipped: cold.skipped }
  return { runs: cold.samples.length, ...timeStats(cold.samples.map((sample) => sample.ms)), samples: cold.samples }
}

/** What went wrong in the cold processes, as row problems. */
function coldProblems(cold, corpus) {
  if (cold?.error !== undefined) return [`cold read: ${cold.error}`]
  if (cold?.samples === undefined) return []
  return countProblems(cold.samples, corpus).map((problem) => `cold read: ${problem}`)
}

/**
 * One result row: a worker's measurement (or its skip reason, or the failure `error`) reduced
 * to the statistics shown and saved, with `cold`, the fresh processes' first reads, when they
 * were measured.
 */
export function toRow({ runtime, corpus, contender, measurement, error, cold }) {
  const row = {
    runtime: runtime.name,
    version: runtime.version,
    corpus: corpus.name,
    bytes: corpus.bytes,
    contender,
  }
  if (error !== undefined) return { ...row, error }
  if (measurement.skipped !== undefined) return { ...row, skipped: measurement.skipped }
  const times = measurement.samples.map((sample) => sample.ms)
  const problems = countProblems([measurement.warmup, ...measurement.samples], corpus)
  return {
    ...row,
    runs: times.length,
    capped: measurement.capped,
    ...timeStats(times),
    lines: measurement.samples[0].lines,
    warmupMs: measurement.warmup.ms,
    cold: toCold(cold),
    problems: [...problems, ...coldProblems(cold, corpus)],
  }
}

export function isFailure(row) {
  return row.error !== undefined || row.problems?.length > 0
}

/** The cold cells of a row: its median, and its ratio to the baseline's. */
function coldCells(row, baseline) {
  const { cold } = row
  if (cold === undefined) return ['–', '–']
  if (cold.error !== undefined) return ['ERROR', '']
  if (cold.skipped !== undefined) return ['n/a', '']
  return [formatMs(cold.median), hasCold(baseline) ? formatRatio(coldSpeedup(row, baseline)) : '–']
}

/** A row's cells, with the cold cells when `withCold`. */
function cells(row, baseline, withCold) {
  const name = row.capped ? `${row.contender} †` : row.contender
  const blank = (first) => [name, first, ...Array(COLUMNS.length - 2 + (withCold ? 2 : 0)).fill('')]
  if (row.error !== undefined) return blank('ERROR')
  if (row.skipped !== undefined) return blank(`n/a (${row.skipped})`)
  const lines = formatCount(row.lines)
  return [
    name,
    formatMs(row.median),
    formatMs(row.min),
    formatMs(row.max),
    (row.bytes / MB / (row.median / 1000)).toFixed(0),
    baseline === undefined ? '–' : formatRatio(speedup(row, baseline)),
    ...(withCold ? coldCells(row, baseline) : []),
    row.problems.length > 0 ? `${lines} ✗` : lines,
  ]
}

/** The table's columns: the cold ones after `vs readline` when `withCold`. */
function columns(withCold) {
  if (!withCold) return COLUMNS
  const at = COLUMNS.indexOf('vs readline') + 1
  return [...COLUMNS.slice(0, at), ...COLD_COLUMNS, ...COLUMNS.slice(at)]
}

const bullets = (lines) => lines.map((text) => `- ${text}`).join('\n')

/**
 * A markdown table padded to aligned columns: the first `left` (one unless told) left-aligned,
 * the others right.
 */
export function markdownTable(header, body, { left = 1 } = {}) {
  const widths = header.map((title, i) => Math.max(title.length, ...body.map((row) => row[i].length)))
  const pad = (text, i) => (i < left ? text.padEnd(widths[i]) : text.padStart(widths[i]))
  const line = (values) => `| ${values.map(pad).join(' | ')} |`
  const rule = widths.map((width, i) => (i < left ? '-'.repeat(width) : `${'-'.repeat(width - 1)}:`))
  return [line(header), `| ${rule.join(' | ')} |`, ...body.map(line)].join('\n')
}

function footer(rows, { slowRuns, slowMs, coldRuns, notes }, withCold) {
  const lines = [
    'MB/s: 10^6 bytes per second at the median.',
    'vs readline: median of readline / median of the contender (higher is faster).',
  ]
  if (withCold) {
    lines.push(
      `cold: the first read in a fresh process, from loading the contender's package until the read ` +
        `ends, median of ${coldRuns} processes; cold vs readline: readline's / the contender's. ` +
        'Not measured for the floors.',
    )
  }
  if (rows.some((row) => row.capped)) {
    const what = withCold ? `${slowRuns} measured runs and cold processes` : `${slowRuns} measured runs`
    lines.push(`†: capped at ${what} (its warm-up run took >= ${slowMs} ms).`)
  }
  for (const { contender } of rows) {
    if (notes[contender] !== undefined) lines.push(`${contender}: ${notes[contender]}.`)
  }
  return bullets(lines)
}

/** The line-count verdict for one table: agreement with the corpus, or every disagreement. */
function verdict(rows, corpus) {
  const failed = rows.filter(isFailure)
  if (failed.length === 0) {
    const measured = rows.filter((row) => row.lines !== undefined).length
    const expected = formatCount(corpus.lines)
    return `Line counts: all ${measured} contenders measured saw ${expected} lines ✓`
  }
  const reasons = failed.map((row) => `- ${row.contender}: ${row.error ?? row.problems.join('; ')}`)
  return ['**✗ LINE COUNT MISMATCH OR FAILURE**', ...reasons].join('\n')
}

/** The markdown section for one runtime × corpus. */
export function formatSection(rows, corpus, runtime, settings) {
  const baseline = baselineOf(rows)
  const withCold = rows.some((row) => row.cold !== undefined)
  const size = `${formatSize(corpus.bytes)}, ${formatCount(corpus.lines)} lines`
  const body = rows.map((row) => cells(row, baseline, withCold))
  return [
    `### ${runtime.name} ${runtime.version} · ${corpus.name} (${size})`,
    '',
    markdownTable(columns(withCold), body),
    '',
    footer(rows, settings, withCold),
    '',
    verdict(rows, corpus),
    '',
  ].join('\n')
}

/** Peak RSS, event-loop delay p99 and time to first line: medians over the probe's processes. */
export function summarizeProbes(samples) {
  return {
    maxRssKiB: medianOf(samples.map((sample) => sample.maxRssKiB)),
    eldP99Ms: medianOf(samples.map((sample) => sample.eldP99Ms)),
    firstLineMs: medianOf(samples.map((sample) => sample.firstLineMs)),
  }
}

/**
 * One probe row: a contender's probe samples (or its skip reason, or the failure `error`)
 * reduced to medians, peak RSS taken above the idle process's.
 */
export function toProbeRow({ runtime, corpus, contender, samples, skipped, error, idle }) {
  const row = { runtime: runtime.name, version: runtime.version, corpus: corpus.name, contender }
  if (error !== undefined) return { ...row, error }
  if (skipped !== undefined) return { ...row, skipped }
  const { maxRssKiB, eldP99Ms, firstLineMs } = summarizeProbes(samples)
  return {
    ...row,
    runs: samples.length,
    rssAboveIdleMB: kibToMB(maxRssKiB - idle.maxRssKiB),
    eldP99Ms,
    firstLineMs,
    lines: samples[0].lines,
    samples,
    problems: countProblems(samples, corpus),
  }
}

/** The three probe cells of a row: peak RSS above idle, ELD p99, first line. */
export function probeCells(row) {
  if (row.error !== undefined) return ['ERROR', '', '']
  if (row.skipped !== undefined) return [`n/a (${row.skipped})`, '', '']
  return [row.rssAboveIdleMB, row.eldP99Ms, row.firstLineMs].map(formatAmount)
}

/** How a probe's event-loop delay was measured, as its footer says it. */
function delayMethod({ idle }) {
  if (idle.samples?.[0]?.eldMonitor === 'setInterval') {
    return (
      "the times between the ticks of a 1 ms `setInterval` (Deno's `monitorEventLoopDelay` does not " +
      "measure what Node's does; Deno's timers tick every 2 ms at best)"
    )
  }
  return '`monitorEventLoopDelay({ resolution: 1 })`'
}

function probeFooter(probe) {
  const { runtime, idle } = probe
  const idleMB = formatAmount(kibToMB(idle.maxRssKiB))
  const idleDelay = formatAmount(idle.eldP99Ms)
  const lines = [
    'peak RSS: `VmHWM` after the read, minus that of an idle ' +
      `${runtime} process with the same imports (${idleMB} MB); this process only, not \`wc\`.`,
    `ELD p99: ${delayMethod(probe)}, from before the call until the read ` + `ends (idle process: ${idleDelay} ms).`,
    'first line: from the call until the first line arrives (the first chunk for the byte ' +
      'counters); n/a for contenders that only return a count.',
  ]
  return bullets(lines)
}

/** The markdown section for one runtime's probe: `{ runtime, version, runs, idle, rows }`. */
export function formatProbeSection(probe, corpus) {
  const body = probe.rows.map((row) => [row.contender, ...probeCells(row)])
  const method = `a fresh process per run, median of ${probe.runs}`
  return [
    `### ${probe.runtime} ${probe.version} · ${corpus.name} probe (${method})`,
    '',
    markdownTable(['contender', ...PROBE_COLUMNS], body),
    '',
    probeFooter(probe),
    '',
    verdict(probe.rows, corpus),
    '',
  ].join('\n')
}

/**
 * How a section whose rows are keyed by runtime, `key` (the format, the case, ...) and contender
 * looks its rows up: `failed(row)` (an error, or other lines than expected), `failures(section)`,
 * `row(section, runtime, keyValue, contender)` (measured and sound, else undefined) and
 * `ratio(section, runtime, keyValue, contender, other = baseline)` (`other`'s median over the
 * contender's, with both rows, if both were measured). `baseline` is a contender's name, or a
 * function that gives it for a key value (a case's own baseline).
 */
export function sectionRows(key, baseline) {
  const failed = (row) => row.error !== undefined || row.problems?.length > 0
  const failures = (section) => (section?.rows ?? []).filter(failed)
  const row = (section, runtime, keyValue, contender) => {
    const found = section.rows.find(
      (candidate) => candidate.runtime === runtime && candidate[key] === keyValue && candidate.contender === contender,
    )
    return found !== undefined && found.median !== undefined && !failed(found) ? found : undefined
  }
  const baselineOf = typeof baseline === 'function' ? baseline : () => baseline
  const ratio = (section, runtime, keyValue, contender, other = baselineOf(keyValue)) => {
    const measured = row(section, runtime, keyValue, contender)
    const base = row(section, runtime, keyValue, other)
    if (measured === undefined || base === undefined) return undefined
    return { ratio: base.median / measured.median, row: measured, base }
  }
  return { failed, failures, row, ratio }
}

/**
 * Measures a section's rows runtime by runtime, group by group (a case, a format): `onRuntime(runtime)`
 * first if given, then for each group `measureGroup(runtime, group)` gives its rows, which join
 * `section.rows` before `onRows(rows, section)` reports them. Returns the section.
 */
export async function measureRows({ section, runtimes, groups, onRuntime, measureGroup, onRows }) {
  for (const runtime of runtimes) {
    await onRuntime?.(runtime)
    for (const group of groups) {
      const rows = await measureGroup(runtime, group)
      section.rows.push(...rows)
      onRows?.(rows, section)
    }
  }
  return section
}

/**
 * The measured runs of each of the two passes over a group's contenders (see inTwoPasses):
 * `runs` split as evenly as it goes, the first pass taking the odd one.
 */
export const passRuns = (runs) => [Math.ceil(runs / 2), Math.floor(runs / 2)]

/** Whether `row` was measured: not failed, skipped or over its limit, and with its times. */
const isTimed = (row) =>
  row.error === undefined && row.skipped === undefined && row.overMs === undefined && Array.isArray(row.times)

/**
 * Measures each of `names`, `measure(name, settings, second)`, in two passes, the second in the
 * reverse order, each with its share of `settings.runs` and `settings.slowRuns` (see passRuns)
 * and a warm-up of its own, and joins each name's two rows with `join`. So a machine growing
 * slower or faster while a group is measured weighs on every contender alike, not on those
 * measured last: the baseline comes first, fastlines last, a minute or more apart on the large
 * files. A row not measured in the first pass has no second. With one run, or one slow run,
 * there is one pass: a slow contender would pay a second warm-up for no run.
 */
export async function inTwoPasses(names, settings, measure, join = joinRows) {
  const [firstRuns, secondRuns] = passRuns(settings.runs)
  const [firstSlow, secondSlow] = passRuns(settings.slowRuns)
  const rows = new Map()
  if (secondRuns === 0 || secondSlow === 0) {
    for (const name of names) rows.set(name, await measure(name, settings, false))
    return names.map((name) => rows.get(name))
  }
  const first = { ...settings, runs: firstRuns, slowRuns: firstSlow }
  const second = { ...settings, runs: secondRuns, slowRuns: secondSlow }
  for (const name of names) rows.set(name, await measure(name, first, false))
  for (const name of names.toReversed()) {
    const row = rows.get(name)
    if (isTimed(row)) rows.set(name, join(row, await measure(name, second, true)))
  }
  return names.map((name) => rows.get(name))
}

/** What a row says a contender saw, which its two passes must agree on. */
const SEEN = ['lines', 'chars', 'bytesRead', 'values', 'sum', 'sha256', 'result']

/**
 * One row from a contender's two passes: the first's, with both passes' times and the figures
 * made of them (median, and min and max where the row has them), and the problems of both, with
 * one more if the passes saw different lines (a failure, in a row that has no problems); the
 * second's if that failed. Rows with figures of other samples join them themselves (see
 * cores.mjs, sources.mjs).
 */
export function joinRows(first, second) {
  if (!isTimed(second)) return second
  const times = [...first.times, ...second.times]
  const sorted = times.toSorted((a, b) => a - b)
  const row = {
    ...first,
    runs: times.length,
    capped: Boolean(first.capped || second.capped),
    median: median(sorted),
    times,
  }
  if ('min' in first) Object.assign(row, { min: sorted[0], max: sorted[sorted.length - 1] })
  const differ = SEEN.filter((key) => key in first && JSON.stringify(first[key]) !== JSON.stringify(second[key]))
  const problem = differ.length === 0 ? [] : [`its second pass saw other ${differ.join(', ')} than its first`]
  if ('problems' in first) row.problems = [...new Set([...first.problems, ...(second.problems ?? []), ...problem])]
  else if (problem.length > 0) return { ...row, error: problem[0] }
  return row
}

/**
 * The rows of `contenders` on one runtime and `key` value (a case, a format), in order, measured
 * one at a time in two passes (see inTwoPasses): `measureOne(base, settings)` with `base` =
 * `{ runtime, version, [key]: keyValue, contender }` and its pass's share of `settings`' runs.
 */
export function contenderRows(runtime, key, keyValue, contenders, settings, measureOne, join = joinRows) {
  return inTwoPasses(
    contenders,
    settings,
    (contender, pass, second) => {
      progress.step(`${runtime.name} · ${keyValue} · ${contender}${second ? ' (second pass)' : ''}`)
      return measureOne({ runtime: runtime.name, version: runtime.version, [key]: keyValue, contender }, pass)
    },
    join,
  )
}

/**
 * For a section measured apart from the rest of the results (bench/merge-section.mjs), when and
 * how it was: a sentence to open its README part with; '' for one of the full run.
 */
export function measuredApart(section) {
  const runs = section.runs ?? []
  if (runs.length === 0) return ''
  const one = (run) => `on ${run.startedAt.slice(0, 10)} with \`${run.command}\``
  if (runs.length === 1) return `Measured ${one(runs[0])}. `
  return `Measured in ${runs.length} runs, ${runs.map(one).join(' and ')}. `
}
