// readChunks: the raw bytes of a file (or a byte source, decompressed) as Buffers, straight from a native chunk stream
// (source.js), with no lines made.
'use strict'

const binding = require('./native')
const { ClosingAsyncIterator, StepQueue, done, yielded } = require('./iterator')
const { checkOptionNames, copyOptions } = require('./option-names')
const { refuseEncoding, refuseLineOptions } = require('./options')
const { NativeSource } = require('./source')

/** A native stream of raw chunks, of a file or a byte source (see NativeSource). */
const chunkStream = {
  path: (bytes, { read }) => ({ open: () => new binding.NativeChunkStream(bytes, read) }),
  source: (source, { read }) => binding.NativeChunkStream.fromSource(source, read),
}

/** Iterates the raw chunks of a file as Buffers. */
class ChunkReader extends ClosingAsyncIterator {
  #source
  #queue = new StepQueue()

  constructor(input, options) {
    super()
    refuseLineOptions(options)
    refuseEncoding(options)
    checkOptionNames(options, 'readChunks')
    this.#source = new NativeSource(chunkStream, input, options)
  }

  get bytesRead() {
    return this.#source.bytesRead
  }

  next() {
    if (this.#queue.idle) {
      const chunk = this.#source.takeReady()
      if (chunk !== undefined) return Promise.resolve(yielded(chunk))
    }
    // The step is the source's own (see NativeSource#nextItem): an async function awaiting it
    // here would hold this reader for as long as the signal holds the step's rejecter.
    return this.#queue.run(() => this.#source.next(chunkStep))
  }

  close() {
    return this.#source.close()
  }
}

/** The step result of a chunk, or the end; holds no reader. */
const chunkStep = (chunk) => (chunk === null ? done() : yielded(chunk))

function readChunks(input, options) {
  return new ChunkReader(input, copyOptions(options))
}

module.exports = { readChunks }
