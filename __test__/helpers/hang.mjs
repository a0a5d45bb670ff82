// How long a test waits before it calls something a hang. Every time limit in the tests is a
// hang detector, never a speed check: CI machines are shared and loaded, and a test that fails
// because the machine was busy says nothing about fastlines. So each limit is written as the
// longest its wait took in a quiet run of the whole suite (on the slowest runtime, with the
// sibling tests of its file running beside it, as they do), and `hangLimit` gives it a margin
// of HANG_FACTOR times that, never less than MIN_HANG_MS (a wait of a millisecond still meets
// the scheduler's delays). package.json's ava `timeout`, which ends a test file that reports
// nothing for that long, is above the longest of them.
//
// Under emulation (run-on-platform.mjs runs another CPU's runtime under qemu-user and says so
// with FASTLINES_MACHINE_ARCH) every wait is EMULATION_SLOWDOWN times its quiet time here.
//
// To measure the quiet times again: `FASTLINES_WAITS_LOG=/tmp/waits.jsonl npm run test:node`
// (and test:bun, test:deno, into the same file), then `node __test__/helpers/waits-report.mjs
// /tmp/waits.jsonl` lists each wait that took longer than its quiet time, whose limit then keeps
// less than HANG_FACTOR times what it took.
import { appendFileSync } from 'node:fs'

export const HANG_FACTOR = 20
export const MIN_HANG_MS = 10_000

/**
 * How many times longer a wait takes under qemu-user than natively: a Node process that loads
 * fastlines and fails to open a file took 3.4 s under qemu-arm (armv7 Node 20) and 0.12 s
 * natively, quiet. A limit of 20 times the native quiet time failed there under CI's load.
 */
const EMULATION_SLOWDOWN = 30
const emulated = (process.env.FASTLINES_MACHINE_ARCH ?? process.arch) !== process.arch
const slowdown = emulated ? EMULATION_SLOWDOWN : 1

/** The limit for a wait that takes up to `quietMs` on a quiet machine. */
export const hangLimit = (quietMs) => slowdown * Math.max(HANG_FACTOR * quietMs, MIN_HANG_MS)

const waitsLog = process.env.FASTLINES_WAITS_LOG

/**
 * Starts timing a wait of `quietMs` for the waits log (see above), if one is asked for: gives
 * what to call once the wait is over, which notes where in the specs it was made (`what`, its
 * quiet time and how long it took).
 */
export function timeWait(quietMs, what) {
  if (!waitsLog) return () => {}
  const started = performance.now()
  // The spec's frames, innermost first: a spec's own guard helper, then the line that called it.
  const at = new Error().stack.match(/[\w.-]+\.spec\.mjs:\d+/g)?.join(' < ') ?? 'a helper'
  return () => {
    const tookMs = Math.round(performance.now() - started)
    const runtime = process.versions.bun ? 'bun' : process.versions.deno ? 'deno' : 'node'
    appendFileSync(waitsLog, `${JSON.stringify({ at, what, quietMs, tookMs, runtime })}\n`)
  }
}
