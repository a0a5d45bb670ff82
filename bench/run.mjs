// Benchmark driver: generates the corpora, measures every contender in a worker process per
// runtime × corpus and its first read in fresh processes (cold), probes memory, event-loop delay
// and first-line latency on logs-1g, runs the search section (search.mjs: finding the lines
// that contain a literal), the compressed section (compressed.mjs: the lines of a gzip and a zstd
// file), with --sources the sources section (sources.mjs: the lines of streams and chunks
// rather than paths), with --cores the cores section (cores.mjs: countLines on several threads, and
// shares of a file read by worker threads, on every core and pinned to one), with --json the JSON
// Lines section (json-lines.mjs: readJsonLines against readline + JSON.parse and co), and the
// follow section (follow.mjs: following a growing file, and its last lines), prints markdown
// tables, writes bench/results/latest.json and chart.svg, optionally the README summary, and
// finally which targets hold. See bench/README.md.
import { execFile, execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs, promisify } from 'node:util'
import { CONTENDERS } from './contenders.mjs'
import { CORPORA, DEFAULT_CORPORA, ensureCorpus } from './corpora.mjs'
import { renderChart } from './chart.mjs'
import { COMPRESSED_FORMAT_NAMES, ensureCompressed } from './compressed-corpora.mjs'
import { formatCompressedSection, runCompressedSection } from './compressed.mjs'
import { CORE_CASE_NAMES, CORE_CONTENDER_NAMES, describeResult, formatCoresSection, runCoresSection } from './cores.mjs'
import { DECOMPRESSOR_NAMES } from './decompressors.mjs'
import { FOLLOWER_NAMES, FOLLOW_PARTS, FOLLOW_SETTINGS, runFollowSection } from './follow.mjs'
import { formatFollowSection } from './follow-report.mjs'
import { ensureJsonCorpora } from './json-corpora.mjs'
import { JSON_CASE_NAMES, JSON_PINO_MB, JSON_READER_NAMES, formatJsonSection, runJsonSection } from './json-lines.mjs'
import { DEFAULT_README, checkReadme, failureCount, updateReadme } from './readme.mjs'
import { SEARCHER_NAMES, formatSearchSection, runSearchSection } from './search.mjs'
import { SOURCE_CASE_NAMES, SOURCE_READER_NAMES, formatSourcesSection, runSourcesSection } from './sources.mjs'
import { RUNTIMES, parseVersion, wrongRuntime } from './runtimes.mjs'
import { formatTargets } from './targets.mjs'
import { HEADLINE_CONTENDERS, formatHeadline } from './headline.mjs'
import { formatDuration, measurementMs, progress, sectionMs } from './progress.mjs'
import {
  formatProbeSection,
  formatSection,
  hasCold,
  passRuns,
  probeCells,
  summarizeProbes,
  toProbeRow,
  toRow,
} from './report.mjs'

const execFileAsync = promisify(execFile)

// Every Deno process checks for a newer Deno in the background; without network that check waits
// about 30 s, and while it does Deno now and then leaves a step that fastlines settled
// unresumed until it gives up (README, Deno). The benchmark measures fastlines, not that check:
// every process the driver starts inherits this.
process.env.DENO_NO_UPDATE_CHECK = '1'
const WORKER = fileURLToPath(new URL('./worker.mjs', import.meta.url))
const PROBE = fileURLToPath(new URL('./probe.mjs', import.meta.url))
const COLD = fileURLToPath(new URL('./cold.mjs', import.meta.url))
/** Where a --full run writes its results and chart: what the README's tables come from (committed). */
const RESULTS = fileURLToPath(new URL('./results/latest.json', import.meta.url))
const CHART = fileURLToPath(new URL('./results/chart.svg', import.meta.url))
/** Where any other run writes them (not committed), so that it leaves the README's figures alone. */
const LAST_RESULTS = fileURLToPath(new URL('./results/last.json', import.meta.url))
const LAST_CHART = fileURLToPath(new URL('./results/last.svg', import.meta.url))
/** Where this run writes its results and chart: see setOutput. */
const output = { results: LAST_RESULTS, chart: LAST_CHART }
/** The default run's measured runs (see headline.mjs for its contenders): a few minutes on 2 cores. */
const HEADLINE_RUNS = 3
/** The probe runs on this corpus only, in PROBE_RUNS fresh processes per contender. */
const PROBE_CORPUS = 'logs-1g'
const PROBE_RUNS = 3
/** The follow section reads the last lines of this corpus. */
const LAST_LINES_CORPUS = 'logs-1g'
/** The search section searches this corpus. */
const SEARCH_CORPUS = 'logs-1g'
/** The compressed section reads this corpus compressed, unless --compressed-corpus says. */
const COMPRESSED_CORPUS = 'logs-1g'
/** The sources section reads this corpus (and its gzip file), unless --sources-corpus says. */
const SOURCES_CORPUS = 'logs-1g'
/** The cores section reads this corpus, unless --cores-corpus says. */
const CORES_CORPUS = 'logs-1g'
/** The probe's name for an idle process: same runtime and imports, reads nothing. */
const IDLE = 'idle'
/**
 * The cold read is measured on every corpus but this one: a cold readline read of 1 GB costs
 * seconds per process, and says nothing about start-up that the other corpora do not.
 */
const NO_COLD_CORPUS = 'logs-1g'
/** A contender whose warm-up run takes at least SLOW_MS gets at most SLOW_RUNS measured runs. */
const SLOW_MS = 2500
const SLOW_RUNS = 3
const WORKER_TIMEOUT_MS = 10 * 60 * 1000

const NOTES = Object.fromEntries(Object.entries(CONTENDERS).map(([name, { note }]) => [name, note]))

