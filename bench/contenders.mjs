// The contenders. Each `run(path, { lib, prepared, onFirst })` reads the whole file and returns
// `{ lines }`, plus `chars` (the sum of line lengths) for those that see each line as a string.
// Counting and summing is the minimal per-line work that keeps every line live. `library` names
// the package a contender needs, loaded lazily by `loadLibrary` (so that the cold measurement can
// time the load) and passed to it as `lib`; Node's built-in modules are imported here, as loaded.
// `prepare(path, { lib })`, where present, runs once before any timed run and its result is
// passed as `prepared`. `onFirst`, when given, is called when the first line (or, for byte
// counters, the first chunk) arrives; contenders that only return a count never call it.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import readline from 'node:readline'

import { mixLine } from './line-hash.mjs'

const LF = 10
const CR = 13
/**
 * What fastlines asks of the OS per read by default (lib/options.js), and so the bytes behind each
 * batch string its native side hands JS: batches-floor cuts its batches the same way.
 */
const FASTLINES_READ_BYTES = 48 * 1024

/** Thrown when a contender cannot run here (missing API, file too large for it, ...). */
export class NotApplicable extends Error {}

/** The packages contenders use, each loaded on first call; a contender names one as `library`. */
const LIBRARIES = {
  fastlines: () => import('../index.mjs'),
  split2: async () => (await import('split2')).default,
  'n-readlines': async () => (await import('n-readlines')).default,
}

/** Loads the package a contender uses (its `lib`), or undefined if it uses only built-ins. */
export function loadLibrary(contender) {
  return contender.library === undefined ? undefined : LIBRARIES[contender.library]()
}

/** Loads every package any contender uses: the probe's processes all import the same modules. */
export async function loadAllLibraries() {
  await Promise.all(Object.values(LIBRARIES).map((load) => load()))
}

/** Counts lines and sums their lengths. */
export class Tally {
  lines = 0
  chars = 0

  add(line) {
    this.lines++
    this.chars += line.length
  }
}

/** A Tally that calls `onFirst` on its first line; only the probe uses it. */
class FirstLineTally extends Tally {
  #onFirst

  constructor(onFirst) {
    super()
    this.#onFirst = onFirst
  }

  add(line) {
    if (this.lines === 0) this.#onFirst()
    super.add(line)
  }
}

/** A Tally that also takes the lines' fingerprint (line-hash.mjs), for a warm-up run. */
class FingerprintTally extends Tally {
  hash = 0

  add(line) {
    super.add(line)
    this.hash = mixLine(this.hash, line)
  }
}

/** Whether the runs from now on take the lines' fingerprint (see checkLines). */
let checking = false

/**
 * From now on, the contenders' tallies take the fingerprint of the lines they count, or stop
 * taking it: worker.mjs turns it on for the warm-up run, so that the timed runs pay nothing.
 */
export function checkLines(on) {
  checking = on
}

/** A plain Tally unless the caller watches for the first line or checks the lines, so timed runs pay nothing. */
const newTally = (onFirst) =>
  onFirst !== undefined ? new FirstLineTally(onFirst) : checking ? new FingerprintTally() : new Tally()

async function tallyLines(lines, onFirst) {
  const tally = newTally(onFirst)
  for await (const line of lines) tally.add(line)
  return tally
}

function tallyLinesSync(lines, onFirst) {
  const tally = newTally(onFirst)
  for (const line of lines) tally.add(line)
  return tally
}

async function tallyBatches(batches, onFirst) {
  const tally = newTally(onFirst)
  for await (const batch of batches) for (const line of batch) tally.add(line)
  return tally
}

/** Like tallyBatches, for batches that are lines joined by `\n`, split here as fastlines does. */
async function tallyJoinedBatches(batches, onFirst) {
  const tally = newTally(onFirst)
  for await (const batch of batches) for (const line of batch.split('\n')) tally.add(line)
  return tally
}

/**
 * Counts `\n` bytes, plus a final line that has no `\n`: readline's line count for text without
 * a lone `\r`.
 */
async function countNewlines(chunks, onFirst) {
  let lines = 0
  let last = LF
  let onChunk = onFirst
  for await (const chunk of chunks) {
    if (chunk.length === 0) continue
    onChunk?.()
    onChunk = undefined
    for (let i = chunk.indexOf(LF); i !== -1; i = chunk.indexOf(LF, i + 1)) lines++
    last = chunk[chunk.length - 1]
  }
  return { lines: last === LF ? lines : lines + 1 }
}

