// The errors fastlines throws, shaped like Node's own: argument errors with Node's codes, the
// AbortError, and the errors a native failure becomes (fs errors, zlib's errors,
// ERR_LINE_TOO_LONG, ERR_STRING_TOO_LONG).
'use strict'

/**
 * node:util, loaded at the first error that needs it: loading it cost Bun 3.4 ms of every start
 * (Node has it loaded already).
 */
const util = () => require('node:util')

/**
 * The codes of the errors fastlines itself makes (the others are Node's own), exported so that
 * users tell them apart without spelling them.
 */
const codes = Object.freeze({
  LINE_TOO_LONG: 'ERR_LINE_TOO_LONG',
  STRING_TOO_LONG: 'ERR_STRING_TOO_LONG',
  BINDING_MISSING: 'ERR_FASTLINES_BINDING_MISSING',
  BINDING_FAILED: 'ERR_FASTLINES_BINDING_FAILED',
  JSON_PARSE: 'ERR_FASTLINES_JSON_PARSE',
})

/** Whether `error` is the error of a line over `maxLineLength` (see lineTooLongError). */
function isLineTooLongError(error) {
  return error instanceof Error && error.code === codes.LINE_TOO_LONG
}

/**
 * The errors made here, as opposed to errors fastlines passes on (a byte source's own): only
 * these may be given the caller's frames (call-site.js), since the others are someone else's.
 */
const madeHere = new WeakSet()

/** Remembers that `error` was made here; returns it. */
function own(error) {
  madeHere.add(error)
  return error
}

/** Whether fastlines made `error` (see madeHere). */
function isOwnError(error) {
  return typeof error === 'object' && error !== null && madeHere.has(error)
}

/** An error with a Node-style `code`, shown as `TypeError [ERR_X]: ...` like Node's own (showCode). */
function codedError(Base, code, message, options = undefined) {
  return showCode(unshownCodedError(Base, code, message, options))
}

/**
 * codedError, without its code in the stack yet: for an error that may be made once per line
 * and never shown (one handed to readJsonLines' `onError`), which showCode would cost about
 * 15 us in V8. Its toString() shows the code.
 */
function unshownCodedError(Base, code, message, options = undefined) {
  const error = new Base(message, options)
  Object.defineProperty(error, 'code', { value: code, enumerable: true, writable: true, configurable: true })
  Object.defineProperty(error, 'toString', { value: withCode, writable: true, configurable: true })
  return own(error)
}

/** toString() of an error with a code, as Node's own errors have it. */
function withCode() {
  return `${this.name} [${this.code}]: ${this.message}`
}

/**
 * Shows `error`'s code in its stack's first line, as Node's own errors do (`TypeError
 * [ERR_X]: ...`, which util.inspect and an uncaught error print): the engines format the stack's
 * first line from `name` when the stack is first read, so it is read now, with the code in the
 * name, which then goes back to the class's. A stack formatted before (JavaScriptCore formats it
 * once `column` or `line` is set) has its first line rewritten. Returns `error`.
 */
function showCode(error) {
  const { name, code } = error
  error.name = `${name} [${code}]`
  const stack = error.stack
  delete error.name
  const plain = `${name}: `
  if (typeof stack === 'string' && stack.startsWith(plain)) {
    error.stack = `${name} [${code}]: ${stack.slice(plain.length)}`
  }
  return error
}

function describe(value) {
  if (value === null || value === undefined) return `Received ${value}`
  if (typeof value === 'function') return `Received function ${value.name || '<anonymous>'}`
  if (typeof value === 'object') {
    const name = value.constructor && value.constructor.name
    return name ? `Received an instance of ${name}` : `Received ${util().inspect(value, { depth: -1 })}`
  }
  let shown = inspected(value, { colors: false })
  if (shown.length > 28) shown = `${shown.slice(0, 25)}...`
  return `Received type ${typeof value} (${shown})`
}

/**
 * `util.inspect(value, options)`, a string's lone surrogate shown as Node shows it (`'\ud83d'`):
 * Deno's inspect makes it U+FFFD, which hides what was wrong with a `match` refused for one.
 * Each is marked with NULs around its hex, which inspect escapes, then written as an escape.
 */
function inspected(value, options) {
  if (typeof value !== 'string' || value.isWellFormed()) return util().inspect(value, options)
  // With the `u` flag a whole pair is one code point, so only a lone surrogate matches.
  const marked = value.replace(/[\uD800-\uDFFF]/gu, (unit) => `\0${unit.charCodeAt(0).toString(16)}\0`)
  return util()
    .inspect(marked, options)
    .replace(/\\x00(d[89a-f][0-9a-f]{2})\\x00/g, '\\u$1')
}

/** What Node's messages call `name`: a property if it is one (`options.start`), else an argument. */
const kindOf = (name) => (name.includes('.') ? 'property' : 'argument')

function invalidArgType(name, expected, actual) {
  return codedError(
    TypeError,
    'ERR_INVALID_ARG_TYPE',
    `The "${name}" ${kindOf(name)} must be ${expected}. ${describe(actual)}`,
  )
}

function invalidArgValue(name, value, reason) {
  let shown = inspected(value)
  if (shown.length > 128) shown = `${shown.slice(0, 128)}...`
  return codedError(TypeError, 'ERR_INVALID_ARG_VALUE', `The ${kindOf(name)} '${name}' ${reason}. Received ${shown}`)
}

function incompatibleOptionPair(name, other) {
  return codedError(
    TypeError,
    'ERR_INCOMPATIBLE_OPTION_PAIR',
    `Option "${name}" cannot be used in combination with option "${other}"`,
  )
}

