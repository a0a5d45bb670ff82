// The benchmark summary that goes between the README's `<!-- bench:start -->` and
// `<!-- bench:end -->` markers: where and how it was measured, the ratios to readline, warm and
// cold, the probe and the chart, then the search section's "Search" (search.mjs), the compressed
// section's "Compressed" (compressed.mjs), the sources section's "Sources" (sources.mjs), the cores
// section's "Cores" (cores.mjs), the JSON Lines section's "JSON Lines" (json-lines.mjs) and the
// follow section's "Following" (follow-report.mjs).
import fs from 'node:fs'
import { fileURLToPath } from 'node:url'
import { followFailures, followReadme } from './follow-report.mjs'
import { cellLegend, inRuntimeOrder, runtimeLabel } from './runtimes.mjs'
import { compressedFailures, compressedReadme } from './compressed.mjs'
import { coresFailures, coresReadme } from './cores.mjs'
import { jsonFailures, jsonReadme } from './json-lines.mjs'
import { searchFailures, searchReadme } from './search.mjs'
import { sourcesFailures, sourcesReadme } from './sources.mjs'
import {
  PROBE_COLUMNS,
  baselineOf,
  coldSpeedup,
  formatAmount,
  formatRatio,
  formatSize,
  groupSections,
  isFailure,
  kibToMB,
  markdownTable,
  probeCells,
  speedup,
} from './report.mjs'

/** How many rows of `results`, in every section, failed or saw the wrong lines. */
export function failureCount(results) {
  const probeRows = (results.probes ?? []).flatMap((probe) => probe.rows)
  return (
    [...results.rows, ...probeRows].filter(isFailure).length +
    searchFailures(results.search).length +
    compressedFailures(results.compressed).length +
    sourcesFailures(results.sources).length +
    coresFailures(results.cores).length +
    jsonFailures(results.json).length +
    followFailures(results.follow).length
  )
}

export const START = '<!-- bench:start -->'
export const END = '<!-- bench:end -->'
/** The chart, as linked from the README at the repository root. */
export const CHART = 'bench/results/chart.svg'
export const DEFAULT_README = fileURLToPath(new URL('../README.md', import.meta.url))
const unique = (values) => [...new Set(values)]

/** One cell per runtime, joined: `2.4x / 2.3x / 2.9x`. */
const joinCells = (cells) => cells.join(' / ')

function ratioCell(row, baseline) {
  if (row === undefined) return '–'
  if (isFailure(row)) return 'ERROR'
  const ratio = speedup(row, baseline)
  return ratio === undefined ? 'n/a' : formatRatio(ratio)
}

/** A row's cold ratio; `–` where the cold read was not measured (floors, logs-1g). */
function coldRatioCell(row, baseline) {
  if (row === undefined || row.cold === undefined) return '–'
  if (row.error !== undefined || row.cold.error !== undefined) return 'ERROR'
  const ratio = coldSpeedup(row, baseline)
  return ratio === undefined ? 'n/a' : formatRatio(ratio)
}

function measuredLine(results) {
  const { cpu, cores, memoryGiB, os } = results.machine
  const runtimes = results.runtimes.map(({ name, version }) => `${runtimeLabel(name)} ${version}`)
  const date = results.startedAt.slice(0, 10)
  const command = results.command === undefined ? '' : ` with \`${results.command}\``
  return (
    `Measured on ${date}${command}: ${cpu}, ${cores} cores, ${memoryGiB} GiB RAM, ${os}; ` + `${runtimes.join(', ')}.`
  )
}

/**
 * Contenders × corpora; each cell holds the runtimes' ratios to their own readline, as
 * `ratio(row, baseline)` gives them. Only the contenders that `keep` keeps of a section's rows, and
 * the corpora where it keeps some, are shown.
 */
function ratioTable(results, { intro, ratio = ratioCell, keep = (rows) => rows }) {
  const sections = groupSections(results.rows).filter((section) => keep(section.rows).length > 0)
  const corpora = unique(sections.map((section) => section.corpus))
  const runtimes = inRuntimeOrder(sections.map((section) => section.runtime))
  const kept = new Set(sections.flatMap((section) => keep(section.rows).map((row) => row.contender)))
  // In table order: a contender kept on one runtime only (deno-streams) has its row on the others.
  const contenders = unique(sections.flatMap((section) => section.rows.map((row) => row.contender))).filter((name) =>
    kept.has(name),
  )
  const sectionOf = (corpus, runtime) =>
    sections.find((section) => section.corpus === corpus && section.runtime === runtime)
  const cell = (contender, corpus) =>
    joinCells(
      runtimes.map((runtime) => {
        const rows = sectionOf(corpus, runtime)?.rows ?? []
        const row = rows.find((candidate) => candidate.contender === contender)
        return ratio(row, baselineOf(rows))
      }),
    )
  const header = corpora.map((corpus) => {
    const { bytes } = sections.find((section) => section.corpus === corpus)
    return `${corpus} (${formatSize(bytes)})`
  })
  const body = contenders.map((contender) => [`\`${contender}\``, ...corpora.map((corpus) => cell(contender, corpus))])
  return [`${intro}; ${cellLegend(runtimes)}:`, '', markdownTable(['contender', ...header], body)].join('\n')
}