const USAGE = `Usage: node bench/run.mjs [options]
  With no options, the headline (a few minutes): ${DEFAULT_CORPORA.join(' and ')} on every
  runtime, ${HEADLINE_RUNS} runs, no cold read, probe or section, by
  ${HEADLINE_CONTENDERS.join(', ')};
  written to bench/results/last.json. Explicit options still win over a preset.
  --full             everything the README's tables come from: every corpus and contender, 5 runs,
                     5 cold runs, the probe and every section (hours), written to
                     bench/results/latest.json
  --quick            logs-70k only, every contender, 3 runs, 3 cold runs, no probe or section
  --corpora a,b      corpora, or all (default: ${DEFAULT_CORPORA}; all: ${Object.keys(CORPORA)})
  --runtimes a,b     runtimes (default: ${Object.keys(RUNTIMES)})
  --contenders a,b   only these contenders (default: the headline's; all with --full or --quick)
  --runs n           measured runs after one warm-up run (default: ${HEADLINE_RUNS}, 5 with --full)
  --[no-]cold        also time each contender's first read, from loading its package, in fresh
                     processes; not on ${NO_COLD_CORPUS}, not for the floors (default: off, on with
                     --full and --quick)
  --cold-runs n      how many (default: 5, 3 with --quick; implies --cold)
  --[no-]probe       on ${PROBE_CORPUS}, also probe peak RSS, event-loop delay and time to
                     first line, ${PROBE_RUNS} fresh processes per contender (default: off, on
                     with --full)
  --[no-]search      after the corpora, run the search section: searchers finding the lines
                     of ${SEARCH_CORPUS} that contain a literal, three queries; ~3 min
                     (default: off, on with --full)
  --search-only      run the search section and nothing else
  --searchers a,b    searchers in the search section (default: ${SEARCHER_NAMES.join(',')})
  --[no-]compressed  after the search section, run the compressed section: the lines of
                     ${COMPRESSED_CORPUS} compressed with gzip and zstd (made on first use), read
                     by fastlines' decompress and by zlib, zcat and zstdcat (default: off, on with
                     --full)
  --compressed-only  run the compressed section and nothing else
  --compressed-corpus name
                     the corpus the compressed section compresses (default: ${COMPRESSED_CORPUS};
                     logs-70k for a quick check)
  --compressed-formats a,b
                     formats in the compressed section (default: ${COMPRESSED_FORMAT_NAMES.join(',')})
  --decompressors a,b
                     contenders in the compressed section (default: all:
                     ${DECOMPRESSOR_NAMES.join(',')})
  --[no-]sources     after the compressed section, run the sources section: the lines of
                     ${SOURCES_CORPUS} read from streams and chunks rather than its path (stdin, a
                     child's stdout, a file stream, JS-fed chunks, a gzip stream, one line per
                     chunk) by readLines(source) and by readline and co; tens of minutes a
                     runtime (default: off, on with --full; --sources-only runs it alone)
  --sources-only     run the sources section and nothing else
  --sources-corpus name
                     the corpus the sources section reads (default: ${SOURCES_CORPUS}; logs-70k for a
                     quick check)
  --sources-cases a,b
                     cases in the sources section (default: all:
                     ${SOURCE_CASE_NAMES.join(',')})
  --source-readers a,b
                     contenders in the sources section (default: all:
                     ${SOURCE_READER_NAMES.join(',')})
  --[no-]cores       after the sources section, run the cores section: countLines on 2 threads
                     and automatic against one and wc -l / grep -F -c, and 1, 2, 4 worker threads
                     each reading a share of ${CORES_CORPUS} against one reader, each on every core
                     and pinned to one (taskset -c 0); minutes a runtime (default: off, on with
                     --full)
  --cores-only       run the cores section and nothing else
  --cores-corpus name
                     the corpus the cores section reads (default: ${CORES_CORPUS}; logs-70k for a
                     quick check)
  --cores-cases a,b  cases in the cores section (default: all: ${CORE_CASE_NAMES.join(',')})
  --cores-contenders a,b
                     contenders in the cores section (default: all:
                     ${CORE_CONTENDER_NAMES.join(',')})
  --[no-]json        after the cores section, run the JSON Lines section: readJsonLines against
                     readline + JSON.parse, split2, ndjson, stream-json, a hand split, Bun.JSONL
                     and the floor, on a pino-style log, nested records, the log gzipped, searched
                     (match) and with 1% bad lines (made on first use); a quarter of an hour a
                     runtime (default: off, on with --full)
  --json-only        run the JSON Lines section and nothing else
  --json-pino-mb n   the pino log's size in MB, the nested file a fifth of it (default:
                     ${JSON_PINO_MB}; 8 for a quick check)
  --json-cases a,b   cases in the JSON Lines section (default: all: ${JSON_CASE_NAMES.join(',')})
  --json-contenders a,b
                     contenders in the JSON Lines section (default: all:
                     ${JSON_READER_NAMES.join(',')})
  --[no-]follow      after the JSON Lines section, run the follow section: follow latency, idle CPU, no
                     loss (with rotations), and the last lines of ${LAST_LINES_CORPUS}; ~2 min a runtime
                     (default: off, on with --full)
  --follow-only      run the follow section and nothing else
  --follow-parts a,b parts of the follow section, or all (default: ${FOLLOW_PARTS})
  --followers a,b    followers in the follow section (default: ${FOLLOWER_NAMES.join(',')})
  --results file     write the results there, and the chart next to it as <file>.svg
                     (default: bench/results/latest.json and chart.svg with --full,
                     bench/results/last.json and last.svg otherwise)
  --update-readme    when every contender passed, write the summary between the
                     <!-- bench:start --> and <!-- bench:end --> markers of the README
  --readme path      the README for --update-readme (default: README.md)
  -h, --help         show this help`

/** A bad command line; `showUsage` is false when the options parse but cannot be used. */
class UsageError extends Error {
  constructor(message, { showUsage = true } = {}) {
    super(message)
    this.showUsage = showUsage
  }
}

