/// <reference types="node" />

/** A path as `fs` takes it: a string, a Buffer/Uint8Array of raw bytes, or a `file:` URL. */
export type PathLike = string | Buffer | Uint8Array | URL

/**
 * Bytes that do not come from a path (see {@link readLines}): a Node `Readable` (`process.stdin`,
 * a child's `stdout`, a socket, an HTTP response, a `zlib` stream), a web `ReadableStream`
 * (a `fetch()` body), a `Blob` (a `File`, `fs.openAsBlob()`'s, Bun's `Bun.file()` and
 * `Bun.stdin`; read through its `stream()`), a `fetch()` `Response` (its body), a web stream
 * pair (whose `readable` is read: Deno's `FsFile` and `Deno.stdin`, a `TransformStream`), a
 * `FileHandle` from `fs/promises` (read from its current offset, and left open), or any
 * iterable or async iterable of chunks. A chunk is a `Uint8Array` (a `Buffer`) or a string
 * (taken as its UTF-8 bytes, as from a stream with `setEncoding('utf8')`, or as its Latin-1
 * bytes with `encoding: 'latin1'`; a surrogate pair cut between two strings is one character). A sync iterable may give promises of chunks, awaited as `for await` awaits them.
 */
export type ByteSource =
  | NodeJS.ReadableStream
  | ReadableStream<Uint8Array>
  | Blob
  | Response
  | { readonly readable: ReadableStream<Uint8Array> }
  | import('node:fs/promises').FileHandle
  | AsyncIterable<Uint8Array | string>
  | Iterable<Uint8Array | string | PromiseLike<Uint8Array | string>>

/**
 * The options of a reader of a {@link ByteSource}: those of a path but `start`, `end`,
 * `highWaterMark`, `share` and `threads`, which only mean something for a file (a source has its
 * own chunks, and no size to share out) and are refused with `ERR_INVALID_ARG_VALUE`.
 */
export type SourceOptions<Options> = Omit<Options, 'start' | 'end' | 'highWaterMark' | 'share' | 'threads'> & {
  start?: undefined
  end?: undefined
  highWaterMark?: undefined
  share?: undefined
  threads?: undefined
}

export interface ReadOptions {
  /**
   * How bytes become characters. `'utf8'` (default; invalid sequences become U+FFFD) or
   * `'latin1'` (each byte is the code point of the same value). `'utf-8'` and `'binary'` are
   * accepted as aliases; `null` and `''` are the default, as in `fs`.
   */
  encoding?: 'utf8' | 'utf-8' | 'latin1' | 'binary' | '' | null | undefined
  /** Offset of the first byte to read, as in `fs.createReadStream`. Default 0. Not with `decompress`. */
  start?: number | undefined
  /**
   * Offset of the last byte to read, inclusive, as in `fs.createReadStream`. Default: end of
   * file. Not with `decompress`.
   */
  end?: number | undefined
  /**
   * Bytes asked of the OS per native read (1 byte to 1 GiB); each read becomes one batch (with
   * `match`, of the lines it keeps), or several past 32 MiB, so that a batch's lines fit in an
   * engine's array (a single longer line is one batch). Default 48 KiB; 256 KiB with `match`, unless `invert`.
   * With `decompress`, decompressed bytes per read: read-ahead is bounded in decompressed
   * bytes, so a decompression bomb grows no memory.
   */
  highWaterMark?: number | undefined
  /**
   * Decompress the file as it is read, natively on the reading thread: the lines (or chunks)
   * are those of the decompressed bytes. `false` (default): the bytes as they are. `'gzip'`:
   * any number of members (`cat a.gz b.gz`, bgzip); after the last one, zeros to the end are
   * ignored, and other bytes that do not start another member fail with Node's `Z_DATA_ERROR`
   * ("incorrect header check"), after every line, as Node's `zlib` fails there. `'zstd'`: any
   * number of frames, skippable frames skipped; bytes after the last frame that are not one fail, as for
   * `zstd -d`. `'auto'`: gzip or zstd by the file's first bytes (their magic numbers), else the
   * bytes as they are, so one option reads `app.log`, `app.log.1` and `app.log.2.gz` alike.
   *
   * `bytesRead` counts the file's (compressed) bytes. Damaged or truncated data rejects the step
   * after every line before the damage, with a {@link DecompressError}. Offsets (`start`, `end`)
   * do not combine with it, and `followLines` and `readLastLines` refuse it.
   */
  decompress?: false | 'gzip' | 'zstd' | 'auto' | undefined
  /**
   * Aborting it rejects the pending step with an `AbortError` (`code: 'ABORT_ERR'`, `cause`:
   * the signal's reason), like Node's APIs, and closes the file.
   */
  signal?: AbortSignal | AbortSignalLike | undefined
}

/**
 * What a reader uses of an `AbortSignal`, which a polyfill's signal (or another realm's) also
 * has: it is taken by its shape, as Node's own APIs take one.
 */
export interface AbortSignalLike {
  readonly aborted: boolean
  /** The `cause` of the `AbortError`. */
  readonly reason?: any
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void
  removeEventListener(type: 'abort', listener: () => void): void
}

