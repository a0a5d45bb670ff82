// The JSON Lines section's contenders (issue 24): each reads a case's file and hands every value
// to `add`, which counts it and sums its `level` (pino) or `id` (nested), the least work that
// keeps each value live and lets the driver check that every contender saw the same values.
// `library` names the package a contender loads (contenders.mjs loads fastlines and split2;
// ndjson and stream-json are loaded here); `prepare(file)` runs once, untimed.
import fs from 'node:fs'
import readline from 'node:readline'
import { StringDecoder } from 'node:string_decoder'
import zlib from 'node:zlib'

import { NotApplicable, splitReadable, splitReadableLines } from './contenders.mjs'
import { BAD_EVERY } from './json-corpora.mjs'

/** The pino lines `match` selects: level 50, about 1% of them. */
const ERROR_EVENTS = '"level":50'

const LIBRARIES = {
  fastlines: () => import('../index.mjs'),
  split2: async () => (await import('split2')).default,
  ndjson: async () => (await import('ndjson')).default,
  'stream-json': async () => (await import('stream-json/jsonl/parser.js')).default,
}

export const loadJsonLibrary = (name) => (name === undefined ? undefined : LIBRARIES[name]())

/** Lines of a file read through readline: the baseline's way, on a file or a gunzipped one. */
const readlineOf = (stream) => readline.createInterface({ input: stream, crlfDelay: Infinity })

/** How much of the file the floor reads at a time, untimed, before it times the parse of its lines. */
const FLOOR_BLOCK_BYTES = 1024 * 1024

/**
 * Whether, and how, the floor parses many lines with one `JSON.parse`, as fastlines does where it
 * gains (lib/json-lines.js: on V8, lines of at most 256 UTF-16 units on average, there 0.64-0.95x
 * the time of a parse per line): so many lines to an array, about a batch of fastlines' on the
 * pino log. A floor parsing line by line there was no floor: it took longer than a reader could.
 */
const FLOOR_PARSES_WHOLE = process.versions.bun === undefined
const FLOOR_WHOLE_MAX_AVERAGE_LINE = 256
const FLOOR_WHOLE_LINES = 512

/**
 * `JSON.parse` of every line of `file` (or of many at once, see FLOOR_PARSES_WHOLE), each value
 * handed to `add`, timed alone: the file is read a block at a time, decoded and split into lines
 * with the clock stopped, so that only the parses are timed. Returns the time they took, `{ timedMs }`. Read as it goes, not held whole:
 * holding every line of the 1 GB log as a string of its own (8.5 million of them), as the floor
 * did until 2026-12-06, made each parse dearer than a reader's (it took longer than readers that
 * also read and split the file): on Bun 530-590 ns a value against 270-310 with a block in hand.
 */
function parseTimed(file, add) {
  const decoder = new StringDecoder('utf8')
  const fd = fs.openSync(file, 'r')
  const block = Buffer.allocUnsafe(FLOOR_BLOCK_BYTES)
  let carry = ''
  let timedMs = 0
  const parseEach = (lines) => {
    const started = performance.now()
    for (const line of lines) add(JSON.parse(line))
    timedMs += performance.now() - started
  }
  // The array's text is made with the clock stopped: the parse alone is timed, as for a line.
  const parseWhole = (lines) => {
    const text = `[${lines.join('\n,')}\n]`
    const started = performance.now()
    let values
    try {
      values = JSON.parse(text)
    } catch {
      // A line that is not one JSON text (blank, or bad): line by line, as fastlines goes on.
      return parseEach(lines)
    }
    for (const value of values) add(value)
    timedMs += performance.now() - started
  }
  const parse = (lines) => {
    const units = lines.reduce((sum, line) => sum + line.length, 0)
    if (!FLOOR_PARSES_WHOLE || units > FLOOR_WHOLE_MAX_AVERAGE_LINE * lines.length) return parseEach(lines)
    for (let from = 0; from < lines.length; from += FLOOR_WHOLE_LINES) {
      parseWhole(lines.slice(from, from + FLOOR_WHOLE_LINES))
    }
  }
  try {
    for (let read; (read = fs.readSync(fd, block, 0, block.length, null)) > 0;) {
      const text = carry + decoder.write(block.subarray(0, read))
      const end = text.lastIndexOf('\n')
      carry = text.slice(end + 1)
      if (end >= 0) parse(text.slice(0, end).split('\n'))
    }
  } finally {
    fs.closeSync(fd)
  }
  carry += decoder.end()
  if (carry !== '') parse([carry])
  return { timedMs }
}

