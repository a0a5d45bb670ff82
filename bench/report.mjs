// Turns worker measurements into result rows, markdown tables and line-count verdicts.

const MB = 1_000_000
const COLUMNS = ['contender', 'median ms', 'min', 'max', 'MB/s', 'vs readline', 'lines']

function median(sorted) {
  const middle = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

const formatCount = (count) => count.toLocaleString('en-US')
const formatMs = (ms) => ms.toFixed(ms < 100 ? 2 : 1)

/** How a measurement disagrees with its corpus: line counts always, line lengths where seen. */
function countProblems(measurement, corpus) {
  const problems = new Set()
  for (const run of [measurement.warmup, ...measurement.samples]) {
    if (run.lines !== corpus.lines) {
      problems.add(`${run.lines} lines, expected ${corpus.lines}`)
    } else if (run.chars !== undefined && run.chars !== corpus.chars) {
      problems.add(`${run.chars} UTF-16 units in lines, expected ${corpus.chars}`)
    }
  }
  return [...problems]
}

/**
 * One result row: a worker's measurement (or its skip reason, or the failure `error`) reduced
 * to the statistics shown and saved.
 */
export function toRow({ runtime, corpus, contender, measurement, error }) {
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
  const sorted = times.toSorted((a, b) => a - b)
  return {
    ...row,
    runs: times.length,
    capped: measurement.capped,
    median: median(sorted),
    min: sorted[0],
    max: sorted[sorted.length - 1],
    lines: measurement.samples[0].lines,
    times,
    warmupMs: measurement.warmup.ms,
    problems: countProblems(measurement, corpus),
  }
}

export function isFailure(row) {
  return row.error !== undefined || row.problems?.length > 0
}

function cells(row, baseline) {
  const name = row.capped ? `${row.contender} †` : row.contender
  if (row.error !== undefined) return [name, 'ERROR', '', '', '', '', '']
  if (row.skipped !== undefined) return [name, `n/a (${row.skipped})`, '', '', '', '', '']
  const lines = formatCount(row.lines)
  return [
    name,
    formatMs(row.median),
    formatMs(row.min),
    formatMs(row.max),
    (row.bytes / MB / (row.median / 1000)).toFixed(0),
    baseline === undefined ? '–' : `${(baseline.median / row.median).toFixed(1)}x`,
    row.problems.length > 0 ? `${lines} ✗` : lines,
  ]
}

/** A markdown table padded to aligned columns: the first left-aligned, the others right. */
function markdownTable(header, body) {
  const widths = header.map((title, i) =>
    Math.max(title.length, ...body.map((row) => row[i].length)),
  )
  const pad = (text, i) => (i === 0 ? text.padEnd(widths[i]) : text.padStart(widths[i]))
  const line = (values) => `| ${values.map(pad).join(' | ')} |`
  const rule = widths.map((width, i) => (i === 0 ? '-'.repeat(width) : `${'-'.repeat(width - 1)}:`))
  return [line(header), `| ${rule.join(' | ')} |`, ...body.map(line)].join('\n')
}

function footer(rows, { runs, slowRuns, slowMs, notes }) {
  const lines = [
    'MB/s: 10^6 bytes per second at the median.',
    'vs readline: median of readline / median of the contender (higher is faster).',
  ]
  if (rows.some((row) => row.capped)) {
    lines.push(`†: capped at ${slowRuns} measured runs (its warm-up run took >= ${slowMs} ms).`)
  }
  for (const { contender } of rows) {
    if (notes[contender] !== undefined) lines.push(`${contender}: ${notes[contender]}.`)
  }
  return lines.map((text) => `- ${text}`).join('\n')
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
  const baseline = rows.find((row) => row.contender === 'readline' && row.median !== undefined)
  const size = `${(corpus.bytes / MB).toFixed(1)} MB, ${formatCount(corpus.lines)} lines`
  const body = rows.map((row) => cells(row, baseline))
  return [
    `### ${runtime.name} ${runtime.version} · ${corpus.name} (${size})`,
    '',
    markdownTable(COLUMNS, body),
    '',
    footer(rows, settings),
    '',
    verdict(rows, corpus),
    '',
  ].join('\n')
}
