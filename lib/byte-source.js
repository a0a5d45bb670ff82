// Byte sources: what readLines, countLines and readChunks read when their first argument is not
// a path but a Node Readable, a web ReadableStream (or a Blob's, a Response's body, a web stream
// pair's readable side), a FileHandle or an (async) iterable of chunks. A FileHandle, a file
// stream nothing has read from yet and a process.stdin nothing has read from yet are read
// natively, through their descriptor or the path they name, as files are. Any other source's
// chunks are pulled here, on the JS thread, only as fast as the native reader takes them, and fed
// to it (src/byte_source.rs), which splits and decodes them in the background as it does a
// file's bytes.
'use strict'

const fs = require('node:fs')
const { clearImmediate, setImmediate } = require('node:timers')
const binding = require('./native')
const { isUint8Array } = require('./types')
const { codedError, invalidArgType } = require('./errors')
const { endsLine, linesCountedHere } = require('./frame-here')
const { TurnClock } = require('./turn-clock')

/**
 * What a source's `pull()` gives when it has no chunk now: then `unwrap(await wait())` gives
 * the chunk, END, or WAIT again. (The pump awaits the source's own promise, one hop per chunk.)
 */
const WAIT = Symbol('wait')
/** What a source's `pull()` gives once it has no more chunks. */
const END = Symbol('end')

/** Bytes asked of a FileHandle per read. */
const FILE_HANDLE_READ_BYTES = 64 * 1024
/**
 * Chunks smaller than this are gathered and handed over together, at GATHER_BYTES or at the end
 * of the event-loop turn, whichever comes first: each hand-over is a native call, which for
 * 100-byte chunks cost more than the chunks themselves. Larger chunks are pushed as they come:
 * gathering 8 KiB chunks cost more in `Buffer.concat` than the native calls it saved.
 *
 * Chunks smaller than this are also what is handed straight to a reader that waits for one,
 * which frames them on this thread in the same native call (see src/feeding.rs): the native
 * side frames here below this many queued bytes (FRAME_HERE_BYTES in the core crate), and hands
 * larger inputs to its background thread.
 */
const HAND_OVER_BYTES = 4 * 1024

/** How many bytes of small chunks are gathered before they are handed over (see above). */
const GATHER_BYTES = 16 * 1024

/**
 * How many chunks the pump pushes between looks at the clock (see ByteSource#pump): a source
 * that gives a chunk per turn never reaches it, and one that gives them from memory pays a
 * clock read per this many.
 */
const PUSHES_PER_LOOK = 32
/**
 * String chunks shorter than this are encoded to UTF-8 here and then go the way of byte chunks
 * (gathered, or straight to a reader that waits for one); longer ones are pushed as strings,
 * which the native side encodes in the same call. Pushed one by one, 100,000 one-line strings
 * on turns of their own took 500-830 ms against 1,130-1,520 (Node; Bun 560-680 against
 * 960-1,240, Deno 484 against 1,055), and 80 MB in 100-character strings 900-1,140 ms against
 * 2,940-3,280; at 1,500 characters 345-363 ms against 446-457, while at 3,000 the native
 * encoding was the faster (379-392 ms against 438-443).
 */
const TEXT_ENCODED_HERE_CHARS = 1536

/**
 * The class of the pipe handles whose reading stops at once when told to, on this runtime, or
 * undefined where none does. Node's `Pipe`: libuv reads only on the JS thread, in the event
 * loop's poll phase, so once `readStop()` has returned nothing more is read. Deno's `PipeWrap`
 * (Deno 2.9's libuv-compatible pipe, a child's stdio) polls its descriptor in the event loop on
 * the JS thread in the same way; Deno's older TypeScript `Pipe` kept a read in flight after
 * `readStop()`, whose bytes would arrive after the hand-over, so it is not one. Bun's streams
 * have no handle.
 */
const PIPE_THAT_STOPS_AT_ONCE =
  process.versions.bun !== undefined ? undefined : process.versions.deno !== undefined ? 'PipeWrap' : 'Pipe'

/** Whether `value` has the interface of a Node Readable (as Node's own `isReadable` checks). */
function isNodeReadable(value) {
  return typeof value.pipe === 'function' && typeof value.on === 'function' && typeof value.read === 'function'
}

/** Whether `value` is a FileHandle from `fs/promises` (on every runtime's `node:fs`). */
function isFileHandle(value) {
  return typeof value.fd === 'number' && typeof value.read === 'function' && typeof value.stat === 'function'
}

/**
 * How to read `value`, if it is a byte source: a function that makes the reader of its chunks
 * (one of the classes below), which takes hold of the source; undefined if it is not one (a
 * path, or something else). Nothing is done to the source before that function is called, so
 * that a call refused for its options leaves it alone. A web stream already locked is refused
 * then, as Node refuses it; any other is locked at the first step. A Blob (a `File`,
 * `fs.openAsBlob`'s, Bun's `Bun.file()`) is read through its `stream()`, a `fetch()` Response
 * through its body (one already read is locked, and refused), and a web stream pair
 * (an object whose `readable` is a web stream: Deno's `FsFile` and `Deno.stdin`, a
 * `TransformStream`) through its readable side.
 */
function chunksOf(value) {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return undefined
  // A boxed string is iterable, but is no more a source than a path: fs refuses it, and so do these.
  if (isUint8Array(value) || value instanceof URL || value instanceof String) return undefined
  if (isFileHandle(value)) return () => new FileHandleChunks(value)
  if (isNodeReadable(value)) return () => new ReadableChunks(value)
  if (isWebStream(value)) return webStreamChunksOf(value)
  if (value instanceof Blob) return () => new WebStreamChunks(() => value.stream(), ignore)
  // A fetch() Response: its body (none, for a 204 or a HEAD, is no bytes).
  if (value instanceof Response) {
    return value.body === null ? () => new IteratorChunks([], Symbol.iterator) : webStreamChunksOf(value.body)
  }
  // A web stream pair: Deno's FsFile and stdin, a socket's, a TransformStream.
  const { readable } = value
  if (isWebStream(readable)) return webStreamChunksOf(readable)
  if (typeof value[Symbol.asyncIterator] === 'function') return () => new IteratorChunks(value, Symbol.asyncIterator)
  if (typeof value[Symbol.iterator] === 'function') return () => new IteratorChunks(value, Symbol.iterator)
  return undefined
}

