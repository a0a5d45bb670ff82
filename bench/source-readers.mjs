// The sources section's cases and contenders (issue 20): reading the lines of a source that is not
// a path (a Node Readable, a web ReadableStream, an async iterable of chunks), by fastlines'
// `readLines(source)` / `countLines(source)` and by what users do without it. A case says where
// the bytes come from (the corpus through process.stdin, a child's stdout, a file stream, chunks
// fed from JS, a gzip file stream, a one-line-per-chunk producer); each contender takes the form
// of that source it reads (a Node Readable, the raw chunks, a web stream, what fastlines is
// given) and returns `{ lines }`, plus `chars` (the sum of line lengths) where it sees lines as
// strings, like the corpora's contenders. sources.mjs drives them, source-worker.mjs runs them.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import readline from 'node:readline'
import { Readable, pipeline } from 'node:stream'
import { StringDecoder } from 'node:string_decoder'
import { setImmediate as nextTurn } from 'node:timers/promises'
import zlib from 'node:zlib'
import { LineSplitStream, NotApplicable, Tally } from './contenders.mjs'

const LF = 10
const CR = 13
const KIB = 1024
const MB = 1_000_000
const MIB = 1024 * KIB
/**
 * The JS-fed cases at 1 KiB and 100 B take only the corpus's first this many bytes (cut after the
 * last whole line): 1 GB in 100 B chunks is 10 million chunks, minutes per run for readline.
 */
export const SMALL_CHUNKS_LIMIT_BYTES = 100 * MB
/** The long-line cases' one line, with its `\n`. */
export const LONG_LINE_BYTES = 64 * MIB
/**
 * A long-line contender's process (warm-up and runs) is stopped after this long and shown as
 * slower than it: split2 4.2 rescans the pending line at every chunk, minutes for one such line.
 */
const LONG_LINE_LIMIT_MS = 30_000
/** The trickle case: this many chunks of one line each. */
export const TRICKLE_CHUNKS = 100_000
/** The trickle case's lines come from the corpus's first this many bytes, cycled if needed. */
const TRICKLE_SOURCE_BYTES = 16 * MB

/**
 * In run and table order. `kind` says how the source is made (KINDS below); `chunkBytes` the
 * size of JS-fed chunks; `limitBytes` cuts the corpus short; `limitMs` stops a contender's
 * process that takes longer (its row says it did not finish); `perProcess`: the source can be read
 * once per process (stdin), so every run is a fresh process; `jsFed`: also measured against the
 * hand split. `title` heads the case's table.
 */
export const SOURCE_CASES = {
  stdin: {
    kind: 'stdin',
    perProcess: true,
    title: '`cat p | <runtime> bench/source-worker.mjs`, reading `process.stdin`, a fresh process per run',
  },
  'child-stdout': { kind: 'child', title: "`spawn('cat', [p]).stdout`, a child process's stdout" },
  'fs-stream': { kind: 'fs', title: '`fs.createReadStream(p)`' },
  ...jsFedCases('generator', 'an async generator of `Uint8Array` slices'),
  ...jsFedCases('web-stream', 'a web `ReadableStream` (default `pull` source) of `Uint8Array` slices'),
  'gzip-stream': {
    kind: 'gzip',
    title:
      "`fs.createReadStream(p + '.gz')`: fastlines with `decompress: 'gzip'`, the others through `zlib.createGunzip()`",
  },
  ...longLineCases(),
  trickle: {
    kind: 'trickle',
    title:
      `a producer that flushes one line per chunk: an async generator yielding ${TRICKLE_CHUNKS.toLocaleString('en-US')} ` +
      'one-line `Uint8Array`s, each on a new event-loop turn (`await setImmediate()`)',
  },
}

function jsFedCases(kind, what) {
  const sizes = { '64k': 64 * KIB, '8k': 8 * KIB, '1k': KIB, '100b': 100 }
  return Object.fromEntries(
    Object.entries(sizes).map(([suffix, chunkBytes]) => {
      const limitBytes = chunkBytes < 8 * KIB ? SMALL_CHUNKS_LIMIT_BYTES : undefined
      const size = chunkBytes >= KIB ? `${chunkBytes / KIB} KiB` : `${chunkBytes} B`
      const title = `${what} of ${size} of one in-memory Buffer of the file (read before timing)`
      return [`${kind}-${suffix}`, { kind, chunkBytes, limitBytes, jsFed: true, title }]
    }),
  )
}