/** A comma-separated selection, or `all`, in the order of `known`. */
function parseList(value, known, what) {
  if (value === undefined || value === 'all') return known
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
  'cold-runs': { type: 'string' },
  cold: { type: 'boolean' },
  quick: { type: 'boolean', default: false },
  full: { type: 'boolean', default: false },
  probe: { type: 'boolean' },
  follow: { type: 'boolean' },
  'follow-only': { type: 'boolean', default: false },
  search: { type: 'boolean' },
  'search-only': { type: 'boolean', default: false },
  searchers: { type: 'string' },
  compressed: { type: 'boolean' },
  'compressed-only': { type: 'boolean', default: false },
  'compressed-corpus': { type: 'string', default: COMPRESSED_CORPUS },
  'compressed-formats': { type: 'string' },
  decompressors: { type: 'string' },
  sources: { type: 'boolean' },
  'sources-only': { type: 'boolean', default: false },
  'sources-corpus': { type: 'string', default: SOURCES_CORPUS },
  'sources-cases': { type: 'string' },
  'source-readers': { type: 'string' },
  cores: { type: 'boolean' },
  'cores-only': { type: 'boolean', default: false },
  'cores-corpus': { type: 'string', default: CORES_CORPUS },
  'cores-cases': { type: 'string' },
  'cores-contenders': { type: 'string' },
  json: { type: 'boolean' },
  'json-only': { type: 'boolean', default: false },
  'json-pino-mb': { type: 'string' },
  'json-cases': { type: 'string' },
  'json-contenders': { type: 'string' },
  'follow-parts': { type: 'string' },
  followers: { type: 'string' },
  results: { type: 'string' },
  'update-readme': { type: 'boolean', default: false },
  readme: { type: 'string', default: DEFAULT_README },
  help: { type: 'boolean', short: 'h', default: false },
}

function parseFlags(args) {
  try {
    return parseArgs({ args, options: OPTIONS, allowNegative: true }).values
  } catch (error) {
    throw new UsageError(error.message)
  }
}

function positiveInteger(option, value) {
  const number = Number(value)
  if (!Number.isInteger(number) || number < 1) {
    throw new UsageError(`${option} must be a positive integer, got ${value}`)
  }
  return number
}

function oneCorpus(option, name) {
  if (CORPORA[name] === undefined) {
    throw new UsageError(`${option}: unknown corpus ${name} (known: ${Object.keys(CORPORA).join(', ')})`)
  }
  return name
}

function parseOptions(args) {
  const values = parseFlags(args)
  const { full, quick } = values
  if (full && quick) throw new UsageError('--full and --quick: choose one')
  const runs = positiveInteger('--runs', values.runs ?? (full ? 5 : HEADLINE_RUNS))
  const coldRuns = positiveInteger('--cold-runs', values['cold-runs'] ?? (quick ? 3 : 5))
  const cold = values.cold ?? (values['cold-runs'] !== undefined || full || quick)
  const corpora = values.corpora ?? (full ? 'all' : quick ? 'logs-70k' : DEFAULT_CORPORA.join(','))
  const contenders = values.contenders ?? (full || quick ? 'all' : HEADLINE_CONTENDERS.join(','))
  const followOnly = values['follow-only']
  const searchOnly = values['search-only']
  const compressedOnly = values['compressed-only']
  const sourcesOnly = values['sources-only']
  const coresOnly = values['cores-only']
  const jsonOnly = values['json-only']
  if ([followOnly, searchOnly, compressedOnly, sourcesOnly, coresOnly, jsonOnly].filter(Boolean).length > 1) {
    throw new UsageError(
      '--follow-only, --search-only, --compressed-only, --sources-only, --cores-only and --json-only: choose one',
    )
  }
  if (followOnly && (values.corpora !== undefined || values.follow === false)) {
    throw new UsageError('--follow-only runs the follow section alone: drop --corpora and --no-follow')
  }
  if (searchOnly && (values.corpora !== undefined || values.search === false)) {
    throw new UsageError('--search-only runs the search section alone: drop --corpora and --no-search')
  }
  if (compressedOnly && (values.corpora !== undefined || values.compressed === false)) {
    throw new UsageError('--compressed-only runs the compressed section alone: drop --corpora and --no-compressed')
  }
  if (sourcesOnly && (values.corpora !== undefined || values.sources === false)) {
    throw new UsageError('--sources-only runs the sources section alone: drop --corpora and --no-sources')
  }
  if (coresOnly && (values.corpora !== undefined || values.cores === false)) {
    throw new UsageError('--cores-only runs the cores section alone: drop --corpora and --no-cores')
  }
  if (jsonOnly && (values.corpora !== undefined || values.json === false)) {
    throw new UsageError('--json-only runs the JSON Lines section alone: drop --corpora and --no-json')
  }
  const sectionOnly = followOnly || searchOnly || compressedOnly || sourcesOnly || coresOnly || jsonOnly
  if (full && sectionOnly) throw new UsageError('--full runs every section: drop the --*-only option')
  const otherOnly = (mine) => sectionOnly && !mine
  /** Whether a section runs: alone, or as asked, or with --full. */
  const section = (only, asked) => only || (!otherOnly(only) && (asked ?? full))
  return {
    help: values.help,
    corpora: sectionOnly ? [] : parseList(corpora, Object.keys(CORPORA), 'corpus'),
    runtimes: parseList(values.runtimes, Object.keys(RUNTIMES), 'runtime'),
    contenders: parseList(contenders, Object.keys(CONTENDERS), 'contender'),
    runs,
    full,
    coldRuns: cold ? coldRuns : 0,
    probe: values.probe ?? full,
    search: section(searchOnly, values.search),
    searchOnly,
    searchers: parseList(values.searchers, SEARCHER_NAMES, 'searcher'),
    compressed: section(compressedOnly, values.compressed),
    compressedOnly,
    compressedCorpus: oneCorpus('--compressed-corpus', values['compressed-corpus']),
    compressedFormats: parseList(values['compressed-formats'], COMPRESSED_FORMAT_NAMES, 'compressed format'),
    decompressors: parseList(values.decompressors, DECOMPRESSOR_NAMES, 'decompressor'),
    sources: section(sourcesOnly, values.sources),
    sourcesOnly,
    sourcesCorpus: oneCorpus('--sources-corpus', values['sources-corpus']),
    sourcesCases: parseList(values['sources-cases'], SOURCE_CASE_NAMES, 'sources case'),
    sourceReaders: parseList(values['source-readers'], SOURCE_READER_NAMES, 'source reader'),
    cores: section(coresOnly, values.cores),
    coresOnly,
    coresCorpus: oneCorpus('--cores-corpus', values['cores-corpus']),
    coresCases: parseList(values['cores-cases'], CORE_CASE_NAMES, 'cores case'),
    coresContenders: parseList(values['cores-contenders'], CORE_CONTENDER_NAMES, 'cores contender'),
    json: section(jsonOnly, values.json),
    jsonOnly,
    jsonPinoMB: positiveInteger('--json-pino-mb', values['json-pino-mb'] ?? JSON_PINO_MB),
    jsonCases: parseList(values['json-cases'], JSON_CASE_NAMES, 'JSON Lines case'),
    jsonContenders: parseList(values['json-contenders'], JSON_READER_NAMES, 'JSON Lines contender'),
    follow: section(followOnly, values.follow),
    followOnly,
    followParts: parseList(values['follow-parts'], FOLLOW_PARTS, 'follow part'),
    followers: parseList(values.followers, FOLLOWER_NAMES, 'follower'),
    results: values.results,
    updateReadme: values['update-readme'],
    readme: values.readme,
  }
}

