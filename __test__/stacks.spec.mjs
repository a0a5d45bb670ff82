// Errors that point at the caller (issue 21, part 5): an error made on a later step settles a
// native promise, so its own stack holds only library frames; fastlines appends the frames of
// the call that made the reader. Checked for every reader and failure kind, on every runtime:
// the stack shows the lines that led to the reader's making (made on one line, iterated on
// another); a byte source's own error is passed on untouched.
import { Readable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import path from 'node:path'

import test from 'ava'

import { countLines, followLines, readChunks, readJsonLines, readLastLines, readLines } from '../index.js'
import { makeTempDir } from './helpers/files.mjs'

const temp = makeTempDir(test)
const thisFile = path.basename(fileURLToPath(import.meta.url))

/** The file and line of each frame of this file in `stack` (columns differ between captures). */
function linesHere(stack) {
  return stack
    .split('\n')
    .filter((line) => line.trim().startsWith('at ') && line.includes(thisFile))
    .map((line) => /([^\s(]+:\d+):\d+\)?$/.exec(line)[1])
}

/**
 * Makes something with `make()`, and says where from: the lines of this file that called this
 * function, as a stack taken here shows them (JavaScriptCore drops some frames, for instance
 * of tail calls: both stacks drop the same ones).
 */
function madeHere(make) {
  const made = make()
  const here = {}
  Error.captureStackTrace(here)
  const [, ...callers] = linesHere(here.stack)
  return { made, callers }
}

/** Runs `reader` to its end; the error it fails with. */
async function failureOf(t, reader) {
  return t.throwsAsync(async () => {
    for await (const _ of reader);
  })
}

/** Asserts that `error` shows every line that led to the making. */
function assertShowsCallers(t, error, callers, name) {
  t.true(callers.length > 0)
  const shown = linesHere(error.stack)
  for (const line of callers) t.true(shown.includes(line), `${name}: ${line} in\n${error.stack}`)
}

/** Every reader whose first step fails on `file` after the call returned. */
const readers = {
  readLines: (file) => readLines(file),
  batches: (file) => readLines(file).batches(),
  entries: (file) => readLines(file).entries(),
  readChunks: (file) => readChunks(file),
  followLines: (file) => followLines(file),
}

test('a failed later step of every reader shows the lines that made the reader', async (t) => {
  const missing = temp.path('missing.log')
  for (const [name, make] of Object.entries(readers)) {
    const { made, callers } = madeHere(() => make(missing))
    const error = await failureOf(t, made)
    t.is(error.code, 'ENOENT', name)
    assertShowsCallers(t, error, callers, name)
  }
})

test('countLines and readLastLines show the caller when their count fails', async (t) => {
  const missing = temp.path('missing.log')
  for (const [name, run] of Object.entries({
    countLines: () => countLines(missing),
    readLastLines: () => readLastLines(missing, 3),
  })) {
    const { made, callers } = madeHere(run)
    const error = await t.throwsAsync(made)
    t.is(error.code, 'ENOENT')
    assertShowsCallers(t, error, callers, name)
  }
})

test('a long line, a damaged gzip file, a bad chunk and a line that is not JSON show the caller too', async (t) => {
  const long = temp.file(`short\n${'x'.repeat(100)}\n`)
  const notJson = temp.file('{"a": 1}\n{"b": 1,}\n')
  const damaged = temp.file(Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xff, 0xff, 0xff, 0xff]), 'damaged.gz')
  const cases = {
    ERR_LINE_TOO_LONG: () => readLines(long, { maxLineLength: 10 }),
    Z_DATA_ERROR: () => readLines(damaged, { decompress: 'gzip' }),
    ERR_INVALID_ARG_TYPE: () => readLines(Readable.from([Buffer.from('a\n'), 42], { objectMode: true })),
    ERR_FASTLINES_JSON_PARSE: () => readJsonLines(notJson),
    'ERR_FASTLINES_JSON_PARSE in batches()': () => readJsonLines(notJson).batches(),
  }
  for (const [code, make] of Object.entries(cases)) {
    const { made, callers } = madeHere(make)
    const error = await failureOf(t, made)
    t.is(error.code, code.split(' ')[0])
    assertShowsCallers(t, error, callers, code)
  }
})

test("a byte source's own error is passed on as it is: the same object, its stack unchanged", async (t) => {
  const own = new Error('the source failed')
  const stackBefore = own.stack
  const source = new Readable({
    read() {
      this.push('a line\n')
      this.destroy(own)
    },
  })
  const error = await failureOf(t, readLines(source))
  t.is(error, own)
  t.is(error.stack, stackBefore)
})