/**
 * One LONG_LINE_BYTES line fed by an async generator in 64 KiB and in 1,460-byte chunks (a TCP
 * segment's payload): the cost must grow with the bytes, not with the bytes times the chunks
 * (split2 and Deno's TextLineStream had quadratic cases, mcollina/split2#49, denoland/std#7231).
 */
function longLineCases() {
  const sizes = { '64k': 64 * KIB, '1460b': 1460 }
  return Object.fromEntries(
    Object.entries(sizes).map(([suffix, chunkBytes]) => {
      const size = chunkBytes % KIB === 0 ? `${chunkBytes / KIB} KiB` : `${chunkBytes.toLocaleString('en-US')}-byte`
      const title = `one ${LONG_LINE_BYTES / MIB} MiB line (the corpus's text, its terminators made spaces) in ${size} chunks of an async generator`
      return [`long-line-${suffix}`, { kind: 'long-line', chunkBytes, limitMs: LONG_LINE_LIMIT_MS, title }]
    }),
  )
}

export const SOURCE_CASE_NAMES = Object.keys(SOURCE_CASES)

/** The file a case reads: the corpus, or for gzip-stream the corpus compressed by gzip. */
export const caseFile = (name, corpusPath) => (SOURCE_CASES[name].kind === 'gzip' ? `${corpusPath}.gz` : corpusPath)

/** The first `limitBytes` of a file, cut after its last `\n`; the whole file when it is smaller. */
export function readPrefix(file, limitBytes) {
  const size = fs.statSync(file).size
  if (limitBytes === undefined || size <= limitBytes) return fs.readFileSync(file)
  const buffer = Buffer.allocUnsafe(limitBytes)
  const fd = fs.openSync(file, 'r')
  try {
    for (let filled = 0; filled < limitBytes;) {
      const n = fs.readSync(fd, buffer, filled, limitBytes - filled, filled)
      if (n === 0) throw new Error(`${file}: shorter than its size`)
      filled += n
    }
  } finally {
    fs.closeSync(fd)
  }
  return buffer.subarray(0, buffer.lastIndexOf(LF) + 1)
}

/** The trickle case's chunks: the corpus's first lines, cycled up to TRICKLE_CHUNKS, each with its `\n`. */
export function trickleChunks(file) {
  const lines = readPrefix(file, TRICKLE_SOURCE_BYTES).toString('utf8').split('\n')
  lines.pop() // after the last `\n`
  const encoder = new TextEncoder()
  return Array.from({ length: TRICKLE_CHUNKS }, (_, i) => encoder.encode(`${lines[i % lines.length]}\n`))
}

/**
 * The long-line cases' LONG_LINE_BYTES: the corpus's whole lines in them, every `\r` and `\n` made
 * a space, padded with spaces, then one `\n`.
 */
export function longLine(file) {
  const line = Buffer.alloc(LONG_LINE_BYTES, 0x20)
  const text = readPrefix(file, LONG_LINE_BYTES - 1)
  for (let i = 0; i < text.length; i++) line[i] = text[i] === LF || text[i] === CR ? 0x20 : text[i]
  line[LONG_LINE_BYTES - 1] = LF
  return line
}

/** What a case's runs read, made before timing: the bytes of the JS-fed cases, the trickle's chunks. */
export function prepareCase(name, corpusPath) {
  const { kind, limitBytes } = SOURCE_CASES[name]
  if (kind === 'generator' || kind === 'web-stream') return readPrefix(corpusPath, limitBytes)
  if (kind === 'long-line') return longLine(corpusPath)
  if (kind === 'trickle') return trickleChunks(corpusPath)
  return undefined
}

/**
 * readline's lines and summed line lengths for text that ends with `\n` and has no lone `\r`
 * (every corpus): a line per `\n`, each without its `\n` or `\r\n`.
 */
function countText(text) {
  let lines = 0
  let crlf = 0
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) {
    lines++
    if (i > 0 && text.charCodeAt(i - 1) === CR) crlf++
  }
  return { lines, chars: text.length - lines - crlf }
}

/**
 * What every contender must see in a case: `{ bytes, lines, chars, chunks? }`. The whole
 * corpus's figures are the manifest's (`corpus`, from ensureCorpus); a prefix's and the trickle's
 * are counted here, from the same bytes the workers feed.
 */
