// Bad paths and bad options fail the way Node's fs fails: same error shape, no crash, no leak.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

import test from 'ava'

import {
  countLines,
  followLines,
  readChunks,
  readJsonLines,
  readJsonLinesSync,
  readLastLines,
  readLines,
  readLinesSync,
} from '../index.js'
import { makeTempDir, numberedLines, openPaths } from './helpers/files.mjs'
import { runProcess } from './helpers/processes.mjs'
import { scriptArgs, shellCommand } from './helpers/runtimes.mjs'
import { collect, fixturePath } from './helpers/tail.mjs'

const temp = makeTempDir(test)
const indexPath = fileURLToPath(new URL('../index.js', import.meta.url))

/** The error `fs.promises.open(file)` followed by a read gives, to compare shapes with. */
async function fsErrorFor(file) {
  let handle
  try {
    handle = await fs.promises.open(file)
    await handle.read(Buffer.alloc(1), 0, 1, 0)
  } catch (error) {
    return error
  } finally {
    await handle?.close()
  }
  throw new Error(`${file} opened and read fine`)
}

/** Every way to start reading `file`, each returning the error its first step fails with. */
const firstStepErrors = {
  readLines: (file) => readLines(file).next(),
  batches: (file) => readLines(file).batches().next(),
  readChunks: (file) => readChunks(file).next(),
  countLines: (file) => countLines(file),
  readLinesSync: async (file) => readLinesSync(file).next(),
}

/** Every API fails on `file` with fs's code, errno, syscall and description, plus the path. */
async function assertFsShape(t, file, expected) {
  const [, description] = expected.message.match(/^\w+: ([^,]+),/)
  for (const [api, start] of Object.entries(firstStepErrors)) {
    const error = await t.throwsAsync(start(file), { instanceOf: Error }, api)
    t.like(error, { code: expected.code, errno: expected.errno, syscall: expected.syscall, path: file }, api)
    t.is(error.message, `${expected.code}: ${description}, ${expected.syscall} '${file}'`, api)
  }
}

test('a missing file rejects the first step like fs.promises.open', async (t) => {
  const file = temp.path('missing.txt')
  const expected = await fsErrorFor(file)
  t.like(expected, { code: 'ENOENT', syscall: 'open' })
  await assertFsShape(t, file, expected)
  const error = await t.throwsAsync(readLines(file).next())
  t.like(error, { code: 'ENOENT', errno: expected.errno, syscall: 'open', path: file })
  t.is(error.message, expected.message)
})

test('a directory rejects with EISDIR, as reading it with fs does', async (t) => {
  const expected = await fsErrorFor(temp.dir)
  t.like(expected, { code: 'EISDIR', syscall: 'read' })
  await assertFsShape(t, temp.dir, expected)
})

test('a file without read permission rejects with EACCES', async (t) => {
  const file = temp.file('secret\n', 'secret.txt')
  fs.chmodSync(file, 0o000)
  fs.chmodSync(temp.dir, 0o755)
  // root reads anything, so the check runs in a child process as an unprivileged user.
  const asUser = process.getuid() === 0 ? { uid: 65534, gid: 65534 } : {}
  const script = temp.file(
    `import { readLines, readLinesSync, countLines } from ${JSON.stringify(indexPath)}
     const file = ${JSON.stringify(file)}
     const shape = (e) => ({ message: e.message, code: e.code, errno: e.errno, syscall: e.syscall, path: e.path })
     const errors = []
     await readLines(file).next().catch((e) => errors.push(shape(e)))
     await countLines(file).catch((e) => errors.push(shape(e)))
     try { readLinesSync(file).next() } catch (e) { errors.push(shape(e)) }
     console.log(JSON.stringify(errors))`,
    'eacces.mjs',
  )
  fs.chmodSync(script, 0o644)
  const result = await runProcess([script], asUser).result
  t.is(result.status, 0, result.stderr)
  const errors = JSON.parse(result.stdout)
  t.is(errors.length, 3)
  for (const error of errors) {
    t.deepEqual(error, {
      message: `EACCES: permission denied, open '${file}'`,
      code: 'EACCES',
      errno: -13,
      syscall: 'open',
      path: file,
    })
  }
})

