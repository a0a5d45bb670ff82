// Benchmark driver: generates the corpora, measures every contender in a worker process per
// runtime × corpus, prints markdown tables and writes bench/results/latest.json.
// See bench/README.md.
import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { CONTENDERS } from './contenders.mjs'
import { CORPORA, DEFAULT_CORPORA, ensureCorpus } from './corpora.mjs'
import { formatSection, isFailure, toRow } from './report.mjs'

const WORKER = fileURLToPath(new URL('./worker.mjs', import.meta.url))
const RESULTS = fileURLToPath(new URL('./results/latest.json', import.meta.url))
/** A contender whose warm-up run takes at least SLOW_MS gets at most SLOW_RUNS measured runs. */
const SLOW_MS = 2500
const SLOW_RUNS = 3
const WORKER_TIMEOUT_MS = 10 * 60 * 1000

const RUNTIMES = {
  node: { command: process.execPath, args: ['--expose-gc'] },
  bun: { command: fileURLToPath(new URL('../node_modules/.bin/bun', import.meta.url)), args: [] },
}

const USAGE = `Usage: node bench/run.mjs [options]
  --corpora a,b      corpora (default: ${DEFAULT_CORPORA}; all: ${Object.keys(CORPORA)})
  --runtimes a,b     runtimes (default: ${Object.keys(RUNTIMES)})
  --contenders a,b   only these contenders (default: all)
  --runs n           measured runs after one warm-up run (default: 5)
  --quick            logs-70k only, 3 runs (explicit --corpora or --runs still win)
  -h, --help         show this help`

class UsageError extends Error {}

/** A comma-separated selection, in the order of `known`. */
function parseList(value, known, what) {
  if (value === undefined) return known
  const names = value.split(',').map((name) => name.trim())
  const unknown = names.filter((name) => !known.includes(name))
  if (unknown.length > 0) {
    throw new UsageError(`unknown ${what}: ${unknown.join(', ')} (known: ${known.join(', ')})`)
  }
  return known.filter((name) => names.includes(name))
}

const OPTIONS = {
  corpora: { type: 'string' },
  runtimes: { type: 'string' },
  contenders: { type: 'string' },
  runs: { type: 'string' },
  quick: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
}

function parseFlags(args) {
  try {
    return parseArgs({ args, options: OPTIONS }).values
  } catch (error) {
    throw new UsageError(error.message)
  }
}

function parseOptions(args) {
  const values = parseFlags(args)
  const runs = Number(values.runs ?? (values.quick ? 3 : 5))
  if (!Number.isInteger(runs) || runs < 1) {
    throw new UsageError(`--runs must be a positive integer, got ${values.runs}`)
  }
  const corpora = values.corpora ?? (values.quick ? 'logs-70k' : DEFAULT_CORPORA.join(','))
  return {
    help: values.help,
    corpora: parseList(corpora, Object.keys(CORPORA), 'corpus'),
    runtimes: parseList(values.runtimes, Object.keys(RUNTIMES), 'runtime'),
    contenders: parseList(values.contenders, Object.keys(CONTENDERS), 'contender'),
    runs,
  }
}

function machine() {
  const cpus = os.cpus()
  return {
    cpu: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
  }
}

/** The requested runtimes that start, with their versions; warns about the others. */
function availableRuntimes(names) {
  const runtimes = []
  for (const name of names) {
    const { command, args } = RUNTIMES[name]
    try {
      const version = execFileSync(command, ['--version'], { encoding: 'utf8' }).trim()
      runtimes.push({ name, version: version.replace(/^v/, ''), command, args })
    } catch {
      process.stderr.write(`warning: ${name} (${command}) does not start; skipped\n`)
    }
  }
  return runtimes
}