/**
 * Which lines a reader keeps: those whose text contains one of `match`'s strings, as
 * `line.includes(s)` tells it on the line `readLines` would yield (so an invalid UTF-8 sequence
 * is matched as the U+FFFD it becomes). Searched natively on the file's bytes, before any line
 * is decoded, like `grep -F`; only the lines kept become strings.
 */
export interface MatchOptions {
  /**
   * A string, or several (a line is kept if it contains any). None may be empty or hold a lone
   * surrogate (half a character, which no decoded line holds alone). A string
   * holding `\n` or `\r` never matches (no line holds a terminator), nor, with
   * `encoding: 'latin1'`, one holding a character above U+00FF.
   */
  match?: string | readonly string[] | undefined
  /**
   * Keep the lines that contain none of the strings, like `grep -v`. `true` only with `match`
   * (`false`, the default, is taken without it).
   */
  invert?: boolean | undefined
  /**
   * Compare ASCII letters case-insensitively, like `grep -i` in the C locale: `'error'` matches
   * `ERROR`, but `'é'` does not match `É`. `true` only with `match` (`false`, the default, is
   * taken without it).
   */
  ignoreCase?: boolean | undefined
}

/**
 * Reading one share of a file: what lets `count` readers (worker threads, processes, machines
 * sharing the file) each read a part of it and together read every line exactly once, agreeing
 * on nothing but the file's size. For {@link readLines}, {@link readLinesSync},
 * {@link countLines}, {@link readJsonLines} and {@link readJsonLinesSync}, on files by path.
 */
export interface ShareOptions {
  /**
   * `[index, count]` or `[index, count, size]`: only the lines of share `index` of `count`.
   * With `size` the file's size, taken once when the share opens (or the third element), share
   * `k` covers the bytes
   * `[floor(k * size / count), floor((k + 1) * size / count))` and holds exactly the lines whose
   * first byte lies there (a line starts at byte 0, after a `\n`, or after a `\r` not followed
   * by `\n`), the last one read to its end past the range. Shares 0 to `count - 1` read in
   * order give exactly the file's lines, whatever a boundary cuts through (a `\r\n`, a
   * character, a line longer than a share, whose following shares are then empty). Readers that
   * open their shares while the file grows take different sizes and cut at different places:
   * give them one `size`, taken once before they start, and they meet exactly.
   *
   * In a share, `lineOffset` and `position` are offsets in the file (`undefined` before the
   * first step: where the share starts is known once the file is open), and `lineNumber`
   * counts from the share's first line. `index`, `count` and `size` are integers,
   * `0 <= index < count`, `size >= 0` (`ERR_OUT_OF_RANGE`). Not with `start`, `end` or `decompress`
   * (`ERR_INCOMPATIBLE_OPTION_PAIR`); a pipe fails with `ESPIPE`.
   *
   * @example
   * // in worker i of n
   * for await (const batch of readLines('huge.log', { share: [i, n] }).batches()) tally(batch)
   */
  share?: Share | undefined
}

/** `[index, count]` or `[index, count, size]` ({@link ShareOptions.share}). */
export type Share = readonly [index: number, count: number, size?: number | undefined]

/** Options that hold a share ({@link ShareOptions.share}), not `undefined`. */
type WithShare = { share: Share }

/**
 * Other readers' options, typed absent: a reader refuses them (`ERR_INVALID_ARG_VALUE`), so that
 * an options object typed for one reader (`lastLines` of a {@link FollowOptions}, `threads` of a
 * {@link CountOptions}) does not compile where another is called.
 */
type NotTaken<Keys extends string> = { [Key in Keys]?: undefined }

/**
 * A value no inference is drawn from: `T` comes from elsewhere in the call, or its default
 * (TypeScript's own `NoInfer`, which needs 5.4).
 */
type NotInferred<T> = [T][T extends any ? 0 : never]

/** What the readers of lines take: {@link ReadOptions}, {@link MatchOptions}, {@link ShareOptions} and `maxLineLength`. */
interface LineOptions extends ReadOptions, MatchOptions, ShareOptions {
  /**
   * The longest line, in bytes without its terminator, the reader will collect. At the first
   * longer line, after every line before it, the step rejects (or throws) with a
   * {@link LineTooLongError} and the file is closed; at most about this many bytes plus one read
   * are held for a line. Default: no limit.
   */
  maxLineLength?: number | undefined
}

/** Options of the line readers ({@link readLines}, {@link readLinesSync}). */
export interface LineReadOptions extends LineOptions, NotTaken<'threads' | 'lastLines' | 'onError' | 'reviver'> {}

/** A line over `maxLineLength`: reading stopped there, after the lines before it. */
export interface LineTooLongError extends Error {
  code: 'ERR_LINE_TOO_LONG'
  /** The path as it was given; absent when a byte source was read. */
  path?: string
  maxLineLength: number
}

/**
 * A line longer than the longest string the JavaScript engine can make
 * (`buffer.constants.MAX_STRING_LENGTH` characters: about 512 Mi in V8, 2 Gi in Bun): reading
 * stopped there, after the lines before it. Pass `maxLineLength` to stop at long lines sooner,
 * with a {@link LineTooLongError}.
 */