/** Checks the README before a long run rather than after it. */
function checkReadmeOption({ updateReadme, readme, full }) {
  if (!updateReadme) return
  if (!full) {
    throw new UsageError(
      "--update-readme needs --full: the README's tables come from a full run (node bench/update-readme.mjs rewrites them from bench/results/latest.json)",
      { showUsage: false },
    )
  }
  try {
    checkReadme(readme)
  } catch (error) {
    throw new UsageError(`--update-readme: ${error.message}`, { showUsage: false })
  }
}

/**
 * Adds to `args` the flags that repeat a section's choices, if the section runs: each
 * `[flag, chosen, fallback]` whose choice is not the default (a value other than `fallback`, or a
 * list shorter than the `fallback` list of every name).
 */
function sectionChoices(args, runs, choices) {
  if (!runs) return
  for (const [flag, chosen, fallback] of choices) {
    if (!Array.isArray(chosen)) {
      if (chosen !== fallback) args.push(flag, chosen)
    } else if (chosen.length < fallback.length) {
      args.push(flag, chosen.join(','))
    }
  }
}

/** The command that repeats this run's measurements, for the record. */
function commandLine(options) {
  const args = []
  if (options.followOnly) {
    args.push('--follow-only')
  } else if (options.searchOnly) {
    args.push('--search-only', '--runs', options.runs)
  } else if (options.compressedOnly) {
    args.push('--compressed-only', '--runs', options.runs)
  } else if (options.sourcesOnly) {
    args.push('--sources-only', '--runs', options.runs)
  } else if (options.coresOnly) {
    args.push('--cores-only', '--runs', options.runs)
  } else if (options.jsonOnly) {
    args.push('--json-only', '--runs', options.runs)
  } else {
    args.push('--corpora', options.corpora.join(','), '--runs', options.runs)
    args.push(...(options.coldRuns > 0 ? ['--cold-runs', options.coldRuns] : ['--no-cold']))
  }
  if (options.runtimes.length < Object.keys(RUNTIMES).length) {
    args.push('--runtimes', options.runtimes.join(','))
  }
  if (options.corpora.length > 0) {
    const every = options.contenders.length === Object.keys(CONTENDERS).length
    args.push('--contenders', every ? 'all' : options.contenders.join(','))
  }
  if (options.corpora.includes(PROBE_CORPUS)) args.push(options.probe ? '--probe' : '--no-probe')
  const sectionOnly =
    options.followOnly ||
    options.searchOnly ||
    options.compressedOnly ||
    options.sourcesOnly ||
    options.coresOnly ||
    options.jsonOnly
  // Every section's choice is written out, so that the command means the same under any preset.
  for (const { key, choices } of SECTIONS) {
    if (!sectionOnly) args.push(options[key] ? `--${key}` : `--no-${key}`)
    sectionChoices(args, options[key], choices(options))
  }
  const quote = (arg) => (/^[\w.,=/-]+$/.test(arg) ? arg : `'${arg}'`)
  return ['node', 'bench/run.mjs', ...args.map(String)].map(quote).join(' ')
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
      const version = parseVersion(execFileSync(command, ['--version'], { encoding: 'utf8' }))
      runtimes.push({ name, version, command, args })
    } catch {
      process.stderr.write(`warning: ${name} (${command}) does not start; skipped\n`)
    }
  }
  return runtimes
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
  progress.step(`corpus ${name}`)
  const corpus = ensureCorpus(name)
  const origin = corpus.generatedMs > 0 ? `generated in ${formatDuration(corpus.generatedMs)}` : 'cached'
  progress.log(`corpus ${name}: ${corpus.bytes} bytes, ${corpus.lines} lines (${origin})`)
  return corpus
}

/**
 * Runs a script that prints one line of JSON: `{ output }`, or `{ error }` if it failed or ran on
 * another runtime than asked.
 */
async function runScript(runtime, script, args) {
  let stdout
  try {
    let stderr
    ;({ stdout, stderr } = await execFileAsync(runtime.command, [...runtime.args, script, ...args.map(String)], {
      timeout: WORKER_TIMEOUT_MS,
      maxBuffer: 16 * 1024 * 1024,
    }))
    if (stderr !== '') progress.log(stderr)
  } catch (error) {
    // A string code is the spawn's own failure (ENOENT, ...); a number, the exit status.
    if (typeof error.code === 'string') return { error: error.message }
    if (error.stderr) progress.log(String(error.stderr))
    return { error: `process exited with ${error.code ?? error.signal}` }
  }
  let output
  try {
    output = JSON.parse(stdout)
  } catch {
    return { error: `unreadable output: ${stdout.slice(0, 200)}` }
  }
  const wrong = wrongRuntime(output, runtime)
  return wrong === undefined ? { output } : { error: wrong }
}

/** Runs one contender in a worker process: `{ measurement }`, or `{ error }` if it failed. */
async function runWorker(runtime, corpus, contender, runs, slowRuns) {
  const job = [contender, corpus.path, runs, slowRuns, SLOW_MS]
  const { output, error } = await runScript(runtime, WORKER, job)
  return error === undefined ? { measurement: output } : { error }
}

/**
 * A contender's measurement from its two passes' workers (the first measured it): the first's
 * warm-up and both passes' runs, or the second's failure.
 */
function joinPasses(first, second) {
  if (second.error !== undefined) return second
  const [a, b] = [first.measurement, second.measurement]
  return { measurement: { ...a, samples: [...a.samples, ...b.samples], capped: a.capped || b.capped } }
}

/**
 * Times one contender's first read in `runs` fresh processes: `{ samples }`, or `{ skipped }` or
 * `{ error }` as soon as one process reports it.
 */
