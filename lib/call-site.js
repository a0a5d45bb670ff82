// Where a reader was made, for the errors of its later steps. Such an error is made when a
// native promise settles, so its stack holds only this library's frames: the code that called
// readLines is no longer on it, and V8's async stack traces cannot link a `for await` to it.
// The call site is captured once per reader (frames only: the engine formats them only if an
// error needs them) and its frames are appended to the error, as `--async-stack-traces` appends
// the awaiting callers to the errors of Node's fs promises.
'use strict'

const { isOwnError } = require('./errors')

/**
 * Where this library's frames come from: lib/ and the package's entry points, as paths and URLs.
 * Made when first needed, by an error: node:path and node:url cost Bun 3 ms of every start.
 */
let libraryPlaces = null

function placesOfLibrary() {
  const path = require('node:path')
  const { pathToFileURL } = require('node:url')
  return [__dirname + path.sep, path.join(__dirname, '..', 'index.')].flatMap((place) => [
    place,
    pathToFileURL(place).href + (place.endsWith(path.sep) ? '/' : ''),
  ])
}

/**
 * The frames of the code that is running now, this library's own included (dropped when they
 * are read). An Error, which the engines capture cheaper than `Error.captureStackTrace`: about
 * 5 us in V8 either way, 0.3 us against 6 us in JavaScriptCore; formatted only when read.
 */
function captureCallSite() {
  return new Error()
}

/**
 * `error`, with the frames of `site` (from captureCallSite) appended to its stack if fastlines
 * made it and its stack does not already lead to the call: a step that failed synchronously, or
 * an `await countLines()` that the engine's async stack traces follow, shows the calling line
 * already. An error fastlines passes on (a byte source's own) is not fastlines's to change.
 */
function withCallSite(error, site) {
  if (!isOwnError(error)) return error
  const stack = error.stack
  if (typeof stack !== 'string' || typeof site.stack !== 'string') return error
  const frames = site.stack.split('\n').filter(isCallerFrame)
  if (frames.length === 0) return error
  const calling = sourceLine(frames[0])
  if (stack.split('\n').some((line) => sourceLine(line) === calling)) return error
  error.stack = `${stack}\n${frames.join('\n')}`
  return error
}

/** The file and line of a frame, without the column (an await and a call on one line differ in it). */
function sourceLine(frame) {
  const place = /([^\s(]+):(\d+):\d+\)?$/.exec(frame.trim())
  return place === null ? undefined : `${place[1]}:${place[2]}`
}

/**
 * Whether a line of a stack is a frame of the caller's code: not this library's, and not the
 * runtime's own (`node:` and Deno's `ext:` modules, Bun's `native` ones, V8's `<anonymous>` builtins).
 */
function isCallerFrame(line) {
  const frame = line.trim()
  if (!frame.startsWith('at ')) return false
  if (/^at (?:node|ext|native):|\((?:node|ext|native):|\((?:native|<anonymous>)\)$/.test(frame)) return false
  libraryPlaces ??= placesOfLibrary()
  return !libraryPlaces.some((place) => frame.includes(place))
}

module.exports = { captureCallSite, withCallSite }