function outOfRange(name, range, value) {
  const shown =
    Number.isInteger(value) && Math.abs(value) > 2 ** 32 ? withSeparators(String(value)) : util().inspect(value)
  return codedError(
    RangeError,
    'ERR_OUT_OF_RANGE',
    `The value of "${name}" is out of range. It must be ${range}. Received ${shown}`,
  )
}

/** Digits grouped by threes with `_`, as Node shows a large integer out of range: 4_294_967_297. */
function withSeparators(digits) {
  const start = digits[0] === '-' ? 1 : 0
  let grouped = ''
  let i = digits.length
  for (; i >= start + 4; i -= 3) grouped = `_${digits.slice(i - 3, i)}${grouped}`
  return `${digits.slice(0, i)}${grouped}`
}

/** The error Node's APIs reject with when their `signal` aborts. */
class AbortError extends Error {
  constructor(message = 'The operation was aborted', options = undefined) {
    super(message, options)
    this.code = 'ABORT_ERR'
    this.name = 'AbortError'
    own(this)
  }
}

/** libuv's errors by number, `[code, description]`: made at the first failure, not at load. */
let systemErrors = null

/**
 * Builds the error `fs` would give for a failed syscall: `ENOENT: no such file or directory,
 * open '/x'` with `errno` (negative, as libuv reports it), `code`, `syscall` and `path`.
 */
function fsError({ errno, syscall }, path) {
  const uvErrno = -errno
  systemErrors ??= util().getSystemErrorMap?.() ?? new Map()
  const [code, description] = systemErrors.get(uvErrno) || [
    util().getSystemErrorName?.(uvErrno) ?? `E${errno}`,
    'unknown error',
  ]
  // What Node's fs.watch says when the user's watches are used up, and where it names the path.
  const watching = syscall === 'watch'
  const text = watching && code === 'ENOSPC' ? 'System limit for number of file watchers reached' : description
  const error = new Error(`${code}: ${text}, ${syscall}${path === undefined ? '' : ` '${path}'`}`)
  error.errno = uvErrno
  error.code = code
  error.syscall = syscall
  if (path !== undefined) error.path = path
  if (watching && path !== undefined) error.filename = path
  return own(error)
}

/**
 * Damaged or truncated compressed data: the error Node's `zlib` gives for the same bytes (its
 * message, `code` such as Z_DATA_ERROR, Z_BUF_ERROR or ZSTD_error_corruption_detected, and
 * `errno`), with the `path` read. Reading stopped there, after the lines before the damage.
 */
function decompressError({ code, errno, message }, path) {
  const error = new Error(message)
  error.errno = errno
  error.code = code
  if (path !== undefined) error.path = path
  return own(error)
}

/** A line over `maxLineLength` bytes: reading stopped there, after the lines before it. */
function lineTooLongError(path, maxLineLength) {
  const error = codedError(
    Error,
    codes.LINE_TOO_LONG,
    `A line in ${shown(path)} is longer than maxLineLength (${maxLineLength} bytes)`,
  )
  if (path !== undefined) error.path = path
  error.maxLineLength = maxLineLength
  return error
}

/**
 * A line longer than the engine's longest string (`maxStringLength` UTF-16 units): reading
 * stopped there, after the lines before it. The code is the one `fs.readFileSync(path, 'utf8')`
 * gives for a file too long to be a string, and the message says how to bound the lines.
 */
function stringTooLongError(path, maxStringLength) {
  const longest = `0x${maxStringLength.toString(16)} characters`
  const error = codedError(
    Error,
    codes.STRING_TOO_LONG,
    `A line in ${shown(path)} is longer than the longest string this engine can hold (${longest}); ` +
      'pass maxLineLength to bound the lines read',
  )
  if (path !== undefined) error.path = path
  return error
}

/** The path read, quoted, for a message; a byte source has none (or its stream's). */
function shown(path) {
  return path === undefined ? 'the byte source' : `'${path}'`
}

/**
 * Whether a native step's outcome is a failure rather than data. The native side reports
 * failures as data (binding.d.ts's `NativeError`, whose `kind` says which), never as thrown
 * errors, so that JS builds the error with the path as the user gave it. Data is a string of
 * lines, a Buffer or a count, none of which has a `kind`.
 */
function isNativeFailure(item) {
  return typeof item === 'object' && item !== null && item.kind !== undefined
}

/**
 * The error to throw for a native failure on `path` (the path as given, for the message;
 * undefined for a byte source). The one place that reads a failure's shape, with
 * `isNativeFailure`, but for a byte source's own failure (kind `source`), which its reader
 * reports with the source's error (source.js, count.js).
 */
function nativeError(failure, path) {
  switch (failure.kind) {
    case 'os':
      return fsError(failure, path)
    case 'lineTooLong':
      return lineTooLongError(path, failure.limit)
    case 'stringTooLong':
      return stringTooLongError(path, failure.limit)
    case 'decompress':
      return decompressError(failure, path)
    case 'panicked':
      return codedError(
        Error,
        'ERR_INTERNAL_ASSERTION',
        `fastlines failed: a native task panicked reading ${shown(path)}`,
      )
    default:
      return codedError(Error, 'ERR_INTERNAL_ASSERTION', `fastlines: unknown native failure ${failure.kind}`)
  }
}

module.exports = {
  AbortError,
  codedError,
  showCode,
  unshownCodedError,
  codes,
  isLineTooLongError,
  isOwnError,
  incompatibleOptionPair,
  invalidArgType,
  invalidArgValue,
  isNativeFailure,
  nativeError,
  outOfRange,
}