/** Whether `value` has the interface of a web ReadableStream. */
function isWebStream(value) {
  return typeof value?.getReader === 'function'
}

/**
 * What chunksOf gives for a web stream: a stream already locked is refused at the call, as Node
 * refuses it; any other is locked at the first step (see WebStreamChunks).
 */
function webStreamChunksOf(stream) {
  return () => {
    if (stream.locked) throw lockedStreamError()
    // Stopped before the first step, it is cancelled as it would have been after it.
    return new WebStreamChunks(
      () => stream,
      () => stream.locked || stream.cancel().catch(ignore),
    )
  }
}

function lockedStreamError() {
  return codedError(TypeError, 'ERR_INVALID_STATE', 'Invalid state: ReadableStream is locked')
}

/**
 * Whether a Readable is as it was made: nothing has read from it or asked it to read, listened
 * for its data or changed its encoding, and it has not ended. Its descriptor may then be read by
 * someone else. A `read()` or `read(0)`, even one that gave null, starts a read (an `fs.read` of a
 * file stream, a runtime's read of a pipe) whose bytes would land in the stream while fastlines
 * read on past them from the same descriptor, lost; it sets `needReadable` on every runtime.
 */
function isUntouched(stream) {
  const state = stream._readableState
  return (
    state?.needReadable !== true &&
    state?.reading !== true &&
    stream.readableDidRead === false &&
    stream.readableLength === 0 &&
    stream.readableFlowing === null &&
    stream.readableEncoding === null &&
    !stream.destroyed &&
    !stream.readableEnded
  )
}

/**
 * Whether `stream` is a file stream (`fs.createReadStream(path)`) as it was made, reading a whole
 * file as bytes: its file may be read natively, from the start to the end, instead.
 */
function isWholeFileStream(stream) {
  return (
    // fs.ReadStream is read only for a Readable: its getter loads fs's streams (and
    // node:stream), 4 ms of every process that loads fastlines or reads a path, and whoever
    // made a stream has them loaded.
    typeof stream === 'object' &&
    stream !== null &&
    isNodeReadable(stream) &&
    stream instanceof fs.ReadStream &&
    (stream.start ?? 0) === 0 &&
    (stream.end ?? Infinity) === Infinity &&
    stream.flags === 'r' &&
    stream.bytesRead === 0 &&
    readsThroughFs(stream) &&
    isUntouched(stream)
  )
}

/**
 * Whether a file stream reads its file through `fs` itself: not through an `fs` option of its
 * own (`createReadStream(path, { fs })`, whose path may name nothing on disk, or another file),
 * nor a `_read` of its own. Node, Bun and Deno keep the `fs` a stream reads through under an own
 * symbol, `kFs`; a stream without it is taken to read its own way.
 */
function readsThroughFs(stream) {
  if (stream._read !== fs.ReadStream.prototype._read) return false
  const kFs = Object.getOwnPropertySymbols(stream).find((symbol) => symbol.description === 'kFs')
  return kFs !== undefined && stream[kFs] === fs
}

/**
 * What to read instead of `value`, if it is a whole-file stream that has not opened its file
 * yet (as `fs.createReadStream(path)` is until a later turn of the event loop): `path`, which
 * fastlines opens itself, as it opens any file, with the same errors; and `release()`, which
 * destroys the stream, once reading starts (or the reader is closed). undefined for anything
 * else.
 */
function fileStreamPath(value) {
  if (!isWholeFileStream(value) || value.fd !== null) return undefined
  const { path } = value
  if (typeof path !== 'string' && !isUint8Array(path)) return undefined
  return {
    path,
    // Once the reader is made: a call refused for its options leaves the stream alone. Its own
    // open may fail before it is released: the native open reports that, with the path.
    take: () => value.on('error', ignore),
    // Whether it is still as it was at the call: unopened (its path may name another file once
    // it has opened one, after a rotation), and neither read nor destroyed nor failed.
    unchanged: () => isWholeFileStream(value) && value.fd === null,
    release: () => value.destroy(),
  }
}

/** Whether `value` is a byte source (for the readers that take paths only, to say so). */
function isByteSource(value) {
  return chunksOf(value) !== undefined
}

/**
 * A Node pipe stream that may be taken over: on Node and Deno, a `net.Socket` on a pipe handle
 * that stops at once (a child's stdout; on Node a socket pair too), that nobody reads, listens to
 * for data or decodes. The runtime reads such a stream's descriptor as soon as it is made, so some
 * of its bytes may already be buffered in the stream: those are taken with it.
 */
function takeablePipe(stream) {
  const handle = stream._handle
  return (
    PIPE_THAT_STOPS_AT_ONCE !== undefined &&
    handle?.constructor?.name === PIPE_THAT_STOPS_AT_ONCE &&
    typeof handle.fd === 'number' &&
    handle.fd >= 0 &&
    typeof handle.readStop === 'function' &&
    typeof handle.readStart === 'function' &&
    stream.readableDidRead === false &&
    stream.readableFlowing === null &&
    stream.readableEncoding === null &&
    stream.readableObjectMode === false &&
    !stream.destroyed &&
    !stream.readableEnded
  )
}

/**
 * All that paused `stream` holds, in one Buffer, or undefined if it holds nothing. A `read()`
 * with no size gives all of it on Node, but only the first chunk on Deno and Bun, so the size
 * is asked for, and asked again while anything is left.
 */