function withoutCR(line) {
  return line.charCodeAt(line.length - 1) === CR ? line.slice(0, -1) : line
}

function readlineInterface(path) {
  return readline.createInterface({ input: fs.createReadStream(path), crlfDelay: Infinity })
}

function readlineEvents(path, { onFirst }) {
  return new Promise((resolve, reject) => {
    const input = fs.createReadStream(path)
    const tally = newTally(onFirst)
    input.on('error', reject)
    readline
      .createInterface({ input, crlfDelay: Infinity })
      .on('line', (line) => tally.add(line))
      .on('close', () => resolve(tally))
  })
}

async function fileHandleReadLines(path, { onFirst }) {
  const handle = await fs.promises.open(path)
  if (typeof handle.readLines !== 'function') {
    await handle.close()
    throw new NotApplicable('no FileHandle.readLines')
  }
  return tallyLines(handle.readLines(), onFirst)
}

/**
 * Decoded stream chunks split on `\n`, each line handed to `add`; the partial last line is
 * carried into the next chunk. The hand-written split a user writes (search contenders reuse it).
 */
export function splitStream(path, add) {
  return splitReadable(fs.createReadStream(path), add)
}

/**
 * splitStream's split of any Node byte stream (a file's, or a decompressor's in the compressed
 * section), decoded as UTF-8 by `setEncoding`.
 */
export async function splitReadable(stream, add) {
  for await (const lines of lineRuns(stream)) for (const line of lines) add(withoutCR(line))
}

/** The same hand split as an async iterator of lines: a `for await` step per line, as a user writes it for one. */
export async function* splitReadableLines(stream) {
  for await (const lines of lineRuns(stream)) for (const line of lines) yield withoutCR(line)
}

/** The hand split's complete lines (`\r` not yet cut), an array per text chunk of `stream` that completes any, then the last line. */
async function* lineRuns(stream) {
  stream.setEncoding('utf8')
  let carry = ''
  for await (const chunk of stream) {
    if (!chunk.includes('\n')) {
      carry += chunk
      continue
    }
    const parts = chunk.split('\n')
    parts[0] = carry + parts[0]
    carry = parts.pop()
    yield parts
  }
  if (carry !== '') yield [carry]
}

async function streamSplit(path, { onFirst }) {
  const tally = newTally(onFirst)
  await splitStream(path, (line) => tally.add(line))
  return tally
}

/**
 * A TransformStream of text chunks to lines, as readline cuts them: at `\n`, `\r\n` and a lone
 * `\r` (a `\r\n` split across two chunks is one terminator), without terminators, with no empty
 * line after a final terminator and with a last line that has none. What Deno's std
 * `TextLineStream({ allowCR: true })` does; std is not installed here, so it is written out. Each
 * line is enqueued on its own, as TextLineStream enqueues them.
 */
export class LineSplitStream extends TransformStream {
  constructor() {
    let carry = ''
    /** The last chunk ended in `\r`: a `\n` starting the next one ends no line. */
    let afterCR = false
    super({
      transform(chunk, controller) {
        if (chunk.length === 0) return
        let start = afterCR && chunk.charCodeAt(0) === LF ? 1 : 0
        afterCR = false
        let lf = chunk.indexOf('\n', start)
        let cr = chunk.indexOf('\r', start)
        while (lf !== -1 || cr !== -1) {
          const end = cr === -1 || (lf !== -1 && lf < cr) ? lf : cr
          let next = end + 1
          if (end === cr) {
            if (next === chunk.length) afterCR = true
            else if (chunk.charCodeAt(next) === LF) next++
          }
          controller.enqueue(carry + chunk.slice(start, end))
          carry = ''
          start = next
          if (lf !== -1 && lf < start) lf = chunk.indexOf('\n', start)
          if (cr !== -1 && cr < start) cr = chunk.indexOf('\r', start)
        }
        carry += chunk.slice(start)
      },
      flush(controller) {
        if (carry !== '') controller.enqueue(carry)
      },
    })
  }
}

/**
 * Deno's own streams, as a Deno user reads lines without `node:` modules: `Deno.open(p)`, its
 * `readable` piped through a TextDecoderStream (keeping a BOM, as readline does) and a
 * LineSplitStream, consumed with `for await`. Deno only.
 */
