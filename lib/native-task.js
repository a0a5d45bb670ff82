// A native task run to its end for one call (a count, a scan for the last lines): what
// countLines and readLastLines share between their checks and their result.
'use strict'

const binding = require('./native')
const { untilNativeDone } = require('./abort')
const { withCallSite } = require('./call-site')
const { isNativeFailure, nativeError } = require('./errors')

/**
 * Starts fastlines' threads, at first use. Where they cannot start (no descriptor left), throws
 * as opening `display` fails there (EMFILE), with the frames of `site`.
 */
function startThreads(display, site) {
  const failure = binding.startThreads()
  if (failure !== null) throw withCallSite(nativeError(failure, display), site)
}

/**
 * Starts the threads, makes the task and awaits what `run(task)` settles with, which `signal`
 * cuts short; a failure throws as Node's fs fails on `display`, with the frames of `site`.
 */
async function runNativeTask(display, site, signal, make, run) {
  startThreads(display, site)
  const task = make()
  const result = await untilNativeDone(task, run(task), signal)
  if (isNativeFailure(result)) throw withCallSite(nativeError(result, display), site)
  return result
}

module.exports = { runNativeTask, startThreads }