async function runColds(runtime, corpus, contender, runs) {
  const samples = []
  for (let i = 0; i < runs; i++) {
    const { output, error } = await runScript(runtime, COLD, [contender, corpus.path])
    if (error !== undefined) return { error }
    if (output.skipped !== undefined) return { skipped: output.skipped }
    samples.push(output)
  }
  return { samples }
}

/** Cold runs are capped with the measured runs (marked †), for contenders whose warm-up was slow. */
const coldRunsFor = (measurement, options) =>
  measurement.capped ? Math.min(options.coldRuns, SLOW_RUNS) : options.coldRuns

/** Whether to time a contender's cold read after its warm measurement `outcome`. */
function measuresCold(corpus, contender, outcome, options) {
  const measured = outcome.measurement !== undefined && outcome.measurement.skipped === undefined
  return measured && options.coldRuns > 0 && corpus.name !== NO_COLD_CORPUS && CONTENDERS[contender].floor === undefined
}

/**
 * Probes one contender (or IDLE) in PROBE_RUNS fresh processes: `{ samples }`, or `{ skipped }`
 * or `{ error }` as soon as one process reports it.
 */
async function runProbes(runtime, corpus, contender) {
  const samples = []
  for (let i = 0; i < PROBE_RUNS; i++) {
    const { output, error } = await runScript(runtime, PROBE, [contender, corpus.path])
    if (error !== undefined) return { error }
    if (output.skipped !== undefined) return { skipped: output.skipped }
    samples.push(output)
  }
  return { samples }
}

function reportProbeProgress(row) {
  const [rss, delay, first] = probeCells(row)
  const measured = `+${rss} MB RSS, ELD p99 ${delay} ms, first line ${first} ms`
  const outcome = row.error ?? (row.skipped === undefined ? measured : 'n/a')
  const name = `${row.runtime} · ${row.corpus} · ${row.contender}`
  progress.log(`  ${name} (probe): ${outcome}`)
}

/** The probe of every contender on one runtime, after that of the idle process. */
async function probeRuntime(runtime, corpus, contenders) {
  progress.step(`${IDLE} (probe)`)
  const baseline = await runProbes(runtime, corpus, IDLE)
  if (baseline.error !== undefined) throw new Error(`idle ${runtime.name} probe: ${baseline.error}`)
  const idle = { ...summarizeProbes(baseline.samples), samples: baseline.samples }
  const rows = []
  for (const contender of contenders) {
    progress.step(`${contender} (probe)`)
    const outcome = await runProbes(runtime, corpus, contender)
    const row = toProbeRow({ runtime, corpus, contender, idle, ...outcome })
    reportProbeProgress(row)
    rows.push(row)
  }
  const { name, version } = runtime
  return { runtime: name, version, corpus: corpus.name, runs: PROBE_RUNS, idle, rows }
}

function reportProgress(row) {
  const cold = hasCold(row) ? `, cold ${row.cold.median.toFixed(1)} ms (median of ${row.cold.runs})` : ''
  const outcome =
    row.error ?? (row.skipped === undefined ? `${row.median.toFixed(1)} ms (median of ${row.runs})${cold}` : 'n/a')
  progress.log(`  ${row.runtime} · ${row.corpus} · ${row.contender}: ${outcome}`)
}

/** Writes through a .tmp file, so that an interrupted write leaves no mess. */
function writeFileAtomically(file, text) {
  fs.writeFileSync(`${file}.tmp`, text)
  fs.renameSync(`${file}.tmp`, file)
}

/** Writes the results so far, and their chart. */
function writeResults(results) {
  fs.mkdirSync(path.dirname(output.results), { recursive: true })
  writeFileAtomically(output.results, `${JSON.stringify(results, null, 2)}\n`)
  writeFileAtomically(output.chart, renderChart(results))
}

/**
 * Sends the results and chart to `results` and `results` with `.svg` for `.json`, if given; else
 * a --full run's to RESULTS and CHART, any other's to LAST_RESULTS and LAST_CHART.
 */
function setOutput({ results, full }) {
  if (results === undefined) {
    output.results = full ? RESULTS : LAST_RESULTS
    output.chart = full ? CHART : LAST_CHART
    return
  }
  output.results = path.resolve(results)
  output.chart = output.results.replace(/(\.json)?$/, '.svg')
}

function warnIfProbeSkipped(options) {
  if (options.probe && options.corpora.length > 0 && !options.corpora.includes(PROBE_CORPUS)) {
    process.stderr.write(`note: the probe runs on ${PROBE_CORPUS} only, which is not selected\n`)
  }
}

/** Updates the README summary unless something failed; returns the exit status it adds. */
function maybeUpdateReadme(results, options) {
  if (!options.updateReadme) return 0
  if (results.failures > 0) {
    console.error(`${options.readme} not updated: some contenders failed.`)
    return 1
  }
  try {
    updateReadme(results, options.readme)
  } catch (error) {
    console.error(`error: ${options.readme} not updated: ${error.message}`)
    return 1
  }
  console.log(`Benchmark summary written to ${options.readme}.`)
  return 0
}

function newResults(host, runtimes, options) {
  return {
    startedAt: new Date().toISOString(),
    command: commandLine(options),
    machine: host,
    runtimes: runtimes.map(({ name, version }) => ({ name, version })),
    settings: {
      runs: options.runs,
      slowRuns: SLOW_RUNS,
      slowMs: SLOW_MS,
      coldRuns: options.coldRuns,
      noColdCorpus: NO_COLD_CORPUS,
    },
    corpora: [],
    rows: [],
    probes: [],
    search: undefined,
    compressed: undefined,
    sources: undefined,
    cores: undefined,
    json: undefined,
    follow: undefined,
    partMs: undefined,
  }
}

/**
 * Times every contender on one runtime × corpus and prints its table. Their runs come in two
 * passes, the second in the reverse order, so that a machine growing slower or faster during
 * the minute or two a corpus takes weighs on every contender alike, not on those measured last
 * (`readline` is first, fastlines last); each pass is a worker of its own, with its warm-up.
 */
