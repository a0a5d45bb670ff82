// The async readers' link to the native side: one background stream per reader (batches of
// lines for readLines, Buffers for readChunks), of a file or of a byte source (byte-source.js),
// whose items are taken at once when already read and awaited otherwise, with a turn of the
// event loop at least every 2 ms, and which close() and an abort stop.
'use strict'

const { setImmediate } = require('node:timers/promises')

const { abortError, addAbortListenerOf } = require('./abort')
const { feed, startThreads } = require('./native')
const { END, WAIT, byteSourceOf, fileStreamPath } = require('./byte-source')
const { captureCallSite, withCallSite } = require('./call-site')
const { isNativeFailure, nativeError } = require('./errors')
const { CarriedFraming, framedHere, framingHere } = require('./frame-here')
const { fedLineOptions, normalizeOptions, normalizePath, refuseFileOptions } = require('./options')
const { TurnClock } = require('./turn-clock')

/**
 * One native background stream (batches of lines, or chunks), created on the first step so
 * that a reader nobody iterates opens nothing. Turns native failures into their errors (see
 * errors.js) and an aborted signal into an AbortError that rejects the pending step at once.
 */
class NativeSource {
  #open
  #firstPlace
  #native = null
  /** The number `feed()` takes for the native reader, if it reads a fed byte source. */
  #feeder = null
  /** The byte source read, if it is not a file. */
  #source
  /**
   * What the reader frames on this thread of the source's small chunks (see frame-here.js), or
   * undefined if it leaves all framing to the native side.
   */
  #framing = undefined
  /**
   * What frames every chunk of the byte source here, carrying partial lines over (see
   * CarriedFraming), while it does: until a chunk, the end or a failure goes to the native side
   * (#frameNatively), for a reader of a fed source whose kind says `framesChunks`.
   */
  #carried = undefined
  /**
   * The resolver of the step waiting for the source's next chunk, which close() settles with
   * the end. The resolver itself, not a closure that calls it: a closure made in the step's
   * promise executor holds the executor's whole context, and kept by this long-lived reader, one
   * per chunk, it left Deno's V8 promoting nearly every chunk's text once a full collection had
   * run: over 1 GB in 64 KiB chunks from a generator, with a collection before each run as the
   * bench makes, its batches took 840-918 ms against 513-537 now (natively 751-786).
   */
  #chunkWaitResolve = null
  /**
   * The bytes framed here: what the native side's offsets, which count only what it was fed,
   * leave out of the batches it frames after them.
   */
  framedHereBytes = 0
  /** Lets go of the file stream whose file is read instead (see fileStreamPath), if there is one. */
  #release = undefined
  /** The error a native failure becomes. */
  #errorOf
  /** Where the reader was made, for the errors of later steps (see call-site.js). */
  #callSite = captureCallSite()
  #signal
  #abortListener
  #onAbort
  #rejectStep = null
  #closing = null
  /**
   * close() (or the end, or a failure) came before any abort: an abort after it changes
   * nothing, and steps give the end, as a Node stream's iterator does once it is done.
   */
  #closedFirst = false
  /** Lets the event loop turn every few ms while batches already read are handed out. */
  #turns = new TurnClock()
  /** The end or a failure that takeReady() took from the native side, for next() to report. */
  #final = undefined
  /**
   * The byte source's `feeds` when the native side last said that it framed all it was fed:
   * until it changes, it would say so again (see #starved()).
   */
  #starvedAt = -1

