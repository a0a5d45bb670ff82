// Abort wiring, written once for every reader and countLines: how a reader listens to its
// `signal`, the AbortError it rejects or throws with, and a promise that an abort cuts short.
'use strict'

const { AbortError } = require('./errors')

/** What addAbortListener returns when there is nothing to listen to. */
const NOT_LISTENING = Object.freeze({ dispose() {} })

/**
 * Calls `listener` once when `signal` aborts, and returns a handle whose `dispose()` stops
 * listening (safe to call more than once), in the spirit of Node's `events.addAbortListener`.
 *
 * Unlike Node's, a signal that is undefined or has already aborted calls nothing: every step
 * checks `signal.aborted` before it reads, so a listener only has to cover an abort that comes
 * while a reader lives. And the handle has `dispose()`, not `Symbol.dispose`, which Node 20
 * does not have.
 */
function addAbortListener(signal, listener) {
  if (signal === undefined || signal.aborted) return NOT_LISTENING
  signal.addEventListener('abort', listener, { once: true })
  return { dispose: () => signal.removeEventListener('abort', listener) }
}

/**
 * The error Node's APIs reject with when their signal aborts: an `AbortError` with
 * `code: 'ABORT_ERR'` and the signal's reason as its `cause`.
 */
function abortError(signal) {
  return new AbortError(undefined, { cause: signal.reason })
}

/**
 * Throws `abortError(signal)` if `signal` has aborted; `signal` may be undefined. (The signal's
 * own `throwIfAborted()` would throw its reason, not an AbortError.)
 */
function throwIfAborted(signal) {
  if (signal !== undefined && signal.aborted) throw abortError(signal)
}

/**
 * Settles like `promise`, or calls `cancel` and rejects with an AbortError as soon as `signal`
 * aborts, without waiting for `promise`. With no signal, this is `promise` itself. A signal that
 * has already aborted is the caller's to check first (`throwIfAborted`), before it starts work.
 */
function untilAborted(promise, signal, cancel) {
  if (signal === undefined) return promise
  return new Promise((resolve, reject) => {
    const listening = addAbortListener(signal, () => {
      cancel()
      reject(abortError(signal))
    })
    promise.finally(() => listening.dispose()).then(resolve, reject)
  })
}

/**
 * The result of a one-shot native task (`task.cancel()` stops it; `promise` is its result),
 * rejecting with an AbortError as soon as `signal` aborts. `task` is kept alive until then:
 * collecting it cancels it (so that a worker that ends stops its tasks).
 */
async function untilNativeDone(task, promise, signal) {
  const result = await untilAborted(promise, signal, () => task.cancel())
  keepAlive(task)
  return result
}

function keepAlive(_value) {}

module.exports = { abortError, addAbortListener, throwIfAborted, untilNativeDone }