export function expectedFor(name, corpus) {
  const { kind, chunkBytes, limitBytes } = SOURCE_CASES[name]
  const whole = { bytes: corpus.bytes, lines: corpus.lines, chars: corpus.chars }
  if (kind === 'trickle') {
    const chunks = trickleChunks(corpus.path)
    const text = Buffer.concat(chunks).toString('utf8')
    return { bytes: Buffer.byteLength(text), ...countText(text), chunks: chunks.length }
  }
  if (kind === 'long-line') {
    const chars = longLine(corpus.path).toString('utf8').length - 1
    return { bytes: LONG_LINE_BYTES, lines: 1, chars, chunks: Math.ceil(LONG_LINE_BYTES / chunkBytes) }
  }
  if (chunkBytes === undefined) return whole
  const counted =
    limitBytes === undefined || corpus.bytes <= limitBytes
      ? whole
      : (() => {
          const prefix = readPrefix(corpus.path, limitBytes)
          return { bytes: prefix.length, ...countText(prefix.toString('utf8')) }
        })()
  return { ...counted, chunks: Math.ceil(counted.bytes / chunkBytes) }
}

/** `bytes` in `size`-byte Uint8Array views, no copy. */
function* slices(bytes, size) {
  for (let offset = 0; offset < bytes.length; offset += size) {
    yield new Uint8Array(bytes.buffer, bytes.byteOffset + offset, Math.min(size, bytes.length - offset))
  }
}

const generatorOf = (bytes, size) => asyncGeneratorOf(slices(bytes, size))

async function* asyncGeneratorOf(items) {
  yield* items
}

/** A web ReadableStream handing out the slices, one per `pull`, as a user's underlying source does. */
const webStreamOf = (bytes, size) => webStreamOfItems(slices(bytes, size))

function webStreamOfItems(items) {
  const iterator = items[Symbol.iterator]()
  return new ReadableStream({
    pull(controller) {
      const { value, done } = iterator.next()
      if (done) controller.close()
      else controller.enqueue(value)
    },
  })
}

async function* trickle(chunks) {
  for (const chunk of chunks) {
    await nextTurn()
    yield chunk
  }
}

/** `cat p`'s stdout, a child process's pipe. */
const catStdout = (file) => spawn('cat', [file], { stdio: ['ignore', 'pipe', 'inherit'] }).stdout

/** The gzip file through zlib; an error on either side ends the returned stream with it. */
const gunzipped = (file) => pipeline(fs.createReadStream(file), zlib.createGunzip(), () => {})

/**
 * How each kind of case makes a fresh source per run, in each form a contender may read: `node`
 * (a Node Readable of the bytes, for readline and split2), `chunks` (an async iterable of byte
 * chunks, for the hand split and the floor), `web` (a web ReadableStream), `texts` (the same
 * kind of source yielding each chunk's text, decoded before timing, for the split floor),
 * `chunks+texts` (a child's stdout, whose chunks the split floor takes alongside the file's
 * text, decoded before timing) and `fastlines` (what readLines and countLines are given,
 * with their options). `source` is `{ file,
 * prepared, chunkBytes }`: `prepared` is prepareCase's, or the reader's `prepare` of it.
 */
