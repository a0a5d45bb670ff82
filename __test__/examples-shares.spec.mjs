// The README's "Using every core" scripts (issue 23), run as a user would run them, on a file whose
// share boundaries fall everywhere the rule must hold: examples/shares.mjs with 1, 2 and 3 worker
// threads, and examples/indexed-job.mjs as n separate processes started at once with the index a
// scheduler gives (a Kubernetes Indexed Job's JOB_COMPLETION_INDEX, an AWS Batch array job's
// AWS_BATCH_JOB_ARRAY_INDEX). What they print must add up to one pass of readLines over the file.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

import test from 'ava'

import { readLines } from '../index.js'
import { makeTempDir } from './helpers/files.mjs'
import { scriptArgs } from './helpers/runtimes.mjs'
import { within } from './helpers/tail.mjs'

const temp = makeTempDir(test)
const examples = fileURLToPath(new URL('../examples/', import.meta.url))
/**
 * One run of a script over the 4 MiB file, up to 7 at once with the other tests of this file
 * beside them: at most 3.7 s in a quiet run (on Node 20, the slowest here; Bun and Deno 1.9 s).
 */
const RUN_QUIET_MS = 4_000
const SIZE = 4 * 2 ** 20 + 12_345

/** Where share `k` of `n` starts: `floor(k * size / n)`. */
const cut = (k, n, size = SIZE) => Math.floor((k * size) / n)

/**
 * A SIZE-byte log of `\n`, `\r\n` and lone `\r` lines, ASCII and multi-byte, some holding ERROR,
 * some empty, with no final terminator; and at the cuts of 2, 3 and 7 shares, what a boundary
 * must survive: a `\r\n` cut in two, a `\r\r\n` cut after its first `\r`, a line that starts
 * exactly at the cut, a 4-byte character cut in two, a cut right after a lone `\r`, and a line
 * longer than a seventh of the file (so that share 4 of 7, inside it, is empty).
 */
function shareLog() {
  let seed = 23
  const random = (below) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
    return seed % below
  }
  const terminators = ['\n', '\r\n', '\r']
  const bodies = [
    () => `GET /item/${random(10_000)} ${[200, 404, 500][random(3)]} ${random(900)}ms`,
    () => `ERROR disk ${random(100)} full`,
    () => 'é€😀'.repeat(random(40)),
    () => '',
    () => 'x'.repeat(random(2_000)) + ' ERROR',
  ]
  const parts = []
  let length = 0
  while (length < SIZE) {
    const part = Buffer.from(bodies[random(bodies.length)]() + terminators[random(terminators.length)])
    parts.push(part)
    length += part.length
  }
  const bytes = Buffer.concat(parts).subarray(0, SIZE)
  // A line from before share 4 of 7 to past its end, and past the cut of share 2 of 3.
  bytes.fill('é', cut(39, 70), cut(51, 70))
  bytes.write('\r\n', cut(1, 2) - 1, 'latin1')
  bytes.write('\r\r\n', cut(2, 7) - 1, 'latin1')
  bytes.write('\nstarts at the cut\n', cut(3, 7) - 1)
  bytes.write('😀', cut(1, 3) - 2)
  bytes.write('\rx', cut(1, 7) - 1, 'latin1')
  bytes.write('\rERROR after a lone CR', cut(6, 7) - 1)
  bytes.write('z', SIZE - 1)
  return temp.file(bytes, 'shares.log')
}

let logFile
/** The log, made once for the tests that read it. */
const log = () => (logFile ??= shareLog())

/** What one pass of readLines over `file` gives: the figures the scripts add up. */
async function onePass(file) {
  const total = { lines: 0, characters: 0, errors: 0 }
  for await (const batch of readLines(file).batches()) {
    total.lines += batch.length
    for (const line of batch) {
      total.characters += line.length
      if (line.includes('ERROR')) total.errors++
    }
  }
  return total
}

/** The scheduler's variables, which a task here must have only as each test sets them. */
const SCHEDULER_VARIABLES = ['JOB_COMPLETION_INDEX', 'AWS_BATCH_JOB_ARRAY_INDEX', 'SHARE_COUNT', 'SHARE_SIZE']

/**
 * Runs `examples/<name>` with `args`, and of the scheduler's variables only those in `env`, to
 * its end: its stdout, once it succeeded. One still running past the hang limit is killed.
 */
