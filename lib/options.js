// Where user arguments come in: the path and the options are checked as Node's fs checks them
// (same errors, same codes) and turned into what the native side takes and the abort signal.
'use strict'

const { constants: bufferConstants } = require('node:buffer')
const { isByteSource } = require('./byte-source')
const { isUint8Array } = require('./types')
const { checkOptionNames } = require('./option-names')
const { codedError, incompatibleOptionPair, invalidArgType, invalidArgValue, outOfRange } = require('./errors')

/**
 * Bytes asked of the OS per read unless `highWaterMark` says otherwise. Each read becomes one
 * batch string, and strings stay in V8's young generation only below 128 KiB; larger ones get
 * pages of their own, which measured four times slower. 48 KiB keeps even a batch transcoded to
 * UTF-16 (two bytes a unit) below that.
 */
const DEFAULT_CHUNK_SIZE = 48 * 1024
/**
 * The same with `match` (not inverted): the batches hold only the lines kept, a fraction of
 * each read, so larger reads make as few batches, syscalls and thread hand-offs as the limit
 * above allows for the lines kept. On logs-1g, `ERROR` (12% of the lines) took 300-340 ms in
 * 256 KiB reads against 400-430 ms in 48 KiB ones, and a literal found nowhere 190 against
 * 246 ms.
 */
const DEFAULT_MATCH_CHUNK_SIZE = 256 * 1024
/** Reads larger than this would only make single batches absurdly large. */
const MAX_CHUNK_SIZE = 1024 * 1024 * 1024

/**
 * Which batches reach the engine as external strings (the native side lends its buffer until
 * the string is collected) rather than copies: those over 128 KiB, on every engine, as
 * measured. V8 (Node, Deno) allocates strings that large in their own pages in its old
 * generation whether copied or lent, so lending saves the copy and the fresh pages: long-lines
 * batches took 45-70 ms against 80-90 ms copied. V8 must be told of the memory behind them,
 * or it kept 600 MB of them where copies peaked at 180 MB. Smaller batches stay copies:
 * - in V8 an external string always lives in the old generation, where 48 KiB batches waited
 *   for full collections (600-730 ms on logs-1g against 340-370 ms copied);
 * - Bun adopts small external strings cheaply (logs-1g batches about 300 ms against 350 ms
 *   copied), but collecting 20,000 of them held its event loop for 12-15 ms at a time (p99),
 *   against 3-4 ms copied.
 * readLinesSync never lends (see src/sync.rs). Node before 20.4 has no external strings: there
 * every batch is copied (the native side would copy after trying, but its Node-API loader says
 * on stderr that the function is missing, each time).
 */
const LEND_STRINGS = lendsStrings()
  ? { fromBytes: 128 * 1024, reportMemory: process.versions.bun === undefined }
  : undefined
/**
 * The same for the batches of a source fed from JS (byte-source.js), whose JS thread also takes
 * each chunk from the source and copies it in: on Node, batches from 32 KiB are lent. Over 64 KiB
 * chunks of logs-1g from memory, Node's batches took 450-490 ms lent against 520-730 ms copied
 * (a web stream's 480 ms against 800 ms), while a file's took 410-500 ms lent against 300-340 ms
 * copied, so files keep the policy above. Deno's took 470 ms lent against 410 ms copied, and Bun
 * has the collection pauses above: they keep it too.
 */
const LEND_FED_STRINGS =
  LEND_STRINGS !== undefined && process.versions.bun === undefined && process.versions.deno === undefined
    ? { ...LEND_STRINGS, fromBytes: 32 * 1024 }
    : LEND_STRINGS

/**
 * Whether batches are lent: where the engine can take external strings (every one but Node 20
 * before 20.4), and on Bun only on the main thread. Bun does not finalize the external strings
 * still alive when a worker ends, so the memory behind them was never freed: about 20 MB a
 * worker that kept 40 lines of 200 KB.
 */
function lendsStrings() {
  if (process.versions.bun !== undefined) return globalThis.Bun.isMainThread
  if (process.versions.deno !== undefined) return true
  const [major, minor] = process.versions.node.split('.').map(Number)
  return major > 20 || (major === 20 && minor >= 4)
}

/** `lines` (normalizeOptions') for the reader of a source fed from JS. */
function fedLineOptions(lines) {
  return { ...lines, lendStrings: LEND_FED_STRINGS }
}