const WARM_INTRO = "Speed relative to the same runtime's `readline` (median of the measured runs, higher is faster)"

/** The intro of the cold table, from the results' settings. */
function coldIntro(results) {
  const { coldRuns, noColdCorpus = 'logs-1g' } = results.settings ?? {}
  const processes = coldRuns === undefined ? 'several fresh processes' : `${coldRuns} fresh processes`
  return (
    "Cold: each contender's first read in a fresh process, from loading its package until the read " +
    `ends, relative to the same runtime's cold \`readline\` (median of ${processes}, higher is ` +
    `faster; not measured on ${noColdCorpus}, nor for the floors, which read no file)`
  )
}

/** The contenders with a cold read (measured or failed) among a section's rows. */
const coldRows = (rows) => rows.filter((row) => row.cold !== undefined)

/** A probe row's cells without the reasons, which the stdout tables give. */
function compactProbeCells(row) {
  if (row === undefined) return PROBE_COLUMNS.map(() => '–')
  if (row.error !== undefined) return PROBE_COLUMNS.map(() => 'ERROR')
  if (row.skipped !== undefined) return PROBE_COLUMNS.map(() => 'n/a')
  return probeCells(row)
}

/** Contenders × probe measures; each cell holds the runtimes' values. */
function probeTable(unordered) {
  const order = inRuntimeOrder(unordered.map((probe) => probe.runtime))
  const probes = unordered.toSorted((a, b) => order.indexOf(a.runtime) - order.indexOf(b.runtime))
  const contenders = unique(probes.flatMap((probe) => probe.rows.map((row) => row.contender)))
  const body = contenders.map((contender) => {
    const cells = probes.map((probe) => {
      const row = probe.rows.find((candidate) => candidate.contender === contender)
      return compactProbeCells(row)
    })
    return [`\`${contender}\``, ...PROBE_COLUMNS.map((_, i) => joinCells(cells.map((c) => c[i])))]
  })
  const idle = joinCells(probes.map((probe) => formatAmount(kibToMB(probe.idle.maxRssKiB))))
  const { corpus, runs } = probes[0]
  return [
    `On ${corpus}, each contender in a fresh process (median of ${runs}): peak RSS above an idle ` +
      `process of the same runtime with the same imports (${idle} MB), event-loop delay p99 ` +
      `while reading, and time from the call to the first line; ` +
      `${cellLegend(probes.map((probe) => probe.runtime))}:`,
    '',
    markdownTable(['contender', ...PROBE_COLUMNS], body),
  ].join('\n')
}

/** The markdown that goes between the markers. */
export function readmeSummary(results) {
  const { rows, search, compressed, sources, cores, json, follow } = results
  const sections = [search, compressed, sources, cores, json, follow]
  if (rows.length === 0 && sections.every((section) => section === undefined)) {
    throw new Error('the results hold no measurements')
  }
  const parts = [measuredLine(results)]
  if (rows.length > 0) {
    parts.push(ratioTable(results, { intro: WARM_INTRO }))
    if (rows.some((row) => row.cold !== undefined)) {
      parts.push(ratioTable(results, { intro: coldIntro(results), ratio: coldRatioCell, keep: coldRows }))
    }
    if (results.probes?.length > 0) parts.push(probeTable(results.probes))
    parts.push(`![ratios](${CHART})`)
  }
  if (search !== undefined) parts.push(searchReadme(search))
  if (compressed !== undefined) parts.push(compressedReadme(compressed))
  if (sources !== undefined) parts.push(sourcesReadme(sources))
  if (cores !== undefined) parts.push(coresReadme(cores))
  if (json !== undefined) parts.push(jsonReadme(json))
  if (follow !== undefined) parts.push(followReadme(follow))
  return parts.join('\n\n')
}

/** Where the markers are in `text`; throws if either is missing. */
function markerRange(text, file) {
  const start = text.indexOf(START)
  const end = text.indexOf(END, start + START.length)
  if (start === -1 || end === -1) {
    throw new Error(`${file}: no ${START} ... ${END} markers (both are needed, in that order)`)
  }
  return { start: start + START.length, end }
}

/** Throws unless the README at `file` can be read and has the markers. */
export function checkReadme(file) {
  markerRange(fs.readFileSync(file, 'utf8'), file)
}

/** Rewrites the summary between the markers of the README at `file` from a results object. */
export function updateReadme(results, file) {
  const failures = failureCount(results)
  if (failures > 0) throw new Error(`${failures} contender(s) failed or saw the wrong lines in these results`)
  const text = fs.readFileSync(file, 'utf8')
  const { start, end } = markerRange(text, file)
  const updated = `${text.slice(0, start)}\n${readmeSummary(results)}\n${text.slice(end)}`
  fs.writeFileSync(`${file}.tmp`, updated)
  fs.renameSync(`${file}.tmp`, file)
}