test('with no descriptor left for its threads, each reader fails as an open does there (EMFILE), then works, on the same byte sources too', async (t) => {
  // fastlines starts its threads (the reactor's epoll and eventfd) at first use; with none left,
  // that failed with a generic error with no errno, syscall or path.
  const file = temp.file('{"a":1}\n')
  const fixture = shellCommand(process.execPath, ...scriptArgs(fixturePath('threads-no-descriptors.mjs'), file))
  const run = await runProcess(['-c', `ulimit -n 64 && exec ${fixture}`], { command: 'sh', quietMs: 1_000 }).result
  t.is(run.status, 0, `${run.signal ?? ''} ${run.stderr}`)
  const { failed, held, after } = JSON.parse(run.stdout)
  t.true(held > 0, 'every descriptor was in use')
  const emfile = { name: 'Error', code: 'EMFILE', errno: -24, syscall: 'open' }
  for (const name of ['readLines', 'readJsonLines', 'readChunks', 'countLines', 'readLastLines']) {
    t.deepEqual(failed[name], { ...emfile, path: file, message: `EMFILE: too many open files, open '${file}'` }, name)
  }
  for (const name of ['countLines of a byte source', 'readLines of a Node stream', 'readLines of a web stream']) {
    t.deepEqual(failed[name], { ...emfile, message: 'EMFILE: too many open files, open' }, name)
  }
  // The streams the readers that failed were given were left as they were, and read again.
  t.deepEqual(after, {
    readLines: '{"a":1}',
    readJsonLines: { a: 1 },
    readChunks: 8,
    countLines: 1,
    readLastLines: '{"a":1}',
    'countLines of a byte source': 2,
    'readLines of a Node stream': 'stream',
    'readLines of a web stream': 'web stream',
  })
})

test("fastlines' coded errors show their code as Node's do: `TypeError [ERR_X]: ...` in the stack and toString()", async (t) => {
  // The code was only a property: the stack and String(error) said `TypeError: ...`.
  const json = temp.file('{"a":1}\n{"b": 1,}\n')
  const thrown = {
    'an argument error': () => readLines(42),
    'a line too long': () => collect(readLines(json, { maxLineLength: 3 })),
    'a line that is not JSON': () => collect(readJsonLines(json)),
    'the same, read synchronously': () => [...readJsonLinesSync(json)],
  }
  for (const [what, make] of Object.entries(thrown)) {
    const error = await t.throwsAsync(async () => make(), undefined, what)
    const shown = `${error.constructor.name} [${error.code}]: ${error.message}`
    t.is(String(error), shown, what)
    t.is(error.stack.split('\n')[0], shown.split('\n')[0], what)
    t.is(error.name, error.constructor.name, `${what}: the name is the class's, as in Node`)
  }
  // An error handed to onError shows it in toString() (its stack is left unformatted: one may
  // be made per line).
  const handed = []
  await collect(readJsonLines(json, { onError: (error) => void handed.push(error) }))
  t.is(String(handed[0]), `SyntaxError [ERR_FASTLINES_JSON_PARSE]: ${handed[0].message}`)
})

test('errors name the path as it was given: string, Buffer or file: URL', async (t) => {
  const file = temp.path('missing-too.txt')
  t.is((await t.throwsAsync(readLines(Buffer.from(file)).next())).path, file)
  t.is((await t.throwsAsync(readLines(new URL(`file://${file}`)).next())).path, file)
})

test("an object shaped like a file: URL is a path where the runtime's fs takes it as one", async (t) => {
  const file = temp.file('a\nb\n')
  const like = { href: pathToFileURL(file).href, protocol: 'file:', pathname: file, hostname: '' }
  let refused
  try {
    fs.readFileSync(like)
  } catch (error) {
    refused = error
  }
  if (refused === undefined) {
    t.deepEqual(await collect(readLines(like)), ['a', 'b'])
    t.deepEqual([...readLinesSync(like)], ['a', 'b'])
    t.is(await countLines(like), 2)
  } else {
    t.throws(() => readLines(like), { code: refused.code })
    t.throws(() => readLinesSync(like), { code: refused.code })
  }
})

