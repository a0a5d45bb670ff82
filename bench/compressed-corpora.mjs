// The compressed section's files: a corpus compressed with gzip and with zstd by their command-line
// tools, made on first use next to the corpus in bench/data/ (gitignored) and reused while
// bench/data/compressed.json says they were made, at the same level, from the corpus as it is.
import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const DATA_DIR = fileURLToPath(new URL('./data/', import.meta.url))
const MANIFEST_PATH = path.join(DATA_DIR, 'compressed.json')

/**
 * Each format: the tool and level that make its file, its extension, and the tool's command
 * line. gzip: `-n` leaves the name and time out of the header, so the bytes depend on the corpus
 * alone. zstd writes one frame for one input (checked with `zstd -l`): Node's zstd decompressor
 * stops after the first frame of several (nodejs/node#64741).
 */
export const COMPRESSED_FORMATS = {
  gzip: { tool: 'gzip', level: 6, extension: 'gz', args: (level, file) => [`-${level}`, '-n', '-c', file] },
  zstd: { tool: 'zstd', level: 3, extension: 'zst', args: (level, file) => [`-${level}`, '-q', '-c', file] },
}

export const COMPRESSED_FORMAT_NAMES = Object.keys(COMPRESSED_FORMATS)

function readManifest() {
  try {
    return JSON.parse(fs.readFileSync(MANIFEST_PATH, 'utf8'))
  } catch {
    return {}
  }
}

/** `gzip 1.12`, `zstd 1.5.4`: the tool and the version its `--version` prints, for the record. */
function toolVersion(tool) {
  const child = spawnSync(tool, ['--version'], { encoding: 'utf8' })
  if (child.error !== undefined) throw new Error(`${tool}: ${child.error.message}`)
  const version = /\d+\.\d+(\.\d+)?/.exec(`${child.stdout}${child.stderr}`)
  return version === null ? tool : `${tool} ${version[0]}`
}

/** How many zstd frames the file holds, from `zstd -lv`. */
function zstdFrames(file) {
  const listing = execFileSync('zstd', ['-lv', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
  const frames = /Frames:\s*(\d+)/.exec(listing)
  if (frames === null) throw new Error(`zstd -lv ${file}: no frame count in its output`)
  return Number(frames[1])
}

/** Whether the manifest's entry still describes `file`, made from `corpus` at `level`. */
function isCached(entry, file, corpus, level) {
  if (entry === undefined || entry.level !== level) return false
  if (entry.source.bytes !== corpus.bytes || entry.source.lines !== corpus.lines) return false
  try {
    return fs.statSync(file).size === entry.bytes
  } catch {
    return false
  }
}

/** Runs the format's tool on the corpus into `file`, through a `.partial` file. */
function compress(format, corpus, file) {
  const { tool, level, args } = COMPRESSED_FORMATS[format]
  const fd = fs.openSync(`${file}.partial`, 'w')
  try {
    const child = spawnSync(tool, args(level, corpus.path), { stdio: ['ignore', fd, 'pipe'] })
    if (child.error !== undefined) throw new Error(`${tool}: ${child.error.message}`)
    if (child.status !== 0) throw new Error(`${tool} exited with ${child.status ?? child.signal}: ${child.stderr}`)
  } finally {
    fs.closeSync(fd)
  }
  fs.renameSync(`${file}.partial`, file)
}

/**
 * `{ format, path, bytes, level, tool, frames?, generatedMs }` for `corpus` (from ensureCorpus)
 * compressed as `format`, making it unless bench/data/ holds it, made at this level from a corpus
 * of the same size and line count.
 */
export function ensureCompressed(corpus, format) {
  const { tool, level, extension } = COMPRESSED_FORMATS[format]
  const file = `${corpus.path}.${extension}`
  const key = path.basename(file)
  const cached = readManifest()[key]
  if (isCached(cached, file, corpus, level)) return { format, path: file, ...cached, generatedMs: 0 }
  const started = performance.now()
  compress(format, corpus, file)
  const entry = {
    format,
    level,
    tool: toolVersion(tool),
    source: { name: corpus.name, bytes: corpus.bytes, lines: corpus.lines },
    bytes: fs.statSync(file).size,
  }
  if (format === 'zstd') {
    entry.frames = zstdFrames(file)
    if (entry.frames !== 1) throw new Error(`${file}: ${entry.frames} zstd frames, expected 1`)
  }
  fs.writeFileSync(MANIFEST_PATH, `${JSON.stringify({ ...readManifest(), [key]: entry }, null, 2)}\n`)
  return { format, path: file, ...entry, generatedMs: performance.now() - started }
}