async function run(t, name, args, env = {}) {
  const childEnv = { ...process.env }
  for (const variable of SCHEDULER_VARIABLES) delete childEnv[variable]
  const child = spawn(process.execPath, scriptArgs(path.join(examples, name), ...args), {
    env: { ...childEnv, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const output = { stdout: '', stderr: '' }
  child.stdout.setEncoding('utf8').on('data', (text) => (output.stdout += text))
  child.stderr.setEncoding('utf8').on('data', (text) => (output.stderr += text))
  const what = `${name} ${args.join(' ')} ${JSON.stringify(env)}`
  try {
    // 'close', not 'exit': a child's output may still be on its way when it has exited.
    const [code] = await within(once(child, 'close'), RUN_QUIET_MS, what)
    t.is(code, 0, `${what} exits with 0; stderr: ${output.stderr}`)
  } finally {
    child.kill('SIGKILL')
  }
  return output.stdout
}

test('the log has the boundaries the tests are about', (t) => {
  const bytes = fs.readFileSync(log())
  t.is(bytes.length, SIZE)
  t.deepEqual([...bytes.subarray(cut(1, 2) - 1, cut(1, 2) + 1)], [0x0d, 0x0a], 'a \\r\\n cut in two')
  t.deepEqual([...bytes.subarray(cut(1, 3) - 2, cut(1, 3) + 2)], [...Buffer.from('😀')], 'a character cut in two')
  t.false(
    bytes.subarray(cut(4, 7) - 1, cut(5, 7) + 1).some((byte) => byte === 0x0a || byte === 0x0d),
    'a long line',
  )
  t.not(bytes.at(-1), 0x0a)
})

for (const workers of [1, 2, 3]) {
  test(`shares.mjs with ${workers} worker thread${workers === 1 ? '' : 's'} prints what one pass reads`, async (t) => {
    const [stdout, expected] = await Promise.all([run(t, 'shares.mjs', [log(), String(workers)]), onePass(log())])
    t.deepEqual(JSON.parse(stdout), expected)
  })
}

/**
 * Starts indexed-job.mjs as `n` processes at once, task k given its index in `indexVariable`
 * and the count in SHARE_COUNT, and checks what they print against one pass: every line in
 * exactly one share, each share's lines starting in its range, the shares abutting.
 */
async function checkIndexedJob(t, n, indexVariable) {
  const file = log()
  const [outputs, expected] = await Promise.all([
    Promise.all(
      Array.from({ length: n }, (_, k) =>
        run(t, 'indexed-job.mjs', [file], { [indexVariable]: String(k), SHARE_COUNT: String(n) }),
      ),
    ),
    onePass(file),
  ])
  const results = outputs.map((stdout) => {
    const lines = stdout.trim().split('\n')
    t.is(lines.length, 1, `one JSON line: ${stdout}`)
    return JSON.parse(lines[0])
  })
  t.deepEqual(
    results.map(({ index, count }) => [index, count]),
    results.map((_, k) => [k, n]),
  )
  t.is(
    results.reduce((sum, { lines }) => sum + lines, 0),
    expected.lines,
  )
  t.is(
    results.reduce((sum, { errors }) => sum + errors, 0),
    expected.errors,
  )
  // The shares' byte ranges, [firstOffset, lastPosition), meet end to end from 0 to the size.
  let reached = 0
  for (const [k, { lines, firstOffset, lastPosition }] of results.entries()) {
    if (lines === 0) {
      t.is(firstOffset, null, `share ${k} of ${n} is empty`)
      t.is(lastPosition, reached, `empty share ${k} of ${n} ends where it starts, where the one before it ended`)
      continue
    }
    t.is(firstOffset, reached, `share ${k} of ${n} starts where the one before it ended`)
    t.true(firstOffset >= cut(k, n) && firstOffset < cut(k + 1, n), `share ${k} of ${n}'s first line starts in it`)
    t.true(lastPosition >= cut(k + 1, n), `share ${k} of ${n} reads its last line to its end`)
    reached = lastPosition
  }
  t.is(reached, SIZE, 'the last line ends at the end of the file')
  return results
}

for (const n of [1, 3, 7]) {
  test(`indexed-job.mjs as ${n} process${n === 1 ? '' : 'es'} with JOB_COMPLETION_INDEX reads every line once`, async (t) => {
    const results = await checkIndexedJob(t, n, 'JOB_COMPLETION_INDEX')
    if (n === 7) t.is(results[4].lines, 0, 'share 4 of 7 lies inside a line that starts before it')
  })
}

test('indexed-job.mjs as 3 processes with AWS_BATCH_JOB_ARRAY_INDEX reads every line once', async (t) => {
  await checkIndexedJob(t, 3, 'AWS_BATCH_JOB_ARRAY_INDEX')
})

test('indexed-job.mjs tasks given SHARE_SIZE, started while the file grows, read every line before it once', async (t) => {
  const file = temp.path('growing.log')
  fs.copyFileSync(log(), file)
  const expected = await onePass(log())
  const n = 3
  const results = []
  for (let k = 0; k < n; k++) {
    // The log's last line goes on, then more lines come: each task starts on a longer file.
    fs.appendFileSync(file, k === 0 ? ' and on ERROR\n' : 'a later line\nERROR later\n'.repeat(100))
    const env = { JOB_COMPLETION_INDEX: String(k), SHARE_COUNT: String(n), SHARE_SIZE: String(SIZE) }
    results.push(JSON.parse(await run(t, 'indexed-job.mjs', [file], env)))
  }
  t.is(
    results.reduce((sum, { lines }) => sum + lines, 0),
    expected.lines,
    'the lines that start before SHARE_SIZE, the last one read to its end',
  )
  t.is(
    results.reduce((sum, { errors }) => sum + errors, 0),
    expected.errors + 1,
    'the last line, finished after SHARE_SIZE, holds ERROR',
  )
  t.is(results.at(-1).lastPosition, SIZE + ' and on ERROR\n'.length)
})