  /**
   * `kind` says how the native stream is made, from the normalized options (see options.js):
   * - `kind.path(bytes, { read, lines })`, called here with the path's bytes, gives `open()`,
   *   which makes the native stream at the first step, and optionally `firstPlace()`, where
   *   reading starts as batchPlace(0) gives it until the native side knows (by default, at
   *   `start`);
   * - `kind.source(native, { read, lines })`, for a reader that also takes byte sources, makes
   *   the native stream of a NativeByteSource (byte-source.js), at the first step; with
   *   `kind.framesHere`, a reader of plain lines frames some small chunks itself (see #onFed),
   *   and with `kind.framesChunks` too, every chunk of a fed source that it can (see #carried).
   * `onAbort` lets the owner drop what it has already taken, so the abort shows at its next step.
   */
  constructor(kind, input, options, onAbort = () => {}) {
    const file = kind.source === undefined ? undefined : fileStreamPath(input)
    const takeSource = kind.source === undefined || file !== undefined ? undefined : byteSourceOf(input)
    if (takeSource === undefined) {
      if (file !== undefined) refuseFileOptions(options)
      const { bytes, display } = normalizePath(file === undefined ? input : file.path, kind.source !== undefined)
      const { read, lines, signal } = normalizeOptions(options)
      const { open, firstPlace = () => startsAtStart(read) } = kind.path(bytes, { read, lines })
      file?.take()
      this.#release = file?.release
      this.#open = file === undefined ? open : () => this.#openFileStream(file, open, kind, input, { read, lines })
      this.#firstPlace = firstPlace
      this.#errorOf = (failure) => nativeError(failure, display)
      this.#signal = signal
    } else {
      refuseFileOptions(options)
      const { read, lines, signal } = normalizeOptions(options)
      this.#readSource(kind, takeSource(), { read, lines })
      this.#signal = signal
    }
    this.#onAbort = onAbort
    this.#abortListener = addAbortListenerOf(this, this.#signal, NativeSource.#aborted)
  }

