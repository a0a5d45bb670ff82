// Abort wiring, written once for every reader and countLines: how a reader listens to its
// `signal`, the AbortError it rejects or throws with, and a promise that an abort cuts short.
'use strict'

const { AbortError } = require('./errors')

/** What the listeners below return when there is nothing to listen to. */
const NOT_LISTENING = Object.freeze({ dispose() {}, hold() {}, release() {} })

/**
 * fastlines' listeners on each signal it listens to, called by one listener of its own there,
 * which goes once none is left. A listener per reader on the signal itself made Node and Bun
 * warn of a leak (`MaxListenersExceededWarning`, past 10 listeners a signal) at the eleventh
 * reader or count sharing a signal, as a server that reads many files under one shutdown
 * signal does.
 */
const listenersOf = new WeakMap()

/** Adds `listener` to those called once when `signal` aborts. */
function listen(signal, listener) {
  let listening = listenersOf.get(signal)
  if (listening === undefined) {
    const listeners = new Set()
    // Removed by hand too: a polyfill's signal may ignore `once`, and would keep it.
    const onAbort = () => {
      signal.removeEventListener('abort', onAbort)
      dispatch(signal, listeners)
    }
    listening = { listeners, dispatch: onAbort }
    listenersOf.set(signal, listening)
    signal.addEventListener('abort', onAbort, { once: true })
  }
  listening.listeners.add(listener)
}

/** Removes `listener` (if it is there), and fastlines' own listener with the last one. */
function unlisten(signal, listener) {
  const listening = listenersOf.get(signal)
  if (listening === undefined || !listening.listeners.delete(listener) || listening.listeners.size > 0) return
  signal.removeEventListener('abort', listening.dispatch)
  listenersOf.delete(signal)
}

/**
 * Calls every listener once, all of them even if one throws: the first error is then thrown
 * on, for the signal to report as it reports a listener's (an uncaught exception).
 */
function dispatch(signal, listeners) {
  listenersOf.delete(signal)
  let failure
  for (const listener of listeners) {
    try {
      listener()
    } catch (err) {
      failure ??= { err }
    }
  }
  listeners.clear()
  if (failure !== undefined) throw failure.err
}

/**
 * Calls `listener` once when `signal` aborts, and returns a handle whose `dispose()` stops
 * listening: for a wait that ends (see untilAborted), which may hold what it waits for. A
 * reader, which may be abandoned, listens with addAbortListenerOf.
 */
function addAbortListener(signal, listener) {
  if (signal === undefined || signal.aborted) return NOT_LISTENING
  listen(signal, listener)
  return { dispose: () => unlisten(signal, listener) }
}

/** What to do once an owner is collected without being closed (see addAbortListenerOf). */
const forgotten = new FinalizationRegistry((forget) => forget())

/**
 * Calls `onAbort(owner)` once when `signal` aborts, while `owner` lives, and returns a handle
 * whose `dispose()` stops listening (safe to call more than once), in the spirit of Node's
 * `events.addAbortListener`.
 *
 * The signal does not keep `owner` alive (`onAbort` must not hold it: see clearCursor), and the
 * listener goes once `owner` is collected: a reader abandoned without close() is still
 * collected, and its file closed, however long its signal lives. A signal that is undefined or
 * has already aborted calls nothing: every step checks `signal.aborted` before it reads, so a
 * listener only has to cover an abort that comes while a reader lives. And the handle has
 * `dispose()`, not `Symbol.dispose`, which Node 20 does not have.
 *
 * `hold(settle)` is for a step that waits on something nothing else may hold (a quiet byte
 * source nobody refers to any more), so that the owner and its step may be collected while
 * someone still awaits the step: until `release()`, the abort calls `settle()` if the owner is
 * gone by then, and the listener stays for it. `settle` must not hold the owner either (make it
 * outside the owner's methods, whose scope holds `this`): the signal then keeps only what
 * settles the step, and an owner abandoned mid-step is collected with its buffers.
 */
function addAbortListenerOf(owner, signal, onAbort) {
  if (signal === undefined || signal.aborted) return NOT_LISTENING
  const ref = new WeakRef(owner)
  let settle
  const listener = () => {
    const alive = ref.deref()
    const settleHeld = settle
    settle = undefined
    if (alive !== undefined) onAbort(alive)
    else settleHeld?.()
  }
  listen(signal, listener)
  const token = {}
  forgotten.register(owner, () => settle === undefined && unlisten(signal, listener), token)
  return {
    dispose: () => {
      unlisten(signal, listener)
      forgotten.unregister(token)
      settle = undefined
    },
    hold: (settleStep) => {
      settle = settleStep
    },
    release: () => {
      settle = undefined
    },
  }
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
 * has already aborted is the caller's to check first (`throwIfAborted`), before it starts work;
 * one that aborted while the work was being started (a byte source is pulled as it opens, and
 * its own code may abort) cancels it here at once.
 */
function untilAborted(promise, signal, cancel) {
  if (signal === undefined) return promise
  if (signal.aborted) {
    cancel()
    promise.then(undefined, () => {})
    return Promise.reject(abortError(signal))
  }
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

/**
 * What an abort does to a cursor: hand out nothing more (see addAbortListenerOf). Made here, not
 * in a reader's constructor, where it would share the constructor's scope, and with it the
 * reader, which the signal must not keep.
 */
function clearCursor(cursor) {
  cursor.clear()
}

/**
 * What an abort does to a sync reader: close it at once (lines or values already loaded are not
 * handed out, and the file is closed, as an async reader's is; the next step throws the
 * AbortError). Made here, like clearCursor, so that the signal holds no scope that holds it.
 */
function closeReader(reader) {
  reader.close()
}

module.exports = {
  abortError,
  addAbortListener,
  addAbortListenerOf,
  clearCursor,
  closeReader,
  throwIfAborted,
  untilNativeDone,
}