function takeBuffered(stream) {
  const chunks = []
  while (stream.readableLength > 0) {
    const chunk = stream.read(stream.readableLength)
    if (chunk === null) break
    chunks.push(chunk)
  }
  return chunks.length < 2 ? chunks[0] : Buffer.concat(chunks)
}

/**
 * Gives back the streams of readers collected before their first step (see ReadableChunks): the
 * held value holds the stream, not the reader.
 */
const unstepped = new FinalizationRegistry((giveBack) => giveBack())

/**
 * Makes `stream` ignore resume() until `release()` (the reader's first step, or its close): from
 * the call, the stream is the reader's. A ChildProcess resumes its stdout and stderr when the
 * child exits if nothing has used them, and their bytes are then dropped (Node, Bun and Deno
 * alike), so a reader made before the exit and stepped after it would find none. Nothing is read
 * meanwhile. A stream with a `resume` of its own is left as it is. `forsake()`, for a reader
 * collected unstepped, leaves the stream as it would be without it: its own resume(), called if
 * something asked for it meanwhile (the child's exit).
 */
function ignoreResume(stream) {
  if (Object.hasOwn(stream, 'resume')) return { release: ignore, forsake: ignore }
  let asked = false
  function resumeIgnored() {
    asked = true
    return this
  }
  Object.defineProperty(stream, 'resume', {
    value: resumeIgnored,
    configurable: true,
    writable: true,
    enumerable: false,
  })
  // Only ever removes its own resume().
  const release = () => {
    if (stream.resume !== resumeIgnored) return false
    delete stream.resume
    return true
  }
  return { release, forsake: () => release() && asked && stream.resume() }
}

/**
 * A Node Readable, read in paused mode: `read()` takes what it has buffered (and has it read
 * more, up to its highWaterMark), and 'readable' says when there is more. So it reads only as
 * fast as it is pulled, and ending early destroys it, as leaving a `for await` over it does.
 */
