// The compressed section of the benchmark: reading the lines of a corpus compressed with gzip and
// with zstd (compressed-corpora.mjs), by fastlines' `decompress` option and by what users do
// without it (Node's zlib piped into readline or a hand-written split, `zcat | wc -l` as a
// process). Each contender runs in a worker process per runtime × format (decompress-worker.mjs);
// every contender's line count (and summed line lengths, where it sees lines) is checked against
// the corpus, and fastlines' `bytesRead` against the compressed file's size. run.mjs calls
// runCompressedSection and formatCompressedSection; targets.mjs and readme.mjs read the rows.
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { COMPRESSED_FORMATS, COMPRESSED_FORMAT_NAMES } from './compressed-corpora.mjs'
import { DECOMPRESSORS, DECOMPRESSOR_NAMES } from './decompressors.mjs'
import {
  contenderRows,
  formatAmount,
  formatCount,
  formatSize,
  markdownTable,
  measuredApart,
  measureRows,
  sectionRows,
} from './report.mjs'
import { cellLegend, inRuntimeOrder, runtimeLabel, wrongRuntime } from './runtimes.mjs'

const WORKER = fileURLToPath(new URL('./decompress-worker.mjs', import.meta.url))
const WORKER_TIMEOUT_MS = 10 * 60 * 1000
const execFileAsync = promisify(execFile)

/** The contender the others are measured relative to. */
export const COMPRESSED_BASELINE = 'zlib+readline'
/** The process contender that countLines is held against. */
export const COMPRESSED_CAT = 'zcat/zstdcat+wc -l'