/** Bun's own JSONL parser over the file's chunks, the part after the last whole line carried over. */
async function bunJsonl(file, add) {
  if (globalThis.Bun?.JSONL === undefined) throw new NotApplicable('Bun only')
  let rest = new Uint8Array(0)
  for await (const chunk of globalThis.Bun.file(file).stream()) {
    const data = rest.length === 0 ? chunk : Buffer.concat([rest, chunk])
    const { values, read } = globalThis.Bun.JSONL.parseChunk(data)
    for (const value of values) add(value)
    rest = data.subarray(read)
  }
  if (rest.length > 0) for (const value of globalThis.Bun.JSONL.parse(rest)) add(value)
}

/** The contenders by name: `run(file, add, { lib, prepared })`. */
export const JSON_READERS = {
  readline: {
    run: async (file, add) => {
      for await (const line of readlineOf(fs.createReadStream(file))) add(JSON.parse(line))
    },
  },
  split2: {
    library: 'split2',
    run: async (file, add, { lib }) => {
      for await (const value of fs.createReadStream(file).pipe(lib(JSON.parse))) add(value)
    },
  },
  ndjson: {
    library: 'ndjson',
    run: async (file, add, { lib }) => {
      for await (const value of fs.createReadStream(file).pipe(lib.parse())) add(value)
    },
  },
  'stream-json': {
    library: 'stream-json',
    run: async (file, add, { lib }) => {
      for await (const { value } of fs.createReadStream(file).pipe(lib.asStream())) add(value)
    },
  },
  'hand-split': {
    run: (file, add) => splitReadable(fs.createReadStream(file), (line) => add(JSON.parse(line))),
  },
  // The same split as an async iterator, a `for await` step per value as the stream readers above
  // and fastlines' per-value loop take: hand-split hands each value to a plain callback.
  'hand-split-values': {
    run: async (file, add) => {
      for await (const line of splitReadableLines(fs.createReadStream(file))) add(JSON.parse(line))
    },
  },
  'bun-jsonl': { run: bunJsonl },
  floor: { run: parseTimed },
  'fastlines-values': {
    library: 'fastlines',
    run: async (file, add, { lib, options }) => {
      for await (const value of lib.readJsonLines(file, options)) add(value)
    },
  },
  'fastlines-batches': {
    library: 'fastlines',
    run: async (file, add, { lib, options }) => {
      for await (const batch of lib.readJsonLines(file, options).batches()) for (const value of batch) add(value)
    },
  },
  // The gzip case's baseline: zlib into readline.
  'zlib-readline': {
    run: async (file, add) => {
      for await (const line of readlineOf(fs.createReadStream(file).pipe(zlib.createGunzip()))) add(JSON.parse(line))
    },
  },
  // The match case's baseline: readline, then JSON.parse of the lines that include the string.
  'readline-includes': {
    run: async (file, add) => {
      for await (const line of readlineOf(fs.createReadStream(file)))
        if (line.includes(ERROR_EVENTS)) add(JSON.parse(line))
    },
  },
}

/** The contenders of the plain cases: every way of parsing a file's lines, and the floor. */
const EVERY_PARSER = [
  'readline',
  'split2',
  'ndjson',
  'stream-json',
  'hand-split',
  'hand-split-values',
  'bun-jsonl',
  'floor',
  'fastlines-values',
  'fastlines-batches',
]

/**
 * The cases: which corpus file each reads, what the tables call it, its contenders, the one the
 * others are measured against (`baseline`; none for `broken`, measured against the `pino` case's
 * time), and the options fastlines reads it with. `pino` and `nested` are the per-value and batch
 * targets, `gzip` and `match` their own.
 */
export const JSON_CASES = {
  pino: {
    file: 'pino',
    title: 'a pino-style log of small flat objects',
    contenders: EVERY_PARSER,
    baseline: 'readline',
  },
  nested: {
    file: 'nested',
    title: 'records of a few KB, nested, with non-ASCII strings',
    contenders: EVERY_PARSER,
    baseline: 'readline',
  },
  gzip: {
    file: 'gzip',
    title: "the pino log gzipped, read with `decompress: 'gzip'`",
    contenders: ['zlib-readline', 'fastlines-values', 'fastlines-batches'],
    baseline: 'zlib-readline',
    options: { decompress: 'gzip' },
  },
  match: {
    file: 'pino',
    title: `the pino log's lines with \`${ERROR_EVENTS}\`, about 1%, kept with \`match\``,
    contenders: ['readline-includes', 'fastlines-values', 'fastlines-batches'],
    baseline: 'readline-includes',
    options: { match: ERROR_EVENTS },
  },
  broken: {
    file: 'broken',
    title: `the pino log with every ${BAD_EVERY}th line cut short, skipped with \`onError: 'skip'\``,
    contenders: ['fastlines-values', 'fastlines-batches'],
    options: { onError: 'skip' },
  },
}

export const JSON_CASE_NAMES = Object.keys(JSON_CASES)
export const JSON_READER_NAMES = Object.keys(JSON_READERS)