async function denoStreams(path, { onFirst }) {
  if (globalThis.Deno?.open === undefined) throw new NotApplicable('Deno only')
  const file = await globalThis.Deno.open(path)
  const lines = file.readable
    .pipeThrough(new TextDecoderStream('utf-8', { ignoreBOM: true }))
    .pipeThrough(new LineSplitStream())
  return tallyLines(lines, onFirst)
}

/** `fs.createReadStream(p).pipe(split2())`: split2's default matcher, `/\r?\n/`, strips `\r\n`. */
function split2Lines(path, { lib: split2, onFirst }) {
  return tallyLines(fs.createReadStream(path).pipe(split2()), onFirst)
}

/**
 * n-readlines, synchronous: `next()` gives each line as a Buffer, without its terminator (`\n`,
 * `\r\n` or a lone `\r`, even one split across its reads), and a falsy value (null in 3.x) at
 * the end; each line is decoded as a user would.
 */
function nReadlines(path, { lib: LineByLine, onFirst }) {
  const liner = new LineByLine(path)
  const tally = newTally(onFirst)
  for (let line = liner.next(); line; line = liner.next()) tally.add(line.toString())
  return tally
}

function readFileSplit(path, { onFirst }) {
  let text
  try {
    text = fs.readFileSync(path, 'utf8')
  } catch (error) {
    if (error.code === 'ERR_STRING_TOO_LONG') throw new NotApplicable('string too long')
    throw error
  }
  const lines = text.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  const tally = newTally(onFirst)
  for (const line of lines) tally.add(withoutCR(line))
  return tally
}

/**
 * The cheapest possible async iterator: `next()` hands out items of an array already in memory,
 * `count` of them, in turn (each once, by default).
 */
class ArrayAsyncIterator {
  #items
  #count
  #index = 0

  constructor(items, count = items.length) {
    this.#items = items
    this.#count = count
  }

  [Symbol.asyncIterator]() {
    return this
  }