function median(sorted) {
  const middle = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/** How a run disagrees with the corpus and the file: lines, lengths where seen, bytesRead. */
function runProblems(runs, corpus, file) {
  const problems = new Set()
  for (const run of runs) {
    if (run.lines !== corpus.lines) problems.add(`${run.lines} lines, expected ${corpus.lines}`)
    else if (run.chars !== undefined && run.chars !== corpus.chars) {
      problems.add(`${run.chars} UTF-16 units in lines, expected ${corpus.chars}`)
    }
    if (run.bytesRead !== undefined && run.bytesRead !== file.bytes) {
      problems.add(`bytesRead ${run.bytesRead}, expected the compressed size ${file.bytes}`)
    }
  }
  return [...problems]
}

/** Runs one contender on one format in a worker: its row, with `skipped` or `error` if so. */
async function measureDecompressor(base, runtime, corpus, file, settings) {
  const { contender } = base
  const args = [WORKER, contender, file.format, file.path, settings.runs, settings.slowRuns, settings.slowMs]
  let output
  try {
    const { stdout } = await execFileAsync(runtime.command, [...runtime.args, ...args], {
      timeout: WORKER_TIMEOUT_MS,
      maxBuffer: 1024 * 1024,
    })
    output = JSON.parse(stdout)
  } catch (error) {
    const stderr = String(error.stderr ?? '')
      .trim()
      .split('\n')
      .filter(Boolean)
    return { ...base, error: stderr[stderr.length - 1] ?? error.message.split('\n')[0] }
  }
  const wrong = wrongRuntime(output, runtime)
  if (wrong !== undefined) return { ...base, error: wrong }
  if (output.skipped !== undefined) return { ...base, skipped: output.skipped }
  const times = output.samples.map((sample) => sample.ms)
  const sorted = times.toSorted((a, b) => a - b)
  const [first] = output.samples
  return {
    ...base,
    runs: times.length,
    capped: output.capped,
    median: median(sorted),
    min: sorted[0],
    max: sorted[sorted.length - 1],
    times,
    warmupMs: output.warmup.ms,
    lines: first.lines,
    chars: first.chars,
    bytesRead: first.bytesRead,
    problems: runProblems([output.warmup, ...output.samples], corpus, file),
  }
}

/**
 * Every selected contender on every compressed file (`files`, from ensureCompressed), per runtime;
 * `onRows(rows, section)` after each runtime × format. Returns `{ corpus, bytes, lines, chars,
 * files, settings, rows }`.
 */
export async function runCompressedSection({ runtimes, corpus, files, contenders, settings, onRows }) {
  const section = {
    corpus: corpus.name,
    bytes: corpus.bytes,
    lines: corpus.lines,
    chars: corpus.chars,
    files: files.map(({ format, path, bytes, level, tool, frames }) => ({ format, path, bytes, level, tool, frames })),
    settings,
    rows: [],
  }
  const names = DECOMPRESSOR_NAMES.filter((name) => contenders.includes(name))
  const measureGroup = (runtime, file) =>
    contenderRows(runtime, 'format', file.format, names, settings, (base, pass) =>
      measureDecompressor(base, runtime, corpus, file, pass),
    )
  return measureRows({ section, runtimes, groups: files, measureGroup, onRows })
}

const { failed, failures, row, ratio } = sectionRows('format', COMPRESSED_BASELINE)

/** The rows that failed or saw other lines than expected. */
export const compressedFailures = failures
/** A measured row without problems, for one runtime, format and contender. */
export const compressedRow = row
/** `other`'s median / `contender`'s on one runtime and format, if both were measured. */
export const compressedRatio = ratio

/** `gzip -6 (312 MB), zstd -3 (201 MB)`: how each file was made. */
function fileLegend(section) {
  return section.files
    .map(({ format, level, bytes }) => `${COMPRESSED_FORMATS[format].tool} -${level} (${formatSize(bytes)})`)
    .join(', ')
}

const formatsOf = (section) => COMPRESSED_FORMAT_NAMES.filter((format) => section.rows.some((r) => r.format === format))
const contendersOf = (section) => DECOMPRESSOR_NAMES.filter((name) => section.rows.some((r) => r.contender === name))

/** One runtime's table: a row per contender, per format its median ms and ratio to the baseline. */
function runtimeTable(section, runtime) {
  const rows = section.rows.filter((row) => row.runtime === runtime)
  const formats = formatsOf(section)
  const body = contendersOf(section).map((name) => [
    name,
    ...formats.flatMap((format) => {
      const row = rows.find((candidate) => candidate.contender === name && candidate.format === format)
      if (row === undefined) return ['–', '']
      if (row.error !== undefined) return ['ERROR', '']
      if (row.skipped !== undefined) return [`n/a (${row.skipped})`, '']
      const mark = row.problems.length > 0 ? ' ✗' : row.capped ? ' †' : ''
      const ratio = compressedRatio(section, runtime, format, name)
      return [`${row.median.toFixed(1)}${mark}`, ratio === undefined ? '–' : `${formatAmount(ratio.ratio)}x`]
    }),
  ])
  const header = ['contender', ...formats.flatMap((format) => [`${format} ms`, `vs ${COMPRESSED_BASELINE}`])]
  return markdownTable(header, body)
}

function verdict(section, runtime) {
  const rows = section.rows.filter((row) => row.runtime === runtime)
  const wrong = rows.filter(failed)
  if (wrong.length === 0) {
    const measured = rows.filter((row) => row.lines !== undefined).length
    return `Line counts: all ${measured} runs measured saw ${formatCount(section.lines)} lines ✓`
  }
  const reasons = wrong.map((row) => `- ${row.format} · ${row.contender}: ${row.error ?? row.problems.join('; ')}`)
  return ['**✗ LINE COUNT MISMATCH OR FAILURE**', ...reasons].join('\n')
}

/** The compressed section's tables, one per runtime, with their verdicts. */
export function formatCompressedSection(section) {
  const { settings } = section
  const parts = [
    `## Compressed: ${section.corpus} (${formatSize(section.bytes)}, ${formatCount(section.lines)} lines) as ` +
      `${fileLegend(section)}`,
    '',
    `Median ms of ${settings.runs} runs after a warm-up († ${settings.slowRuns} runs: the warm-up took over ` +
      `${settings.slowMs / 1000} s); vs ${COMPRESSED_BASELINE}: its median / the contender's, for ` +
      "the same format. Every run's line count, and its lines' summed lengths where it sees lines, is " +
      "checked against the corpus; fastlines' `bytesRead` against the compressed file's size.",
  ]
  for (const runtime of inRuntimeOrder(section.rows.map((row) => row.runtime))) {
    parts.push('', `### ${runtimeLabel(runtime)}`, '', runtimeTable(section, runtime), '', verdict(section, runtime))
  }
  const notes = contendersOf(section).map((name) => `- \`${name}\`: ${DECOMPRESSORS[name].note}.`)
  parts.push('', ...notes)
  return `${parts.join('\n')}\n`
}

/** The "Compressed" part of the README summary: each contender's median ms per format and runtime. */
export function compressedReadme(section) {
  const runtimes = inRuntimeOrder(section.rows.map((row) => row.runtime))
  const formats = formatsOf(section)
  const cell = (name, format) =>
    runtimes
      .map((runtime) => {
        const row = section.rows.find(
          (candidate) => candidate.runtime === runtime && candidate.format === format && candidate.contender === name,
        )
        if (row === undefined) return '–'
        if (failed(row)) return 'ERROR'
        if (row.skipped !== undefined) return 'n/a'
        return formatAmount(row.median)
      })
      .join(' / ')
  const body = contendersOf(section).map((name) => [`\`${name}\``, ...formats.map((format) => cell(name, format))])
  const batches = formats.map((format) => {
    const ratios = runtimes.map((runtime) => {
      const found = compressedRatio(section, runtime, format, 'fastlines-batches')
      return found === undefined ? '–' : `${formatAmount(found.ratio)}x`
    })
    return `${format} ${ratios.join(' / ')}`
  })
  const agreed = compressedFailures(section).length === 0 ? ' Every contender saw the same lines.' : ''
  return [
    '### Compressed',
    `${measuredApart(section)}Reading the lines of ${section.corpus} (${formatSize(section.bytes)}) compressed with ${fileLegend(section)}: ` +
      `median ms (lower is faster; \`n/a\` where the runtime has no zstd decompressor in \`node:zlib\`); ` +
      `${cellLegend(runtimes)}.${agreed} \`fastlines-batches\` relative to \`${COMPRESSED_BASELINE}\` ` +
      `(its median / ours): ${batches.join('; ')}.`,
    markdownTable(['contender', ...formats.map((format) => `${format} ms`)], body),
  ].join('\n\n')
}