export interface StringTooLongError extends Error {
  /** As `fs.readFileSync(path, 'utf8')` gives for a file too long to be a string. */
  code: 'ERR_STRING_TOO_LONG'
  /** The path as it was given; absent when a byte source was read. */
  path?: string
}

/**
 * Damaged or truncated compressed data (`decompress`): the error Node's `zlib` gives for the
 * same bytes, plus the path. Reading stopped there, after every line decompressed before the
 * damage.
 */
export interface DecompressError extends Error {
  /**
   * `'Z_BUF_ERROR'` (errno -5, `unexpected end of file`) when the data ends inside a member or
   * frame; `'Z_DATA_ERROR'` (-3) for damaged gzip data, with zlib's message (`incorrect header
   * check`, `invalid block type`, `incorrect data check`...); libzstd's name for damaged zstd
   * data (`'ZSTD_error_corruption_detected'`, 20; `'ZSTD_error_prefix_unknown'`, 10, for bytes
   * that are not a frame; `'ZSTD_error_checksum_wrong'`, 22).
   */
  code: string
  errno: number
  /** The path as it was given; absent when a byte source was read. */
  path?: string
}

/**
 * The error a failed system call gives, shaped like Node's fs errors: for a missing file,
 * `ENOENT: no such file or directory, open 'app.log'` with these fields.
 */
export interface FsError extends Error {
  /** e.g. `'ENOENT'`, `'EACCES'`, `'EISDIR'`. */
  code: string
  /** Negative, as Node reports it (e.g. `-2` for `ENOENT`). */
  errno: number
  /**
   * The call that failed, as Node names it: `'open'` or `'read'`; also `'fstat'`, and for a
   * follower `'stat'` or `'watch'`.
   */
  syscall: string
  /** The path as it was given; absent when a byte source (a `FileHandle`, stdin) was read. */
  path?: string
}

/** Batches of lines from a {@link LineReader}: many lines per step, sharing its state. */
export interface LineBatches<Batch = string[]> extends AsyncIterableIterator<Batch> {
  /** Closes the underlying reader. */
  close(): Promise<void>
  /** `close()`, for `await using batches = readLines(path).batches()`. */
  [Symbol.asyncDispose](): Promise<void>
  return(value?: any): Promise<IteratorResult<Batch>>
  throw(error?: any): Promise<IteratorResult<Batch>>
}

/** Options of `batches()`. */
export interface BatchOptions {
  /** Give each batch as a {@link NumberedBatch}, with its lines' numbers and offsets. Default false. */
  numbered?: boolean | undefined
}

/**
 * A batch with where each of its lines was, index for index: as `grep -n -b` prints them, for a
 * whole batch at once.
 */
export interface NumberedBatch {
  lines: string[]
  /** Each line's number in the file, as {@link LineReader.lineNumber} gives it. */
  lineNumbers: Float64Array
  /** The byte offset of each line's first byte, as {@link LineReader.lineOffset} gives it. */
  offsets: Float64Array
}

/** `[lineNumber, line]`, as `entries()` yields them. */
export type NumberedLine = [lineNumber: number, line: string]

/** The lines of a {@link LineReader} as `[lineNumber, line]` pairs (`entries()`), sharing its state. */
export interface LineEntries extends LineBatches<NumberedLine> {}

/** The lines of a {@link LineReaderSync} as `[lineNumber, line]` pairs (`entries()`). */
export interface LineEntriesSync extends LineBatchesSync<NumberedLine> {}

/**
 * The lines of a file, one string per step, without their terminators. Reading happens natively
 * ahead of the consumer, at most about 1 MiB (of lines longer than a read, up to 16 MiB, or two lines over 8 MiB). `Position` is what {@link LineReader.position} can
 * be: always a number for {@link readLines}; for a {@link Follower} and a share
 * ({@link ShareOptions.share}), `undefined` too.
 */