// Serial, so that no sibling test holds descriptors of its own while this one counts; and a
// first round before counting, which starts fastlines' runtime (its epoll and eventfd) if no
// test in this process has yet.
test.serial('failed readers leave no descriptor open', async (t) => {
  const failEachWay = async () => {
    await t.throwsAsync(readLines(temp.dir).next())
    t.throws(() => readLinesSync(temp.dir).next())
    await t.throwsAsync(countLines(temp.dir))
  }
  await failEachWay()
  const before = openPaths()
  for (let i = 0; i < 50; i++) await failEachWay()
  const after = openPaths()
  t.false(after.includes(temp.dir))
  const added = after.filter((path) => !before.includes(path))
  t.true(after.length <= before.length, `${before.length} descriptors open before, ${after.length} after: ${added}`)
})

test('after a failed step, iteration is over', async (t) => {
  const reader = readLines(temp.path('nope'))
  await t.throwsAsync(reader.next(), { code: 'ENOENT' })
  t.deepEqual(await reader.next(), { value: undefined, done: true })
})

test('a path of the wrong type or with a NUL byte throws at once', (t) => {
  for (const start of [readLines, readLinesSync, readChunks]) {
    for (const bad of [42, undefined, null, {}]) {
      t.throws(() => start(bad), { instanceOf: TypeError, code: 'ERR_INVALID_ARG_TYPE' })
    }
    t.throws(() => start('a\0b'), { instanceOf: TypeError, code: 'ERR_INVALID_ARG_VALUE' })
    t.throws(() => start(new URL('http://example.com/x')), { code: 'ERR_INVALID_URL_SCHEME' })
  }
})

test('an empty path is a missing file, as fs opens it', async (t) => {
  const expected = t.throws(() => fs.openSync(''))
  const isExpected = (error) => t.like(error, { code: 'ENOENT', errno: expected.errno, syscall: 'open', path: '' })
  for (const path of ['', Buffer.alloc(0)]) {
    for (const failing of [
      () => readLines(path).next(),
      () => readJsonLines(path).next(),
      () => readChunks(path).next(),
      () => countLines(path),
      () => readLastLines(path, 1),
      () => followLines(path).next(),
    ]) {
      isExpected(await t.throwsAsync(failing))
    }
    isExpected(t.throws(() => readLinesSync(path).next()))
    isExpected(t.throws(() => readJsonLinesSync(path).next()))
  }
})

test("null for encoding or highWaterMark is the default, as fs.createReadStream takes it (so is '' for encoding), and batches(null) is no options", async (t) => {
  const file = temp.file('caf\u00e9\r\nx\n')
  for (const options of [{ encoding: null }, { encoding: '' }, '', { highWaterMark: null }, null]) {
    const what = JSON.stringify(options)
    t.deepEqual(await collect(readLines(file, options)), ['caf\u00e9', 'x'], what)
    t.deepEqual([...readLinesSync(file, options)], ['caf\u00e9', 'x'], what)
    t.is(await countLines(file, options), 2, what)
  }
  t.deepEqual(await collect(readLines(file).batches(null)), [['caf\u00e9', 'x']])
})

test('readChunks refuses an encoding, since its chunks are bytes, rather than ignore it; null is bytes', async (t) => {
  const file = temp.file('caf\u00e9\n')
  for (const options of ['utf8', 'latin1', { encoding: 'utf8' }, { encoding: 'latin1' }]) {
    t.throws(() => readChunks(file, options), {
      instanceOf: TypeError,
      code: 'ERR_INVALID_ARG_VALUE',
      message: /readChunks' chunks are the raw bytes, as Buffers/,
    })
  }
  for (const options of [null, { encoding: null }, { encoding: undefined }, { encoding: '' }, '']) {
    const chunks = await collect(readChunks(file, options))
    t.true(chunks.every(Buffer.isBuffer), JSON.stringify(options))
    t.is(Buffer.concat(chunks).toString(), 'caf\u00e9\n')
  }
})

