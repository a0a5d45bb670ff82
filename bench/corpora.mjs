// Deterministic benchmark corpora: definitions, generation and the on-disk cache in bench/data/.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

import { mixLine } from './line-hash.mjs'

const DATA_DIR = fileURLToPath(new URL('./data/', import.meta.url))
const MANIFEST_PATH = path.join(DATA_DIR, 'manifest.json')
/** Bump when a generator or what the manifest holds changes, so that cached files are rebuilt. */
const GENERATOR_VERSION = 2
/** Text is encoded into blocks of this many bytes, each written with one fs.writeSync. */
const BLOCK_BYTES = 1024 * 1024
const MB = 1_000_000
const HEX4 = Array.from({ length: 65536 }, (_, i) => i.toString(16).padStart(4, '0'))
const MILLIS = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'))

/** mulberry32: a small, fast, seeded PRNG; returns floats in [0, 1). */
function mulberry32(seed) {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) | 0
    let t = Math.imul(state ^ (state >>> 15), 1 | state)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function createRandom(seed) {
  const next = mulberry32(seed)
  const int = (min, max) => min + Math.floor(next() * (max - min + 1))
  return {
    int,
    pick: (list) => list[Math.floor(next() * list.length)],
    hex8: () => HEX4[Math.floor(next() * 65536)] + HEX4[Math.floor(next() * 65536)],
    chars: (alphabet, length) => {
      let text = ''
      for (let i = 0; i < length; i++) text += alphabet[Math.floor(next() * alphabet.length)]
      return text
    },
  }
}

const LEVELS = ['INFO ', 'INFO ', 'INFO ', 'INFO ', 'DEBUG', 'DEBUG', 'WARN ', 'ERROR']
const MODULES = ['http.server', 'db.pool', 'auth.session', 'cache.redis', 'queue.worker', 'billing', 'search.index']
const METHODS = ['GET', 'GET', 'GET', 'POST', 'PUT', 'DELETE']
const ROUTES = ['/api/v1/users', '/api/v1/orders', '/api/v2/search', '/api/v1/invoices', '/static/assets']
const STATUSES = [200, 200, 200, 201, 204, 304, 400, 404, 500, 503]
const TABLES = ['users', 'orders', 'line_items', 'payments', 'audit_log']
const LOG_MESSAGES = [
  (r) => `${r.pick(METHODS)} ${r.pick(ROUTES)}/${r.int(1, 99999)} -> ${r.pick(STATUSES)} in ${r.int(1, 900)}ms`,
  (r) => `cache miss for key session:${r.hex8()}${r.hex8()}, falling back to db`,
  (r) => `user ${r.int(1000, 999999)} signed in from 10.${r.int(0, 255)}.${r.int(0, 255)}.${r.int(1, 254)}`,
  (r) => `retrying job ${r.hex8()} (attempt ${r.int(2, 5)}/5) after upstream timeout`,
  (r) => `slow query on table ${r.pick(TABLES)}: ${r.int(1000, 900000)} rows scanned in ${r.int(200, 9000)}ms`,
  (r) => `connection pool at ${r.int(50, 100)}% capacity, ${r.int(0, 40)} waiters`,
  (r) => `charged invoice INV-${r.int(100000, 999999)} amount=${r.int(1, 99999)}.${r.int(10, 99)} EUR`,
]

/** Realistic application log lines (~126 bytes) with monotonically increasing timestamps. */
function logLines(r) {
  let time = Date.UTC(2024, 2, 14, 9, 26, 53)
  let second = -1
  let prefix = ''
  return () => {
    time += r.int(0, 40)
    if (Math.floor(time / 1000) !== second) {
      second = Math.floor(time / 1000)
      prefix = new Date(second * 1000).toISOString().slice(0, 20)
    }
    const head = `${prefix}${MILLIS[time % 1000]}Z ${r.pick(LEVELS)} [${r.pick(MODULES)}]`
    const message = r.pick(LOG_MESSAGES)(r)
    return `${head} ${message} rid=${r.hex8()}${r.hex8()} pid=${r.int(1000, 65000)}`
  }
}

const WORDS = [
  ['the', 'data', 'server', 'request', 'value', 'log', 'index', 'merge', 'stream'],
  ['café', 'naïve', 'über', 'mañana', 'smörgåsbord', 'façade', 'crème', 'Ærøskøbing', 'Kraków'],
  ['λόγος', 'Ελλάδα', 'привет', 'мир', 'Москва', 'שָׁלוֹם', 'مرحبا', 'Ђорђе'],
  ['東京', '日本語', '中文字符', '한국어', 'こんにちは', '漢字', '北京市', 'データ'],
  ['😀', '🚀', '👍🏽', '🎉', '🇫🇷', '👩‍💻', '🦀', '𝄞', '𠜎'],
]

/** Words mixing 1-, 2-, 3- and 4-byte UTF-8 characters. */
function utf8Lines(r) {
  return () => {
    const words = []
    for (let n = r.int(4, 30); n > 0; n--) words.push(r.pick(r.pick(WORDS)))
    return words.join(' ')
  }
}

