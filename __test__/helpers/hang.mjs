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