export interface LineReader<Position extends number | undefined = number> extends AsyncIterableIterator<string> {
  /**
   * The same lines, many per step: each batch is a non-empty array of whole lines. Steps taken
   * here and on the reader itself share one position.
   */
  batches(options?: BatchOptions & { numbered?: false | undefined }): LineBatches
  /** The same batches, each with its lines' numbers and offsets. */
  batches(options: BatchOptions & { numbered: true }): LineBatches<NumberedBatch>
  batches(options?: BatchOptions): LineBatches<string[] | NumberedBatch>
  /**
   * The same lines, each as `[lineNumber, line]`, like `Array.prototype.entries()` but with the
   * file's line numbers (1-based, as `grep -n` gives them, and counting the lines `match` left
   * out). Steps taken here and on the reader itself share one position.
   *
   * @example
   * for await (const [n, line] of readLines('app.log', { match: 'ERROR' }).entries()) console.log(`${n}:${line}`)
   */
  entries(): LineEntries
  /**
   * Stops the native read and closes the file; a pending step resolves as done. Idempotent.
   * `break`, `return()` and `throw()` in a `for await` call it.
   */
  close(): Promise<void>
  /**
   * `close()`, for `await using reader = readLines(path)`: leaving the block closes the file.
   */
  [Symbol.asyncDispose](): Promise<void>
  return(value?: any): Promise<IteratorResult<string>>
  throw(error?: any): Promise<IteratorResult<string>>
  /** Bytes read from the file so far, read-ahead included (like `fs.ReadStream#bytesRead`). */
  readonly bytesRead: number
  /** Lines handed out so far, by either iterator. */
  readonly linesRead: number
  /**
   * The byte offset, in the file being read, just past the last line handed out (and its
   * terminator), by either iterator: `readLines(path, { start: reader.position })` resumes
   * exactly after it, with no line lost or repeated. Before the first line, the `start` option
   * (0 by default), so always a number for {@link readLines} without `share`; a share has
   * `undefined` until its first step has found where it starts. A {@link Follower} starting at
   * the end has the file's length when it was made (`undefined` if there was no file), and one
   * starting with `lastLines` has `undefined` until its first step has read back from the end;
   * after a rotation, offsets are in the new file.
   */
  readonly position: Position
  /**
   * The number of the last line handed out (0 before the first), counting every line of the
   * file from where reading started, matched or not, as `grep -n` does: the file's own line
   * numbers when reading from its start; with `start`, in a share, or in a follower, the first
   * line read is line 1, and a follower goes on counting across rotations. Read it inside the loop:
   * `for await (const line of reader) console.log(reader.lineNumber, line)`. Costs nothing per
   * line until asked, and no native call per line when asked.
   */
  readonly lineNumber: number
  /**
   * The byte offset in the file of the last line handed out (its first byte; undefined before
   * the first line), as `grep -b` gives it: `fs.read` at this offset reads the line. After a
   * batch step, the batch's last line.
   */
  readonly lineOffset: number | undefined
}

/** Batches of lines from a {@link LineReaderSync}. */
export interface LineBatchesSync<Batch = string[]> extends IterableIterator<Batch> {
  close(): void
  /** `close()` of the reader, for `using batches = readLinesSync(path).batches()`. */
  [Symbol.dispose](): void
  return(value?: any): IteratorResult<Batch>
  throw(error?: any): IteratorResult<Batch>
}

/**
 * The lines of a file, read on the calling thread. `Position` is what
 * {@link LineReaderSync.position} can be: `undefined` too for a share, before its first step.
 */
export interface LineReaderSync<Position extends number | undefined = number> extends IterableIterator<string> {
  batches(options?: BatchOptions & { numbered?: false | undefined }): LineBatchesSync
  batches(options: BatchOptions & { numbered: true }): LineBatchesSync<NumberedBatch>
  batches(options?: BatchOptions): LineBatchesSync<string[] | NumberedBatch>
  /** As {@link LineReader.entries}. */
  entries(): LineEntriesSync
  /** Closes the file now. Idempotent. */
  close(): void
  /** `close()`, for `using reader = readLinesSync(path)`: leaving the block closes the file. */
  [Symbol.dispose](): void
  return(value?: any): IteratorResult<string>
  throw(error?: any): IteratorResult<string>
  readonly bytesRead: number
  readonly linesRead: number
  /** As {@link LineReader.position}. */
  readonly position: Position
  /** As {@link LineReader.lineNumber}. */
  readonly lineNumber: number
  /** As {@link LineReader.lineOffset}. */
  readonly lineOffset: number | undefined
}

/** The raw bytes of a file, in order, as Buffers of at most `highWaterMark` bytes. */
export interface ChunkReader extends AsyncIterableIterator<Buffer> {
  close(): Promise<void>
  /** `close()`, for `await using chunks = readChunks(path)`. */
  [Symbol.asyncDispose](): Promise<void>
  return(value?: any): Promise<IteratorResult<Buffer>>
  throw(error?: any): Promise<IteratorResult<Buffer>>
  readonly bytesRead: number
}

/**
 * The lines of one share of the file ({@link ShareOptions.share}): its `position` and
 * `lineOffset` are `undefined` until the first step has found where the share starts.
 *
 * @example
 * for await (const batch of readLines('huge.log', { share: [i, n] }).batches()) tally(batch)
 */
export function readLines(path: PathLike, options: SharedLineReadOptions): LineReader<number | undefined>
/**
 * Reads a file line by line. Yields exactly the lines `readline` yields for
 * `fs.createReadStream(path)` with `crlfDelay: Infinity` (terminators `\n`, `\r\n`, `\r`; BOM and
 * NUL kept; U+2028/U+2029 not terminators), except that an incomplete UTF-8 sequence at the end
 * of the file becomes U+FFFD instead of being dropped.
 *
 * Nothing is opened until the first step. Argument errors throw at once (`TypeError`,
 * `RangeError` with Node's codes); a failing open or read rejects the first step with an
 * {@link FsError}; a line over `maxLineLength` rejects with a {@link LineTooLongError}, and one
 * longer than the engine's longest string with a {@link StringTooLongError}, each after every
 * line before it.
 *
 * With `match` ({@link MatchOptions}), only the lines containing one of its strings; the others
 * are passed over natively, and `bytesRead` still advances while none match.
 *
 * @example
 * for await (const line of readLines('app.log')) console.log(line)
 * for await (const batch of readLines('app.log').batches()) total += batch.length
 * for await (const [n, line] of readLines('app.log', { match: 'ERROR' }).entries()) console.log(`${n}:${line}`)
 */
