// One monotonic clock shared by every process of the follow benchmark: CLOCK_MONOTONIC, in
// nanoseconds, as a Number (exact up to 2^53 ns, 104 days of uptime). Node's
// `process.hrtime.bigint()` reads it directly; Bun's counts from the start of its own process (and
// drifts a few µs per second from it), and so does Deno's (its `process.hrtime` counts from the
// start of the process too), so on Bun the clock is read through `bun:ffi` from libc's
// `clock_gettime`, which costs about 0.2 µs a call, and on Deno through `Deno.dlopen` (FFI, which
// `deno run -A` allows), about 0.1 µs a call.

/** `clock_gettime`'s id for CLOCK_MONOTONIC on Linux. */
const CLOCK_MONOTONIC = 1

async function bunMonotonic() {
  const { dlopen, ptr } = await import('bun:ffi')
  const libc = dlopen('libc.so.6', { clock_gettime: { args: ['i32', 'ptr'], returns: 'i32' } })
  const timespec = new BigInt64Array(2)
  const pointer = ptr(timespec)
  return () => {
    libc.symbols.clock_gettime(CLOCK_MONOTONIC, pointer)
    return Number(timespec[0]) * 1e9 + Number(timespec[1])
  }
}

function denoMonotonic() {
  const libc = Deno.dlopen('libc.so.6', { clock_gettime: { parameters: ['i32', 'buffer'], result: 'i32' } })
  const timespec = new BigInt64Array(2)
  return () => {
    libc.symbols.clock_gettime(CLOCK_MONOTONIC, timespec)
    return Number(timespec[0]) * 1e9 + Number(timespec[1])
  }
}

/** The clock of the runtime running this process. */
async function monotonicClock() {
  if (process.versions.bun !== undefined) return bunMonotonic()
  if (process.versions.deno !== undefined) return denoMonotonic()
  return () => Number(process.hrtime.bigint())
}

/** Nanoseconds of CLOCK_MONOTONIC, the same figure in every process on the machine. */
export const monotonicNs = await monotonicClock()

/**
 * Turns `performance.now()` readings taken earlier in this process into monotonicNs figures: a
 * per-line `performance.now()` costs less than monotonicNs on Bun, and over a few seconds the two
 * clocks drift apart by microseconds at most.
 */
export function fromPerformanceNow(ms) {
  const offset = monotonicNs() - performance.now() * 1e6
  return ms * 1e6 + offset
}