function formatDuration(ms) {
  const seconds = Math.round(ms / 1000)
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`
}

function header(host, runtimes) {
  return [
    '# fastlines benchmark',
    '',
    `- machine: ${host.cpu}, ${host.cores} cores, ${host.memoryGiB} GiB RAM, ${host.os}`,
    ...runtimes.map(({ name, version, command }) => `- ${name}: ${version} (${command})`),
    '',
  ].join('\n')
}

function prepareCorpus(name) {
  process.stderr.write(`corpus ${name}: `)
  const corpus = ensureCorpus(name)
  const origin =
    corpus.generatedMs > 0 ? `generated in ${formatDuration(corpus.generatedMs)}` : 'cached'
  process.stderr.write(`${corpus.bytes} bytes, ${corpus.lines} lines (${origin})\n`)
  return corpus
}

/** Runs one contender in a worker process: `{ measurement }`, or `{ error }` if it failed. */
function runWorker(runtime, corpus, contender, runs) {
  const job = [contender, corpus.path, runs, SLOW_RUNS, SLOW_MS].map(String)
  const child = spawnSync(runtime.command, [...runtime.args, WORKER, ...job], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: WORKER_TIMEOUT_MS,
  })
  if (child.error !== undefined) return { error: child.error.message }
  if (child.status !== 0) return { error: `worker exited with ${child.status ?? child.signal}` }
  try {
    return { measurement: JSON.parse(child.stdout) }
  } catch {
    return { error: `unreadable worker output: ${child.stdout.slice(0, 200)}` }
  }
}

function reportProgress(row) {
  const outcome =
    row.error ??
    (row.skipped === undefined ? `${row.median.toFixed(1)} ms (median of ${row.runs})` : 'n/a')
  process.stderr.write(`  ${row.runtime} · ${row.corpus} · ${row.contender}: ${outcome}\n`)
}

/** Writes the results so far; through a .tmp file so that an interrupted write leaves no mess. */
function writeResults(results) {
  fs.mkdirSync(new URL('./results/', import.meta.url), { recursive: true })
  fs.writeFileSync(`${RESULTS}.tmp`, `${JSON.stringify(results, null, 2)}\n`)
  fs.renameSync(`${RESULTS}.tmp`, RESULTS)
}

function main() {
  const options = parseOptions(process.argv.slice(2))
  if (options.help) {
    console.log(USAGE)
    return 0
  }
  const started = performance.now()
  const host = machine()
  const runtimes = availableRuntimes(options.runtimes)
  const settings = { runs: options.runs, slowRuns: SLOW_RUNS, slowMs: SLOW_MS }
  const notes = Object.fromEntries(
    Object.entries(CONTENDERS).map(([name, { note }]) => [name, note]),
  )
  const results = {
    startedAt: new Date().toISOString(),
    machine: host,
    runtimes: runtimes.map(({ name, version }) => ({ name, version })),
    settings,
    corpora: [],
    rows: [],
  }
  console.log(header(host, runtimes))
  for (const corpusName of options.corpora) {
    const corpus = prepareCorpus(corpusName)
    results.corpora.push(corpus)
    for (const runtime of runtimes) {
      const rows = options.contenders.map((contender) => {
        const outcome = runWorker(runtime, corpus, contender, options.runs)
        const row = toRow({ runtime, corpus, contender, ...outcome })
        reportProgress(row)
        return row
      })
      results.rows.push(...rows)
      writeResults(results)
      console.log(formatSection(rows, corpus, runtime, { ...settings, notes }))
    }
  }
  results.wallMs = performance.now() - started
  results.failures = results.rows.filter(isFailure).length
  writeResults(results)
  console.log(`Wall time: ${formatDuration(results.wallMs)}. Full results: ${RESULTS}`)
  if (results.failures === 0) return 0
  console.error(`\n✗ ${results.failures} contender(s) failed or saw the wrong lines: see above.`)
  return 1
}

try {
  process.exitCode = main()
} catch (error) {
  if (!(error instanceof UsageError)) throw error
  console.error(`error: ${error.message}\n\n${USAGE}`)
  process.exitCode = 2
}