/** Encoding names as users may give them, and the native encoding each stands for. */
const ENCODINGS = new Map([
  ['utf8', 'utf8'],
  ['utf-8', 'utf8'],
  ['latin1', 'latin1'],
  ['binary', 'latin1'],
])

/**
 * Accepts what `fs` accepts as a path (string, Buffer/Uint8Array, file: URL) and returns the
 * bytes to open and the form to show in errors. `takesSources`: the reader also takes byte
 * sources (readLines, countLines, readChunks, readJsonLines), which its type error then names.
 */
function normalizePath(path, takesSources = false) {
  // node:url only now: loading it cost Bun 2 ms of every start. The runtime's own
  // fileURLToPath takes what its fs takes (Node's, an object shaped like a URL too).
  if (isUrl(path)) {
    path = require('node:url').fileURLToPath(path)
    // Bun's gives '' for escapes that are not UTF-8, where its fs refuses the URL.
    if (path === '') throw codedError(TypeError, 'ERR_INVALID_ARG_VALUE', 'URL must be a non-empty "file:" path')
  }
  const given = path
  let bytes
  if (typeof path === 'string') {
    bytes = Buffer.from(path, 'utf8')
  } else if (isUint8Array(path)) {
    bytes = path
    path = Buffer.from(path.buffer, path.byteOffset, path.byteLength).toString()
  } else if (takesSources) {
    throw invalidArgType('path', 'of type string or an instance of Buffer or URL, or a byte source', path)
  } else if (isByteSource(path)) {
    const expected =
      'of type string or an instance of Buffer or URL (byte sources are read by readLines, countLines, readChunks and readJsonLines)'
    throw invalidArgType('path', expected, path)
  } else {
    throw invalidArgType('path', 'of type string or an instance of Buffer or URL', path)
  }
  if (bytes.includes(0)) {
    throw invalidArgValue('path', given, 'must be a string, Uint8Array, or URL without null bytes')
  }
  return { bytes, display: path }
}

/** A URL as Node's fs takes one: an instance, or an object shaped like one (Node's `isURL`). */
function isUrl(path) {
  return (
    path instanceof URL || Boolean(path?.href && path.protocol && path.auth === undefined && path.path === undefined)
  )
}

/**
 * Whether `signal` can be listened to as an AbortSignal: by its shape, as Node's own
 * validateAbortSignal takes one (a polyfill's, or another realm's, is no instance of this
 * realm's class), and with the listener methods that are called on it, so that one without
 * them is refused at the call rather than failing as a step listens.
 */
function isAbortSignal(signal) {
  return (
    typeof signal === 'object' &&
    signal !== null &&
    'aborted' in signal &&
    typeof signal.addEventListener === 'function' &&
    typeof signal.removeEventListener === 'function'
  )
}

/** A byte offset, checked as fs.createReadStream checks `start` and `end`, in its words. */
function validateOffset(name, value) {
  if (typeof value !== 'number') throw invalidArgType(name, 'of type number', value)
  if (!Number.isInteger(value)) throw outOfRange(name, 'an integer', value)
  if (value < 0 || value > Number.MAX_SAFE_INTEGER) {
    throw outOfRange(name, `>= 0 && <= ${Number.MAX_SAFE_INTEGER}`, value)
  }
}

/**
 * Validates user options (an object, or an encoding name as `fs` allows) and splits them into
 * what the native side takes (binding.d.ts): `read`, which bytes to read and how
 * (`NativeReadOptions`); `lines`, how the line readers make lines (`NativeLineOptions`, with the
 * engine's longest string so that a longer line fails as ERR_STRING_TOO_LONG); and the signal.
 */