export function readLines(
  path: PathLike,
  options?: UnsharedOptions<LineReadOptions> | ReadOptions['encoding'],
): LineReader
/** The lines of a file, or of one share of it if `options` hold a `share`. */
export function readLines(
  path: PathLike,
  options?: LineReadOptions | ReadOptions['encoding'],
): LineReader<number | undefined>
/**
 * The lines of a {@link ByteSource}, exactly as a file with the same bytes gives them, whatever
 * its chunk boundaries. Nothing is read from the source before the first step, and it is read
 * only as fast as lines are taken (at most about 1 MiB ahead). Offsets (`lineOffset`,
 * `position`) count the source's bytes from where reading started.
 *
 * When the source fails, every complete line before the failure comes first, then the step
 * rejects with the source's own error; a chunk that is neither bytes nor a string rejects with
 * `ERR_INVALID_ARG_TYPE`. `break`, `return()`, `close()` and an abort destroy a Node stream,
 * cancel a web stream and call an iterator's `return()`. A web stream is locked at the first step
 * (an already locked one throws `ERR_INVALID_STATE` at the call).
 *
 * A `FileHandle`, a file stream that has read nothing, a `process.stdin` that nothing has read
 * from yet (a file or a pipe, not a terminal), and on Node and Deno a child's stdout (on Node
 * any pipe stream) that nobody reads are read natively through their descriptor, with no chunk
 * passing through JS.
 *
 * @example
 * for await (const line of readLines(process.stdin)) console.log(line)
 * for await (const batch of readLines((await fetch(url)).body, { decompress: 'gzip' }).batches()) handle(batch)
 */
export function readLines(
  source: ByteSource,
  options?: SourceOptions<LineReadOptions> | ReadOptions['encoding'],
): LineReader
/** The lines of a path or of a {@link ByteSource}: with the options both take. */
export function readLines(
  input: PathLike | ByteSource,
  options?: SourceOptions<LineReadOptions> | ReadOptions['encoding'],
): LineReader

/** One share of the file's lines ({@link ShareOptions.share}), synchronously. */
export function readLinesSync(path: PathLike, options: SharedLineReadOptions): LineReaderSync<number | undefined>
/** Like {@link readLines}, synchronously: for scripts. Failures throw from `next()`. */
export function readLinesSync(
  path: PathLike,
  options?: UnsharedOptions<LineReadOptions> | ReadOptions['encoding'],
): LineReaderSync
/** The lines of a file, or of one share of it if `options` hold a `share`, synchronously. */
export function readLinesSync(
  path: PathLike,
  options?: LineReadOptions | ReadOptions['encoding'],
): LineReaderSync<number | undefined>

/** {@link LineReadOptions} with a `share`: a reader of one share of a file. */
export type SharedLineReadOptions = LineReadOptions & WithShare

/**
 * Options that hold no `share`: a reader of the whole file (or of its `start` to `end`), whose
 * `position` and `lineOffset` are numbers from the call on. Options typed as a whole (a
 * `LineReadOptions` variable, which may hold a `share`) give a reader whose places may be
 * `undefined`, as a share's are until its first step.
 */
export type UnsharedOptions<Options> = Options & { share?: undefined }

/**
 * Options of {@link readJsonLines} and {@link readJsonLinesSync}: {@link readLines}' and these.
 * `T` is the type of the values read, which a replacement `onError` gives must also have.
 */
export interface JsonLinesOptions<T = unknown> extends LineOptions, NotTaken<'threads' | 'lastLines'> {
  /**
   * What a line that does not parse does: `'throw'` (default) rejects the step with a
   * {@link JsonParseError}, after every value before it, and closes the reader; `'skip'` goes on
   * (counted in {@link JsonLinesReader.skipped}); a function is given the error and the line, and
   * returns the value to yield in its place, or `undefined` to skip the line. What it throws
   * ends reading with that error. It is called as a batch of lines is parsed (one native read's
   * worth), before the values ahead of the bad line are handed out.
   */
  onError?: 'throw' | 'skip' | ((error: JsonParseError, line: string) => NotInferred<T> | undefined) | undefined
  /** Passed to `JSON.parse` for every line; `null`, as `JSON.parse` takes it, is none. */
  reviver?: ((this: any, key: string, value: any) => any) | null | undefined
}

/**
 * A line that is not one JSON text: a `SyntaxError` whose message quotes at most 80 characters
 * of the line around the place it stopped being JSON, with the engine's own error as `cause`.
 */
