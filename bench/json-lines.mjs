// The JSON Lines section (issue 24): readJsonLines against what users parse JSON Lines with
// (readline + JSON.parse, split2(JSON.parse), ndjson, stream-json's JSONL parser, the hand split
// + JSON.parse, Bun.JSONL on Bun) and the floor (JSON.parse of the lines already in memory), on a
// pino-style log, nested records with non-ASCII strings, the log gzipped, the log searched
// (`match`), and the log with 1% of its lines broken (`onError: 'skip'`). Each contender runs in
// a worker process per runtime × case (json-worker.mjs); every run's value count and sum are
// checked against the case's first contender. Prints each case's table and the targets, and
// writes the rows to --results.
// Usage: node bench/json-lines.mjs [--runs 3] [--pino-mb 1024] [--cases a,b] [--runtimes a,b]
//        [--results bench/results/json-lines.json]
import fs from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

import { BAD_EVERY, ensureJsonCorpora } from './json-corpora.mjs'
import { JSON_CASES, JSON_CASE_NAMES } from './json-readers.mjs'
import { formatAmount, markdownTable, medianOf } from './report.mjs'
import { RUNTIMES, RUNTIME_NAMES, cellLegend, runtimeLabel } from './runtimes.mjs'
import { runWorker } from './sources.mjs'

const WORKER = fileURLToPath(new URL('./json-worker.mjs', import.meta.url))
const WORKER_TIMEOUT_MS = 10 * 60 * 1000
/** A contender whose warm-up took this long runs SLOW_RUNS times, not --runs. */
const SLOW_MS = 20_000
const SLOW_RUNS = 1

/** One contender on one case on one runtime: its row, with problems if its values differ. */
async function measure(runtime, caseName, contender, file, runs) {
  const base = { runtime: runtime.name, case: caseName, contender }
  const args = [caseName, contender, file, runs, SLOW_RUNS, SLOW_MS]
  const { output, error, skipped } = await runWorker(runtime, args, undefined, WORKER_TIMEOUT_MS, WORKER)
  if (error !== undefined) return { ...base, error }
  if (skipped !== undefined) return { ...base, skipped }
  const times = output.samples.map((sample) => sample.ms)
  const { values, sum } = output.samples[0]
  return { ...base, runs: times.length, median: medianOf(times), times, warmupMs: output.warmup.ms, values, sum }
}

/** Marks the rows of a case whose values disagree with its first measured contender's. */
function checkAgreement(rows) {
  const reference = rows.find((row) => row.median !== undefined)
  for (const row of rows) {
    if (row.median === undefined || row === reference) continue
    if (row.values !== reference.values || row.sum !== reference.sum) {
      row.problem = `${row.values} values (sum ${row.sum}), ${reference.contender} ${reference.values} (sum ${reference.sum})`
    }
  }
}

const BASELINES = { gzip: 'zlib-readline', match: 'readline-includes' }
const baselineOf = (caseName) => BASELINES[caseName] ?? 'readline'

/** A case's table: per contender, each runtime's median ms and ratio to the case's baseline. */
function caseTable(rows, caseName, runtimes) {
  const inCase = rows.filter((row) => row.case === caseName)
  const contenders = [...new Set(inCase.map((row) => row.contender))]
  const cell = (contender, runtime) => {
    const row = inCase.find((r) => r.contender === contender && r.runtime === runtime)
    if (row === undefined) return ''
    if (row.skipped !== undefined) return 'n/a'
    if (row.error !== undefined) return `failed: ${row.error.slice(0, 40)}`
    const baseline = inCase.find((r) => r.contender === baselineOf(caseName) && r.runtime === runtime)
    const ratio = baseline?.median === undefined ? '' : ` (${formatAmount(baseline.median / row.median)}x)`
    return `${formatAmount(row.median)} ms${ratio}${row.problem === undefined ? '' : ' ✗ values differ'}`
  }
  return markdownTable(
    ['contender', ...runtimes.map(runtimeLabel)],
    contenders.map((contender) => [contender, ...runtimes.map((runtime) => cell(contender, runtime))]),
  )
}

const medianFor = (rows, caseName, contender, runtime) =>
  rows.find((row) => row.case === caseName && row.contender === contender && row.runtime === runtime)?.median

/**
 * The issue's targets, per runtime: J1 per value >= 2x readline + JSON.parse and faster than
 * every other contender (pino and nested); J2 batches within 1.3x the floor; J3 with `match`
 * >= 10x readline + includes + JSON.parse; J4 1% bad lines skipped within 1.2x the clean log.
 */
