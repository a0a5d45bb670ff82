// How long a test waits before it calls something a hang. Every time limit in the tests is a
// hang detector, never a speed check: CI machines are shared and loaded, and a test that fails
// because the machine was busy says nothing about fastlines. So each limit is written as the
// longest its wait took in a quiet run of the whole suite (on the slowest runtime, with the
// sibling tests of its file running beside it, as they do), and `hangLimit` gives it a margin
// of HANG_FACTOR times that, never less than MIN_HANG_MS (a wait of a millisecond still meets
// the scheduler's delays). package.json's ava `timeout`, which ends a test file that reports
// nothing for that long, is above the longest of them.

export const HANG_FACTOR = 20
export const MIN_HANG_MS = 10_000

/** The limit for a wait that takes up to `quietMs` on a quiet machine. */
export const hangLimit = (quietMs) => Math.max(HANG_FACTOR * quietMs, MIN_HANG_MS)