  /**
   * What the signal's abort does to `source`: a static method, since a function made in the
   * constructor would share its scope, and with it the reader, which the signal must not keep.
   */
  static #aborted(source) {
    source.#onAbort()
    source.#abort()
  }

  get bytesRead() {
    if (this.#native === null) return 0
    return this.#native.bytesRead + (this.#carried === undefined ? this.framedHereBytes : this.#carried.takenBytes)
  }

  /**
   * Where the batch with serial number `serial` was in the file (NativeBatchPlace, see
   * src/position.rs); for 0, an empty batch where reading starts, or null where that is not
   * known yet.
   */
  batchPlace(serial) {
    const place = this.#native === null ? null : this.#native.batchPlace(serial)
    return place === null && serial === 0 ? this.#firstPlace() : place
  }

  /**
   * `use(item)` of the next native item (a string of lines, or a Buffer, or null at the end),
   * as a promise. An item already read is taken at once; only when there is none does this
   * wait for the native side, or, for a byte source whose native side framed all it was fed,
   * for the source's next chunk: then what that chunk completes is given to `use` in the same
   * callback that fed it, so that a producer that sends a line at a time costs its consumer one
   * promise per line, as it costs readline's.
   */
  next(use = identity) {
    if (this.#waitsForFeed()) return this.#waitForFeed(use)
    if (this.#carried === undefined) return this.#step(use)
    if (!this.#waitsForChunk()) return this.#heldBySignal(this.#step(use))
    // A step per chunk: no async frame of #nextItem's, which looks for nothing here.
    const step = this.#waitForChunk().then((item) =>
      item === false ? this.#step(use) : this.#unlessStopped(use)(item),
    )
    return this.#heldBySignal(step)
  }

  /** next()'s step, taken by #nextItem(). */
  #step(use) {
    return this.#nextItem(use).then((item) => (item instanceof FeedWait ? item.step : this.#unlessStopped(use)(item)))
  }

  /**
   * Whether the next item is what the byte source's next chunk completes, framed here (see
   * #carried), with nothing to look at before: the reader is open and on time, and the source
   * said it has no chunk at once.
   */
  #waitsForChunk() {
    return this.#mayTake() && this.#source.awaitsChunk && !this.#turns.overdue()
  }

  /**
   * `step`, a step that may wait on the source's next chunk (see #waitForChunk), as a promise
   * that the signal can reject on its own, as #onFed's: a quiet source nobody refers to any more
   * may be collected with this reader and the step it waits on, and the signal then keeps only
   * what rejects the step whoever awaits it. Without a signal, `step` itself.
   */
  #heldBySignal(step) {
    if (this.#signal === undefined) return step
    return new Promise((resolve, reject) => {
      this.#abortListener.hold(abortRejecter(reject, this.#signal))
      const release = () => this.#abortListener.release()
      step.then(
        (value) => {
          release()
          resolve(value)
        },
        (error) => {
          release()
          reject(error)
        },
      )
    })
  }

  /**
   * `use`, for an item taken before close() or an abort that came before it is handed over:
   * then it is dropped, and the step gives the end (closed) or the AbortError (aborted).
   */
  #unlessStopped(use) {
    return (item) => {
      if (item === null || this.#closing === null) return use(item)
      if (this.#abortShows()) {
        throw withCallSite(abortError(this.#signal), this.#callSite)
      }
      return this.#endOnceClosed(use)
    }
  }

  /**
   * `use(null)`, the end, for a step of a reader that close() stopped: once the file is closed,
   * as the end always settles, so that a loop ended by a close() from elsewhere (a signal
   * handler's) finds it closed after it.
   */
  #endOnceClosed(use = identity) {
    return this.#closing.then(() => use(null))
  }

  /**
   * The next item, for next(); or a FeedWait, whose step (already `use()`d) waits for the byte
   * source's next feed. That step is handed back wrapped, not awaited or chained here: the signal
   * keeps what rejects it (see #onFed), and with it whatever awaits it, which must not be this
   * method's scope or a then(use), which hold the reader.
   */
  async #nextItem(use) {
    if (!this.#started()) return this.#endOnceClosed()
    if (this.#turns.overdue()) {
      await setImmediate()
      this.#turns.turned()
      // The turn may have closed or aborted the reader.
      if (!this.#started()) return this.#endOnceClosed()
    }
    for (;;) {
      const now = this.takeReady()
      if (now !== undefined) return now
      // The source's own code, pulled here (see #takeFramed), may have closed or aborted the reader.
      if (!this.#started()) return this.#endOnceClosed()
      if (this.#final !== undefined) {
        const final = this.#final
        this.#final = undefined
        return this.#settle(final)
      }
      if (this.#carried !== undefined) {
        const item = await this.#waitForChunk()
        if (item !== false) return item
        // The chunk completed no line, or went to the native side: look again.
        if (!this.#started()) return this.#endOnceClosed()
        continue
      }
      if (this.#starved()) return new FeedWait(this.#waitForFeed(use))
      const item = await this.#waitForItem()
      if (item !== false) return item
      // The native side framed all the byte source was fed, for nothing: look again (the
      // source may have been fed meanwhile), then wait for its next feed as above, not on a
      // native step that nothing may ever settle.
      if (!this.#started()) return this.#endOnceClosed()
    }
  }

  /**
   * The next item, synchronously, if it is data that was already read and may be handed out
   * now; undefined otherwise, and then next() takes it or waits for it. This saves the
   * readers a promise per batch while they keep up. An abort, the end or a failure is left to
   * next(), which reports it once the file is closed.
   */
  takeReady() {
    if (!this.#mayTake() || this.#starved() || this.#turns.overdue()) return undefined
    if (this.#carried !== undefined) return this.#takeFramed()
    const item = this.#native.tryRead()
    if (item === false) {
      this.#starvedAt = this.#source.feeds
      return undefined
    }
    if (item === null || (item !== undefined && isNativeFailure(item))) {
      this.#final = item
      return undefined
    }
    return item
  }

  /** Reading has started and is not over: not closed, aborted, ended or failed. */
  #mayTake() {
    return (
      this.#native !== null &&
      this.#closing === null &&
      this.#final === undefined &&
      !(this.#signal !== undefined && this.#signal.aborted)
    )
  }

  /** The signal aborted while the reader was open: its steps give the AbortError. */
  #abortShows() {
    return this.#signal !== undefined && this.#signal.aborted && !this.#closedFirst
  }

  /**
   * The native side framed all the byte source was fed, and nothing was fed since: there is
   * nothing to ask it before the next feed.
   */
  #starved() {
    return this.#source?.feeds === this.#starvedAt
  }

  /**
   * Whether the next item is what the byte source's next feed completes, with nothing to ask
   * the native side before: it framed all it was fed, and the reader is open and on time.
   */
  #waitsForFeed() {
    return this.#mayTake() && this.#starved() && !this.#turns.overdue()
  }

  /** `use()` of what the byte source's next feed completes (see #onFed), as a promise. */
  #waitForFeed(use) {
    return new Promise((resolve, reject) => this.#onFed(resolve, reject, use))
  }

  /**
   * Waits for the byte source's next feed: the native side framed all it was fed. A small
   * chunk comes here instead (see ByteSource.onFed), and is framed at once, here or in one
   * native call (see #frameOrFeed): an item that gives is settled as `use(item)` at once;
   * anything else (a chunk that completes no line, a large chunk, the end, a failure, a close)
   * with what #nextItem() gives then, or `use(null)` once closed.
   */
  #onFed(resolve, reject, use) {
    this.#rejectStep = reject
    // Nothing but the source may hold this reader while it waits, and a quiet source nobody
    // refers to any more may be collected with it, step and all: the signal keeps what rejects
    // the step, so that its abort still settles it for whoever awaits it. Every way the wait
    // ends (a feed, the end, close(), the abort) calls back here.
    this.#abortListener.hold(abortRejecter(reject, this.#signal))
    this.#source.onFed((chunk, lineStart) => {
      this.#abortListener.release()
      // Paced by the source, not ahead of it: what it waits on had its turn.
      this.#turns.turned()
      const fed = chunk === undefined || this.#closing !== null ? undefined : this.#frameOrFeed(chunk, lineStart)
      if (fed != null && fed !== false && !isNativeFailure(fed)) return settleWith(resolve, reject, use, fed)
      if (fed !== undefined && fed !== false) this.#final = fed
      // Looked at once what called this is done: close() stops the source, then marks itself.
      resolve(Promise.resolve().then(() => (this.#closing === null ? this.next(use) : this.#endOnceClosed(use))))
    })
  }

  /**
   * What `chunk`, handed over by the byte source (see #onFed), completes: a FramedBatch made
   * here if it is whole lines that start at `lineStart` (not -1) and frame here as the native
   * side would frame them (see frame-here.js), which leaves the reader starved as it was; else
   * what the native reader makes of it (#feed).
   */
  #frameOrFeed(chunk, lineStart) {
    const framed =
      this.#framing === undefined || lineStart === -1 ? undefined : framedHere(chunk, lineStart, this.#framing)
    if (framed === undefined) return this.#feed(chunk)
    this.framedHereBytes += chunk.byteLength
    this.#starvedAt = this.#source.feeds
    return framed
  }

  /**
   * Feeds `chunk` to the native reader and takes what it completes. An item comes back only
   * when nothing more is framed before the next chunk, and `false` when nothing is: either
   * way the reader is starved until the source's next feed, which counted this one.
   */
  #feed(chunk) {
    const fed = feed(this.#feeder, chunk)
    if (fed === false || (fed != null && !isNativeFailure(fed))) this.#starvedAt = this.#source.feeds
    return fed
  }

  /**
   * The batch of the chunks the source has at once, framed here (see #carried); undefined when
   * the next chunk must be waited for, or went to the native side.
   */
  #takeFramed() {
    for (;;) {
      let chunk
      try {
        chunk = this.#source.takeChunk()
      } catch (error) {
        this.#frameNatively(() => {
          throw error
        })
        return undefined
      }
      // The source's own code, pulled, may have closed or aborted the reader.
      if (chunk === WAIT || this.#closing !== null) return undefined
      const batch = this.#framedOrNative(chunk)
      if (batch !== null) return batch
    }
  }

  /**
   * The batch of the source's next chunk, framed here (see #carried), waited for; `false` when
   * it completed no line or went to the native side, and then next() looks again. Nothing
   * the signal keeps leads here: see next().
   */
  #waitForChunk() {
    return new Promise((resolve, reject) => {
      this.#rejectStep = reject
      this.#chunkWaitResolve = resolve
      const came = (frame) => {
        this.#chunkWaitResolve = null
        // Not taken for a turn of the event loop: a source that gives chunks from memory
        // settles this in a microtask.
        resolve(this.#closing === null ? frame() : this.#endOnceClosed())
      }
      this.#source.waitChunk(
        (chunk) => came(() => this.#framedOrNative(chunk) ?? false),
        (error) =>
          came(() =>
            this.#frameNatively(() => {
              throw error
            }),
          ),
      )
    })
  }

  /**
   * The batch `chunk` (or END) completes, framed here; null if it completes none; undefined if
   * it went to the native side, with all that comes after it.
   */
  #framedOrNative(chunk) {
    const batch = chunk === END ? undefined : this.#carried.frame(chunk)
    if (batch === undefined) this.#frameNatively(() => chunk)
    return batch
  }

  /**
   * Hands the framing over to the native side for good: it goes on from the partial line
   * carried, then what `first()` gives (a chunk not framed here, END, or the failure it throws),
   * then the source's next chunks, which the pump feeds it. `false`, for #waitForChunk.
   */
  #frameNatively(first) {
    const carried = this.#carried
    this.#carried = undefined
    this.framedHereBytes = carried.framedBytes
    this.#source.pumpFrom(carried.carriedBytes(), carried.framedBytes, first)
    return false
  }

  /** The next native item, waited for; `false` when the byte source has to be fed first. */
  #waitForItem() {
    return new Promise((resolve, reject) => {
      this.#rejectStep = reject
      this.#native
        .read()
        .then((item) => {
          this.#turns.turned()
          // A step that settles after close() yields nothing, whatever was read meanwhile.
          if (this.#closing !== null) return this.#endOnceClosed()
          // Woken with nothing to take (see src/streams.rs, read): wait again.
          if (item === undefined) return this.#waitForItem()
          return item === false ? false : this.#settle(item)
        })
        .then(resolve, reject)
    })
  }

  /** Stops the native read and lets the source go; resolves once the file is closed. Idempotent. */
  close() {
    if (this.#closing === null) {
      this.#closedFirst = !(this.#signal !== undefined && this.#signal.aborted)
      this.#abortListener.dispose()
      this.#source?.stop()
      this.#release?.()
      this.#closing = this.#native === null ? Promise.resolve() : this.#native.close()
      const resolve = this.#chunkWaitResolve
      this.#chunkWaitResolve = null
      resolve?.(this.#endOnceClosed())
    }
    return this.#closing
  }

  /** Reads `source`, a ByteSource, from the first step on, with the normalized options. */
  #readSource(kind, source, { read, lines }) {
    this.#source = source
    if (kind.framesHere) this.#framing = framingHere({ read, lines })
    if (kind.framesChunks && this.#framing !== undefined) this.#carried = new CarriedFraming(this.#framing)
    this.#open = () =>
      source.open(
        (native, fed) => kind.source(native, { read, lines: fed ? fedLineOptions(lines) : lines }),
        lines.encoding,
        this.#framing === undefined ? undefined : 'frame',
        this.#carried !== undefined,
      )
    this.#firstPlace = () => startsAtStart(read)
    this.#errorOf = (failure) => (failure.kind === 'source' ? source.error : nativeError(failure, source.display))
  }

  /**
   * At the first step, opens the file a file stream names (see fileStreamPath) with `openPath`,
   * and lets the stream go, if the stream is as it was at the call. One that opened its file
   * since (its path may name another now, after a rotation), was read, destroyed or failed, is
   * read as any other stream is: through its descriptor if it may be, with its own error if it
   * failed.
   */
  #openFileStream(file, openPath, kind, input, options) {
    if (file.unchanged()) {
      file.release()
      return openPath()
    }
    this.#release = undefined
    this.#readSource(kind, byteSourceOf(input)(), options)
    return this.#open()
  }

  /** Throws if aborted, starts the native stream on first use; false once closed. */
  #started() {
    if (this.#abortShows()) {
      this.close()
      throw withCallSite(abortError(this.#signal), this.#callSite)
    }
    if (this.#closing !== null) return false
    if (this.#native === null) {
      const failure = startThreads()
      if (failure !== null) {
        // Nothing was read: the source is left as it was (not destroyed, cancelled or
        // released), so that it can be read once fastlines can start (EMFILE: no descriptor left).
        this.#source?.giveBack()
        this.#release = undefined
        this.close()
        throw withCallSite(this.#errorOf(failure), this.#callSite)
      }
      this.#native = this.#open()
      this.#feeder = this.#source === undefined ? null : this.#native.feeder
      // A source read through its descriptor is framed natively.
      if (this.#carried !== undefined && !this.#source.framedByReader) this.#carried = undefined
      // A byte source is pulled as it opens, and its own code (a sync iterable's, a Readable's
      // _read) may have aborted or closed the reader then, when there was no native stream to
      // close: close it now, and show the abort.
      if (this.#closing !== null) return this.#closedWhileOpening()
    }
    return true
  }

  /** #started() for a reader closed or aborted while its byte source opened: false, or throws. */
  #closedWhileOpening() {
    const native = this.#native
    this.#closing = this.#closing.then(() => native.close())
    if (this.#abortShows()) throw withCallSite(abortError(this.#signal), this.#callSite)
    return false
  }

  /** An item passes; the end or a failure shows only once the file is closed. */
  #settle(item) {
    if (item !== null && !isNativeFailure(item)) return item
    if (item === null) this.#source?.finish()
    return this.close().then(() => {
      if (item !== null) throw withCallSite(this.#errorOf(item), this.#callSite)
      return null
    })
  }

  #abort() {
    if (this.#rejectStep !== null) this.#rejectStep(withCallSite(abortError(this.#signal), this.#callSite))
    this.close()
  }
}

/**
 * What rejects a step with the AbortError of `signal` once its reader is gone, holding nothing
 * but its arguments: made here, not in a method, whose scope would hold the reader (see
 * addAbortListenerOf's hold()). Not the reader's call site either: in V8 an unformatted stack
 * holds its frames' receivers, the reader among them.
 */
function abortRejecter(reject, signal) {
  return () => reject(abortError(signal))
}

/** An empty batch at the `start` option: where a reader of a byte range starts. */
function startsAtStart({ start, share }) {
  // A share starts at its first line, known once the file is open.
  return share === undefined ? { start, end: start } : null
}

const identity = (item) => item

/** A step that waits for the byte source's next feed, as #nextItem() hands it to next(). */
class FeedWait {
  constructor(step) {
    this.step = step
  }
}

/**
 * Settles a step with `use(item)`, or with what `use` throws. `use` may have settled the step
 * itself by then: a reviver or an `onError` function that aborts the reader rejects it (see
 * #abort). A promise `use` gives (the next step's, which the abort rejects too) is then adopted
 * by nothing, so it is let go handled rather than fail the process as an unhandled rejection.
 */
function settleWith(resolve, reject, use, item) {
  try {
    const value = use(item)
    if (typeof value?.then === 'function') value.then(undefined, ignore)
    resolve(value)
  } catch (error) {
    reject(error)
  }
}

function ignore() {}

module.exports = { NativeSource }