async function measureContenders(runtime, corpus, options, results) {
  const outcomes = new Map()
  const [firstRuns, secondRuns] = passRuns(options.runs)
  const [firstSlow, secondSlow] = passRuns(SLOW_RUNS)
  for (const contender of options.contenders) {
    progress.step(contender)
    outcomes.set(contender, await runWorker(runtime, corpus, contender, firstRuns, firstSlow))
  }
  for (const contender of secondRuns === 0 ? [] : options.contenders.toReversed()) {
    const first = outcomes.get(contender)
    if (first.error !== undefined || first.measurement.skipped !== undefined) continue
    progress.step(`${contender} (second pass)`)
    const second = await runWorker(runtime, corpus, contender, secondRuns, secondSlow)
    outcomes.set(contender, joinPasses(first, second))
  }
  const rows = []
  for (const contender of options.contenders) {
    const outcome = outcomes.get(contender)
    let cold
    if (measuresCold(corpus, contender, outcome, options)) {
      progress.step(`${contender} (cold)`)
      cold = await runColds(runtime, corpus, contender, coldRunsFor(outcome.measurement, options))
    }
    const row = toRow({ runtime, corpus, contender, ...outcome, cold })
    reportProgress(row)
    rows.push(row)
  }
  results.rows.push(...rows)
  writeResults(results)
  progress.print(formatSection(rows, corpus, runtime, { ...results.settings, notes: NOTES }))
}

/** Probes every contender on one runtime and prints the probe table. */
async function probeContenders(runtime, corpus, options, results) {
  const probe = await probeRuntime(runtime, corpus, options.contenders)
  results.probes.push(probe)
  writeResults(results)
  progress.print(formatProbeSection(probe, corpus))
}

function reportFollowProgress(kind, rows) {
  for (const row of rows) {
    const name = `${row.runtime} · follow ${kind} · ${row.follower ?? row.contender}${row.n === undefined ? '' : ` · last ${row.n}`}`
    const part = row.part === undefined ? '' : ` (${row.part})`
    let outcome
    if (row.error !== undefined) outcome = `ERROR ${row.error}`
    else if (kind === 'latency') outcome = `median ${row.median?.toFixed(2)} ms, p99 ${row.p99?.toFixed(2)} ms`
    else if (kind === 'idle') outcome = `${row.cpuMs.toFixed(1)} ms CPU in ${row.idleMs / 1000} s`
    else if (kind === 'neighbour')
      outcome = `${row.cpuMs.toFixed(1)} ms CPU in ${(row.wallMs / 1000).toFixed(1)} s of writes beside it`
    else if (kind === 'flood') {
      const last = row.gotLast ? `last after ${row.lagMs.toFixed(0)} ms` : 'the last never came'
      outcome = `${row.received} lines, ${row.lost} missing, ${last}`
    } else outcome = `${row.median.toFixed(3)} ms (median of ${row.runs})${row.same ? '' : ', WRONG LINES'}`
    progress.log(`  ${name}${part}: ${outcome}`)
  }
}

function reportSearchProgress(rows) {
  for (const row of rows) {
    const name = `${row.runtime} · search ${row.query} · ${row.searcher}`
    let outcome = row.error ?? `${row.median.toFixed(1)} ms (median of ${row.runs}), ${row.lines} lines`
    if (row.same === false) outcome += ', WRONG LINES'
    progress.log(`  ${name}: ${outcome}`)
  }
}

/**
 * Runs one section (`run(onRows)` measures it, calling `onRows(rows, section)` as each group of
 * rows is done): reports each group with `report` and writes the results so far, so that an
 * interrupted run keeps what it measured; then prints the section's tables with `format`.
 */
async function measureSection(name, results, run, report, format) {
  const onRows = (rows, section) => {
    report(rows)
    results[name] = section
    writeResults(results)
  }
  results[name] = await run(onRows)
  writeResults(results)
  progress.print(format(results[name]))
}

/** Runs the search section after the corpora, and prints its tables. */
async function measureSearch(runtimes, options, results) {
  const corpus = prepareCorpus(SEARCH_CORPUS)
  const settings = { runs: options.runs, slowRuns: SLOW_RUNS, slowMs: SLOW_MS }
  const run = (onRows) => runSearchSection({ runtimes, corpus, searchers: options.searchers, settings, onRows })
  await measureSection('search', results, run, reportSearchProgress, formatSearchSection)
}

function reportCompressedProgress(rows) {
  for (const row of rows) {
    const name = `${row.runtime} · ${row.format} · ${row.contender}`
    let outcome = `${row.median?.toFixed(1)} ms (median of ${row.runs}), ${row.lines} lines`
    if (row.skipped !== undefined) outcome = `n/a (${row.skipped})`
    if (row.error !== undefined) outcome = `ERROR ${row.error}`
    if (row.problems?.length > 0) outcome += `, WRONG: ${row.problems.join('; ')}`
    progress.log(`  ${name}: ${outcome}`)
  }
}

/** The compressed file of `corpus` in `format`, made if needed, with progress on stderr. */
function prepareCompressed(corpus, format) {
  progress.step(`compressing ${corpus.name} (${format})`)
  const file = ensureCompressed(corpus, format)
  const origin = file.generatedMs > 0 ? `made in ${formatDuration(file.generatedMs)}` : 'cached'
  progress.log(`compressed ${corpus.name} (${format}): ${file.bytes} bytes, ${file.tool} (${origin})`)
  return file
}

/** Runs the compressed section after the search section, and prints its tables. */
async function measureCompressed(runtimes, options, results) {
  const corpus = prepareCorpus(options.compressedCorpus)
  const files = options.compressedFormats.map((format) => prepareCompressed(corpus, format))
  const settings = { runs: options.runs, slowRuns: SLOW_RUNS, slowMs: SLOW_MS }
  const contenders = options.decompressors
  const run = (onRows) => runCompressedSection({ runtimes, corpus, files, contenders, settings, onRows })
  await measureSection('compressed', results, run, reportCompressedProgress, formatCompressedSection)
}

function reportSourcesProgress(rows) {
  for (const row of rows) {
    const name = `${row.runtime} · ${row.case} · ${row.contender}`
    const rss = row.rssAboveIdleMB === undefined ? '' : `, +${row.rssAboveIdleMB.toFixed(1)} MB RSS`
    let outcome = `${row.median?.toFixed(1)} ms (median of ${row.runs})${rss}, ${row.lines} lines`
    if (row.skipped !== undefined) outcome = `n/a (${row.skipped})`
    if (row.error !== undefined) outcome = `ERROR ${row.error}`
    if (row.problems?.length > 0) outcome += `, WRONG: ${row.problems.join('; ')}`
    progress.log(`  ${name}: ${outcome}`)
  }
}

