// What a user does first, as a script that exits non-zero when it fails: load `fastlines` by its
// package name, through `import` and through `require`, and read a file every way the API offers.
// It runs in the repository (a package may import itself by name), in a fresh directory where the
// packed tarballs were installed (the packaging test), and in the release workflow on each OS.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import v8 from 'node:v8'
import vm from 'node:vm'
import zlib from 'node:zlib'

import * as esm from 'fastlines'

const cjs = createRequire(import.meta.url)('fastlines')
const runtime = typeof Bun === 'undefined' ? `node ${process.version}` : `bun ${Bun.version}`

assert.deepEqual(Object.keys(cjs).sort(), [
  'codes',
  'countLines',
  'followLines',
  'isLineTooLongError',
  'readChunks',
  'readJsonLines',
  'readJsonLinesSync',
  'readLastLines',
  'readLines',
  'readLinesSync',
])
for (const name of Object.keys(cjs)) assert.equal(esm[name], cjs[name], `ESM and CommonJS differ in ${name}`)

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fastlines-smoke-'))
try {
  const file = path.join(dir, 'smoke.txt')
  const text = 'plain\r\nünïcödé 日本 🎉\n\nlast without newline'
  fs.writeFileSync(file, text)
  const expected = ['plain', 'ünïcödé 日本 🎉', '', 'last without newline']

  const lines = []
  for await (const line of esm.readLines(file)) lines.push(line)
  assert.deepEqual(lines, expected)

  const batched = []
  for await (const batch of cjs.readLines(file, { highWaterMark: 8 }).batches()) batched.push(...batch)
  assert.deepEqual(batched, expected)

  assert.deepEqual([...esm.readLinesSync(file)], expected)
  assert.equal(await esm.countLines(file), expected.length)

  const chunks = []
  for await (const chunk of esm.readChunks(file)) chunks.push(chunk)
  assert.equal(Buffer.concat(chunks).toString(), text)

  assert.deepEqual(await esm.readLastLines(file, 2), expected.slice(-2))

  // JSON Lines: values, blank lines skipped, a bad line's place in its error.
  const jsonl = path.join(dir, 'smoke.jsonl')
  fs.writeFileSync(jsonl, '{"a":"ü"}\n\n[1,2]\n{"bad":}\n')
  const values = []
  const failure = await (async () => {
    for await (const value of esm.readJsonLines(jsonl)) values.push(value)
  })().catch((error) => error)
  assert.deepEqual(values, [{ a: 'ü' }, [1, 2]])
  assert.equal(failure.code, 'ERR_FASTLINES_JSON_PARSE')
  assert.equal(failure.lineNumber, 4)
  assert.deepEqual([...cjs.readJsonLinesSync(jsonl, { onError: 'skip' })], values)

  // A byte source: a Node stream, fed through JS.
  const streamed = []
  for await (const line of esm.readLines(fs.createReadStream(file, { highWaterMark: 5 }))) streamed.push(line)
  assert.deepEqual(streamed, expected)

  // Lines long enough that their batches are lent to the engine as external strings (where it
  // has them), from a file and from chunks fed through JS.
  const long = ['a'.repeat(300_000), 'b'.repeat(40_000)]
  const longFile = path.join(dir, 'long.txt')
  fs.writeFileSync(longFile, long.join('\n'))
  const longLines = []
  for await (const batch of esm.readLines(longFile).batches()) longLines.push(...batch)
  assert.deepEqual(longLines, long)
  const fedLines = []
  for await (const line of esm.readLines([Buffer.from(long.join('\n'))])) fedLines.push(line)
  assert.deepEqual(fedLines, long)

  // Following: the lines there, then, woken by the OS's file notifications, those appended.
  const followed = []
  for await (const line of cjs.followLines(file, { start: 0 })) {
    followed.push(line)
    if (followed.length === 3) fs.appendFileSync(file, '\nappended\n')
    if (followed.length === 5) break
  }
  assert.deepEqual(followed, [...expected, 'appended'])

  // Compressed files: the decompressors are compiled into the binary (no system library).
  const compressed = { gzip: zlib.gzipSync(text) }
  if (typeof zlib.zstdCompressSync === 'function') compressed.zstd = zlib.zstdCompressSync(text)
  for (const [format, bytes] of Object.entries(compressed)) {
    const packed = path.join(dir, `smoke.${format}`)
    fs.writeFileSync(packed, bytes)
    assert.deepEqual([...esm.readLinesSync(packed, { decompress: format })], expected, format)
    assert.equal(await esm.countLines(packed, { decompress: 'auto' }), expected.length, format)
  }

  // Errors carry this OS's numbers, as Node's own fs gives them (ENOENT is -2 on Linux and
  // macOS, -4058 on Windows).
  const missing = path.join(dir, 'missing')
  const fsError = await fs.promises.open(missing).catch((error) => error)
  await assert.rejects(esm.readLines(missing).next(), {
    code: 'ENOENT',
    errno: fsError.errno,
    syscall: 'open',
    path: missing,
  })
} finally {
  fs.rmSync(dir, { recursive: true, force: true })
}
// The readers above, their sources and their strings collected before the process exits, which
// must then exit cleanly: Node 20 before 20.18 crashed at exit once a string fastlines made
// without a finalizer had been collected.
const collect =
  typeof Bun === 'undefined' ? (v8.setFlagsFromString('--expose-gc'), vm.runInNewContext('gc')) : () => Bun.gc(true)
for (let round = 0; round < 2; round++) {
  collect()
  await new Promise((resolve) => setImmediate(resolve))
}
console.log(`fastlines works on ${runtime} (${process.platform}-${process.arch})`)