test("readJsonLines' batches() refuse numbered, which would be ignored, and near misses and other readers' options, and take no options or null", async (t) => {
  const file = temp.file('{"a":1}\n\n[2]\n')
  for (const open of [readJsonLines, readJsonLinesSync]) {
    for (const options of [undefined, null, {}, { numbered: false }]) {
      const batches = open(file).batches(options)
      const values = []
      for await (const batch of batches) values.push(...batch)
      t.deepEqual(values, [{ a: 1 }, [2]], `${open.name} ${JSON.stringify(options)}`)
    }
    t.throws(() => open(file).batches({ numbered: true }), {
      code: 'ERR_INVALID_ARG_VALUE',
      message: /options\.numbered' is not an option of readJsonLines' batches\(\).*entries\(\) gives/,
    })
    t.throws(() => open(file).batches(5), { instanceOf: TypeError, code: 'ERR_INVALID_ARG_TYPE' })
    for (const options of [{ numbred: true }, { match: 'x' }, { onError: 'skip' }]) {
      const message = /is not an option of readJsonLines' batches\(\)/
      t.throws(() => open(file).batches(options), { code: 'ERR_INVALID_ARG_VALUE', message }, JSON.stringify(options))
    }
  }
})

test('bad options throw with the codes Node uses', async (t) => {
  const file = temp.file('x\n')
  const rangeErrors = [{ start: -1 }, { start: 1.5 }, { start: 5, end: 2 }, { end: -3 }]
  rangeErrors.push({ highWaterMark: 0 }, { highWaterMark: 2 ** 40 })
  for (const options of rangeErrors) {
    t.throws(() => readLines(file, options), { instanceOf: RangeError, code: 'ERR_OUT_OF_RANGE' })
  }
  // A function too, which fs takes as no options: the readers take no callback.
  const typeErrors = [{ start: '1' }, { end: '2' }, { signal: {} }, 42, () => {}]
  for (const options of typeErrors) {
    t.throws(() => readLines(file, options), { instanceOf: TypeError, code: 'ERR_INVALID_ARG_TYPE' })
  }
  // What fs.createReadStream refuses as a highWaterMark, with its code.
  for (const highWaterMark of ['64', -1, 1.5, NaN, Infinity]) {
    t.throws(() => readLines(file, { highWaterMark }), { instanceOf: TypeError, code: 'ERR_INVALID_ARG_VALUE' })
  }
  t.throws(() => readLines(file, { encoding: 'utf16le' }), { code: 'ERR_INVALID_ARG_VALUE' })
  await t.throwsAsync(countLines(file, { start: -1 }), { code: 'ERR_OUT_OF_RANGE' })
  t.deepEqual([...readLinesSync(file, 'latin1')], ['x'])
  t.deepEqual([...readLinesSync(file, { end: Infinity, encoding: 'UTF-8' })], ['x'])
})

test('a signal Node takes by its shape, as a polyfill makes one, aborts; one that cannot be listened to is refused at the call', async (t) => {
  // What the abort-controller package gives: an EventTarget with `aborted` and `reason`, no
  // instance of the runtime's AbortSignal. Node's fs takes it (validateAbortSignal looks for
  // `aborted`).
  class PolyfilledSignal extends EventTarget {
    aborted = false
    reason = undefined
    abort(reason) {
      this.aborted = true
      this.reason = reason
      this.dispatchEvent(new Event('abort'))
    }
  }
  const file = temp.file(numberedLines(200_000))
  const reason = new Error('stop')
  const signal = new PolyfilledSignal()
  const reader = readLines(file, { signal, highWaterMark: 1024 })
  await reader.next()
  signal.abort(reason)
  t.like(await t.throwsAsync(reader.next()), { name: 'AbortError', code: 'ABORT_ERR', cause: reason })
  const counting = countLines(file, { signal: new PolyfilledSignal() })
  t.is(await counting, 200_000)
  const aborted = new PolyfilledSignal()
  aborted.abort(reason)
  t.like(await t.throwsAsync(readLastLines(file, 2, { signal: aborted })), { name: 'AbortError', cause: reason })
  t.like(
    t.throws(() => readLinesSync(file, { signal: aborted }).next()),
    { name: 'AbortError', cause: reason },
  )
  // One that keeps its listeners in a list of its own and ignores `once` has none left after
  // the abort.
  const listeners = new Set()
  const listOwn = {
    aborted: false,
    reason: undefined,
    addEventListener: (type, listener) => listeners.add(listener),
    removeEventListener: (type, listener) => listeners.delete(listener),
  }
  const listed = readLines(file, { signal: listOwn, highWaterMark: 1024 })
  await listed.next()
  t.is(listeners.size, 1)
  Object.assign(listOwn, { aborted: true, reason })
  for (const listener of [...listeners]) listener()
  t.like(await t.throwsAsync(listed.next()), { name: 'AbortError', cause: reason })
  t.is(listeners.size, 0)
  // Node's fs takes this one too, and fails with a TypeError as it listens.
  for (const signal of [{ aborted: false }, { aborted: false, addEventListener() {} }]) {
    t.throws(() => readLines(file, { signal }), { code: 'ERR_INVALID_ARG_TYPE', message: /"options.signal"/ })
  }
})

