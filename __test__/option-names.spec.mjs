// Options that are almost right (issue 21): a key that differs from one of the reader's options
// only in case or by one edit, or that is another reader's option, is refused with
// ERR_INVALID_ARG_VALUE and a message that says what was meant or which reader takes it, instead
// of being ignored and changing the result silently. Other unknown keys are still ignored, as
// Node's fs ignores them.
import test from 'ava'

import { countLines, followLines, readChunks, readLastLines, readLines, readLinesSync } from '../index.js'
import { makeTempDir } from './helpers/files.mjs'
import { collect, within } from './helpers/tail.mjs'

const temp = makeTempDir(test)
const QUIET_MS = 500

/** Each reader called with `options`, as a promise of its first result (or its throw). */
const READERS = {
  readLines: (file, options) => readLines(file, options).next(),
  readLinesSync: async (file, options) => readLinesSync(file, options).next(),
  countLines: (file, options) => countLines(file, options),
  readChunks: (file, options) => readChunks(file, options).next(),
  readLastLines: (file, options) => readLastLines(file, 1, options),
  followLines: async (file, options) => followLines(file, options).close(),
  'batches()': async (file, options) => readLinesSync(file).batches(options).next(),
}

async function refuses(t, reader, options, message) {
  const file = temp.file('ERROR one\nerror two\n')
  const error = await t.throwsAsync(
    within(
      Promise.resolve().then(() => READERS[reader](file, options)),
      QUIET_MS,
      reader,
    ),
    { code: 'ERR_INVALID_ARG_VALUE', instanceOf: TypeError },
    `${reader} ${JSON.stringify(options)}`,
  )
  t.true(error.message.includes(message), `${reader}: ${error.message}`)
}

test('a key that is an option but for its case is refused: did you mean', async (t) => {
  await refuses(
    t,
    'countLines',
    { match: 'error', ignorecase: true },
    "is not an option of countLines (did you mean 'ignoreCase'?)",
  )
  await refuses(t, 'readLines', { Encoding: 'latin1' }, "did you mean 'encoding'?")
  await refuses(t, 'readLinesSync', { MAXLINELENGTH: 10 }, "did you mean 'maxLineLength'?")
  await refuses(t, 'readChunks', { HighWaterMark: 10 }, "did you mean 'highWaterMark'?")
})

test('a key one edit away from an option is refused: did you mean', async (t) => {
  await refuses(t, 'readLines', { matchh: 'error' }, "is not an option of readLines (did you mean 'match'?)")
  await refuses(t, 'countLines', { match: 'x', invret: true }, "did you mean 'invert'?")
  await refuses(t, 'readLastLines', { maxLineLenght: 10 }, "did you mean 'maxLineLength'?")
  await refuses(t, 'followLines', { lastLine: 3 }, "did you mean 'lastLines'?")
  await refuses(t, 'readChunks', { decompres: 'gzip' }, "did you mean 'decompress'?")
  await refuses(t, 'batches()', { numbred: true }, "is not an option of batches() (did you mean 'numbered'?)")
  await refuses(t, 'readLines', { lastLine: 3 }, "did you mean 'lastLines', an option of followLines?")
})

test("another reader's option is refused, naming the readers that take it", async (t) => {
  await refuses(t, 'readLines', { lastLines: 20 }, 'is not an option of readLines (followLines takes it)')
  await refuses(t, 'readLinesSync', { lastLines: 20 }, '(followLines takes it)')
  await refuses(t, 'countLines', { numbered: true }, '(batches() takes it)')
  await refuses(t, 'batches()', { match: 'x' }, 'is not an option of batches() (readLines and readLinesSync and')
})

test("fs.createReadStream's fd and fs, which would read something else than the path, are refused", async (t) => {
  // Ignored, { fd } read the path instead of the descriptor, silently.
  for (const reader of ['readLines', 'readLinesSync', 'countLines', 'readChunks', 'readLastLines', 'followLines']) {
    await refuses(
      t,
      reader,
      { fd: 0 },
      `is not an option of ${reader}: readLines, countLines, readChunks and readJsonLines read a descriptor as a byte source`,
    )
    await refuses(t, reader, { fs: {} }, `is not an option of ${reader}: fastlines reads the file itself`)
  }
})

test('every other unknown key is ignored, as fs ignores it, and so is a near miss set to undefined', async (t) => {
  const file = temp.file('ERROR one\nerror two\n')
  const fsOptions = { flags: 'r', mode: 0o666, autoClose: true, emitClose: true, fs: undefined }
  t.deepEqual(await within(collect(readLines(file, fsOptions)), QUIET_MS, 'readLines'), ['ERROR one', 'error two'])
  t.is(await countLines(file, { match: 'error', ignoreCase: true, ignorecase: undefined, lastLine: undefined }), 2)
  t.is(await countLines(file, { match: 'error', ignoreCase: true }), 2, 'the option spelt right does what it says')
})

test('each option is read once per call: a getter cannot answer one check one way and the read another', async (t) => {
  const file = temp.file('ERROR one\nerror two\n')
  const given = {
    readLines: {
      encoding: 'utf8',
      match: 'ERROR',
      ignoreCase: true,
      maxLineLength: 100,
      signal: new AbortController().signal,
    },
    readLinesSync: { encoding: 'utf8', start: 0, end: 100, highWaterMark: 64, match: 'ERROR' },
    countLines: { encoding: 'utf8', match: 'ERROR', invert: true, threads: 1 },
    readChunks: { start: 0, end: 100, highWaterMark: 64 },
    readLastLines: { encoding: 'utf8', end: 100, match: 'ERROR' },
    followLines: { encoding: 'utf8', lastLines: 1, highWaterMark: 64 },
  }
  for (const [reader, options] of Object.entries(given)) {
    const reads = new Map()
    const counted = new Proxy(options, {
      get(target, key, receiver) {
        reads.set(key, (reads.get(key) ?? 0) + 1)
        return Reflect.get(target, key, receiver)
      },
    })
    await READERS[reader](file, counted)
    for (const [key, count] of reads) t.is(count, 1, `${reader}: options.${String(key)} read ${count} times`)
  }
})
