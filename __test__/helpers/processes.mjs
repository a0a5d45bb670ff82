// Child processes for the tests that need a fresh process: a fixture that exits, hangs,
// crashes or terminates its workers is run in one and judged by its outcome.
import { spawn } from 'node:child_process'

import { hangLimit, timeWait } from './hang.mjs'

/**
 * Runs `args` (a script and its arguments) in a fresh process of this runtime, or of `command`.
 * A child still running past the hang limit for a run of `quietMs` (see hang.mjs; by default, a
 * script that only starts, does a little and exits) is killed and reported with `timedOut`:
 * that is how a hang shows. `onStdout(chunk, child)` sees the output as it comes; `env` is added
 * to this process's; `uid` and `gid` are spawn's. Never run a child with spawnSync beside other
 * tests: it blocks the test file's event loop for the child's whole run, and the other tests'
 * hang limits run out meanwhile though what they wait for has settled.
 */
export function runProcess(args, { quietMs = 500, onStdout, env = {}, command = process.execPath, uid, gid } = {}) {
  const timeout = hangLimit(quietMs)
  const waited = timeWait(quietMs, args.join(' ').slice(0, 100))
  const ids = uid === undefined ? {} : { uid, gid }
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'], ...ids })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (data) => {
    stdout += data
    onStdout?.(data, child)
  })
  child.stderr.setEncoding('utf8').on('data', (data) => (stderr += data))
  let timedOut = false
  // Judged after the event loop's I/O, not in its timers: a test file whose sibling tests held its
  // event loop past the limit finds the timer and the child's exit ready at once, and timers run
  // first, so a child that had long exited was killed and reported as a hang.
  const timer = setTimeout(
    () =>
      setImmediate(() => {
        if (child.exitCode !== null || child.signalCode !== null) return
        timedOut = true
        child.kill('SIGKILL')
      }),
    timeout,
  )
  const result = new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (status, signal) => {
      clearTimeout(timer)
      waited()
      resolve({ status, signal, stdout, stderr, timedOut })
    })
  })
  return { child, result }
}

/** A child's whole outcome, for assertion messages. */
export const describeRun = (run) =>
  `status ${run.status}, signal ${run.signal}${run.timedOut ? ', killed after the timeout' : ''}\n` +
  `stdout: ${run.stdout.slice(0, 2000)}\nstderr: ${run.stderr.slice(0, 4000)}`
