// Puts one section of a separate run's results into bench/results/latest.json, with when and how
// it was measured (`section.runs`), so that the README summary can show a section measured apart
// from the full run (a full run takes hours): `node bench/merge-section.mjs cores /tmp/cores.json`,
// then `node bench/update-readme.mjs`. With `--add`, the run's cases join the section's instead of
// replacing it: their rows (and what the section records per case or runtime) replace those of the
// same cases, the other cases' rows stay, and the run is listed after the section's earlier ones
// (of which those whose every case a later run replaced are dropped). The follow section, which
// keeps its results per part, has its parts replaced the same way. `headline` puts a run's corpora
// (their rows, cold reads and probes, and when and how that run was measured) in place of the
// full run's; each section that came from the full run is then said to, in its own `runs`.
import fs from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

import { failureCount } from './readme.mjs'

const SECTIONS = ['search', 'compressed', 'sources', 'cores', 'json', 'follow']
/** What the headline of a run is: its corpora's results and the run itself. */
const HEADLINE_KEYS = [
  'startedAt',
  'command',
  'machine',
  'runtimes',
  'settings',
  'corpora',
  'rows',
  'probes',
  'failures',
]
const LATEST = fileURLToPath(new URL('./results/latest.json', import.meta.url))

const { values, positionals } = parseArgs({
  options: { add: { type: 'boolean', default: false } },
  allowPositionals: true,
})
const [name, file] = positionals
if (![...SECTIONS, 'headline'].includes(name) || file === undefined) {
  throw new Error(`usage: node bench/merge-section.mjs <${SECTIONS.join('|')}|headline> <results.json> [--add]`)
}
const from = JSON.parse(fs.readFileSync(file, 'utf8'))
// A run in which a contender failed or saw the wrong lines publishes nothing (run.mjs leaves the
// README alone after one, and update-readme.mjs refuses one).
const failures = failureCount({ rows: [], ...(name === 'headline' ? from : { [name]: from[name] }) })
if (failures > 0) throw new Error(`${file}: ${failures} contender(s) failed or saw the wrong lines; not merged`)
const latest = JSON.parse(fs.readFileSync(LATEST, 'utf8'))
/** The case a row measured: its `case`, the compressed section's `format` or the search's `query`. */
const caseOf = (row) => row.case ?? row.format ?? row.query
/**
 * The cases a section's run measured: its rows' cases (the compressed section's formats, the search's queries), or for
 * the follow section its parts.
 */
const casesOf = (section) =>
  section.rows === undefined ? (section.parts ?? []) : [...new Set(section.rows.map(caseOf))]
/** What a section records of the run it came from, `results`'s. */
const runOf = (results, section) => ({
  startedAt: results.startedAt,
  command: results.command,
  runtimes: results.runtimes,
  cases: casesOf(section),
})

const merged = name === 'headline' ? mergeHeadline() : mergeSection()

/**
 * The run's corpora replace the full run's; each section that came from the full run (no `runs`
 * of its own) is first given that run's date and command. What the log line says of it.
 */
function mergeHeadline() {
  if (from.rows === undefined || from.rows.length === 0) throw new Error(`${file} has no corpora measured`)
  for (const section of SECTIONS) {
    if (latest[section] !== undefined && latest[section].runs === undefined) {
      latest[section].runs = [runOf(latest, latest[section])]
    }
  }
  for (const key of HEADLINE_KEYS) latest[key] = from[key]
  return ''
}

/** The run's section replaces the section, or with `--add` joins it case by case. What the log line says of it. */
function mergeSection() {
  const added = from[name]
  if (added === undefined) throw new Error(`${file} has no ${name} section`)
  const run = runOf(from, added)
  const earlier = latest[name]
  if (!values.add || earlier === undefined) {
    latest[name] = { ...added, runs: [run] }
    return ''
  }
  refuseOtherData(earlier, added)
  const replaced = new Set(run.cases)
  latest[name] = {
    ...earlier,
    ...(earlier.rows === undefined ? partLists(earlier, added, replaced) : caseRows(earlier, added, replaced)),
    runs: stillShown([...(earlier.runs ?? []), run]),
  }
  return `, cases ${run.cases.join(', ')}`
}

/**
 * Refuses a run whose data is not the section's: another corpus, or a JSON Lines log of another
 * size, whose rows beside the section's would compare two inputs.
 */
function refuseOtherData(earlier, added) {
  for (const [what, before, now] of [
    ['corpus', earlier.corpus, added.corpus],
    ['settings.pinoMB', earlier.settings?.pinoMB, added.settings?.pinoMB],
  ]) {
    if (before !== now) throw new Error(`${file}: its ${name} ${what} is ${now}, the section's ${before}; not added`)
  }
}

/**
 * A section kept as rows: the added run's rows replace those of its cases, and the records the
 * section keeps per case or runtime (`cases`, `idle`) are merged, the added run's winning, as is
 * the machine's `cores` that the sources section records. The run must have measured each
 * replaced case on every runtime the section had it on.
 */
function caseRows(earlier, added, replaced) {
  const records = ['cases', 'idle']
    .filter((key) => earlier[key] !== undefined || added[key] !== undefined)
    .map((key) => [key, { ...earlier[key], ...added[key] }])
  const measuredOn = new Set(added.rows.map((row) => `${caseOf(row)} ${row.runtime}`))
  for (const row of earlier.rows.filter((each) => replaced.has(caseOf(each)))) {
    if (!measuredOn.has(`${caseOf(row)} ${row.runtime}`)) {
      throw new Error(`${file}: ${caseOf(row)} not measured on ${row.runtime}, where the section has it; not added`)
    }
  }
  const rows = [...earlier.rows.filter((row) => !replaced.has(caseOf(row))), ...added.rows]
  const cores = added.cores === undefined ? {} : { cores: added.cores }
  return { ...Object.fromEntries(records), ...cores, rows }
}

/**
 * The follow section's lists of results, which it keeps per part rather than as rows: each list
 * the added run measured (its part among `replaced`) replaces the earlier one; the flood's rows,
 * which name their part, are replaced part by part; `parts` lists every part measured.
 */
function partLists(earlier, added, replaced) {
  const partOf = { latency: 'latency', idle: 'idle', neighbour: 'neighbour', lastLines: 'last-lines' }
  const lists = Object.entries(partOf).map(([key, part]) => [key, replaced.has(part) ? added[key] : earlier[key]])
  const flood = [...earlier.flood.filter((row) => !replaced.has(row.part)), ...added.flood]
  return { ...Object.fromEntries(lists), flood, parts: [...new Set([...earlier.parts, ...replaced])] }
}

/** The runs (oldest first) that some row still comes from: a run whose every case a later one replaced is gone. */
function stillShown(runs) {
  const covered = new Set()
  const kept = []
  for (const each of runs.toReversed()) {
    if (each.cases.some((c) => !covered.has(c))) kept.unshift(each)
    for (const c of each.cases) covered.add(c)
  }
  return kept
}
fs.writeFileSync(`${LATEST}.tmp`, `${JSON.stringify(latest, null, 2)}\n`)
fs.renameSync(`${LATEST}.tmp`, LATEST)
console.log(`${LATEST}: ${name} from ${file} (${from.startedAt})${merged}`)
