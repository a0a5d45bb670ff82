// The compressed section's contenders: reading the lines of a gzip or zstd file. Each
// `run(path, format, { lib })` reads the whole file and returns `{ lines }`, plus `chars` (the sum
// of line lengths) for those that see lines as strings, plus `bytesRead` for fastlines' readers
// (the compressed bytes read, which the driver checks against the file's size). Node's zlib
// decompresses for the JS contenders, fastlines' `decompress` option for fastlines, and the
// command-line tools (`zcat`, `zstdcat`) for the process contender.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import readline from 'node:readline'
import { pipeline } from 'node:stream'
import zlib from 'node:zlib'
import { NotApplicable, Tally, splitReadable } from './contenders.mjs'

/** Each format's zlib decompressor (its name, as notes say it) and command-line `cat`. */
export const FORMAT_TOOLS = {
  gzip: { zlib: 'createGunzip', cat: 'zcat' },
  zstd: { zlib: 'createZstdDecompress', cat: 'zstdcat' },
}

/**
 * The file's bytes through the runtime's zlib decompressor for `format`; NotApplicable where the
 * runtime has none (`zlib.createZstdDecompress` came in Node 22.15 and 23.8). Errors on either
 * side end the returned stream with the error.
 */
function decompressed(path, format) {
  const create = zlib[FORMAT_TOOLS[format].zlib]
  if (typeof create !== 'function') throw new NotApplicable(`no zlib.${FORMAT_TOOLS[format].zlib}`)
  return pipeline(fs.createReadStream(path), create(), () => {})
}

async function zlibReadline(path, format) {
  const tally = new Tally()
  const lines = readline.createInterface({ input: decompressed(path, format), crlfDelay: Infinity })
  for await (const line of lines) tally.add(line)
  return tally
}

async function zlibSplit(path, format) {
  const tally = new Tally()
  await splitReadable(decompressed(path, format), (line) => tally.add(line))
  return tally
}

/**
 * `zcat p | wc -l` (or `zstdcat`) in bash with `pipefail`, so that a failing decompressor fails
 * the run: what a script that shells out to count lines runs. Its time includes spawning bash,
 * the decompressor and `wc`.
 */
function catWc(path, format) {
  const child = spawnSync(
    'bash',
    ['-c', `set -o pipefail; ${FORMAT_TOOLS[format].cat} -- "$1" | wc -l`, 'bash', path],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  if (child.error !== undefined) throw child.error
  if (child.status !== 0) throw new Error(`exited with ${child.status ?? child.signal}: ${child.stderr.trim()}`)
  return { lines: Number.parseInt(child.stdout, 10) }
}

async function fastlinesLines(path, format, { lib }) {
  const tally = new Tally()
  const reader = lib.readLines(path, { decompress: format })
  for await (const line of reader) tally.add(line)
  return { lines: tally.lines, chars: tally.chars, bytesRead: reader.bytesRead }
}

async function fastlinesBatches(path, format, { lib }) {
  const tally = new Tally()
  const reader = lib.readLines(path, { decompress: format })
  for await (const batch of reader.batches()) for (const line of batch) tally.add(line)
  return { lines: tally.lines, chars: tally.chars, bytesRead: reader.bytesRead }
}

/**
 * In table order; the first is the baseline the ratios are against. `library` names the package
 * a contender loads (as in contenders.mjs), `note` goes under the tables.
 */
export const DECOMPRESSORS = {
  'zlib+readline': {
    run: zlibReadline,
    note:
      '`readline.createInterface({ input: pipeline(fs.createReadStream(p), zlib.createGunzip()) })` ' +
      '(`zlib.createZstdDecompress()` for zstd; n/a where the runtime has none), `for await`',
  },
  'zlib+stream-split': {
    run: zlibSplit,
    note: "the same decompressed stream split by hand, as the corpora's `stream-split`",
  },
  'zcat/zstdcat+wc -l': {
    run: catWc,
    note: '`zcat p | wc -l` (`zstdcat` for zstd) run by bash; its time includes spawning the processes',
  },
  'fastlines-lines': {
    library: 'fastlines',
    run: fastlinesLines,
    note: "`for await (const line of readLines(p, { decompress: 'gzip' }))` (`'zstd'` for zstd)",
  },
  'fastlines-batches': { library: 'fastlines', run: fastlinesBatches, note: 'the same, with `.batches()`' },
  'fastlines-count': {
    library: 'fastlines',
    run: async (path, format, { lib }) => ({ lines: await lib.countLines(path, { decompress: format }) }),
    note: '`await countLines(p, { decompress })`',
  },
}

export const DECOMPRESSOR_NAMES = Object.keys(DECOMPRESSORS)