/** Runs the sources section after the compressed section, and prints its tables. */
async function measureSources(runtimes, options, results) {
  const corpus = prepareCorpus(options.sourcesCorpus)
  if (options.sourcesCases.includes('gzip-stream')) prepareCompressed(corpus, 'gzip')
  const settings = { runs: options.runs, slowRuns: SLOW_RUNS, slowMs: SLOW_MS }
  const { sourcesCases: cases, sourceReaders: contenders } = options
  const run = (onRows) => runSourcesSection({ runtimes, corpus, cases, contenders, settings, onRows })
  await measureSection('sources', results, run, reportSourcesProgress, formatSourcesSection)
}

function reportCoresProgress(rows) {
  for (const row of rows) {
    const name = `${row.runtime} · ${row.case} · ${row.contender}`
    const pinned = row.pinned?.median === undefined ? '' : `, pinned ${row.pinned.median.toFixed(1)} ms`
    let outcome = `${row.median?.toFixed(1)} ms (median of ${row.runs})${pinned}, ${describeResult(row.result)}`
    if (row.error !== undefined) outcome = `ERROR ${row.error}`
    if (row.problems?.length > 0) outcome += `, WRONG: ${row.problems.join('; ')}`
    progress.log(`  ${name}: ${outcome}`)
  }
}

/** Runs the cores section after the sources section, and prints its tables. */
async function measureCores(runtimes, options, results) {
  const corpus = prepareCorpus(options.coresCorpus)
  const settings = { runs: options.runs, slowRuns: SLOW_RUNS, slowMs: SLOW_MS }
  const { coresCases: cases, coresContenders: contenders } = options
  const run = (onRows) => runCoresSection({ runtimes, corpus, cases, contenders, settings, onRows })
  await measureSection('cores', results, run, reportCoresProgress, formatCoresSection)
}

function reportJsonProgress(rows) {
  for (const row of rows) {
    const name = `${row.runtime} · json ${row.case} · ${row.contender}`
    let outcome = `${row.median?.toFixed(1)} ms (median of ${row.runs}), ${row.values} values`
    if (row.skipped !== undefined) outcome = `n/a (${row.skipped})`
    if (row.error !== undefined) outcome = `ERROR ${row.error}`
    if (row.problems?.length > 0) outcome += `, WRONG: ${row.problems.join('; ')}`
    progress.log(`  ${name}: ${outcome}`)
  }
}

/** The JSON Lines section's files for a pino log of `pinoMB` MB, made if needed, with progress on stderr. */
async function prepareJsonCorpora(pinoMB) {
  progress.step(`JSON Lines corpora (pino ${pinoMB} MB)`)
  const started = performance.now()
  const files = await ensureJsonCorpora(pinoMB)
  const sizes = Object.entries(files).map(([name, file]) => `${name} ${fs.statSync(file).size} bytes`)
  progress.log(
    `JSON Lines corpora (pino ${pinoMB} MB): ${sizes.join(', ')} (${formatDuration(performance.now() - started)})`,
  )
  return files
}

/** Runs the JSON Lines section after the cores section, and prints its tables. */
async function measureJson(runtimes, options, results) {
  const files = await prepareJsonCorpora(options.jsonPinoMB)
  const settings = { runs: options.runs, pinoMB: options.jsonPinoMB }
  const { jsonCases: cases, jsonContenders: contenders } = options
  const run = (onRows) => runJsonSection({ runtimes, files, cases, contenders, settings, onRows })
  await measureSection('json', results, run, reportJsonProgress, formatJsonSection)
}

/** Runs the follow section after the corpora, and prints its tables. */
async function measureFollow(runtimes, options, results) {
  const corpus = options.followParts.includes('last-lines') ? prepareCorpus(LAST_LINES_CORPUS) : undefined
  const onRows = (kind, rows, follow) => {
    reportFollowProgress(kind, rows)
    results.follow = follow
    writeResults(results)
  }
  const { followers, followParts: parts } = options
  results.follow = await runFollowSection({ runtimes, followers, parts, corpus, settings: FOLLOW_SETTINGS, onRows })
  writeResults(results)
  progress.print(formatFollowSection(results.follow))
}

/** Prints which targets hold; whatever happens here, the exit status stays as it is. */
function printTargets(results) {
  try {
    console.log(`\n${formatTargets(results)}`)
  } catch (error) {
    process.stderr.write(`warning: the target check failed: ${error.stack}\n`)
  }
}

/** Records the totals, prints the summary; returns the exit status. */
function finish(results, started, options) {
  results.wallMs = performance.now() - started
  results.partMs = progress.end()
  results.failures = failureCount(results)
  writeResults(results)
  printTargets(results)
  const headline = formatHeadline(results)
  if (headline !== '') console.log(`\n${headline}\n`)
  const wall = formatDuration(results.wallMs)
  console.log(`Wall time: ${wall}. Results: ${output.results}, chart: ${output.chart}`)
  const readmeStatus = maybeUpdateReadme(results, options)
  if (results.failures === 0) return readmeStatus
  console.error(`\n✗ ${results.failures} contender(s) failed or saw the wrong lines: see above.`)
  return 1
}

async function main() {
  const options = parseOptions(process.argv.slice(2))
  if (options.help) {
    console.log(USAGE)
    return 0
  }
  checkReadmeOption(options)
  setOutput(options)
  warnIfProbeSkipped(options)
  const started = performance.now()
  const host = machine()
  const runtimes = availableRuntimes(options.runtimes)
  const results = newResults(host, runtimes, options)
  console.log(header(host, runtimes))
  progress.begin(planParts(options, runtimes, earlierResults()))
  for (const corpusName of options.corpora) {
    for (const [i, runtime] of runtimes.entries()) {
      progress.part(corpusPart(corpusName, runtime.name))
      if (i === 0) results.corpora.push(prepareCorpus(corpusName))
      const corpus = results.corpora.at(-1)
      await measureContenders(runtime, corpus, options, results)
      if (options.probe && corpusName === PROBE_CORPUS) {
        await probeContenders(runtime, corpus, options, results)
      }
    }
  }
  for (const { key, measure } of SECTIONS) {
    if (!options[key]) continue
    progress.part(key)
    await measure(runtimes, options, results)
  }
  return finish(results, started, options)
}