export interface JsonParseError extends SyntaxError {
  code: 'ERR_FASTLINES_JSON_PARSE'
  /** The line's number (1-based, counting blank and unmatched lines, as `lineNumber` does). */
  lineNumber: number
  /** The byte offset of the line's first byte. */
  lineOffset: number
  /** Where in the line (1-based, in UTF-16 units) it stopped being JSON. */
  column: number
  /** The file read; absent for a byte source that has no path. */
  path?: string
  cause: unknown
}

/** Batches of values from a {@link JsonLinesReader}. */
export interface JsonBatches<Batch> extends AsyncIterableIterator<Batch> {
  close(): Promise<void>
  [Symbol.asyncDispose](): Promise<void>
  return(value?: any): Promise<IteratorResult<Batch>>
  throw(error?: any): Promise<IteratorResult<Batch>>
}

/** Batches of values from a {@link JsonLinesReaderSync}. */
export interface JsonBatchesSync<Batch> extends IterableIterator<Batch> {
  close(): void
  [Symbol.dispose](): void
  return(value?: any): IteratorResult<Batch>
  throw(error?: any): IteratorResult<Batch>
}

/** What a JSON Lines reader tells of where it is, async or not. */
interface JsonLinesPlace<Position extends number | undefined> {
  /** The number of the line the last value came from (0 before the first), as {@link LineReader.lineNumber}. */
  readonly lineNumber: number
  /** The byte offset of the line the last value came from; undefined before the first. */
  readonly lineOffset: number | undefined
  /**
   * The byte offset just past the line the last value came from: `start` there resumes after
   * it. Before the first value, where reading started, as {@link LineReader.position}.
   */
  readonly position: Position
  /**
   * Lines that did not parse and were skipped (`onError: 'skip'`, or a function's `undefined`),
   * counted as their batch is parsed: it may count lines past {@link position}.
   */
  readonly skipped: number
  /** Bytes read from the file so far, read-ahead included. */
  readonly bytesRead: number
}

/** The values of a JSON Lines file or byte source, one per step. */
export interface JsonLinesReader<T = unknown, Position extends number | undefined = number>
  extends AsyncIterableIterator<T>, JsonLinesPlace<Position> {
  /** The same values, many per step: a non-empty array of the values of a batch of lines. */
  batches(): JsonBatches<T[]>
  /** The same values as `[lineNumber, value]`. */
  entries(): JsonBatches<[lineNumber: number, value: T]>
  /** As {@link LineReader.close}. */
  close(): Promise<void>
  [Symbol.asyncDispose](): Promise<void>
  return(value?: any): Promise<IteratorResult<T>>
  throw(error?: any): Promise<IteratorResult<T>>
}

/** The values of a JSON Lines file, read on the calling thread. */
export interface JsonLinesReaderSync<T = unknown, Position extends number | undefined = number>
  extends IterableIterator<T>, JsonLinesPlace<Position> {
  batches(): JsonBatchesSync<T[]>
  entries(): JsonBatchesSync<[lineNumber: number, value: T]>
  close(): void
  [Symbol.dispose](): void
  return(value?: any): IteratorResult<T>
  throw(error?: any): IteratorResult<T>
}

/**
 * Reads a JSON Lines file (or a {@link ByteSource}): each non-blank line is one JSON text, and
 * each step gives what `JSON.parse` gives for it. Lines are those of {@link readLines}, with its
 * options: `match` selects the lines parsed, `decompress`, `start`/`end`, `share` and
 * `maxLineLength` apply as there. Blank lines (spaces, tabs) are skipped and still counted; a
 * UTF-8 BOM at the start of the file is ignored. Numbers past 2^53 lose precision as in
 * `JSON.parse`.
 *
 * @example
 * for await (const event of readJsonLines('app.jsonl.gz', { decompress: 'auto', match: '"level":50' })) alert(event)
 * for await (const rows of readJsonLines(process.stdin).batches()) insert(rows)
 */
export function readJsonLines<T = unknown>(
  path: PathLike,
  options: JsonLinesOptions<T> & WithShare,
): JsonLinesReader<T, number | undefined>
export function readJsonLines<T = unknown>(
  path: PathLike,
  options?: UnsharedOptions<JsonLinesOptions<T>> | ReadOptions['encoding'],
): JsonLinesReader<T>
export function readJsonLines<T = unknown>(
  path: PathLike,
  options?: JsonLinesOptions<T> | ReadOptions['encoding'],
): JsonLinesReader<T, number | undefined>
export function readJsonLines<T = unknown>(
  source: ByteSource,
  options?: SourceOptions<JsonLinesOptions<T>> | ReadOptions['encoding'],
): JsonLinesReader<T>
export function readJsonLines<T = unknown>(
  input: PathLike | ByteSource,
  options?: SourceOptions<JsonLinesOptions<T>> | ReadOptions['encoding'],
): JsonLinesReader<T>

/** Like {@link readJsonLines}, synchronously, of a path. Failures throw from `next()`. */
export function readJsonLinesSync<T = unknown>(
  path: PathLike,
  options: JsonLinesOptions<T> & WithShare,
): JsonLinesReaderSync<T, number | undefined>
export function readJsonLinesSync<T = unknown>(
  path: PathLike,
  options?: UnsharedOptions<JsonLinesOptions<T>> | ReadOptions['encoding'],
): JsonLinesReaderSync<T>
export function readJsonLinesSync<T = unknown>(
  path: PathLike,
  options?: JsonLinesOptions<T> | ReadOptions['encoding'],
): JsonLinesReaderSync<T, number | undefined>