test("bad options' messages are worded as Node words them", (t) => {
  const file = temp.file('x\n')
  const messageOf = (call) => t.throws(call).message
  // What Node's fs.createReadStream says, word for word, where it refuses the same value (Bun's
  // own fs words it otherwise).
  t.is(
    messageOf(() => readLines(file, { signal: 5 })),
    'The "options.signal" property must be an instance of AbortSignal. Received type number (5)',
  )
  t.regex(
    messageOf(() => readLines(file, { start: 2 ** 60 })),
    /Received 1_152_921_504_606_847_000$/,
  )
  t.is(
    messageOf(() => readLines(file, { start: '1' })),
    `The "start" argument must be of type number. Received type string ('1')`,
  )
  t.is(
    messageOf(() => readLines(file, { start: -1 })),
    'The value of "start" is out of range. It must be >= 0 && <= 9007199254740991. Received -1',
  )
  t.is(
    messageOf(() => readLines(file, { highWaterMark: NaN })),
    "The property 'options.highWaterMark' is invalid. Received NaN",
  )
  // What fs takes and fastlines does not, named as fs names the option.
  t.regex(
    messageOf(() => readLines(file, { highWaterMark: 0 })),
    /^The value of "options.highWaterMark" is out of range/,
  )
  t.regex(
    messageOf(() => readLines(file, { maxLineLength: 0 })),
    /^The value of "options.maxLineLength" is out of range/,
  )
  t.is(
    messageOf(() => readLines(file, 42)),
    'The "options" argument must be one of type string or object. Received type number (42)',
  )
  t.is(
    messageOf(() => readLines(file, { end: 1.5 })),
    'The value of "end" is out of range. It must be an integer. Received 1.5',
  )
  // A file: URL whose escapes are not UTF-8 is refused at the call, as this runtime's fs refuses
  // it (Bun's fileURLToPath gives '', which was read as a path).
  const notUtf8 = new URL('file:///tmp/%ff%fe')
  const refused = t.throws(() => fs.readFileSync(notUtf8))
  t.like(
    t.throws(() => readLines(notUtf8)),
    { name: refused.name, code: refused.code },
  )
  t.is(
    messageOf(() => readLines(Buffer.from('/tmp/a\0b'))),
    "The argument 'path' must be a string, Uint8Array, or URL without null bytes. Received <Buffer 2f 74 6d 70 2f 61 00 62>",
  )
  t.regex(
    messageOf(() => readLines(42)),
    /^The "path" argument must be/,
  )
  const long = messageOf(() => readLines(file, { match: ['a', 'b'.repeat(500)], ignoreCase: 'yes' }))
  t.regex(long, /^The "options.ignoreCase" property must be of type boolean/)
  const value = messageOf(() => readLines(file, { decompress: 'x'.repeat(500) }))
  t.regex(value, /^The property 'options.decompress' must be .*Received 'x+\.\.\.$/)
  t.is(value.slice(value.indexOf('Received ') + 9).length, 128 + 3, 'cut at 128 characters, as Node cuts it')
})

test('the path in a message is shown the way fs shows it', async (t) => {
  const relative = path.relative(process.cwd(), temp.path('rel-missing.txt'))
  const error = await t.throwsAsync(readLines(relative).next())
  t.is(error.path, relative)
  t.is(error.message, (await fsErrorFor(relative)).message)
})
