// followLines: the lines of a file as it grows, like `tail -F`: a line reader (line-reader.js)
// over a native follower, which reads what is appended whenever the OS says the file changed,
// and goes on through rotations (see crates/fastlines-core/src/follow.rs).
'use strict'

const binding = require('./native')
const { invalidArgValue } = require('./errors')
const { validateLineCount } = require('./last-lines')
const { refuseDecompress } = require('./options')
const { LineReader } = require('./line-reader')

/** Where the follower starts, for the native side (NativeFollowOptions). */
function followStart(options) {
  const { start, lastLines, end } = options
  if (end !== undefined) throw invalidArgValue('options.end', end, 'is not supported by followLines')
  if (lastLines === undefined) return { atEnd: start === undefined }
  validateLineCount('options.lastLines', lastLines)
  if (start !== undefined) {
    throw invalidArgValue('options.lastLines', lastLines, 'cannot be combined with options.start')
  }
  return { atEnd: false, lastLines }
}

function followLines(path, options) {
  if (typeof options === 'string') options = { encoding: options }
  refuseDecompress(options, 'followLines', 'a compressed file is not appended to; follow the log it was made from')
  const follow = followStart(options ?? {})
  const start = (bytes, { read, lines }) => new binding.NativeLineStream(bytes, read, lines, follow)
  // Before the first step, the position is `start` if given; else where the follower starts
  // is known only once it has opened the file.
  const firstPlace = follow.atEnd || follow.lastLines !== undefined ? () => null : undefined
  return new LineReader(path, options, start, firstPlace)
}

module.exports = { followLines }