class ReadableChunks {
  #stream
  #error = undefined
  #ended = false
  #wake = null
  /**
   * Whether the stream said 'readable' since read() last gave nothing: wait() then has nothing
   * to wait for. A reader that frames chunks itself may let the event loop turn between a pull
   * and its wait, and the 'readable' that came meanwhile would not come again.
   */
  #readable = false
  /** The pipe handle whose reading was stopped to read its descriptor natively (see descriptor()). */
  #stopped = null
  /** Whether its descriptor is read natively as it is: process.stdin's, or an open file stream's. */
  #readAsItIs = false
  #onReadable = () => {
    this.#readable = true
    this.#woken()
  }
  #onEnd = () => {
    this.#ended = true
    this.#woken()
  }
  /** Listens for errors from the call on, holding this weakly (see the constructor). */
  #onError
  #failed(error) {
    this.#error ??= error
    this.#woken()
  }
  #onClose = () => {
    if (!this.#ended && this.#stream.readableEnded !== true) {
      this.#error ??= this.#stream.errored ?? codedError(Error, 'ERR_STREAM_PREMATURE_CLOSE', 'Premature close')
    }
    this.#woken()
  }

  /** What ignores the stream's resume() until the first step (see ignoreResume). */
  #resume

  /**
   * Listens for errors at once: one before the first step (a failed open) is its error. Until
   * then, the stream ignores resume() (see ignoreResume). Its error listener holds this weakly,
   * so that a reader dropped before its first step is collected although the stream lives on (a
   * child's stdout): the stream then gets back its resume() and loses the listener, as if no
   * reader had been made. Held by the stream, a reader made and dropped stopped it for good: a
   * 'data' listener added later got nothing, and the child never closed.
   */
  constructor(stream) {
    this.#stream = stream
    this.#onError = ReadableChunks.#weakly(new WeakRef(this))
    stream.on('error', this.#onError)
    this.#resume = ignoreResume(stream)
    unstepped.register(this, ReadableChunks.#givingBack(stream, this.#onError, this.#resume), this)
  }

  /**
   * The error listener, and below what gives the stream back: made by static methods, since a
   * function made in the constructor would share its scope, and with it this.
   */
  static #weakly(self) {
    return (error) => self.deref()?.#failed(error)
  }

  static #givingBack(stream, onError, { forsake }) {
    return () => {
      stream.off('error', onError)
      forsake()
    }
  }

  /** Leaves the stream as it would be had no reader been made, as when one is collected unstepped. */
  giveBack() {
    unstepped.unregister(this)
    ReadableChunks.#givingBack(this.#stream, this.#onError, this.#resume)()
  }

  /** The stream's resume() is its own again: at the first step, or at the close. */
  #release() {
    unstepped.unregister(this)
    this.#resume.release()
  }

  /**
   * The descriptor to read natively, with no chunk passing through JS, as `{ fd, taken }`:
   * - process.stdin's, if nothing has read from it yet and it is not a terminal;
   * - an open whole-file stream's (see isWholeFileStream), which has read nothing, so its
   *   offset is the file's start;
   * - on Node and Deno, a pipe stream's that nobody reads (see takeablePipe): its reading is stopped,
   *   and what it had read is `taken`, read first (and fed first, if the descriptor cannot be
   *   read after all).
   * Any other stream may be reading its descriptor where it cannot be stopped (a child's stdout
   * on Bun), or have its own idea of it (a file stream's `start` or `end`), and is fed.
   */
  descriptor() {
    this.#release()
    const stream = this.#stream
    if (stream === process.stdin && stream.fd === 0) {
      this.#readAsItIs = stream.isTTY !== true && isUntouched(stream)
      return this.#readAsItIs ? { fd: 0 } : undefined
    }
    if (typeof stream.fd === 'number' && isWholeFileStream(stream)) {
      this.#readAsItIs = true
      return { fd: stream.fd }
    }
    if (!takeablePipe(stream)) return undefined
    const handle = stream._handle
    // Its read() may start the handle again, so stop it after.
    const taken = takeBuffered(stream)
    handle.readStop()
    // Still marked as reading, so that the stream's own _read does not start it again behind
    // fastlines' back: a ChildProcess resumes a stdout nobody used once the child exits.
    handle.reading = true
    this.#stopped = handle
    return { fd: handle.fd, taken }
  }

  /** Where errors say the bytes came from: a file stream's path. */
  get display() {
    const { path } = this.#stream
    return typeof path === 'string' ? path : undefined
  }

  start() {
    this.#release()
    const stream = this.#stream
    stream.on('readable', this.#onReadable)
    stream.on('end', this.#onEnd)
    stream.on('close', this.#onClose)
    if (stream.errored) this.#error = stream.errored
    else if (stream.readableEnded) this.#ended = true
    else if (stream.destroyed) this.#onClose()
    // Taken over, but its descriptor could not be read natively after all: it reads again.
    this.#restart()
  }

  pull() {
    if (this.#error !== undefined) throw this.#error
    this.#readable = false
    const chunk = this.#stream.read()
    if (chunk !== null) return chunk
    return this.#ended ? END : WAIT
  }

  wait() {
    if (this.#readable || this.#ended || this.#error !== undefined) return Promise.resolve()
    return new Promise((resolve) => {
      this.#wake = resolve
    })
  }

  unwrap() {
    return this.pull()
  }

  /**
   * Its bytes were all read natively, to their end: a stream whose descriptor was read (see
   * descriptor()) reads again and flows, so that it sees that end itself and ends as it would
   * have after a `for await` over it ('end', then 'close' if it closes itself, and a child's
   * 'close' after; a file stream with `autoClose: false` keeps its descriptor open). One fed to
   * its end is left as it ended. False for any other stream, which is let go as cancel() lets it
   * go.
   */
  handBack() {
    if (this.#ended) {
      // It ended itself, and is left as a `for await` leaves a stream that ended: it closes
      // itself if it was made to (autoDestroy), and not otherwise.
      this.#unlisten()
      return true
    }
    if (this.#stopped === null && !this.#readAsItIs) return false
    this.#restart()
    this.#stream.resume()
    return true
  }

  cancel() {
    this.#release()
    this.#unlisten()
    // A late 'error' after destroy() must not go unhandled: keep listening.
    this.#stream.destroy()
    this.#woken()
  }

  /** Stops listening for the stream's data and end (not for its errors: see cancel()). */
  #unlisten() {
    const stream = this.#stream
    stream.off('readable', this.#onReadable)
    stream.off('end', this.#onEnd)
    stream.off('close', this.#onClose)
  }

  /** Starts the reading of a pipe handle that descriptor() stopped again, as Node's own read would. */
  #restart() {
    const handle = this.#stopped
    this.#stopped = null
    if (handle === null || this.#stream._handle !== handle) return
    if (handle.readStart() !== 0) this.#stream.destroy()
  }

  #woken() {
    const wake = this.#wake
    this.#wake = null
    if (wake !== null) wake()
  }
}

/**
 * A web ReadableStream, through the reader taken at the first step. Ending early cancels it; ended
 * either way, the reader is released, as a `for await` over the stream releases it.
 */
class WebStreamChunks {
  /** Gives the stream to read: called at the first step (a Blob's `stream()` is made then). */
  #streamOf
  /**
   * What ending it before the first step does: cancels a stream given as it is, and nothing for
   * one that would have been made then (a Blob's).
   */
  #cancelUnstarted
  #reader = null
  /**
   * What taking the stream's reader threw, if it did: its first read fails with it, as a source
   * that fails does, rather than the call (Bun's file streams open their file then, and throw
   * ENOENT; a stream locked since the call throws ERR_INVALID_STATE); `for await` over the
   * stream throws it at its first step too.
   */
  #failure = undefined

  constructor(streamOf, cancelUnstarted) {
    this.#streamOf = streamOf
    this.#cancelUnstarted = cancelUnstarted
  }

  get display() {
    return undefined
  }

  /**
   * Locks the stream, at the first step rather than at the call: a reader dropped before its
   * first step leaves the stream as it found it, as it leaves a Node stream.
   */
  start() {
    let stream
    try {
      stream = this.#streamOf()
      this.#reader = stream.getReader()
    } catch (error) {
      this.#failure = { error: stream?.locked === true ? lockedStreamError() : error }
    }
  }

  pull() {
    return WAIT
  }

  wait() {
    if (this.#failure !== undefined) return Promise.reject(this.#failure.error)
    return this.#reader.read()
  }

  unwrap({ value, done }) {
    if (!done) return value
    this.#reader.releaseLock()
    return END
  }

  cancel() {
    // A read still pending ends with the cancel, so the release finds none to fail. Once
    // released (at the end), the cancel fails for the reader: the stream is over anyway. What
    // a reader not made by the engine throws is not passed on, as for any source (README).
    if (this.#reader === null && this.#failure === undefined) this.#cancelUnstarted()
    if (this.#reader === null) return
    try {
      this.#reader.cancel().catch(ignore)
      this.#reader.releaseLock()
    } catch {}
  }
}

/**
 * An iterable or async iterable of chunks. Ending early calls the iterator's `return()`. A sync
 * iterable's promise of a chunk is awaited, as `for await` and `Readable.from` await it.
 */
class IteratorChunks {
  #iterable
  #symbol
  #iterator = null
  #done = false
  /** A sync iterable's chunk still to be awaited (a promise, or any thenable), or null. */
  #awaited = null
  /** Whether what wait() gave last is the iterator's next() (not a sync iterable's chunk). */
  #waitedForNext = false

  constructor(iterable, symbol) {
    this.#iterable = iterable
    this.#symbol = symbol
  }

  get display() {
    return undefined
  }

  start() {
    this.#iterator = this.#iterable[this.#symbol]()
  }

  pull() {
    if (this.#symbol !== Symbol.iterator) return WAIT
    const chunk = this.unwrap(this.#next())
    if (typeof chunk?.then !== 'function') return chunk
    this.#awaited = chunk
    return WAIT
  }

  wait() {
    this.#waitedForNext = this.#awaited === null
    if (this.#awaited === null) return this.#next()
    const awaited = Promise.resolve(this.#awaited)
    this.#awaited = null
    return awaited.then((value) => ({ value, done: false }))
  }

  /**
   * What wait() gave rejected. An iterator whose next() throws or rejects is broken, and
   * `for await` does not call its return() after: neither does cancel() (a hand-written
   * iterator cleaned up twice). A sync iterable's chunk that rejects is not its iterator's
   * failure: that one is returned, as `for await` returns it. (Told by the pump, rather than by
   * a handler on each next()'s promise, which cost 5-15% over 100-byte chunks.)
   */
  rejected() {
    if (this.#waitedForNext) this.#done = true
  }

  /** The iterator's next result; one that throws breaks it (see rejected()). */
  #next() {
    try {
      return this.#iterator.next()
    } catch (error) {
      return this.#broken(error)
    }
  }

  #broken(error) {
    this.#done = true
    throw error
  }

  /** An iterator result's chunk, or END; a result that is not an object fails as `for await` fails. */
  unwrap(result) {
    if (result === null || (typeof result !== 'object' && typeof result !== 'function')) {
      this.#broken(new TypeError(`Iterator result ${String(result)} is not an object`))
    }
    const { value, done } = result
    if (!done) return value
    this.#done = true
    return END
  }

  cancel() {
    if (this.#done || this.#iterator === null || typeof this.#iterator.return !== 'function') return
    this.#done = true
    Promise.resolve()
      .then(() => this.#iterator.return())
      .catch(ignore)
  }
}

/**
 * A FileHandle, read from its current position with `read()`, a chunk per call. It stays the
 * caller's: it is not closed here, at the end or on close().
 */
class FileHandleChunks {
  #handle
  #buffer = null

  constructor(handle) {
    this.#handle = handle
  }

  get display() {
    return undefined
  }

  /** The handle's descriptor: read natively, from the handle's current offset. */
  descriptor() {
    return this.#handle.fd >= 0 ? { fd: this.#handle.fd } : undefined
  }

  start() {
    this.#buffer = Buffer.allocUnsafe(FILE_HANDLE_READ_BYTES)
  }

  pull() {
    return WAIT
  }

  wait() {
    return this.#handle.read(this.#buffer, 0, this.#buffer.length, null)
  }

  /** The bytes read, in the buffer the next read fills again (see ByteSource#gathered). */
  unwrap({ bytesRead }) {
    return bytesRead === 0 ? END : this.#buffer.subarray(0, bytesRead)
  }

  cancel() {}
}

/**
 * Feeds a source's chunks to a native reader: started at the reader's first step, it pulls a
 * chunk, pushes it, and when the native read-ahead is full waits for room, until the source
 * ends, fails (then `error` is why, and the native reader reports a failure after the complete
 * lines before it), or `stop()` is called. A reader that framed all it was fed waits for the
 * next push with `onFed()` (see src/fed_stream.rs in the core crate).
 */
class ByteSource {
  #chunks
  #stopped = false
  /** The number `push()` takes for the native source (see src/feeding.rs), once it is fed. */
  #feeder = null
  /** Resolves the pump's wait for room in the native read-ahead. */
  #roomed = null
  /**
   * Whether the native source was asked to say when it has room (`waitForRoom()`), and has not
   * said so yet. A pump resumed meanwhile by a reader that emptied the read-ahead (onFed()) and
   * full again waits on that same ask: asking again left one more call to come per resumption,
   * each of which let a chunk in past the bound, and over 64 KiB chunks from memory the queue
   * grew to 4 MiB of its 1 MiB, with fresh memory for about 40% of the chunks.
   */
  #roomAsked = false
  /**
   * Small chunks not handed over yet (see HAND_OVER_BYTES), copied in as they come: a source
   * may fill the memory of a chunk again once the next is pulled (a FileHandle's reads reuse one
   * buffer, and so may a user's generator), so a gathered chunk is never kept by reference. Its
   * first `#gatheredBytes` bytes are the chunks; it holds GATHER_BYTES and one more small chunk,
   * and is made for the first one.
   */
  #gathered = null
  #gatheredBytes = 0
  /**
   * What runs at the end of this event-loop turn once something was fed in it, `#endTurn`: it
   * hands the gathered chunks over and flushes, so that the native reader reads what is queued
   * however little it is (before that, it is woken only for enough bytes, see FED_WAKE_BYTES in
   * the core crate).
   */
  #turnEnd = null
  /**
   * Whether the hand-over at the end of a turn found the read-ahead full: the pump then waits
   * for room after its next chunk. A source that gives a small chunk per turn has every chunk
   * gathered and handed over there, and without this was pulled with no bound at all.
   */
  #fullAtTurnEnd = false
  /**
   * Set when a chunk was handed straight to the reader, until the event loop next runs its
   * immediates: chunks that follow before that (from a source that yields from memory, or
   * several in one turn) are gathered, so that they cost a native call per 16 KiB rather than
   * per chunk. An immediate rather than a `nextTick`: for a producer that sends a line per
   * turn, the tick cost 0.3 us a line, the immediate 0.1 us.
   */
  #burst = null
  #burstOver = () => {
    this.#burst = null
    this.#turns.turned()
  }
  /**
   * When the event loop last turned, as far as the pump saw: a source that gives its chunks
   * from memory (an async generator, a Readable that pushes in _read) to a reader that keeps
   * up (a count) is pulled in microtasks alone, and starved timers, I/O and an abort until it
   * ended, for ever if it never did. The pump lets the loop turn every few ms.
   */
  #turns = new TurnClock()
  /** Chunks pushed, counted for PUSHES_PER_LOOK. */
  #pushes = 0
  /** What the reader waiting for the next push calls then (see onFed()). */
  #onFed = null
  /** Whether string chunks are taken as their Latin-1 bytes (the reader's encoding), not UTF-8. */
  #latin1 = false
  /**
   * What the reader does with a small chunk of whole lines that starts a line (see open()):
   * 'frame' it itself, 'count' it here (#takenAtOnce), or nothing (undefined).
   */
  #wholeLines = undefined
  /** The lines counted here, which the native count leaves out. */
  linesCountedHere = 0
  /**
   * The high surrogate a string chunk ended with, or '': held for the next string chunk, which
   * may begin with its low half (a stream decoding UTF-16 cuts pairs), so that the pair is one
   * character, as in the text the chunks make. Anything else that comes next pushes it alone.
   */
  #highSurrogate = ''
  /**
   * How many bytes the source gave so far, pushed or handed to a waiting reader (counted only
   * for a reader that frames chunks itself, which asks where they start), and whether the last
   * of them was `\n` (true before any): a chunk handed over then starts a line, with nothing of
   * a line before it left to frame (see onFed()).
   */
  #givenBytes = 0
  #givenEndsLine = true
  /** How many times the source was fed (a push, the end, a failure or a stop): a reader told
   * that it framed all it was fed has nothing new to frame while this stays the same. */
  feeds = 0
  /** Why the source failed, once it has: what the reader rejects with. */
  error = undefined
  /**
   * The native source not pumped yet, while the reader takes the chunks and frames them itself
   * (see open()), or null.
   */
  #unpumped = null
  /** Whether the source's chunks were started (see takeChunk()). */
  #chunksStarted = false
  /** Whether takeChunk() gave WAIT: the next chunk is waitChunk()'s, and pulling again would skip one. */
  #mustWait = false

  constructor(chunks) {
    this.#chunks = chunks
  }

  get display() {
    return this.#chunks.display
  }

  /**
   * Makes a native reader with `open(nativeSource, fed)`: of the source's descriptor, if it has
   * one fastlines may read, else of what is fed to it from here on (then `fed` is true). String
   * chunks become bytes in `encoding`, the reader's ('utf8' or 'latin1'). `wholeLines` says what
   * the reader does with a small chunk of whole lines that starts a line (see frame-here.js):
   * 'frame', a line reader frames it itself, given where it starts (see onFed()); 'count',
   * countLines counts it here, and the count the reader gives leaves out `linesCountedHere`.
   * A fed reader that `framesChunks` takes the chunks itself (takeChunk(), waitChunk()) and frames
   * them (see CarriedFraming in frame-here.js) until it has the pump feed the rest (pumpFrom()).
   */
  open(open, encoding, wholeLines = undefined, framesChunks = false) {
    this.#latin1 = encoding === 'latin1'
    this.#wholeLines = wholeLines
    const descriptor = process.platform === 'win32' ? undefined : this.#chunks.descriptor?.()
    if (descriptor !== undefined) {
      const native = descriptorSource(descriptor)
      if (native !== undefined) return open(native, false)
    }
    const feed = binding.NativeByteSource.fed(ByteSource.#onRoomOf(new WeakRef(this)))
    this.#feeder = feed.feeder
    const native = open(feed, true)
    // Bytes taken with a descriptor that could not be read after all come before any chunk.
    if (descriptor?.taken !== undefined) this.#push(feed, descriptor.taken)
    if (framesChunks && descriptor?.taken === undefined) this.#unpumped = feed
    else this.#pump(feed).catch((error) => this.#fail(feed, error))
    return native
  }

  /** Whether the reader takes the chunks and frames them itself, until pumpFrom(). */
  get framedByReader() {
    return this.#unpumped !== null
  }

  /**
   * For a reader that frames the chunks itself (see open()): the next chunk, or END, if the
   * source has it at once; WAIT if waitChunk() must wait for it. Throws as the source fails.
   */
  takeChunk() {
    if (!this.#chunksStarted) {
      this.#chunksStarted = true
      this.#chunks.start()
    }
    if (this.#mustWait) return WAIT
    const chunk = this.#chunks.pull()
    this.#mustWait = chunk === WAIT
    return chunk
  }

  /** Whether takeChunk() gave WAIT: the next chunk is waitChunk()'s. */
  get awaitsChunk() {
    return this.#mustWait
  }

  /**
   * Takes the next chunk, waiting for it if need be: `took(chunk)` gets it (or END), or
   * `failed(error)` the source's failure. Callbacks, not a promise: a reader that frames the
   * chunks itself waits here once per chunk, and each promise and async frame less is an
   * allocation less per chunk.
   */
  waitChunk(took, failed) {
    const chunks = this.#chunks
    let taken
    try {
      taken = this.takeChunk()
    } catch (error) {
      failed(error)
      return
    }
    if (taken !== WAIT) {
      took(taken)
      return
    }
    let waited
    try {
      waited = chunks.wait()
    } catch (error) {
      chunks.rejected?.()
      failed(error)
      return
    }
    Promise.resolve(waited).then(
      (result) => {
        this.#mustWait = false
        let chunk
        try {
          chunk = chunks.unwrap(result)
        } catch (error) {
          failed(error)
          return
        }
        took(chunk)
      },
      (error) => {
        chunks.rejected?.()
        failed(error)
      },
    )
  }

  /**
   * Has the pump feed the native reader from here on, for a reader that framed the chunks
   * itself: first `carried`, the partial line it had framed up to, which starts at byte
   * `framedBytes` of the source, then what `first()` gives (the chunk taken that the reader did
   * not frame, or END; it throws for a failure), then the rest.
   */
  pumpFrom(carried, framedBytes, first) {
    const feed = this.#unpumped
    this.#unpumped = null
    this.#mustWait = false
    this.#givenBytes = framedBytes
    this.#givenEndsLine = true
    if (carried.byteLength > 0) this.#push(feed, carried)
    this.#pump(feed, first).catch((error) => this.#fail(feed, error))
  }

  /**
   * The native source's `onRoom`, which resumes the pump of `source` (a WeakRef): a static
   * method, so that the function shares no scope with open() and its native source. The native
   * source holds it through a strong handle of the engine's: a function that held the source,
   * or the native source, kept both alive for good, and every chunk the source had given
   * (220 bytes a 3-byte chunk, read to its end and collected).
   */
  static #onRoomOf(source) {
    return () => source.deref()?.#roomSaid()
  }

  /** The native source said it has room (see #roomAsked). */
  #roomSaid() {
    this.#roomAsked = false
    this.#resumePump()
  }

  /**
   * Calls `callback` at the next push, the end, a failure or `stop()`: what a reader told that
   * it has framed all it was fed waits for. A small chunk is not pushed but handed to the
   * callback, `callback(chunk, lineStart)`, which must feed it at once (the native `feed()`
   * pushes it and takes what it completes in one call, src/feeding.rs), or frame it itself if
   * `lineStart` is not -1: then the chunk starts a line, at that offset in the source, and the
   * native side holds nothing of one (frame-here.js). The feed has room for it, since the
   * reader emptied it. That reader emptied the read-ahead on this thread, so a pump waiting
   * for room goes on now: the native call saying so would come through a weak callback, which
   * does not keep the event loop alive while only the reader waits.
   */
  onFed(callback) {
    this.#onFed = callback
    this.#resumePump()
  }

  /**
   * The native reader read the source to its end: lets it go as it ended (a stream whose
   * descriptor was read natively ends as it would have, see ReadableChunks#handBack), or else
   * as stop() does. Idempotent, with stop().
   */
  finish() {
    if (this.#stopped) return
    if (this.#chunks.handBack?.()) this.#stopped = true
    else this.stop()
  }

  /**
   * Leaves the source as it was before the reader was made, which will not read it: reading
   * could not start. stop() does nothing after.
   */
  giveBack() {
    if (this.#stopped) return
    this.#stopped = true
    this.#chunks.giveBack?.()
  }

  /** Stops pulling and lets the source go: destroyed, cancelled or returned. Idempotent. */
  stop() {
    if (this.#stopped) return
    this.#stopped = true
    if (this.#turnEnd !== null) clearImmediate(this.#turnEnd)
    if (this.#burst !== null) clearImmediate(this.#burst)
    this.#gatheredBytes = 0
    this.#chunks.cancel()
    this.#wakeReader()
  }

  /** The pump; its first chunk is what `first()` gives, if given (see pumpFrom()). */
  async #pump(feed, first = undefined) {
    const chunks = this.#chunks
    // Here, so that a source that fails to start (an iterator method that throws) fails as a
    // source does, once: thrown from open(), it failed every step, and was started again for each.
    if (!this.#chunksStarted) {
      this.#chunksStarted = true
      chunks.start()
    }
    while (!this.#stopped) {
      let chunk = first === undefined ? chunks.pull() : first()
      first = undefined
      while (chunk === WAIT && !this.#stopped) {
        let result
        try {
          result = await chunks.wait()
        } catch (error) {
          // Told here rather than by a handler on each chunk's promise (see IteratorChunks).
          chunks.rejected?.()
          throw error
        }
        chunk = chunks.unwrap(result)
      }
      if (this.#stopped) return
      if (chunk === END) {
        this.#releaseHighSurrogate(feed)
        this.#handOverGathered(feed)
        feed.end()
        this.#wakeReader()
        return
      } else if (!this.#push(feed, chunk) || this.#fullAtTurnEnd) {
        this.#fullAtTurnEnd = false
        await new Promise((resolve) => {
          this.#roomed = resolve
          if (this.#roomAsked) return
          this.#roomAsked = true
          feed.waitForRoom()
        })
        this.#turns.turned()
        if (feed.unread) return
      } else if (++this.#pushes % PUSHES_PER_LOOK === 0 && this.#turns.overdue()) {
        await new Promise((resolve) => setImmediate(resolve))
      }
    }
  }

  /** Hands one chunk over, or gathers it if it is small; whether the feed has room for more. */
  #push(feed, chunk) {
    if (typeof chunk === 'string' && !this.#latin1) {
      if (chunk.length >= TEXT_ENCODED_HERE_CHARS) return this.#pushText(feed, chunk)
      const text = this.#wholeCharacters(chunk)
      return text === '' || this.#pushBytes(feed, Buffer.from(text, 'utf8'))
    }
    if (typeof chunk === 'string') chunk = Buffer.from(chunk, 'latin1')
    // An empty chunk, or a detached one, is nothing: a high surrogate held back stays held for
    // the string chunk that may end its pair.
    if (isUint8Array(chunk) && chunk.byteLength === 0) return true
    const held = this.#releaseHighSurrogate(feed)
    return this.#pushBytes(feed, chunk) && held
  }

  /** #push() of bytes: hands them over, or gathers them if they are few; whether there is room. */
  #pushBytes(feed, chunk) {
    const bytes = isUint8Array(chunk)
    // An empty chunk, or one whose buffer was detached (transferred) since it was given, which
    // reads as empty but cannot be copied from.
    if (bytes && chunk.byteLength === 0) return true
    const small = bytes && chunk.byteLength < HAND_OVER_BYTES
    if (small && this.#burst === null && this.#gatheredBytes === 0 && this.#takenAtOnce(chunk)) {
      this.#burst = setImmediate(this.#burstOver)
      return true
    }
    if (bytes) this.#given(chunk)
    this.#turnEnd ??= setImmediate(() => this.#endTurn(feed))
    if (small) {
      this.#gathered ??= Buffer.allocUnsafe(GATHER_BYTES + HAND_OVER_BYTES)
      this.#gathered.set(chunk, this.#gatheredBytes)
      this.#gatheredBytes += chunk.byteLength
      return this.#gatheredBytes >= GATHER_BYTES ? this.#handOverGathered(feed) : true
    }
    let room = this.#handOverGathered(feed)
    if (!bytes) {
      throw invalidArgType('chunk', 'of type string or an instance of Buffer or Uint8Array', chunk)
    }
    room = binding.push(this.#feeder, chunk) && room
    this.#wakeReader()
    return room
  }

  /** Hands a string chunk over as its UTF-8 bytes, a high surrogate at its end held back. */
  #pushText(feed, text) {
    text = this.#wholeCharacters(text)
    return text === '' || this.#handOverText(feed, text)
  }

  /**
   * `text` after the high surrogate held back from the chunk before, with a high surrogate at
   * its end held back in turn: it may be the first half of a character the next chunk ends.
   */
  #wholeCharacters(text) {
    text = this.#highSurrogate + text
    this.#highSurrogate = ''
    const last = text.charCodeAt(text.length - 1)
    if (last >= 0xd800 && last <= 0xdbff) {
      this.#highSurrogate = text[text.length - 1]
      return text.slice(0, -1)
    }
    return text
  }

  /**
   * Hands over the high surrogate held back, if any, alone: it becomes U+FFFD, as any lone one
   * does. Whether there is room.
   */
  #releaseHighSurrogate(feed) {
    if (this.#highSurrogate === '') return true
    const surrogate = this.#highSurrogate
    this.#highSurrogate = ''
    return this.#handOverText(feed, surrogate)
  }

  /**
   * Whether a small chunk, the first of its turn, was taken at once: handed to the reader that
   * waits for one (see onFed()), or, for a count of every line, counted here if it is whole
   * lines that start a line (see frame-here.js). Chunks that follow in the same turn are then
   * gathered (see #burst).
   */
  #takenAtOnce(chunk) {
    if (this.#onFed !== null) {
      const lineStart = this.#givenEndsLine && this.#wholeLines === 'frame' ? this.#givenBytes : -1
      this.#given(chunk)
      this.#wakeReader(chunk, lineStart)
      return true
    }
    const lines = this.#wholeLines === 'count' && this.#givenEndsLine ? linesCountedHere(chunk) : -1
    if (lines === -1) return false
    this.linesCountedHere += lines
    this.#given(chunk)
    return true
  }

  /** Hands `text` over as its UTF-8 bytes, after the gathered chunks; whether there is room. */
  #handOverText(feed, text) {
    this.#given(text)
    this.#turnEnd ??= setImmediate(() => this.#endTurn(feed))
    let room = this.#handOverGathered(feed)
    room = binding.pushText(this.#feeder, text) && room
    this.#wakeReader()
    return room
  }

  /** The end of a turn in which chunks were fed: see #turnEnd. */
  #endTurn(feed) {
    this.#turnEnd = null
    this.#turns.turned()
    if (!this.#handOverGathered(feed)) this.#fullAtTurnEnd = true
    if (!this.#stopped) binding.flush(this.#feeder)
  }

  /** Hands the gathered chunks over as one; whether the feed has room for more. */
  #handOverGathered(feed) {
    if (this.#gatheredBytes === 0 || this.#stopped) return true
    // The feed copies what it is pushed: the buffer gathers the next chunks.
    const room = binding.push(this.#feeder, this.#gathered.subarray(0, this.#gatheredBytes))
    this.#gatheredBytes = 0
    this.#wakeReader()
    return room
  }

  /**
   * Ends the pump's wait for room, if it waits. A late call (the native side reporting room the
   * pump was already given) lets it push one chunk early, which the feed takes: the bound on
   * the read-ahead stays within a chunk.
   */
  #resumePump() {
    const roomed = this.#roomed
    this.#roomed = null
    if (roomed !== null) roomed()
  }

  /**
   * Notes a chunk given: bytes, or text given as its UTF-8 bytes, whose length is a pass over it
   * taken only for a reader that asks where chunks start. An empty chunk changes nothing.
   */
  #given(chunk) {
    if (typeof chunk === 'string') {
      if (this.#wholeLines === 'frame') this.#givenBytes += Buffer.byteLength(chunk, 'utf8')
      this.#givenEndsLine = chunk.endsWith('\n')
    } else if (chunk.byteLength > 0) {
      this.#givenBytes += chunk.byteLength
      this.#givenEndsLine = endsLine(chunk)
    }
  }

  /**
   * Counts a feed and tells the waiting reader, if any; handing it `chunk` and where it starts
   * a line, if given (see onFed()).
   */
  #wakeReader(chunk, lineStart) {
    this.feeds++
    const onFed = this.#onFed
    this.#onFed = null
    if (onFed !== null) onFed(chunk, lineStart)
  }

  #fail(feed, error) {
    if (this.#stopped) return
    this.error = error
    this.#releaseHighSurrogate(feed)
    this.#handOverGathered(feed)
    feed.fail()
    this.stop()
  }
}

/**
 * The native source of a duplicate of `fd`, read after `taken`; undefined if it cannot be
 * duplicated (out of descriptors, say), and then the source is fed instead.
 */
function descriptorSource({ fd, taken }) {
  try {
    return binding.NativeByteSource.descriptor(fd, taken)
  } catch {
    return undefined
  }
}

/**
 * If `value` is a byte source, a function that takes hold of it and gives it ready to feed a
 * reader (see chunksOf), to call once the call's options are accepted; undefined if it is not
 * one.
 */
function byteSourceOf(value) {
  const chunks = chunksOf(value)
  return chunks === undefined ? undefined : () => new ByteSource(chunks())
}

function ignore() {}

module.exports = { END, WAIT, byteSourceOf, fileStreamPath, isByteSource }