const KINDS = {
  stdin: {
    node: () => process.stdin,
    chunks: () => process.stdin,
    fastlines: () => ({ source: process.stdin }),
    file: ({ file }) => file,
  },
  child: {
    node: ({ file }) => catStdout(file),
    chunks: ({ file }) => catStdout(file),
    fastlines: ({ file }) => ({ source: catStdout(file) }),
    'chunks+texts': ({ file, prepared }) => ({ chunks: catStdout(file), texts: prepared }),
  },
  fs: {
    node: ({ file }) => fs.createReadStream(file),
    chunks: ({ file }) => fs.createReadStream(file),
    fastlines: ({ file }) => ({ source: fs.createReadStream(file) }),
  },
  generator: {
    node: ({ prepared, chunkBytes }) => Readable.from(generatorOf(prepared, chunkBytes)),
    chunks: ({ prepared, chunkBytes }) => generatorOf(prepared, chunkBytes),
    texts: ({ prepared }) => asyncGeneratorOf(prepared),
    fastlines: ({ prepared, chunkBytes }) => ({ source: generatorOf(prepared, chunkBytes) }),
  },
  'web-stream': {
    node: ({ prepared, chunkBytes }) => Readable.fromWeb(webStreamOf(prepared, chunkBytes)),
    chunks: ({ prepared, chunkBytes }) => webStreamOf(prepared, chunkBytes),
    web: ({ prepared, chunkBytes }) => webStreamOf(prepared, chunkBytes),
    texts: ({ prepared }) => webStreamOfItems(prepared),
    fastlines: ({ prepared, chunkBytes }) => ({ source: webStreamOf(prepared, chunkBytes) }),
  },
  gzip: {
    node: ({ file }) => gunzipped(file),
    chunks: ({ file }) => gunzipped(file),
    fastlines: ({ file }) => ({ source: fs.createReadStream(file), options: { decompress: 'gzip' } }),
  },
  'long-line': {
    node: ({ prepared, chunkBytes }) => Readable.from(generatorOf(prepared, chunkBytes)),
    chunks: ({ prepared, chunkBytes }) => generatorOf(prepared, chunkBytes),
    fastlines: ({ prepared, chunkBytes }) => ({ source: generatorOf(prepared, chunkBytes) }),
  },
  trickle: {
    node: ({ prepared }) => Readable.from(trickle(prepared)),
    chunks: ({ prepared }) => trickle(prepared),
    fastlines: ({ prepared }) => ({ source: trickle(prepared) }),
  },
}

function withoutCR(line) {
  return line.charCodeAt(line.length - 1) === CR ? line.slice(0, -1) : line
}

async function tallyLines(lines) {
  const tally = new Tally()
  for await (const line of lines) tally.add(line)
  return tally
}

async function tallyBatches(reader) {
  const tally = new Tally()
  for await (const batch of reader.batches()) for (const line of batch) tally.add(line)
  return tally
}

function readlineEvents(input) {
  return new Promise((resolve, reject) => {
    const tally = new Tally()
    input.on('error', reject)
    readline
      .createInterface({ input, crlfDelay: Infinity })
      .on('line', (line) => tally.add(line))
      .on('close', () => resolve(tally))
  })
}

/**
 * Adds the complete lines of `text` to `tally`, `carry` (the partial line before it) first; the
 * partial line after them, which the caller carries into the next text.
 */
function splitInto(tally, carry, text) {
  if (!text.includes('\n')) return carry + text
  const parts = text.split('\n')
  parts[0] = carry + parts[0]
  const rest = parts.pop()
  for (const line of parts) tally.add(withoutCR(line))
  return rest
}

/**
 * The hand split a user writes over any byte chunks: a StringDecoder (a UTF-8 sequence cut
 * between chunks stays whole), `split('\n')`, the partial last line carried into the next chunk,
 * a trailing `\r` stripped.
 */
async function handSplit(chunks) {
  const tally = new Tally()
  const decoder = new StringDecoder('utf8')
  let carry = ''
  for await (const chunk of chunks) carry = splitInto(tally, carry, decoder.write(chunk))
  carry += decoder.end()
  if (carry !== '') tally.add(withoutCR(carry))
  return tally
}

/**
 * The hand split's floor: the same source's chunks, already decoded (before timing), split the
 * same way. What is left is what any reader that hands out line strings does on the JS thread
 * over a JS-fed source: take each chunk from it, and make a string of each line.
 */
async function splitTexts(texts) {
  const tally = new Tally()
  let carry = ''
  for await (const text of texts) carry = splitInto(tally, carry, text)
  if (carry !== '') tally.add(withoutCR(carry))
  return tally
}

/** The text of each `size`-byte chunk of `bytes`, as the hand split's StringDecoder gives it. */
function chunkTexts(bytes, size) {
  const decoder = new StringDecoder('utf8')
  const texts = Array.from(slices(bytes, size), (chunk) => decoder.write(chunk))
  const end = decoder.end()
  if (end !== '') texts.push(end)
  return texts
}

/** The bytes of each text that `chunks-split-floor` splits as the stream's chunks come. */
const TEXT_BYTES = 64 * KIB

/**
 * `chunks-split-floor`: takes the stream's chunks, and splits the next of `texts` (the text of
 * each TEXT_BYTES of the same file, made before timing) for every TEXT_BYTES taken, then any
 * left at its end: both halves of what a reader of line strings does on the JS thread.
 */