/**
 * The sections, in run order: the option that runs each (`--key`, and its results key), what
 * measures it, the flags that repeat its choices for the recorded command (see sectionChoices),
 * which of an earlier run's rows it measures again (see chosenRows), and whether an earlier run's
 * section measured the data these options measure (`sameData`): another's time says nothing.
 */
const SECTIONS = [
  {
    key: 'search',
    measure: measureSearch,
    choices: (o) => [['--searchers', o.searchers, SEARCHER_NAMES]],
  },
  {
    key: 'compressed',
    measure: measureCompressed,
    sameData: (section, o) => section.corpus === o.compressedCorpus,
    choices: (o) => [
      ['--compressed-corpus', o.compressedCorpus, COMPRESSED_CORPUS],
      ['--compressed-formats', o.compressedFormats, COMPRESSED_FORMAT_NAMES],
      ['--decompressors', o.decompressors, DECOMPRESSOR_NAMES],
    ],
    chosen: (o) =>
      chosenRows('format', [o.compressedFormats, COMPRESSED_FORMAT_NAMES], [o.decompressors, DECOMPRESSOR_NAMES]),
  },
  {
    key: 'sources',
    measure: measureSources,
    sameData: (section, o) => section.corpus === o.sourcesCorpus,
    choices: (o) => [
      ['--sources-corpus', o.sourcesCorpus, SOURCES_CORPUS],
      ['--sources-cases', o.sourcesCases, SOURCE_CASE_NAMES],
      ['--source-readers', o.sourceReaders, SOURCE_READER_NAMES],
    ],
    chosen: (o) => chosenRows('case', [o.sourcesCases, SOURCE_CASE_NAMES], [o.sourceReaders, SOURCE_READER_NAMES]),
  },
  {
    key: 'cores',
    measure: measureCores,
    sameData: (section, o) => section.corpus === o.coresCorpus,
    choices: (o) => [
      ['--cores-corpus', o.coresCorpus, CORES_CORPUS],
      ['--cores-cases', o.coresCases, CORE_CASE_NAMES],
      ['--cores-contenders', o.coresContenders, CORE_CONTENDER_NAMES],
    ],
    chosen: (o) => chosenRows('case', [o.coresCases, CORE_CASE_NAMES], [o.coresContenders, CORE_CONTENDER_NAMES]),
  },
  {
    key: 'json',
    measure: measureJson,
    sameData: (section, o) => section.settings?.pinoMB === o.jsonPinoMB,
    choices: (o) => [
      ['--json-pino-mb', o.jsonPinoMB, JSON_PINO_MB],
      ['--json-cases', o.jsonCases, JSON_CASE_NAMES],
      ['--json-contenders', o.jsonContenders, JSON_READER_NAMES],
    ],
    chosen: (o) => chosenRows('case', [o.jsonCases, JSON_CASE_NAMES], [o.jsonContenders, JSON_READER_NAMES]),
  },
  {
    key: 'follow',
    measure: measureFollow,
    choices: (o) => [
      ['--follow-parts', o.followParts, FOLLOW_PARTS],
      ['--followers', o.followers, FOLLOWER_NAMES],
    ],
  },
]

/** The progress line's name of a corpus × runtime part. */
const corpusPart = (corpus, runtime) => `${corpus} · ${runtime}`

/**
 * The results of an earlier run, to estimate this one's parts from: those this run overwrites,
 * else the full run's. Empty when there are none.
 */
function earlierResults() {
  for (const file of [output.results, RESULTS]) {
    try {
      return JSON.parse(fs.readFileSync(file, 'utf8'))
    } catch {
      // none there, or unreadable: try the next
    }
  }
  return {}
}

/** A contender on a corpus with no earlier figure: assumed to take this long a run. */
const UNKNOWN_RUN_MS = 2000

/**
 * This run's parts for the progress line, in order, each with its estimate: a corpus × runtime's
 * from the earlier rows of its contenders (at this run's runs, cold runs and probe), a section's
 * from its earlier time (see progress.mjs).
 */
function planParts(options, runtimes, earlier) {
  const parts = []
  const runtimeNames = runtimes.map(({ name }) => name)
  for (const corpus of options.corpora) {
    for (const runtime of runtimeNames) {
      const rowOf = (contender) =>
        (earlier.rows ?? []).find(
          (row) => row.runtime === runtime && row.corpus === corpus && row.contender === contender,
        )
      let estimateMs = 0
      for (const contender of options.contenders) {
        const row = rowOf(contender)
        const median = row?.median ?? UNKNOWN_RUN_MS
        estimateMs += passRuns(options.runs)
          .filter((runs) => runs > 0)
          .reduce((sum, runs) => sum + measurementMs(median, runs), 0)
        if (options.coldRuns > 0 && corpus !== NO_COLD_CORPUS) estimateMs += options.coldRuns * measurementMs(median, 0)
        if (options.probe && corpus === PROBE_CORPUS) estimateMs += PROBE_RUNS * measurementMs(median, 0)
      }
      parts.push({ name: corpusPart(corpus, runtime), estimateMs })
    }
  }
  for (const { key, chosen, sameData } of SECTIONS.filter(({ key }) => options[key])) {
    const section = earlier[key]
    const estimateMs = sectionMs(section, earlier.partMs?.[key], runtimeNames, {
      measures: chosen?.(options),
      recordedRuntimes: earlier.runtimes?.length,
      sameData: sameData === undefined || section === undefined || sameData(section, options),
    })
    parts.push({ name: key, estimateMs })
  }
  return parts
}

/**
 * Which of an earlier run's rows a section measures again, when its cases or contenders are a
 * choice (`rowKey`: the row field its cases are in); undefined when it measures them all.
 */
function chosenRows(rowKey, [cases, allCases], [contenders, allContenders]) {
  if (cases.length === allCases.length && contenders.length === allContenders.length) return undefined
  return (row) => cases.includes(row[rowKey]) && contenders.includes(row.contender)
}

try {
  process.exitCode = await main()
} catch (error) {
  if (!(error instanceof UsageError)) throw error
  const usage = error.showUsage ? `\n\n${USAGE}` : ''
  console.error(`error: ${error.message}${usage}`)
  process.exitCode = 2
}
