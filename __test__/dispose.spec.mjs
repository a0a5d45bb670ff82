// Explicit resource management (issue 21): every reader has Symbol.asyncDispose (the sync one
// Symbol.dispose), which closes it, so `await using reader = readLines(path)` releases the file
// when the block is left, normally or by a throw. The syntax itself runs where the runtime parses
// it (Node 24, Bun, Deno); on Node 20 and 22, which define the symbols but not the syntax, the
// disposal is called as the syntax would call it.
import { PassThrough } from 'node:stream'

import test from 'ava'

import { followLines, readChunks, readLines, readLinesSync } from '../index.js'
import { isOpen, makeTempDir, numberedLines } from './helpers/files.mjs'
import { within } from './helpers/tail.mjs'

const temp = makeTempDir(test)
const QUIET_MS = 500
const guard = (promise, what) => within(promise, QUIET_MS, what)
const DONE = { value: undefined, done: true }
/** Larger than the read-ahead: a reader's file stays open until it is closed. */
const BIG = numberedLines(100_000)

/** The runtimes that must parse `using`: every one this project supports but Node 20 and 22. */
const parsesUsing =
  process.versions.bun !== undefined || typeof Deno !== 'undefined' || Number(process.versions.node.split('.')[0]) >= 24

const ASYNC_READERS = {
  readLines: (file) => readLines(file),
  'readLines().batches()': (file) => readLines(file).batches(),
  readChunks: (file) => readChunks(file),
  followLines: (file) => followLines(file, { start: 0 }),
}

test('every async reader closes its file on Symbol.asyncDispose', async (t) => {
  for (const [name, make] of Object.entries(ASYNC_READERS)) {
    const file = temp.file(BIG)
    const reader = make(file)
    t.is(typeof reader[Symbol.asyncDispose], 'function', name)
    const first = await guard(reader.next(), `${name}: first step`)
    t.false(first.done, name)
    t.true(isOpen(file), `${name}: open while reading`)
    t.is(await guard(reader[Symbol.asyncDispose](), `${name}: dispose`), undefined, name)
    t.false(isOpen(file), `${name}: closed once disposed`)
    t.deepEqual(await guard(reader.next(), `${name}: a step after`), DONE, name)
    await guard(reader[Symbol.asyncDispose](), `${name}: disposed again`)
  }
})

test('a reader of a byte source lets the source go on Symbol.asyncDispose', async (t) => {
  const source = new PassThrough()
  source.write('one\ntwo\n')
  const reader = readLines(source)
  t.is((await guard(reader.next(), 'first step')).value, 'one')
  await guard(reader[Symbol.asyncDispose](), 'dispose')
  t.true(source.destroyed)
})

test('the sync reader closes its file on Symbol.dispose', (t) => {
  for (const make of [(file) => readLinesSync(file), (file) => readLinesSync(file).batches()]) {
    const file = temp.file(BIG)
    const reader = make(file)
    t.false(reader.next().done)
    t.true(isOpen(file))
    t.is(reader[Symbol.dispose](), undefined)
    t.false(isOpen(file))
    t.deepEqual(reader.next(), DONE)
  }
})

test('`await using` and `using` close the file when the block is left, normally or by a throw', async (t) => {
  let using
  try {
    using = await import('./fixtures/using.mjs')
  } catch (error) {
    if (!(error instanceof SyntaxError) || parsesUsing) throw error
    t.pass('this runtime does not parse `using` (Node 20 and 22): disposal is checked by the tests above')
    return
  }
  t.true(parsesUsing, 'a runtime that parses `using` is listed as one')
  const file = temp.file('one\ntwo\n')
  t.is(
    await guard(
      using.firstLineAwaitUsing(() => readLines(file)),
      'await using',
    ),
    'one',
  )
  t.false(isOpen(file), 'closed when the block is left')
  t.is(
    using.firstLineUsing(() => readLinesSync(file)),
    'one',
  )
  t.false(isOpen(file), 'closed by using')
  const error = new Error('thrown inside the block')
  await t.throwsAsync(
    guard(
      using.throwAwaitUsing(() => readLines(file), error),
      'a throw',
    ),
    { is: error },
  )
  t.false(isOpen(file), 'closed before the error leaves the block')
})