async function splitAlongChunks({ chunks, texts }) {
  const tally = new Tally()
  let carry = ''
  let split = 0
  let taken = 0
  for await (const chunk of chunks) {
    taken += chunk.length
    for (; split < texts.length && split * TEXT_BYTES < taken; split++) carry = splitInto(tally, carry, texts[split])
  }
  for (; split < texts.length; split++) carry = splitInto(tally, carry, texts[split])
  if (carry !== '') tally.add(withoutCR(carry))
  return tally
}

/** The floor: `for await` over the chunks, counting `\n` bytes (plus a last line without one). */
async function rawChunks(chunks) {
  let lines = 0
  let last = LF
  for await (const chunk of chunks) {
    if (chunk.length === 0) continue
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
    for (let i = bytes.indexOf(LF); i !== -1; i = bytes.indexOf(LF, i + 1)) lines++
    last = bytes[bytes.length - 1]
  }
  return { lines: last === LF ? lines : lines + 1 }
}

/**
 * Bun's own stdin lines: `for await (const line of console)`. Bun (1.4) yields an empty line after
 * a final `\n` and keeps a `\r` before a `\n`, so the last line is held back and dropped when
 * empty, and a trailing `\r` stripped: readline's lines.
 */
async function bunConsole() {
  if (globalThis.Bun === undefined) throw new NotApplicable('Bun only')
  const tally = new Tally()
  let held
  for await (const line of console) {
    if (held !== undefined) tally.add(withoutCR(held))
    held = line
  }
  if (held !== undefined && held !== '') tally.add(withoutCR(held))
  return tally
}

/** A web stream's lines as a Deno user splits them: TextDecoderStream, then TextLineStream. */
function textLineStream(stream) {
  if (globalThis.Deno === undefined) throw new NotApplicable('Deno only')
  return tallyLines(
    stream.pipeThrough(new TextDecoderStream('utf-8', { ignoreBOM: true })).pipeThrough(new LineSplitStream()),
  )
}

/**
 * Runs a fastlines call on a source; a build without source support (issue 20) rejects the
 * source as a path with ERR_INVALID_ARG_TYPE, which is said plainly.
 */
async function fastlines(run) {
  try {
    return await run()
  } catch (error) {
    if (error?.code === 'ERR_INVALID_ARG_TYPE') {
      error.message = `this fastlines build takes no source (issue 20): ${error.message}`
    }
    throw error
  }
}

/**
 * In table order; `readline` is the baseline. `reads` names the form of the source a contender
 * takes (KINDS); `run(input, { lib, options })` reads it all. `cases` and `runtimes`, where given,
 * are the only ones a contender runs in (elsewhere: not in the table, or n/a on that runtime);
 * `perLine`: hands out one line at a time (per-line target); `prepare(bytes, sourceCase, file)`,
 * where given, makes what its runs read from the case's prepared bytes (or its file), before
 * timing. `note` goes
 * under the tables.
 */
