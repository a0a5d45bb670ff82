// The JSON Lines section's corpora (issue 24), generated from a seed into bench/data/ (never
// committed) the first time a run needs them: a pino-style log of small flat objects, a file of
// larger nested records with non-ASCII strings, the log with 1% of its lines broken (for
// `onError: 'skip'`), and the log gzipped.
import fs from 'node:fs'
import { pipeline } from 'node:stream/promises'
import { fileURLToPath } from 'node:url'
import zlib from 'node:zlib'

const DATA = fileURLToPath(new URL('./data/', import.meta.url))
const MB = 1024 * 1024

/** Every `BAD_EVERY`th line of the broken log is cut short, so that it does not parse. */
export const BAD_EVERY = 100

/** A generator of numbers in [0, 1) from `seed` (mulberry32): the same corpus on every machine. */
function seeded(seed) {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const MESSAGES = ['request completed', 'incoming request', 'db query', 'cache miss', 'user logged in']
const WORDS = ['naïve', 'café', 'Zürich', '東京', 'données', 'смета', 'ελληνικά', 'plain', 'ascii', '😀 ok']

/** A pino line: level 50 (error) on about 1% of them, the `match` case's selection. */
function pinoLine(random, i) {
  const level = random() < 0.01 ? 50 : 30
  const reqId = `req-${Math.floor(random() * 1e6)}`
  const msg = MESSAGES[Math.floor(random() * MESSAGES.length)]
  const responseTime = Math.floor(random() * 500)
  return `{"level":${level},"time":${1700000000000 + i},"pid":4242,"hostname":"web-1","reqId":"${reqId}","msg":"${msg}","responseTime":${responseTime}}`
}

/** A nested record of a few KB, with arrays, objects and non-ASCII strings. */
function nestedLine(random, i) {
  const pick = () => WORDS[Math.floor(random() * WORDS.length)]
  const items = Array.from({ length: 8 + Math.floor(random() * 16) }, (_, k) => ({
    sku: `${i}-${k}`,
    name: `${pick()} ${pick()} ${pick()}`,
    price: Math.round(random() * 100000) / 100,
    tags: [pick(), pick()],
    dims: { w: random(), h: random(), unit: 'cm' },
  }))
  return JSON.stringify({ id: i, customer: { name: `${pick()} ${pick()}`, vip: random() < 0.1 }, items, note: pick() })
}

/**
 * Writes lines from `lineAt(random, i)` to `path`, 4096 at a time, until it holds `bytes` or
 * more: whole blocks, so a file is the same whatever size was asked up to its last block.
 */
function writeLines(path, bytes, seed, lineAt, onLine = () => {}) {
  const random = seeded(seed)
  const out = fs.openSync(`${path}.tmp`, 'w')
  let written = 0
  for (let i = 0; written < bytes;) {
    const block = []
    for (let k = 0; k < 4096; k++, i++) {
      const line = lineAt(random, i)
      onLine(line, i)
      block.push(line)
    }
    const text = `${block.join('\n')}\n`
    fs.writeSync(out, text)
    written += Buffer.byteLength(text)
  }
  fs.closeSync(out)
  fs.renameSync(`${path}.tmp`, path)
}

/** The pino log's lines, but every BAD_EVERY-th cut in half, so that it does not parse. */
function brokenPinoLine(random, i) {
  const line = pinoLine(random, i)
  return (i + 1) % BAD_EVERY === 0 ? line.slice(0, line.length >> 1) : line
}

/** The corpora of a run whose pino log holds `pinoMB` MB (and the nested file a fifth of that). */
export async function ensureJsonCorpora(pinoMB) {
  fs.mkdirSync(DATA, { recursive: true })
  const pino = `${DATA}pino-${pinoMB}m.jsonl`
  // A fifth of the pino log, and never empty.
  const nestedMB = Math.max(1, Math.round(pinoMB / 5))
  const nested = `${DATA}nested-${nestedMB}m.jsonl`
  const broken = `${DATA}pino-${pinoMB}m-broken.jsonl`
  const gzip = `${pino}.gz`
  if (!fs.existsSync(pino)) writeLines(pino, pinoMB * MB, 24, pinoLine)
  if (!fs.existsSync(nested)) writeLines(nested, nestedMB * MB, 25, nestedLine)
  if (!fs.existsSync(broken) || !fs.existsSync(expectedOf(broken))) writeBroken(broken, pinoMB * MB)
  if (!fs.existsSync(gzip)) {
    await pipeline(fs.createReadStream(pino), zlib.createGzip({ level: 6 }), fs.createWriteStream(`${gzip}.tmp`))
    fs.renameSync(`${gzip}.tmp`, gzip)
  }
  return { pino, nested, broken, gzip }
}

/** Where what the broken log's lines that parse hold is kept (see writeBroken). */
const expectedOf = (broken) => `${broken}.expected.json`

/** What the lines that parse of the broken log at `broken` hold: `{ values, sum }` (see writeBroken). */
export const brokenExpected = (broken) => JSON.parse(fs.readFileSync(expectedOf(broken), 'utf8'))

/**
 * Writes the broken log, and beside it what its lines that parse hold, as the JSON section's
 * workers tally values (`{ values, sum }`, json-worker.mjs): the case's contenders, both
 * fastlines, are checked against it rather than only against each other.
 */
function writeBroken(broken, bytes) {
  const expected = { values: 0, sum: 0 }
  writeLines(broken, bytes, 24, brokenPinoLine, (line, i) => {
    if ((i + 1) % BAD_EVERY === 0) return
    const value = JSON.parse(line)
    expected.values++
    expected.sum += value.level ?? value.id ?? 0
  })
  fs.writeFileSync(expectedOf(broken), JSON.stringify(expected))
}
