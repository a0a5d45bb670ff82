// followLines: the lines of a file as it grows, like `tail -F`: a line reader (line-reader.js)
// over a native follower, which reads what is appended whenever the OS says the file changed,
// and goes on through rotations (see crates/fastlines-core/src/follow.rs).
'use strict'

const binding = require('./native')
const { invalidArgValue } = require('./errors')
const { validateLineCount } = require('./last-lines')
const { checkOptionNames, copyOptions } = require('./option-names')
const { refuseDecompress, refuseShare } = require('./options')
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
  options = typeof options === 'string' ? { encoding: options } : copyOptions(options)
  refuseDecompress(options, 'followLines', 'a compressed file is not appended to; follow the log it was made from')
  refuseShare(options, 'followLines', 'a follower reads what is appended, past the end of every share')
  const follow = followStart(options ?? {})
  checkOptionNames(options, 'followLines')
  // A follower reads paths only (no `source`): a byte source is refused as a path would be.
  const follower = {
    path: (bytes, { read, lines }) => {
      // The file as it is now, and its length: the follower starts there, whenever the first
      // step comes, and so reads the lines appended in between (see anchor.rs).
      const anchor = new binding.NativeFollowAnchor(bytes)
      return {
        open: () => binding.NativeLineStream.follow(anchor, read, lines, follow),
        firstPlace: () => firstPlace(follow, anchor, read),
      }
    },
  }
  return new LineReader(path, options, follower)
}

/**
 * Where a follower starts, before its first step: `start` if given; the file's end as of the
 * call; with `lastLines`, only known once the file is read (null).
 */
function firstPlace(follow, anchor, read) {
  if (follow.lastLines !== undefined) return null
  if (!follow.atEnd) return { start: read.start, end: read.start }
  const end = anchor.length
  return end === null ? null : { start: end, end }
}

module.exports = { followLines }