function normalizeOptions(options) {
  if (options === undefined || options === null) options = {}
  else if (typeof options === 'string') options = { encoding: options }
  else if (typeof options !== 'object') throw invalidArgType('options', 'one of type string or object', options)

  const decompress = normalizeDecompress(options)
  const share = normalizeShare(options)
  const lineMatch = normalizeMatch(options)
  const defaultChunkSize = lineMatch === undefined || lineMatch.invert ? DEFAULT_CHUNK_SIZE : DEFAULT_MATCH_CHUNK_SIZE
  const { start = 0, end, maxLineLength, signal } = options
  // No encoding (null, '', any falsy value, as fs.createReadStream takes it) is the default.
  const encoding = options.encoding || 'utf8'
  const highWaterMark = options.highWaterMark ?? defaultChunkSize
  const nativeEncoding = ENCODINGS.get(typeof encoding === 'string' ? encoding.toLowerCase() : encoding)
  if (nativeEncoding === undefined) {
    throw invalidArgValue('encoding', encoding, "is not supported: use 'utf8' or 'latin1'")
  }
  validateOffset('start', start)
  if (end !== undefined && end !== Infinity) {
    validateOffset('end', end)
    if (start > end) throw outOfRange('start', `<= "end" (here: ${end})`, start)
  }
  // What fs.createReadStream refuses, refused in its words; what it takes and a read size
  // cannot be (0, or past 1 GiB), as out of fastlines' range.
  if (!Number.isInteger(highWaterMark) || highWaterMark < 0) {
    throw invalidArgValue('options.highWaterMark', highWaterMark, 'is invalid')
  }
  if (highWaterMark < 1 || highWaterMark > MAX_CHUNK_SIZE) {
    throw outOfRange('options.highWaterMark', `an integer >= 1 and <= ${MAX_CHUNK_SIZE}`, highWaterMark)
  }
  if (signal !== undefined && !isAbortSignal(signal)) {
    throw invalidArgType('options.signal', 'an instance of AbortSignal', signal)
  }
  const read = { start, chunkSize: highWaterMark }
  if (end !== undefined && end !== Infinity) read.end = end
  if (decompress !== undefined) read.decompress = decompress
  if (share !== undefined) read.share = share
  const lines = {
    encoding: nativeEncoding,
    maxStringLength: bufferConstants.MAX_STRING_LENGTH,
    lendStrings: LEND_STRINGS,
  }
  if (lineMatch !== undefined) lines.match = lineMatch
  if (maxLineLength !== undefined && maxLineLength !== Infinity) {
    if (typeof maxLineLength !== 'number') {
      throw invalidArgType('options.maxLineLength', 'of type number', maxLineLength)
    }
    if (!Number.isSafeInteger(maxLineLength) || maxLineLength < 1) {
      throw outOfRange('options.maxLineLength', `an integer >= 1 and <= ${Number.MAX_SAFE_INTEGER}`, maxLineLength)
    }
    lines.maxLineLength = maxLineLength
  }
  return { read, lines, signal }
}

/** The formats `decompress` names, as the native side takes them (NativeDecompress). */
const DECOMPRESS_FORMATS = ['gzip', 'zstd', 'auto']

/**
 * `decompress` as the native side takes it: a format, or undefined for the bytes as they are.
 * Offsets (`start`, `end`) are in the file, and a compressed stream decodes only from its start:
 * the two do not combine.
 */
function normalizeDecompress({ decompress, start, end }) {
  if (decompress === undefined || decompress === false) return undefined
  if (!DECOMPRESS_FORMATS.includes(decompress)) {
    throw invalidArgValue('options.decompress', decompress, "must be false, 'gzip', 'zstd' or 'auto'")
  }
  if (start !== undefined) throw incompatibleOptionPair('start', 'decompress')
  if (end !== undefined) throw incompatibleOptionPair('end', 'decompress')
  return decompress
}

/**
 * `share: [index, count, size?]` as the native side takes it (NativeShare): the lines that
 * start in the index-th of count equal parts of `size` bytes (by default the file's size when
 * the share opens; crates/fastlines-core/src/share.rs). A share is cut from the file's own
 * bytes, whole: not from a range, nor from what a decompressor makes of them.
 */
function normalizeShare({ share, start, end, decompress }) {
  if (share === undefined) return undefined
  if (!Array.isArray(share)) throw invalidArgType('options.share', 'an instance of Array', share)
  if (share.length !== 2 && share.length !== 3) {
    throw invalidArgValue('options.share', share, 'must be [index, count] or [index, count, size]')
  }
  const [index, count, size] = share
  for (const [i, value] of [index, count, size].entries()) {
    if (typeof value !== 'number' && !(i === 2 && value === undefined)) {
      throw invalidArgType(`options.share[${i}]`, 'of type number', value)
    }
  }
  if (!Number.isSafeInteger(count) || count < 1) {
    throw outOfRange('options.share[1]', `an integer >= 1 and <= ${Number.MAX_SAFE_INTEGER}`, count)
  }
  if (!Number.isSafeInteger(index) || index < 0 || index >= count) {
    throw outOfRange('options.share[0]', `an integer >= 0 and < ${count} (the count of shares)`, index)
  }
  if (size !== undefined && (!Number.isSafeInteger(size) || size < 0)) {
    throw outOfRange('options.share[2]', `an integer >= 0 and <= ${Number.MAX_SAFE_INTEGER}`, size)
  }
  if (start !== undefined) throw incompatibleOptionPair('share', 'start')
  if (end !== undefined) throw incompatibleOptionPair('share', 'end')
  if (decompress !== undefined && decompress !== false) throw incompatibleOptionPair('share', 'decompress')
  return size === undefined ? { index, count } : { index, count, size }
}