/** Options of {@link countLines}. */
export interface CountOptions
  extends ReadOptions, MatchOptions, ShareOptions, NotTaken<'maxLineLength' | 'lastLines' | 'onError' | 'reviver'> {
  /**
   * Into how many line-aligned parts a file is counted, each on a thread of its own while one is
   * free: the counts of a whole process never start more helper threads than the machine has
   * cores less one, and a count that finds none free counts its parts alone. Default: one part
   * per core (`os.availableParallelism()`), as long as each part has at least 8 MiB; `1`: one
   * pass, on one thread. An integer from 1 to 1024. The count is the same whatever it is. Only
   * a regular file is split, and only its own bytes (not with `decompress`); a pipe or a device
   * is counted in one pass. With `start`/`end` (or `share`), the range is split. Refused for a
   * byte source (`ERR_INVALID_ARG_VALUE`).
   */
  threads?: number | undefined
}

/**
 * The number of lines {@link readLines} would yield, counted without making any strings: with
 * `match`, the number of matching lines, like `grep -c`.
 */
export function countLines(path: PathLike, options?: CountOptions | ReadOptions['encoding']): Promise<number>
/** The number of lines {@link readLines} would yield for a {@link ByteSource}. */
export function countLines(
  source: ByteSource,
  options?: SourceOptions<CountOptions> | ReadOptions['encoding'],
): Promise<number>
/** The number of lines of a path or of a {@link ByteSource}: with the options both take. */
export function countLines(
  input: PathLike | ByteSource,
  options?: SourceOptions<CountOptions> | ReadOptions['encoding'],
): Promise<number>

/** Options of {@link readLastLines}: as {@link readLines}, but the file is read up to `end` only. */
export interface LastLinesOptions extends Omit<LineReadOptions, 'start' | 'decompress' | 'share'> {
  /** Not supported: the lines are the last ones before `end` (or the end of the file). */
  start?: undefined
  /** Not supported: a compressed file decodes only from its start; read it with `readLines`. */
  decompress?: false | undefined
  /** Not supported: the last lines are those of the whole file. */
  share?: undefined
}

/**
 * The lines {@link readLastLines} gives: a plain array of strings, with where they were read up
 * to.
 */
export interface LastLines extends Array<string> {
  /**
   * The byte offset where the file was taken to end (its length when it was read, or `end + 1`):
   * `followLines(path, { start: lines.position })` goes on from there with no line lost or
   * repeated. Not enumerable, so the array compares and prints as before.
   */
  readonly position: number
}

/**
 * The last `n` lines {@link readLines} would yield, in order (fewer if the file has fewer): with
 * `match`, the last `n` matching lines, found by reading back until there are `n`.
 * Found by reading the file backward from its end (or from `end`), so the bytes read are those
 * lines plus at most one read, however large the file.
 *
 * To print the last lines and then follow the file, either follow from their `position`, or let
 * the follower start with them: both lose no line appended in between.
 *
 * @example
 * const last = await readLastLines('app.log', 20)
 * for (const line of last) console.log(line)
 * for await (const line of followLines('app.log', { start: last.position })) console.log(line)
 * // or, in one call: followLines('app.log', { lastLines: 20 })
 */
export function readLastLines(
  path: PathLike,
  n: number,
  options?: LastLinesOptions | ReadOptions['encoding'],
): Promise<LastLines>

/** What {@link FollowOptions} hold whether the follower starts at `start` or with `lastLines`. */
interface FollowOptionsBase extends Omit<LineReadOptions, 'start' | 'end' | 'decompress' | 'share' | 'lastLines'> {
  /** Not supported: a follower has no end. */
  end?: undefined
  /** Not supported: a compressed file is not appended to; follow the log it was made from. */
  decompress?: false | undefined
  /** Not supported: a follower reads what is appended, past the end of every share. */
  share?: undefined
}

/** Options of {@link followLines}: where it starts is `start` or `lastLines`, not both. */
export type FollowOptions = FollowOptionsBase &
  (
    | {
        /**
         * Offset to start at, for example a saved {@link LineReader.position}, or the
         * {@link LastLines.position} of lines {@link readLastLines} just gave (then no line appended
         * between the two calls is lost). Default: the end of the file when `followLines` is called.
         */
        start?: number | undefined
        /** Not with `start`. */
        lastLines?: undefined
      }
    | {
        /** Not with `lastLines`. */
        start?: undefined
        /**
         * Start with the last this many lines of the file as it was when `followLines` was called
         * (with `match`, matching lines). Not with `start`.
         */
        lastLines?: number | undefined
      }
  )