  next() {
    if (this.#index >= this.#count) return Promise.resolve({ value: undefined, done: true })
    return Promise.resolve({ value: this.#items[this.#index++ % this.#items.length], done: false })
  }
}

/** Lines the for-await floor steps over in turn: enough to vary, few enough to stay in cache. */
const FLOOR_WINDOW = 65_536

/**
 * The first FLOOR_WINDOW lines of the file, and how many it has: the for-await floor takes as
 * many steps as the file has lines, over those in turn. Over every line of the file preloaded,
 * a step cost twice as much on logs-1g (85 ns against 43 on Node): the engine's heap then holds
 * 8 million live strings, spread over a gigabyte, which no reader holds.
 */
function loadWindow(path, { lib: { readLinesSync } }) {
  const window = []
  let lines = 0
  for (const batch of readLinesSync(path).batches()) {
    lines += batch.length
    for (let i = 0; i < batch.length && window.length < FLOOR_WINDOW; i++) window.push(batch[i])
  }
  return { window, lines }
}

/**
 * `lines` steps of `for await` over the lines of `window` in turn, each counted: the count of
 * the file's lines, which is all a floor that reads no file can be checked by.
 */
async function stepOverWindow({ window, lines }, onFirst) {
  const tally = await tallyLines(new ArrayAsyncIterator(window, lines), onFirst)
  return { lines: tally.lines }
}

/** The index just past the last line terminator (`\n` or `\r`) in `bytes`, or 0 if none. */
function endOfLastLine(bytes) {
  return Math.max(bytes.lastIndexOf(LF), bytes.lastIndexOf(CR)) + 1
}

/** Complete lines (terminators included) as fastlines' native side hands them to JS. */
function joinLines(bytes) {
  let end = bytes.length
  if (bytes[end - 1] === LF) end--
  if (bytes[end - 1] === CR) end--
  const text = bytes.toString('utf8', 0, end)
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text
}

/**
 * The strings fastlines' native side hands JS for this file, built here in JS: each
 * FASTLINES_READ_BYTES read, with the partial line rolled over from the previous reads, is cut
 * after its last line terminator; the complete lines are joined by `\n` (every `\r\n` and lone
 * `\r` made `\n`), without the final terminator, and decoded as UTF-8. A read without a
 * terminator only extends the partial line; a `\n` starting a read that follows one ending in
 * `\r` is the rest of that `\r\n`. What is left at the end (a last line without terminator) is a batch of its own.
 */
function loadJoinedBatches(path) {
  const batches = []
  const read = Buffer.allocUnsafe(FASTLINES_READ_BYTES)
  let partial = []
  let skipLF = false
  const fd = fs.openSync(path, 'r')
  try {
    for (let n; (n = fs.readSync(fd, read, 0, read.length, null)) > 0;) {
      const start = skipLF && read[0] === LF ? 1 : 0
      skipLF = false
      const bytes = read.subarray(start, n)
      const end = endOfLastLine(bytes)
      if (end === 0) {
        partial.push(Buffer.from(bytes))
        continue
      }
      batches.push(joinLines(Buffer.concat([...partial, bytes.subarray(0, end)])))
      partial = [Buffer.from(bytes.subarray(end))]
      skipLF = end === bytes.length && bytes[end - 1] === CR
    }
  } finally {
    fs.closeSync(fd)
  }
  const rest = Buffer.concat(partial)
  if (rest.length > 0) batches.push(rest.toString('utf8'))
  return batches
}

function wcLines(path) {
  return { lines: Number.parseInt(execFileSync('wc', ['-l', path], { encoding: 'utf8' }), 10) }
}

/**
 * In table order. `note` is shown under tables that include the contender; `floor`, on contenders
 * that read no file (their input is preloaded by `prepare`), says why the probe and the cold
 * measurement skip them.
 */
export const CONTENDERS = {
  readline: { run: (path, { onFirst }) => tallyLines(readlineInterface(path), onFirst) },
  'readline-event': { run: readlineEvents },
  'filehandle-readLines': { run: fileHandleReadLines },
  split2: { library: 'split2', run: split2Lines },
  'stream-split': { run: streamSplit },
  'readFileSync-split': { run: readFileSplit },
  'n-readlines': { library: 'n-readlines', run: nReadlines },
  'deno-streams': {
    run: denoStreams,
    note:
      '`Deno.open(p)`, `file.readable` piped through `TextDecoderStream` and a line-splitting ' +
      '`TransformStream` (std `TextLineStream` with `allowCR`, written out), `for await`; Deno only',
  },
  'raw-stream': {
    run: (path, { onFirst }) => countNewlines(fs.createReadStream(path), onFirst),
    note: 'counts `\\n` bytes in fs.createReadStream chunks (64 KiB), no decoding',
  },
  'for-await-floor': {
    library: 'fastlines',
    prepare: loadWindow,
    run: (path, { prepared, onFirst }) => stepOverWindow(prepared, onFirst),
    note:
      'as many `for await` steps as the file has lines, over its first 65,536 lines preloaded (not ' +
      'timed) in turn: the cost of the for-await protocol alone',
    floor: 'reads no file: steps over a few of its lines preloaded, and only its count is checked',
  },
  'batches-floor': {
    prepare: loadJoinedBatches,
    run: (path, { prepared, onFirst }) => tallyJoinedBatches(new ArrayAsyncIterator(prepared), onFirst),
    note:
      "fastlines' batch strings (lines joined by `\\n`, one per 48 KiB read) preloaded (not " +
      'timed), then split and iterated as fastlines-batches does: its JS-thread cost alone',
    floor: 'reads no file: its batches are preloaded',
  },
  'wc -l': { run: wcLines, note: 'time includes spawning the `wc` process' },
  'fastlines-lines': {
    library: 'fastlines',
    run: (path, { lib, onFirst }) => tallyLines(lib.readLines(path), onFirst),
  },
  'fastlines-batches': {
    library: 'fastlines',
    run: (path, { lib, onFirst }) => tallyBatches(lib.readLines(path).batches(), onFirst),
  },
  'fastlines-sync': {
    library: 'fastlines',
    run: (path, { lib, onFirst }) => tallyLinesSync(lib.readLinesSync(path), onFirst),
  },
  'fastlines-count': { library: 'fastlines', run: async (path, { lib }) => ({ lines: await lib.countLines(path) }) },
  'fastlines-chunks': {
    library: 'fastlines',
    run: (path, { lib, onFirst }) => countNewlines(lib.readChunks(path), onFirst),
  },
}