/**
 * Refuses `share` for a reader that has no shares (`by` names it, `why` says why), with the
 * code of an option that cannot be combined with that reader.
 */
function refuseShare(options, by, why) {
  const share = options !== null && typeof options === 'object' ? options.share : undefined
  if (share !== undefined) {
    throw codedError(TypeError, 'ERR_INCOMPATIBLE_OPTION_PAIR', `Option "share" cannot be used with ${by}: ${why}`)
  }
}

/**
 * Refuses `decompress` for a reader that cannot apply it (`by` names it, `why` says why): a
 * follower or a backward reader needs the file's own bytes.
 */
function refuseDecompress(options, by, why) {
  const decompress = options !== null && typeof options === 'object' ? options.decompress : undefined
  if (decompress !== undefined && decompress !== false) {
    throw invalidArgValue('options.decompress', decompress, `is not supported by ${by}: ${why}`)
  }
}

/**
 * `match` (a string or an array of strings, none empty) with `invert` and `ignoreCase`, as the
 * native side takes them (NativeMatch); undefined without `match`, which `invert: true` and
 * `ignoreCase: true` make no sense without (`false`, their default, asks for nothing, so that
 * an options object built as `{ match: pattern, invert: flags.v ?? false }` reads every line
 * when there is no pattern).
 */
function normalizeMatch({ match, invert, ignoreCase }) {
  for (const [name, value] of [
    ['invert', invert],
    ['ignoreCase', ignoreCase],
  ]) {
    if (value !== undefined && typeof value !== 'boolean') {
      throw invalidArgType(`options.${name}`, 'of type boolean', value)
    }
    if (value === true && match === undefined) {
      throw invalidArgValue(`options.${name}`, value, 'applies to options.match, which is missing')
    }
  }
  if (match === undefined) return undefined
  const strings = typeof match === 'string' ? [match] : match
  if (!Array.isArray(strings)) {
    throw invalidArgType('options.match', 'of type string or an instance of Array', match)
  }
  // Copied, by index (a hole in a sparse array is undefined, and not a string), and the copy
  // checked: the native stream is made at the first step, after the caller may have changed
  // their array, and what is checked must be what is searched, though an index getter, an
  // iterator of its own or a Proxy gives another value each time it is read.
  const copy = Array.from({ length: strings.length }, (_, i) => strings[i])
  if (copy.length === 0) throw invalidArgValue('options.match', match, 'must name at least one string')
  copy.forEach((string, i) => {
    const name = typeof match === 'string' ? 'options.match' : `options.match[${i}]`
    if (typeof string !== 'string') throw invalidArgType(name, 'of type string', string)
    if (string === '') throw invalidArgValue(name, string, 'must not be empty')
    if (!string.isWellFormed()) throw invalidArgValue(name, string, 'must not hold a lone surrogate (half a character)')
  })
  return { strings: copy, invert: invert === true, ignoreCase: ignoreCase === true }
}

/** The options of `batches()`: whether each batch comes with its lines' numbers and offsets. */
function normalizeBatchOptions(options) {
  // null is no options, as for the readers themselves.
  if (options === undefined || options === null) return { numbered: false }
  if (typeof options !== 'object') throw invalidArgType('options', 'of type object', options)
  checkOptionNames(options, 'batches()')
  const { numbered = false } = options
  if (typeof numbered !== 'boolean') throw invalidArgType('options.numbered', 'of type boolean', numbered)
  return { numbered }
}

/** What `onError` of readJsonLines may name. */
const ON_ERROR = ['throw', 'skip']

/**
 * The options of readJsonLines about parsing: `onError` ('throw' by default, 'skip', or a
 * function given the error and the line) and `reviver` (JSON.parse's). The rest are readLines'.
 */
