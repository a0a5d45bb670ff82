// How the README uses fastlines from TypeScript (ESM). Compiled, never run.
import { once } from 'node:events'
import { Readable, Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'

import fastlines, {
  codes,
  countLines,
  isLineTooLongError,
  followLines,
  readLastLines,
  readChunks,
  readJsonLines,
  readJsonLinesSync,
  readLines,
  readLinesSync,
  type ChunkReader,
  type JsonParseError,
  type CountLinesOptions,
  type Follower,
  type LineEntries,
  type ReadLinesOptions,
  type ReadJsonLinesOptions,
  type ByteSource,
  type PathLike,
  type DecompressError,
  type FollowOptions,
  type LastLinesOptions,
  type FsError,
  type LineBatches,
  type LineBatchesSync,
  type JsonLinesReader,
  type LineReader,
  type LineReaderSync,
  type LineReadOptions,
  type LineTooLongError,
  type MatchOptions,
  type NumberedBatch,
  type NumberedLine,
  type ReadOptions,
  type ShareOptions,
  type SharedLineReadOptions,
  type SourceOptions,
  type StringTooLongError,
} from 'fastlines'

export async function typedUsage(): Promise<void> {
  const options: ReadOptions = {
    encoding: 'utf8',
    start: 0,
    end: 1023,
    highWaterMark: 64 * 1024,
    signal: AbortSignal.timeout(1000),
  }
  const limited: LineReadOptions = { ...options, maxLineLength: 1 << 20 }
  // Options typed as a whole may hold a share, whose places are undefined until the first step.
  const reader: LineReader<number | undefined> = readLines('app.log', limited)
  const whole: LineReader = readLines('app.log', { ...options, maxLineLength: 1 << 20 })
  for await (const line of reader) line.toUpperCase()
  const read: number = reader.bytesRead + reader.linesRead
  await reader.close()

  const batches: LineBatches = readLines(new URL('file:///var/log/app.log'), 'latin1').batches()
  for await (const batch of batches) batch.map((line) => line.length)

  const sync: LineReaderSync = readLinesSync(Buffer.from('app.log'), { encoding: 'binary' })
  for (const batch of sync.batches()) batch.join('\n')
  sync.close()

  const lines: number = await countLines(new Uint8Array([0x61]))
  const chunks: ChunkReader = readChunks('app.log', { highWaterMark: 1 << 20 })
  for await (const chunk of chunks) chunk.readUInt8(0)

  await pipeline(Readable.from(fastlines.readLines('app.log')), new Writable({ objectMode: true }))
  await ReadableStream.from(readLines('app.log')).pipeTo(new WritableStream<string>())
  await once(Readable.from(readLines('app.log')), 'end')

  try {
    await readLines('missing').next()
  } catch (error) {
    const failed = error as FsError
    const fields: [string, number, string, string | undefined] = [
      failed.code,
      failed.errno,
      failed.syscall,
      failed.path,
    ]
    const tooLong = error as LineTooLongError
    const limit: [string | undefined, number] = [tooLong.path, tooLong.maxLineLength]
    const tooLongForTheEngine = error as StringTooLongError
    const code: ['ERR_STRING_TOO_LONG', string | undefined] = [tooLongForTheEngine.code, tooLongForTheEngine.path]
  }

  // @ts-expect-error: an option name that does not exist
  readLines('app.log', { encodin: 'utf8' })
  // @ts-expect-error: an encoding fastlines does not decode
  readLines('app.log', { encoding: 'utf16le' })
  // @ts-expect-error: offsets are numbers
  readLines('app.log', { start: '0' })
  // @ts-expect-error: the signal must be an AbortSignal
  readLines('app.log', { signal: new AbortController() })
  // @ts-expect-error: a path is a string, Buffer, Uint8Array or URL
  readLines(42)
  // @ts-expect-error: lines are strings
  for await (const line of readLines('app.log')) Math.max(line)
  // @ts-expect-error: batches are arrays of strings
  for await (const batch of readLines('app.log').batches()) batch.toUpperCase()
  // @ts-expect-error: progress is read-only
  reader.bytesRead = 0
  // @ts-expect-error: countLines resolves to a number
  const count: string = await countLines('app.log')
  const syncStep = readLinesSync('app.log').next()
  // @ts-expect-error: readLinesSync is not async
  await syncStep.then(() => {})
  // @ts-expect-error: maxLineLength is an option of the line readers only
  countLines('app.log', { maxLineLength: 10 })
  // @ts-expect-error: maxLineLength is a number of bytes
  readLinesSync('app.log', { maxLineLength: '1MB' })
  // @ts-expect-error: chunks are Buffers, not strings
  for await (const chunk of readChunks('app.log')) chunk.toUpperCase()

  const last: string[] = await readLastLines('app.log', 100, { maxLineLength: 1 << 20 })
  const lastOptions: LastLinesOptions = { end: 1023, encoding: 'latin1' }
  const follow: FollowOptions = { lastLines: 10, signal: AbortSignal.timeout(1000) }
  const follower: Follower = followLines('app.log', follow)
  for await (const line of follower) last.push(line)
  const saved: number | undefined = follower.position
  if (saved !== undefined) followLines('app.log', { start: saved })
  const resumed: number = readLinesSync('app.log', { start: 10 }).position
  // @ts-expect-error: readLastLines takes the end, not the start
  readLastLines('app.log', 10, { start: 0 })
  // @ts-expect-error: a follower has no end
  followLines('app.log', { end: 100 })
  // @ts-expect-error: a follower starts at start or with lastLines, not both
  followLines('app.log', { start: 0, lastLines: 5 })
  // @ts-expect-error: one reader's options typed as such are another's only where it takes them all
  readLines('app.log', follow)
  const counting: CountLinesOptions = { threads: 2 }
  // @ts-expect-error: threads is countLines' own
  readLinesSync('app.log', counting)
  const jsonSkipping: ReadJsonLinesOptions = { onError: 'skip' }
  // @ts-expect-error: onError is readJsonLines' own
  await countLines('app.log', jsonSkipping)
  // @ts-expect-error: lastLines is followLines' own
  await readLastLines('app.log', 5, follow)
  const lineOptions: ReadLinesOptions = { match: 'ERROR' }
  // @ts-expect-error: readChunks makes no lines to match
  readChunks('app.log', lineOptions)
  // @ts-expect-error: countLines makes no lines, so it takes no maxLineLength (but Infinity at run time)
  await countLines('app.log', lineOptions)
  // @ts-expect-error: position is read-only
  follower.position = 0
  await readLastLines('app.log', 1, lastOptions).then((lines) => lines.length + resumed)

  const search: MatchOptions = { match: ['ERROR', 'FATAL'], ignoreCase: true }
  const errors = readLines('app.log', { ...search, maxLineLength: 1 << 20 })
  for await (const line of errors) {
    const where: [number, number | undefined, string] = [errors.lineNumber, errors.lineOffset, line]
  }
  for await (const [n, line] of readLines('app.log', { match: 'ERROR' }).entries()) `${n + 1}:${line.trim()}`
  for await (const batch of readLines('app.log', { match: 'ERROR' }).batches({ numbered: true })) {
    const numbered: NumberedBatch = batch
    numbered.lineNumbers[0] + numbered.offsets[0] + numbered.lines[0].length
  }
  for (const batch of readLinesSync('app.log').batches({ numbered: true })) batch.offsets.at(-1)
  for (const entry of readLinesSync('app.log', { match: 'x', invert: true }).entries()) {
    const pair: NumberedLine = entry
  }
  const matching: number = await countLines('app.log', { match: 'ERROR', invert: true })
  const lastErrors: string[] = await readLastLines('app.log', 10, { match: 'ERROR' })
  followLines('app.log', { match: 'ERROR', lastLines: 10 })
  // @ts-expect-error: match takes strings, not a RegExp
  readLines('app.log', { match: /ERROR/ })
  // @ts-expect-error: plain batches are arrays, without numbers
  for await (const batch of readLines('app.log').batches()) batch.lineNumbers
  // @ts-expect-error: line numbers are read-only
  errors.lineNumber = 1
  // @ts-expect-error: readChunks makes no lines to match
  readChunks('app.log', { match: 'ERROR' })
  // The defaults every reader takes, but not what needs a match.
  readChunks('app.log', { invert: false, ignoreCase: false })
  // @ts-expect-error: invert needs match
  readChunks('app.log', { invert: true })
  // @ts-expect-error: nor strings: chunks are bytes
  readChunks('app.log', 'latin1')
  // @ts-expect-error: in an options object either
  readChunks('app.log', { encoding: 'utf8' })
  // null is no options, and an encoding of null is bytes, as in fs.
  readChunks('app.log', null)
  readChunks('app.log', { encoding: null })
  readLines('app.log', null)
  readLines('app.log', { encoding: null })
  readLinesSync('app.log', null)
  countLines('app.log', null)
  readLastLines('app.log', 10, null)
  followLines('app.log', null)
  readJsonLines('app.jsonl', null)
}

// Compressed logs: `decompress` on every forward reader; the followers and readLastLines refuse it.
export async function compressed(): Promise<void> {
  for await (const line of readLines('app.log.2.gz', { decompress: 'gzip' })) line.length
  for (const file of ['app.log', 'app.log.1', 'app.log.2.gz', 'app.log.3.zst']) {
    const lines: number = await countLines(file, { decompress: 'auto', match: 'ERROR' })
  }
  for (const line of readLinesSync('app.log.zst', { decompress: 'zstd', maxLineLength: 1 << 20 })) line.length
  for await (const chunk of readChunks('app.log.gz', { decompress: 'auto' })) chunk.byteLength
  try {
    await countLines('app.log.gz', { decompress: 'gzip' })
  } catch (err) {
    const damaged = err as DecompressError
    damaged.code + damaged.errno + damaged.path
  }
  // @ts-expect-error: not a format
  readLines('app.log.gz', { decompress: 'gz' })
  // @ts-expect-error: a follower reads a file's own bytes
  followLines('app.log.gz', { decompress: 'gzip' })
  // @ts-expect-error: readLastLines reads back from the end of the file's own bytes
  readLastLines('app.log.gz', 10, { decompress: 'auto' })
}

// Byte sources: readLines, countLines and readChunks take streams and iterables as well as paths.
export async function sources(): Promise<void> {
  const { spawn } = await import('node:child_process')
  const { open } = await import('node:fs/promises')
  const { createGunzip } = await import('node:zlib')
  for await (const line of readLines(process.stdin)) line.length
  for await (const batch of readLines(spawn('cat', ['app.log']).stdout, { match: 'ERROR' }).batches()) batch.length
  const response = await fetch('http://127.0.0.1:8080/logs.ndjson.gz')
  if (response.body !== null) {
    for await (const [n, line] of readLines(response.body, { decompress: 'gzip' }).entries()) n + line.length
  }
  const handle = await open('app.log')
  const lines: number = await countLines(handle, { match: 'ERROR' })
  await handle.close()
  await countLines(Readable.from(['a\n', 'b\n']).pipe(createGunzip()))
  async function* generated(): AsyncGenerator<Uint8Array> {
    yield new TextEncoder().encode('one\ntwo\n')
  }
  for await (const chunk of readChunks(generated(), { decompress: 'auto' })) chunk.byteLength
  for await (const line of readLines([Buffer.from('a\n'), 'b'])) line.length
  for await (const line of readLines([Promise.resolve(Buffer.from('a\n')), 'b'])) line.length
  const { openAsBlob } = await import('node:fs')
  for await (const line of readLines(await openAsBlob('app.log'))) line.length
  await countLines(new File(['a\n'], 'a.log'))
  for await (const line of readLines(await fetch('http://127.0.0.1:8080/app.log'))) line.length
  const pair = new TransformStream<Uint8Array, Uint8Array>()
  for await (const batch of readLines(pair).batches()) batch.length
  // @ts-expect-error: a web stream pair's readable side gives bytes
  readLines(new TransformStream<Uint8Array, number>())
  // @ts-expect-error: a source has its own chunks: no file offsets
  readLines(process.stdin, { start: 10 })
  // @ts-expect-error: nor a file read size
  countLines(process.stdin, { highWaterMark: 1 << 20 })
  // @ts-expect-error: readLinesSync reads paths only
  readLinesSync(process.stdin)
  // @ts-expect-error: followLines follows a file by path
  followLines(process.stdin)
  // @ts-expect-error: chunks are bytes or strings
  readLines([1, 2, 3])
}

// Shares: worker i of n reads the lines that start in its nth of the file; countLines also
// counts on several threads by itself.
export async function shares(i: number, n: number): Promise<void> {
  for await (const batch of readLines('huge.log', { share: [i, n] }).batches()) batch.length
  const reader = readLines('huge.log', { share: [i, n], match: 'ERROR', ignoreCase: true, maxLineLength: 1 << 20 })
  for await (const [lineNumber, line] of reader.entries()) lineNumber + line.length
  // A share's position and lineOffset are undefined until its first step has found its start.
  const position: number | undefined = reader.position
  // @ts-expect-error: so a share's position may be undefined
  const known: number = reader.position
  const sync = readLinesSync('huge.log', { share: [i, n] })
  for (const line of sync) line.length
  const syncPosition: number | undefined = sync.position
  // @ts-expect-error: for readLinesSync too
  const syncKnown: number = sync.position
  const fixed = [0, 4] as const
  readLines('huge.log', { share: fixed })
  const sharedOptions: SharedLineReadOptions = { share: [i, n], encoding: 'latin1' }
  const shareOptions: ShareOptions = {}
  readLinesSync('huge.log', { ...shareOptions, maxLineLength: 100 })
  const before: number[] = await Promise.all(
    Array.from({ length: i }, (_, j) => countLines('huge.log', { share: [j, n] })),
  )
  const errors: number = await countLines('huge.log', { share: [i, n], match: 'ERROR', invert: true })
  await countLines('huge.log', { match: 'ERROR', threads: 4 })
  await countLines('huge.log', { share: [i, n], threads: 1 })
  const countOptions: CountLinesOptions = { threads: 2, start: 0, end: 1 << 30 }
  const readOptions: ReadLinesOptions = { share: [i, n] }
  // One size for every share of a file that grows.
  readLinesSync('huge.log', { share: [i, n, 1 << 30] })
  // @ts-expect-error: a share is [index, count]
  readLines('huge.log', { share: [i] })
  // @ts-expect-error: of numbers
  readLines('huge.log', { share: ['0', '2'] })
  // @ts-expect-error: not an object
  readLines('huge.log', { share: { index: 0, count: 2 } })
  // @ts-expect-error: a follower reads what is appended, past every share
  followLines('app.log', { share: [0, 2] })
  // @ts-expect-error: the last lines are the whole file's
  readLastLines('app.log', 10, { share: [0, 2] })
  // @ts-expect-error: nor as an options object built apart
  const lastShared: LastLinesOptions = { share: [0, 2] }
  // @ts-expect-error: a stream has no size to share out
  readLines(process.stdin, { share: [0, 2] })
  // @ts-expect-error: nor an iterable
  countLines([Buffer.from('a\n')], { share: [0, 2] })
  // @ts-expect-error: readChunks gives bytes, not lines that start in a share
  readChunks('huge.log', { share: [0, 2] })
  // Options typed as a whole may hold a share: the reader's places may be undefined.
  const maybeShared: ReadLinesOptions = {}
  const wholeOrShare = readLines('huge.log', maybeShared)
  // @ts-expect-error: its position may be undefined
  const wholePosition: number = wholeOrShare.position
  // @ts-expect-error: likewise synchronously
  const syncWholePosition: number = readLinesSync('huge.log', maybeShared).position
  // @ts-expect-error: and for JSON Lines
  const jsonWholePosition: number = readJsonLines('huge.jsonl', maybeShared).position
  // An object literal without one gives numbers.
  const literalPosition: number = readLines('huge.log', { match: 'ERROR' }).position
  const jsonPosition: number = readJsonLinesSync('huge.jsonl', { onError: 'skip' }).position
  // @ts-expect-error: threads is countLines' own
  readLines('huge.log', { threads: 2 })
  // @ts-expect-error: a byte source is counted on one thread
  countLines(process.stdin, { threads: 2 })
  // @ts-expect-error: threads is a number
  countLines('huge.log', { threads: 'auto' })
}

/** Explicit resource management: leaving the block closes the reader. */
export async function disposal(): Promise<void> {
  {
    await using reader = readLines('app.log')
    for await (const line of reader) if (line.startsWith('#')) break
  }
  {
    using reader = readLinesSync('app.log')
    const first: IteratorResult<string> = reader.next()
  }
  {
    await using chunks = readChunks('app.log')
    await using follower = followLines('app.log')
    const closed: Promise<void> = chunks[Symbol.asyncDispose]()
    follower[Symbol.asyncDispose]()
  }
}

/** The last lines, then following from where they were read: no line lost in between. */
export async function lastThenFollow(): Promise<void> {
  const last = await readLastLines('app.log', 20)
  const lines: string[] = last
  const position: number = last.position
  for await (const line of followLines('app.log', { start: position })) lines.push(line)
}

/** Each getter typed as what it can be there; option types to check objects built apart. */
export async function preciseTypes(): Promise<void> {
  const reader = readLines('app.log')
  const position: number = reader.position
  const follower: Follower = followLines('app.log')
  // @ts-expect-error: a follower's position is undefined until it knows where it starts
  const followed: number = follower.position
  const maybe: number | undefined = follower.position
  const entries: LineEntries = reader.entries()
  for await (const [lineNumber, line] of entries) lineNumber.toFixed(line.length)
  const options = { match: 'ERROR', ignoreCase: true } satisfies ReadLinesOptions
  readLines('app.log', options)
  // @ts-expect-error: a misspelt key in an object built apart from the call is caught
  const misspelt = { match: 'ERROR', ignorecase: true } satisfies CountLinesOptions
  try {
    await countLines('app.log', { match: 'ERROR' })
  } catch (error) {
    if (isLineTooLongError(error)) error.maxLineLength.toFixed()
    const code: 'ERR_STRING_TOO_LONG' = codes.STRING_TOO_LONG
  }
}

/** JSON Lines: values typed as the caller says, errors with where they happened. */
export async function jsonLines(): Promise<void> {
  interface Event {
    level: number
    msg: string
  }
  const reader = readJsonLines<Event>('app.jsonl', { match: '"level":50', onError: 'skip' })
  for await (const event of reader) event.msg.toUpperCase()
  const skipped: number = reader.skipped
  for await (const rows of readJsonLines<Event>(process.stdin).batches()) rows[0]?.level.toFixed()
  for await (const [lineNumber, value] of readJsonLines('x.jsonl').entries()) lineNumber.toFixed()
  readJsonLines('x.jsonl', { onError: (error, line) => (error.lineNumber > 0 ? { line } : undefined) })
  readJsonLines<Event>('x.jsonl', { onError: (error, line) => ({ level: 0, msg: line }) })
  // @ts-expect-error: what onError gives in place of a line is one of the values read
  readJsonLines<Event>('x.jsonl', { onError: (error, line) => ({ line }) })
  // @ts-expect-error: and so for the sync reader
  readJsonLinesSync<Event>('x.jsonl', { onError: () => 'bad line' })
  const eventOptions: ReadJsonLinesOptions<Event> = { onError: () => undefined }
  for await (const event of readJsonLines('x.jsonl', eventOptions)) event.msg.toUpperCase()
  for await (const value of readJsonLines('x.jsonl', { onError: () => 0 })) {
    // @ts-expect-error: a replacement says nothing of the other values: they stay unknown
    value.toFixed()
  }
  // @ts-expect-error: onError is 'throw', 'skip' or a function
  readJsonLines('x.jsonl', { onError: 'ignore' })
  // @ts-expect-error: a byte source has no start
  readJsonLines(process.stdin, { start: 10 })
  const shared = readJsonLines('x.jsonl', { share: [0, 2] })
  // @ts-expect-error: a share's position is undefined until its first step
  const position: number = shared.position
  for (const value of readJsonLinesSync('x.jsonl', { reviver: (key, value) => value })) value?.toString()
  readJsonLines('x.jsonl', { reviver: null })
  try {
    readJsonLinesSync('x.jsonl').next()
  } catch (error) {
    if ((error as JsonParseError).code === codes.JSON_PARSE) (error as JsonParseError).column.toFixed()
  }
}

/**
 * A wrapper that passes its own optional options on, a value that may be undefined for an
 * option (checked with exactOptionalPropertyTypes: undefined counts as absent), and an argument
 * that is a path or a source.
 */
export async function wrappers(
  path: string,
  options: ReadLinesOptions | undefined,
  jsonOptions: ReadJsonLinesOptions | undefined,
  signal: AbortSignal | undefined,
  input: PathLike | ByteSource,
): Promise<void> {
  const reader = readLines(path, options)
  // @ts-expect-error: options that may hold a share give a place that may be undefined
  const place: number = reader.position
  readLinesSync(path, options)
  readJsonLines(path, jsonOptions)
  readJsonLinesSync(path, jsonOptions)
  readLines(path, { signal, match: undefined, share: undefined })
  // An option given as undefined is absent: the places are numbers, the batches plain arrays.
  const unshared: LineReader = readLines(path, { share: undefined })
  const plain: LineBatches = readLines(path).batches({ numbered: undefined })
  const plainSync: LineBatchesSync = readLinesSync(path).batches({ numbered: undefined })
  const unsharedJson: JsonLinesReader = readJsonLines(path, { share: undefined })
  // So is a share's size.
  const size: number | undefined = undefined
  await countLines(path, { share: [0, 2, size] })
  readLines(path, { share: [0, 2, undefined] })
  // '' and null are the default encoding, as in fs.
  readLines(path, '')
  readLinesSync(path, { encoding: '' })
  // A signal is taken by its shape, a polyfill's too.
  const polyfilled = { aborted: false, reason: undefined, addEventListener() {}, removeEventListener() {} }
  readLines(path, { signal: polyfilled })
  // @ts-expect-error: one without the listener methods is refused
  readLines(path, { signal: { aborted: false } })
  // The default export is the exports, with no default of its own.
  fastlines.readLines(path)
  // @ts-expect-error: fastlines.default is undefined at run time
  fastlines.default.readLines(path)
  readJsonLines(path, { share: undefined, onError: undefined })
  await countLines(path, { start: undefined, threads: undefined })
  followLines(path, { start: undefined, lastLines: undefined })
  readLines(process.stdin, { start: undefined })
  const position: number = readLines(input, { match: 'x' }).position
  await countLines(input)
  readJsonLines(input)
  readChunks(input)
  // @ts-expect-error: a source may be given, which has no start
  readLines(input, { start: 1 })
  // @ts-expect-error: options typed for a path may hold a start
  readLines(input, options)
  const wrap = (input: PathLike | ByteSource, options?: SourceOptions<ReadLinesOptions>): LineReader =>
    readLines(input, options)
  wrap(process.stdin, { match: 'x' })
}