export const SOURCE_READERS = {
  readline: {
    reads: 'node',
    perLine: true,
    run: (input) => tallyLines(readline.createInterface({ input, crlfDelay: Infinity })),
    note:
      '`readline.createInterface({ input, crlfDelay: Infinity })`, `for await`; `input` is the Node stream, ' +
      '`Readable.from(generator)` or `Readable.fromWeb(stream)`: the baseline',
  },
  'readline-event': { reads: 'node', perLine: true, run: readlineEvents, note: "the same interface, `'line'` events" },
  split2: { reads: 'node', perLine: true, library: 'split2', run: (input, { lib }) => tallyLines(input.pipe(lib())) },
  'hand-split': {
    reads: 'chunks',
    run: handSplit,
    note: "`for await` over the chunks, `StringDecoder('utf8')`, `split('\\n')`, the partial line carried over",
  },
  'split-floor': {
    reads: 'texts',
    prepare: (bytes, { chunkBytes }) => chunkTexts(bytes, chunkBytes),
    run: splitTexts,
    note:
      "the hand split with each chunk's text decoded before timing: the same kind of source yields the texts, " +
      'split as hand-split does. The JS-thread work no reader that hands out line strings avoids (taking each ' +
      "chunk from the source, `split('\\n')`): the floor for batches",
  },
  'text-line-stream': {
    reads: 'web',
    perLine: true,
    runtimes: ['deno'],
    run: textLineStream,
    note:
      'Deno only: `stream.pipeThrough(new TextDecoderStream()).pipeThrough(new TextLineStream())`; `jsr:@std/streams` ' +
      "does not resolve offline, so it is the corpora's `LineSplitStream` (std's `TextLineStream({ allowCR: true })`, written out)",
  },
  'bun-console': {
    reads: 'console',
    perLine: true,
    cases: ['stdin'],
    runtimes: ['bun'],
    run: bunConsole,
    note:
      'Bun only, stdin only: `for await (const line of console)`; Bun yields an empty line after the final ' +
      "`\\n` and keeps `\\r`s, which it drops and strips to see readline's lines",
  },
  'raw-chunks': {
    reads: 'chunks',
    run: rawChunks,
    note: '`for await` over the chunks, counting `\\n` bytes: the floor, no decoding, no lines',
  },
  'chunks-split-floor': {
    reads: 'chunks+texts',
    cases: ['child-stdout'],
    prepare: (_, __, file) => chunkTexts(fs.readFileSync(file), TEXT_BYTES),
    run: splitAlongChunks,
    note:
      "child-stdout only: `for await` over the stream's chunks as `raw-chunks` takes them, and for each 64 KiB taken, the text of " +
      "the file's next 64 KiB (decoded before timing) split as `hand-split` splits it: what no reader that hands " +
      "out line strings from this stream avoids on the JS thread (taking its chunks, `split('\\n')`), the floor for batches",
  },
  'fastlines-lines': {
    reads: 'fastlines',
    library: 'fastlines',
    run: ({ source, options }, { lib }) => fastlines(() => tallyLines(lib.readLines(source, options))),
    note: "`for await (const line of readLines(source))` (`{ decompress: 'gzip' }` on gzip-stream)",
  },
  'fastlines-batches': {
    reads: 'fastlines',
    library: 'fastlines',
    run: ({ source, options }, { lib }) => fastlines(() => tallyBatches(lib.readLines(source, options))),
    note: '`for await (const batch of readLines(source).batches())`',
  },
  'fastlines-count': {
    reads: 'fastlines',
    library: 'fastlines',
    run: ({ source, options }, { lib }) => fastlines(async () => ({ lines: await lib.countLines(source, options) })),
    note: '`await countLines(source)`',
  },
  'file-lines': {
    reads: 'file',
    library: 'fastlines',
    cases: ['stdin'],
    run: (path, { lib }) => tallyLines(lib.readLines(path)),
    note:
      'stdin only: `readLines(p)` per line on the file that `cat` pipes in (the pipe is drained after timing): ' +
      "the floor of stdin's per-line read, whose bytes pass through `cat` and a pipe first",
  },
  'file-batches': {
    reads: 'file',
    library: 'fastlines',
    cases: ['stdin'],
    run: (path, { lib }) => tallyBatches(lib.readLines(path)),
    note: "stdin only: the same with `batches()`: the floor of stdin's batches",
  },
}

export const SOURCE_READER_NAMES = Object.keys(SOURCE_READERS)

/** Whether a contender has a row in a case's table at all (it may still be n/a on a runtime). */
export function readsCase(name, caseName) {
  const { reads, cases } = SOURCE_READERS[name]
  if (cases !== undefined && !cases.includes(caseName)) return false
  return reads === 'console' || KINDS[SOURCE_CASES[caseName].kind][reads] !== undefined
}

/** Why a contender cannot run in a case on a runtime, or undefined when it can. */
export function notApplicable(name, caseName, runtime) {
  const { runtimes } = SOURCE_READERS[name]
  if (!readsCase(name, caseName)) return `not a ${caseName} reader`
  if (runtimes !== undefined && !runtimes.includes(runtime)) return `${runtimes.join(', ')} only`
  return undefined
}

/** A fresh source of a case in the form `name` reads, and reads it: `{ lines, chars? }`. */
export function readSource(name, caseName, { file, prepared, lib }) {
  const reader = SOURCE_READERS[name]
  const { kind, chunkBytes } = SOURCE_CASES[caseName]
  const input = reader.reads === 'console' ? undefined : KINDS[kind][reader.reads]({ file, prepared, chunkBytes })
  return reader.run(input, { lib })
}