function normalizeJsonOptions(options) {
  if (options === null || typeof options !== 'object') return { onError: 'throw', reviver: undefined, share: undefined }
  // `reviver: null` is none, as JSON.parse takes it (and as `encoding: null` is the default).
  const { onError = 'throw', reviver = undefined } = options
  if (typeof onError === 'string') {
    if (!ON_ERROR.includes(onError))
      throw invalidArgValue('options.onError', onError, "must be 'throw', 'skip' or a function")
  } else if (typeof onError !== 'function') {
    throw invalidArgType('options.onError', "'throw', 'skip' or a function", onError)
  }
  if (reviver != null && typeof reviver !== 'function') {
    throw invalidArgType('options.reviver', 'of type function', reviver)
  }
  // For the errors' messages only: the line reader checks it. A copy, as the line reader keeps
  // its own: the caller's array may be changed or reused for another share meanwhile.
  const share = Array.isArray(options.share) ? options.share.slice(0, 2) : undefined
  return { onError, reviver: reviver ?? undefined, share }
}

/** Options about a file's bytes, which a byte source does not have. */
const FILE_OPTIONS = ['start', 'end', 'highWaterMark', 'share', 'threads']

/**
 * Refuses the options that only mean something for a file read by path (`start`, `end`,
 * `highWaterMark` as a file read size, `share` and `threads`, which cut a file by its size),
 * naming the one given: a byte source has its own chunks.
 */
function refuseFileOptions(options) {
  if (options === null || typeof options !== 'object') return
  for (const name of FILE_OPTIONS) {
    if (options[name] !== undefined) {
      throw invalidArgValue(`options.${name}`, options[name], 'applies to files read by path, not to a byte source')
    }
  }
}

/**
 * The value of each line option that asks for nothing, its default, which every reader takes,
 * so that one options object may serve every reader: no limit, and no inverting or ignoring
 * case of a match that is not there.
 */
const ASKS_FOR_NOTHING = { maxLineLength: Infinity, invert: false, ignoreCase: false }

/**
 * Options that mean nothing to a reader that makes no lines (readChunks), or that makes no
 * strings (countLines, which does match): such readers refuse them rather than ignore them,
 * unless they ask for nothing (their defaults: see ASKS_FOR_NOTHING).
 */
function refuseLineOptions(options, names = ['maxLineLength', 'match', 'invert', 'ignoreCase']) {
  if (options === null || typeof options !== 'object') return
  for (const name of names) {
    const value = options[name]
    if (value !== undefined && value !== ASKS_FOR_NOTHING[name]) {
      throw invalidArgValue(`options.${name}`, value, 'applies to the readers that make lines only')
    }
  }
}

/**
 * Refuses an encoding for readChunks, whose chunks are the raw bytes: ignored, it would hand
 * Buffers to code that expects the strings `fs.createReadStream(path, 'utf8')` gives. `null`
 * (or `''`, any falsy value) is bytes, as in `fs`.
 */
function refuseEncoding(options) {
  const given = typeof options === 'string'
  const encoding = given ? options : options?.encoding
  if (!encoding) return
  const why = "readChunks' chunks are the raw bytes, as Buffers (decode them, or read lines with readLines)"
  if (given) throw invalidArgValue('options', encoding, `cannot be an encoding: ${why}`)
  throw invalidArgValue('options.encoding', encoding, `is not taken: ${why}`)
}

/**
 * Refuses options to readJsonLines' batches(), which are arrays of values: `numbered`, the
 * line readers' batch option, would be ignored there (entries() gives each value's line number).
 */
function refuseJsonBatchOptions(options) {
  if (options === undefined || options === null) return
  if (typeof options !== 'object') throw invalidArgType('options', 'of type object', options)
  if (options.numbered !== undefined && options.numbered !== false) {
    const why =
      "is not an option of readJsonLines' batches(), arrays of values: entries() gives each value's line number"
    throw invalidArgValue('options.numbered', options.numbered, why)
  }
  const { numbered, ...others } = options
  checkOptionNames(others, "readJsonLines' batches()")
}

module.exports = {
  fedLineOptions,
  normalizePath,
  normalizeOptions,
  normalizeBatchOptions,
  normalizeJsonOptions,
  refuseDecompress,
  refuseEncoding,
  refuseFileOptions,
  refuseJsonBatchOptions,
  refuseLineOptions,
  refuseShare,
}
