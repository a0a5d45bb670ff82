// Helpers for the tail specs (readLastLines, followLines, reader.position): where each line of
// raw bytes ends, waiting on a reader's own state, what this process has read and which inotify
// instances it holds (both from /proc), and child processes of this runtime.
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'

import { openDescriptors } from './files.mjs'
import { hangLimit, timeWait } from './hang.mjs'

/** What /proc/self/fd shows an inotify instance's descriptor as. */
export const INOTIFY = 'anon_inode:inotify'

const LF = 0x0a
const CR = 0x0d

export const onBun = typeof Bun !== 'undefined'

/** The path of a file under __test__/fixtures. */
export const fixturePath = (name) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url))

/**
 * For each line of `bytes` (cut at `\n`, `\r\n` and a lone `\r`, no empty line after a final
 * terminator), the offset just past its terminator, or `bytes.length` for an unterminated last
 * line: what `reader.position` must be after that line, read from offset 0.
 */
export function lineEnds(bytes) {
  const ends = []
  let lineStart = 0
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === LF) {
      ends.push(i + 1)
    } else if (bytes[i] === CR) {
      if (bytes[i + 1] === LF) i++
      ends.push(i + 1)
    } else {
      continue
    }
    lineStart = i + 1
  }
  if (lineStart < bytes.length) ends.push(bytes.length)
  return ends
}

/**
 * How many lines of `bytes` a follower can hand out: those whose end is certain. An
 * unterminated last line waits for its terminator, and a last line ending in a lone `\r` waits
 * for the next byte (which may make it `\r\n`).
 */
export function settledLineCount(bytes) {
  const ends = lineEnds(bytes)
  if (ends.length === 0) return 0
  const last = bytes[bytes.length - 1]
  return last === LF ? ends.length : ends.length - 1
}

/**
 * The longest an `until` took in a quiet run of the suite: a follower reading what was just
 * appended, while a thousand followers of follow.spec.mjs start beside it (2.3 s, Node).
 */
const UNTIL_QUIET_MS = 2_500

/**
 * Resolves once `condition()` holds, checking every few milliseconds; fails with `what` after
 * the hang limit for a wait of `quietMs` (see hang.mjs). For a reader's own state (the file
 * opened, bytes read), never for data.
 */
export async function until(condition, what, quietMs = UNTIL_QUIET_MS) {
  const limit = hangLimit(quietMs)
  const deadline = performance.now() + limit
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${limit} ms waiting for ${what}`)
    await sleep(2)
  }
}

/** How many inotify instances this process holds: its descriptors on `anon_inode:inotify`. */
export function inotifyInstances() {
  return openDescriptors().filter(({ target }) => target === INOTIFY).length
}

/** The next `count` items of an async iterator, failing if it ends first. */
export async function take(iterator, count) {
  const items = []
  while (items.length < count) {
    const { value, done } = await iterator.next()
    if (done) throw new Error(`the iterator ended after ${items.length} of ${count} items`)
    items.push(value)
  }
  return items
}

/** Every item of an async iterator. */
export async function collect(iterator) {
  const items = []
  for await (const item of iterator) items.push(item)
  return items
}

/** Line `i` of the logs the writer fixture writes (without its terminator): numbered, of varied length. */
export const logLine = (i) => `${String(i).padStart(8, '0')} ${'x'.repeat((i * 7) % 50)}`

/** The number a log line starts with, or NaN for a line that is not one. */
export const logLineNumber = (line) => (/^\d{8} x*$/.test(line) ? Number(line.slice(0, 8)) : NaN)

/**
 * Settles like `promise`, or rejects naming `what` if it has not settled within the hang limit
 * for a wait of `quietMs` (see hang.mjs): a guard that turns a hang into a clear failure (the
 * wait itself is on the promise, never on a timer).
 */
export function within(promise, quietMs, what) {
  const limit = hangLimit(quietMs)
  const waited = timeWait(quietMs, what)
  let timer
  const deadline = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not settled after ${limit} ms: ${what}`)), limit)
  })
  return Promise.race([promise, deadline]).finally(() => {
    clearTimeout(timer)
    waited()
  })
}
