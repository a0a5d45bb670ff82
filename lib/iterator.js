// Iterator plumbing shared by the readers, written once: the step results, the queue that keeps
// async steps in order, the return()/throw() that close first, and the views of a reader
// (batches(), entries()).
'use strict'

/**
 * The iterator result of a step that yields `value`. Built up from `{}` rather than written as
 * a literal, as is done(): V8 gives each object literal an allocation site, and once it has
 * found most objects of a site alive in a collection, it makes every later one in its old
 * generation, for the life of the process. A step's result lives for one step, but those made
 * while the engine marks its heap are all found alive: a per-line read that began during a
 * major collection (after readLinesSync had filled an array, say) had its results pretenured,
 * and each step then cost 2.5x as much (logs-1g per line 2.1-2.3 s against 0.8-0.9 s on Node
 * 20). An object made as `{}` has no allocation site, so no such decision is made for it.
 */
function yielded(value) {
  const result = {}
  result.value = value
  result.done = false
  return result
}

/**
 * An `entries()` item, `[key, value]`, made by `new Array(2)` for the reason above: pairs made
 * as an empty literal `[]` and filled were still pretenured (the test in stress.spec.mjs), and
 * those made this way were not.
 */
function entry(key, value) {
  const pair = new Array(2)
  pair[0] = key
  pair[1] = value
  return pair
}

/** The iterator result after the last item (made as yielded() is, and of the same shape). */
function done(value) {
  const result = {}
  result.value = value
  result.done = true
  return result
}

/**
 * Runs async steps one after another, so that `next()` calls made without awaiting the previous
 * one still get items in order, and so do those made while a step runs, by a callback it calls
 * (a reviver, an `onError` function): they wait until it settles.
 */
class StepQueue {
  #tail = null
  /** Whether a step taken while the queue was idle is running its synchronous part. */
  #stepping = false
  /** Settles as that step does, for the steps its callbacks take meanwhile; made by the first. */
  #running = null

  get idle() {
    return this.#tail === null && !this.#stepping
  }

  run(step) {
    if (this.#tail !== null) return this.#append(this.#tail.then(step, step))
    if (this.#stepping) {
      this.#running ??= settledLater()
      return this.#append(this.#running.promise.then(step, step))
    }
    this.#stepping = true
    const result = startStep(step)
    this.#stepping = false
    const running = this.#running
    if (running === null) return this.#append(result)
    // Steps taken meanwhile wait for this one, and the queue's tail is the last of them.
    this.#running = null
    running.settle(result)
    return callersOwn(result)
  }

  /** Makes `result` the step the next one waits for, until it settles. */
  #append(result) {
    this.#tail = result
    const settle = () => {
      if (this.#tail === result) this.#tail = null
    }
    result.then(settle, settle)
    return callersOwn(result)
  }
}

/**
 * A promise settled as the step `result` settles, for the caller alone: the queue handles
 * `result` itself, which would mark its rejection handled, so that a step nobody handles (the
 * open of a missing file, `readLines(path).next()` left alone) failed silently, where Node's
 * readers report it as an unhandled rejection.
 */
function callersOwn(result) {
  return result.then(ownValue)
}

function ownValue(value) {
  return value
}

/** A promise, and the function that settles it as another promise settles. */
function settledLater() {
  let settle
  const promise = new Promise((resolve) => (settle = resolve))
  return { promise, settle }
}

/** What `step()` returns, or its throw as a rejection. */
function startStep(step) {
  try {
    return step()
  } catch (error) {
    return Promise.reject(error)
  }
}

/**
 * An async reader: its own iterable, and `return()` and `throw()` (which `for await` calls when
 * a loop is left early) close it before they settle. Subclasses define `next()` and `close()`.
 */
class ClosingAsyncIterator {
  [Symbol.asyncIterator]() {
    return this
  }

  async return(value) {
    await this.close()
    return done(value)
  }

  async throw(error) {
    await this.close()
    throw error
  }
}

/** The same for a sync reader, whose `close()` is done when it returns. */
class ClosingSyncIterator {
  [Symbol.iterator]() {
    return this
  }

  return(value) {
    this.close()
    return done(value)
  }

  throw(error) {
    this.close()
    throw error
  }
}

// `await using reader = readLines(path)` and `using reader = readLinesSync(path)` close the
// reader when the block is left, where the runtime defines the symbols (every supported runtime
// does, including Node 20 and 22, which do not parse the syntax: there disposal is called).
if (typeof Symbol.asyncDispose === 'symbol') {
  ClosingAsyncIterator.prototype[Symbol.asyncDispose] = async function asyncDispose() {
    await this.close()
  }
}
if (typeof Symbol.dispose === 'symbol') {
  ClosingSyncIterator.prototype[Symbol.dispose] = function dispose() {
    this.close()
  }
}

/**
 * A view of a reader (`batches()`, `entries()`): its own steps (`next`, a batch or an entry
 * each), and the reader's `return()`, `throw()` and `close()`, so that leaving a loop over the
 * view closes the reader. Iterable the way the reader is: with `for await` for an async reader,
 * with `for...of` for a sync one; disposed (`using`) as the reader is.
 */
function viewOf(reader, next) {
  const sync = reader instanceof ClosingSyncIterator
  const view = {
    next,
    return: (value) => reader.return(value),
    throw: (error) => reader.throw(error),
    close: () => reader.close(),
    [sync ? Symbol.iterator : Symbol.asyncIterator]() {
      return this
    },
  }
  const dispose = sync ? Symbol.dispose : Symbol.asyncDispose
  if (typeof dispose === 'symbol') view[dispose] = () => reader[dispose]()
  return view
}

module.exports = { ClosingAsyncIterator, ClosingSyncIterator, StepQueue, done, entry, viewOf, yielded }