/**
 * Follows a file as it grows, like `tail -F`: the same reader as {@link readLines} (per line,
 * `batches()`, `close()`, `position`), which never ends by itself. Each line is yielded once its
 * terminator is written (a line ending in `\r` once the next byte shows whether it is `\r\n`).
 *
 * It starts where the file stood at this call, whenever the first step comes: the call records
 * which file the path names and its length (opening nothing), so lines appended before the
 * loop starts come, and a rotation before it is followed as below.
 *
 * Woken by the OS's file notifications (inotify, FSEvents, ReadDirectoryChangesW), never by a
 * timer; one watcher per process (on Linux each followed file is watched for writes and its
 * directory for names; elsewhere the directories are watched). Rotations are
 * followed: when the path is renamed away and recreated, the old file is read to its end (its
 * last line even without a terminator), then the new one from its start; when the file is
 * truncated in place (`copytruncate`), reading starts again at offset 0, as `tail -F` does (lines
 * written after the copy and before the truncation are lost there too, and a truncation
 * followed by more than was read before it, before the follower wakes, looks like growth); when
 * the path is deleted (or, on Linux, turns into a loop of links), the follower waits for it to
 * reappear, also when that happened between the call and the first step. A path that names
 * nothing at the call is read from its start once a file is there; nothing there at the first
 * step either rejects it with `ENOENT`.
 *
 * @example
 * for await (const line of followLines('app.log', { lastLines: 10, signal })) console.log(line)
 */
export function followLines(path: PathLike, options?: FollowOptions | ReadOptions['encoding']): Follower

/**
 * What {@link followLines} gives: a {@link LineReader} whose `position` is `undefined` until it
 * knows where it starts (see {@link LineReader.position}).
 */
export type Follower = LineReader<number | undefined>

/** The options of {@link readLines}, to build and check an options object apart from the call. */
export type ReadLinesOptions = LineReadOptions
/** The options of {@link readLinesSync}. */
export type ReadLinesSyncOptions = LineReadOptions
/** The options of {@link countLines}. */
export type CountLinesOptions = CountOptions
/** The options of {@link readJsonLines} of values of type `T`. */
export type ReadJsonLinesOptions<T = unknown> = JsonLinesOptions<T>
/** The options of {@link readJsonLinesSync} of values of type `T`. */
export type ReadJsonLinesSyncOptions<T = unknown> = JsonLinesOptions<T>
/**
 * The options of {@link readChunks}: {@link ReadOptions} but `encoding`. Chunks are the raw bytes,
 * as Buffers: an `encoding` (or a string in place of the options) is refused with
 * `ERR_INVALID_ARG_VALUE`, rather than ignored; `null` means bytes, as in `fs`.
 */
export interface ReadChunksOptions
  extends
    Omit<ReadOptions, 'encoding'>,
    NotTaken<'match' | 'maxLineLength' | 'share' | 'threads' | 'lastLines' | 'onError' | 'reviver'> {
  encoding?: null | undefined
  /** `false`, the default, which every reader takes; `true` only with `match`, which chunks do not take. */
  invert?: false | undefined
  /** `false`, the default, which every reader takes; `true` only with `match`, which chunks do not take. */
  ignoreCase?: false | undefined
}
/** The options of {@link readLastLines}. */
export type ReadLastLinesOptions = LastLinesOptions
/** The options of {@link followLines}. */
export type FollowLinesOptions = FollowOptions

/**
 * The codes of the errors fastlines itself makes (others are Node's own: `ENOENT`,
 * `ERR_INVALID_ARG_TYPE`, `ABORT_ERR`, ...), to tell them apart without spelling them:
 * `if (error.code === codes.LINE_TOO_LONG) ...`.
 */
export const codes: {
  /** A line over `maxLineLength` bytes ({@link LineTooLongError}). */
  readonly LINE_TOO_LONG: 'ERR_LINE_TOO_LONG'
  /** A line longer than the engine's longest string (Node's code for that, as `fs.readFileSync` gives it). */
  readonly STRING_TOO_LONG: 'ERR_STRING_TOO_LONG'
  /** No prebuilt binary for this platform is installed. */
  readonly BINDING_MISSING: 'ERR_FASTLINES_BINDING_MISSING'
  /** A binary is there but failed to load (or, on Deno, a permission its loader needs is not given: the message names the flag). */
  readonly BINDING_FAILED: 'ERR_FASTLINES_BINDING_FAILED'
  /** A line {@link readJsonLines} could not parse: a {@link JsonParseError}. */
  readonly JSON_PARSE: 'ERR_FASTLINES_JSON_PARSE'
}

/** Whether `error` is the error of a line over `maxLineLength` (see {@link codes}). */
export function isLineTooLongError(error: unknown): error is LineTooLongError

/** The raw bytes of a file, read ahead natively: for hashing, uploading or piping. */
export function readChunks(path: PathLike, options?: ReadChunksOptions | null): ChunkReader
/** The bytes of a {@link ByteSource} (decompressed, with `decompress`), read ahead natively. */
export function readChunks(source: ByteSource, options?: SourceOptions<ReadChunksOptions> | null): ChunkReader
/** The bytes of a path or of a {@link ByteSource}: with the options both take. */
export function readChunks(input: PathLike | ByteSource, options?: SourceOptions<ReadChunksOptions> | null): ChunkReader