function targets(rows, runtimes) {
  const checks = []
  const check = (id, what, runtime, holds, detail) => checks.push({ id, what, runtime, holds, detail })
  for (const runtime of runtimes) {
    for (const caseName of ['pino', 'nested']) {
      const mine = medianFor(rows, caseName, 'fastlines-values', runtime)
      const readline = medianFor(rows, caseName, 'readline', runtime)
      if (mine === undefined || readline === undefined) continue
      const others = rows.filter(
        (row) =>
          row.case === caseName &&
          row.runtime === runtime &&
          row.median !== undefined &&
          !row.contender.startsWith('fastlines') &&
          row.contender !== 'floor',
      )
      const fastest = others.reduce((best, row) => (row.median < best.median ? row : best))
      check(
        'J1',
        `${caseName}: per value >= 2x readline + JSON.parse`,
        runtime,
        readline / mine >= 2,
        `${formatAmount(readline / mine)}x`,
      )
      check(
        'J1',
        `${caseName}: per value faster than every contender`,
        runtime,
        mine < fastest.median,
        `${formatAmount(mine)} ms vs ${fastest.contender} ${formatAmount(fastest.median)} ms`,
      )
      const batches = medianFor(rows, caseName, 'fastlines-batches', runtime)
      const floor = medianFor(rows, caseName, 'floor', runtime)
      if (batches !== undefined && floor !== undefined) {
        check(
          'J2',
          `${caseName}: batches within 1.3x the floor`,
          runtime,
          batches <= 1.3 * floor,
          `${formatAmount(batches / floor)}x the floor`,
        )
      }
    }
    const matched = medianFor(rows, 'match', 'fastlines-values', runtime)
    const includes = medianFor(rows, 'match', 'readline-includes', runtime)
    if (matched !== undefined && includes !== undefined) {
      check(
        'J3',
        'match 1%: >= 10x readline + includes + JSON.parse',
        runtime,
        includes / matched >= 10,
        `${formatAmount(includes / matched)}x`,
      )
    }
    const skipping = medianFor(rows, 'broken', 'fastlines-values', runtime)
    const clean = medianFor(rows, 'pino', 'fastlines-values', runtime)
    if (skipping !== undefined && clean !== undefined) {
      check(
        'J4',
        `1% bad lines skipped: <= 1.2x the clean log`,
        runtime,
        skipping <= 1.2 * clean,
        `${formatAmount(skipping / clean)}x`,
      )
    }
  }
  return checks
}

async function main() {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '3' },
      'pino-mb': { type: 'string', default: '1024' },
      cases: { type: 'string', default: JSON_CASE_NAMES.join(',') },
      runtimes: { type: 'string', default: RUNTIME_NAMES.join(',') },
      results: { type: 'string', default: fileURLToPath(new URL('./results/json-lines.json', import.meta.url)) },
    },
  })
  const pinoMB = Number(values['pino-mb'])
  const files = await ensureJsonCorpora(pinoMB)
  const runtimes = values.runtimes.split(',')
  const cases = values.cases.split(',')
  const startedAt = new Date().toISOString()
  const rows = []
  for (const name of runtimes) {
    const runtime = { name, ...RUNTIMES[name] }
    for (const caseName of cases) {
      const caseRows = []
      for (const contender of JSON_CASES[caseName].contenders) {
        const row = await measure(runtime, caseName, contender, files[JSON_CASES[caseName].file], values.runs)
        console.log(
          `  ${name} · ${caseName} · ${contender}: ${row.median === undefined ? (row.skipped ?? row.error) : `${formatAmount(row.median)} ms, ${row.values} values`}`,
        )
        caseRows.push(row)
      }
      checkAgreement(caseRows)
      rows.push(...caseRows)
    }
  }
  const checks = targets(rows, runtimes)
  const sizes = Object.fromEntries(Object.entries(files).map(([key, file]) => [key, fs.statSync(file).size]))
  const report = [
    `# JSON Lines (issue 24), ${startedAt.slice(0, 10)}: \`node bench/json-lines.mjs --runs ${values.runs} --pino-mb ${pinoMB}\``,
    '',
    `Files: ${Object.entries(sizes)
      .map(([key, bytes]) => `${key} ${formatAmount(bytes / 1e6)} MB`)
      .join(
        ', ',
      )}; every ${BAD_EVERY}th line of broken is cut short. Median of ${values.runs} runs after a warm-up (${SLOW_RUNS} when the warm-up took ${SLOW_MS / 1000} s); (Nx): the case's baseline median / the contender's. ${cellLegend(runtimes)}.`,
    ...cases.flatMap((caseName) => [
      '',
      `## ${caseName} (vs ${baselineOf(caseName)})`,
      '',
      caseTable(rows, caseName, runtimes),
    ]),
    '',
    '## Targets',
    '',
    markdownTable(
      ['target', 'runtime', '', 'measured'],
      checks.map(({ id, what, runtime, holds, detail }) => [
        `${id} ${what}`,
        runtimeLabel(runtime),
        holds ? '✓' : '✗',
        detail,
      ]),
    ),
    '',
    `${checks.filter((c) => c.holds).length} of ${checks.length} checks hold.`,
  ].join('\n')
  console.log(`\n${report}`)
  const problems = rows.filter((row) => row.problem !== undefined || row.error !== undefined)
  for (const row of problems)
    console.log(`problem: ${row.runtime} ${row.case} ${row.contender}: ${row.problem ?? row.error}`)
  fs.writeFileSync(
    values.results,
    `${JSON.stringify({ startedAt, settings: { runs: Number(values.runs), pinoMB }, sizes, rows, checks }, null, 2)}\n`,
  )
  console.log(`\nResults: ${values.results}`)
  process.exitCode = problems.length > 0 ? 1 : 0
}

await main()