const ALPHANUMERIC = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-'

/** 1-20 byte lines, sliced from a fixed random pool. */
function shortLines(r) {
  const pool = r.chars(ALPHANUMERIC, 4096)
  return () => {
    const start = r.int(0, pool.length - 20)
    return pool.slice(start, start + r.int(1, 20))
  }
}

/** Minified JSON documents of 256 KB - 4 MB, one per line. */
function jsonLines(r) {
  return () => {
    const target = r.int(256 * 1024, 4 * 1024 * 1024)
    const records = []
    for (let length = 0; length < target; length += records[records.length - 1].length + 1) {
      const price = `${r.int(1, 9999)}.${r.int(10, 99)}`
      const tags = `["${r.pick(TABLES)}","${r.pick(MODULES)}"]`
      const active = r.int(0, 1) === 1
      records.push(`{"id":${r.int(1, 1e9)},"sku":"${r.hex8()}","price":${price},"tags":${tags},"active":${active}}`)
    }
    return `{"items":[${records.join(',')}]}`
  }
}

/**
 * Each corpus: a line generator, a seed, a line ending, and a size given either in lines or
 * (approximately, to the next block) in bytes.
 */
export const CORPORA = {
  'logs-70k': { lines: 70_000, seed: 1, eol: '\n', source: logLines },
  'logs-1g': { lines: 8_000_000, seed: 1, eol: '\n', source: logLines },
  'utf8-heavy': { bytes: 100 * MB, seed: 2, eol: '\n', source: utf8Lines },
  'short-lines': { bytes: 100 * MB, seed: 3, eol: '\n', source: shortLines },
  'long-lines': { bytes: 100 * MB, seed: 4, eol: '\n', source: jsonLines },
  crlf: { bytes: 100 * MB, seed: 5, eol: '\r\n', source: logLines },
}

export const DEFAULT_CORPORA = ['logs-70k', 'logs-1g']

/** Encodes text straight into a reused block buffer, written out with fs.writeSync when full. */
class BlockWriter {
  #fd
  #block = Buffer.allocUnsafe(BLOCK_BYTES)
  #used = 0
  #written = 0

  constructor(fd) {
    this.#fd = fd
  }

  get bytes() {
    return this.#written + this.#used
  }

  write(text) {
    const maxBytes = text.length * 3
    if (this.#used + maxBytes > this.#block.length) this.flush()
    if (maxBytes <= this.#block.length) this.#used += this.#block.write(text, this.#used)
    else this.#written += fs.writeSync(this.#fd, Buffer.from(text, 'utf8'))
  }

  flush() {
    this.#written += fs.writeSync(this.#fd, this.#block, 0, this.#used)
    this.#used = 0
  }
}

/**
 * Writes a corpus to `file`; returns its size, its line and UTF-16 unit counts, and the lines'
 * fingerprint (line-hash.mjs).
 */
function generate(corpus, file) {
  const nextLine = corpus.source(createRandom(corpus.seed))
  const fd = fs.openSync(file, 'w')
  const writer = new BlockWriter(fd)
  let lines = 0
  let chars = 0
  let hash = 0
  const done = () => (corpus.lines === undefined ? writer.bytes >= corpus.bytes : lines >= corpus.lines)
  try {
    while (!done()) {
      const line = nextLine()
      writer.write(line + corpus.eol)
      lines++
      chars += line.length
      hash = mixLine(hash, line)
    }
    writer.flush()
  } finally {
    fs.closeSync(fd)
  }
  return { bytes: writer.bytes, lines, chars, hash }
}

function readManifest() {
  try {
    return JSON.parse(fs.readFileSync(MANIFEST_PATH, 'utf8'))
  } catch {
    return {}
  }
}

function isCached(entry, file) {
  if (entry === undefined || entry.version !== GENERATOR_VERSION) return false
  try {
    return fs.statSync(file).size === entry.bytes
  } catch {
    return false
  }
}

/**
 * Returns `{ name, path, bytes, lines, chars, hash, generatedMs }` for a corpus, generating it unless
 * bench/data/ already holds it (same generator version and size).
 */
export function ensureCorpus(name) {
  const file = path.join(DATA_DIR, `${name}.txt`)
  const cached = readManifest()[name]
  if (isCached(cached, file)) return { name, path: file, ...cached, generatedMs: 0 }
  fs.mkdirSync(DATA_DIR, { recursive: true })
  const started = performance.now()
  const stats = generate(CORPORA[name], `${file}.partial`)
  fs.renameSync(`${file}.partial`, file)
  const entry = { version: GENERATOR_VERSION, ...stats }
  const manifest = { ...readManifest(), [name]: entry }
  fs.writeFileSync(MANIFEST_PATH, `${JSON.stringify(manifest, null, 2)}\n`)
  return { name, path: file, ...entry, generatedMs: performance.now() - started }
}
