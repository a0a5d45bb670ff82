// The README's recipes (issue 21): each is a script in examples/, run here as a user would run
// it, by this runtime, on real files, pipes and a log that grows, so that none of them rots.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import zlib from 'node:zlib'

import test from 'ava'

import { zstd } from './helpers/compressed.mjs'
import { makeTempDir } from './helpers/files.mjs'
import { scriptArgs } from './helpers/runtimes.mjs'
import { within } from './helpers/tail.mjs'

const temp = makeTempDir(test)
const examples = fileURLToPath(new URL('../examples/', import.meta.url))
/** A script of this runtime starting and reading a small file (Deno is slowest to start). */
const RUN_QUIET_MS = 2_000

/** The runtimes that parse `await using` (see dispose.spec.mjs). */
const parsesUsing =
  process.versions.bun !== undefined || typeof Deno !== 'undefined' || Number(process.versions.node.split('.')[0]) >= 24

/** Starts `examples/<name>` with `args`; its stdout and stderr are collected as they come. */
function start(name, args, input) {
  const child = spawn(process.execPath, scriptArgs(path.join(examples, name), ...args), {
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  const output = { stdout: '', stderr: '' }
  child.stdout.setEncoding('utf8').on('data', (text) => (output.stdout += text))
  child.stderr.setEncoding('utf8').on('data', (text) => (output.stderr += text))
  child.stdin.end(input)
  return { child, output }
}

/** Runs `examples/<name>` to its end: its stdout and stderr, after checking that it succeeded. */
async function run(t, name, args, input) {
  const { child, output } = start(name, args, input)
  // 'close', not 'exit': a child's output may still be on its way when it has exited.
  const [code] = await within(once(child, 'close'), RUN_QUIET_MS, name)
  t.is(code, 0, `${name} exits with 0; stderr: ${output.stderr}`)
  return output
}

/** Resolves once `output.stdout` holds `lines` lines (or rejects if the child ends first). */
function linesOf(child, output, lines) {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (output.stdout.split('\n').length > lines) resolve(output.stdout.split('\n').slice(0, lines))
    }
    child.stdout.on('data', check)
    child.on('close', () => reject(new Error(`exited with only: ${output.stdout}`)))
    check()
  })
}

const LOG = ['GET / 200', 'ERROR disk full', 'GET /a 404', 'error: retry', 'GET /b 200'].join('\n') + '\n'

test('stdin.mjs reads the lines piped to it', async (t) => {
  const { stdout } = await run(t, 'stdin.mjs', [], 'one\r\ntwo\n\nfour')
  t.is(stdout, '3\n3\n0\n4\n')
})

test('grep.mjs prints the matching lines with their numbers, case-insensitively', async (t) => {
  const { stdout } = await run(t, 'grep.mjs', ['error', temp.file(LOG)])
  t.is(stdout, '2:ERROR disk full\n4:error: retry\n')
})

test('json-lines.mjs prints the error events of a JSON Lines log and skips what is not JSON', async (t) => {
  const log = [
    '{"level":30,"msg":"started"}',
    '{"level":50,"msg":"disk full"}',
    '',
    '{"level":50,"msg":"cut off',
    '{"level":50,"msg":"retry failed","err":{"code":"EIO"}}',
  ].join('\n')
  const { stdout } = await run(t, 'json-lines.mjs', [temp.file(log)])
  t.is(stdout, '2: disk full\n5: retry failed\n1 line(s) skipped\n')
})

test('count.mjs counts every line and the matching ones', async (t) => {
  const { stdout } = await run(t, 'count.mjs', [temp.file(LOG), 'GET'])
  t.is(stdout, '5 lines, 3 with GET\n')
})

test('compressed.mjs reads gzip, zstd and plain files alike', async (t) => {
  const plain = temp.file(LOG, 'app.log')
  const gz = temp.file(zlib.gzipSync(LOG), 'app.log.gz')
  const zst = temp.file(zstd(Buffer.from(LOG)), 'app.log.zst')
  for (const file of [plain, gz, zst]) t.is((await run(t, 'compressed.mjs', [file])).stdout, '5\n', file)
})

test('progress.mjs reports progress up to 100% from position over the size', async (t) => {
  const file = temp.file('x'.repeat(99) + '\n' + 'y\n'.repeat(200_000))
  const { stdout, stderr } = await run(t, 'progress.mjs', [file])
  t.is(stdout, '200001 lines\n')
  const percents = stderr
    .trim()
    .split('\n')
    .map((line) => Number.parseInt(line, 10))
  t.is(percents.at(-1), 100)
  t.deepEqual(
    percents,
    [...percents].sort((a, b) => a - b),
    'never going back',
  )
})

test('tail-follow.mjs prints the last lines, then lines appended, none lost in between', async (t) => {
  const lines = Array.from({ length: 30 }, (_, i) => `line ${i}`)
  const file = temp.file(lines.join('\n') + '\n')
  const { child, output } = start('tail-follow.mjs', [file, '20'])
  try {
    t.deepEqual(await within(linesOf(child, output, 20), RUN_QUIET_MS, 'the last lines'), lines.slice(10))
    fs.appendFileSync(file, 'appended 1\nappended 2\n')
    const all = await within(linesOf(child, output, 22), RUN_QUIET_MS, 'the appended lines')
    t.deepEqual(all.slice(20), ['appended 1', 'appended 2'])
  } finally {
    child.kill()
  }
})

test('first-lines.mjs closes its reader with await using, where the runtime parses it', async (t) => {
  const file = temp.file(LOG)
  if (!parsesUsing) {
    // Node 20 and 22: the recipe says so, and the disposal itself is checked in dispose.spec.mjs.
    const { child, output } = start('first-lines.mjs', [file, '2'])
    const [code] = await within(once(child, 'close'), RUN_QUIET_MS, 'first-lines.mjs')
    t.not(code, 0)
    t.regex(output.stderr, /SyntaxError/)
    return
  }
  const { stdout } = await run(t, 'first-lines.mjs', [file, '2'])
  t.is(stdout, 'GET / 200\nERROR disk full\n')
})
