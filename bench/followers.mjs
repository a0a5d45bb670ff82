// The contenders of the follow benchmark: the followers (fastlines' followLines and the npm
// packages people follow logs with, plus GNU `tail -F` as a reference), the readers of a file's
// last lines, and the numbered lines the writer appends. Packages are loaded lazily, as in
// contenders.mjs, so that a process loads only the one it measures.
//
// A follower's `follow(path, { lib, onLine, onError })` starts following `path` from its current
// end, calls `onLine(line)` for each line as it arrives and `onError(message)` for what goes
// wrong, and resolves to `{ stop }`: `stop()` stops following and resolves once it has (to
// `{ childCpuMs }` for a follower that runs in a child process).
// A last-lines reader's `run(path, n, { lib })` resolves to the last `n` lines, as strings.
import { execFileSync, spawn } from 'node:child_process'
import fs from 'node:fs'
import readline from 'node:readline'

/** The line that the driver appends until a follower shows it is following (see follow.mjs). */
export const HELLO = 'hello'
const SEQ_DIGITS = 7
/** The rest of every numbered line: a log line of the usual length (~120 bytes in all). */
const PAYLOAD =
  '2024-03-14T09:26:53.123Z INFO  [http.server] GET /api/v1/orders/48213 -> 200 in 12ms ' + 'rid=9f1c2e4a7b3d5e6f'
const LINE_LENGTH = SEQ_DIGITS + 1 + PAYLOAD.length

/** The numbered line `seq` as the writer appends it, terminator included. */
export const lineText = (seq) => `${String(seq).padStart(SEQ_DIGITS, '0')} ${PAYLOAD}\n`

/** The number of a numbered line, or undefined if `line` is not one, whole. */
export function lineNumber(line) {
  if (line.length !== LINE_LENGTH || !line.endsWith(PAYLOAD) || line.charCodeAt(SEQ_DIGITS) !== 32) return undefined
  const seq = Number(line.slice(0, SEQ_DIGITS))
  return Number.isInteger(seq) ? seq : undefined
}

const LIBRARIES = {
  fastlines: () => import('../index.mjs'),
  'tail-file': async () => ({
    TailFile: (await import('@logdna/tail-file')).default,
    split2: (await import('split2')).default,
  }),
  tail: async () => (await import('tail')).default.Tail,
  'read-last-lines': async () => (await import('read-last-lines')).default,
}

/** Loads the package a contender uses (its `lib`), or undefined if it uses none. */
export function loadLibrary(contender) {
  return contender.library === undefined ? undefined : LIBRARIES[contender.library]()
}

/** fastlines: `for await (const line of followLines(path))`, stopped by `close()`. */
function followFastlines(path, { lib, onLine, onError }) {
  const reader = lib.followLines(path)
  const loop = (async () => {
    for await (const line of reader) onLine(line)
  })().catch((error) => onError(`${error.code ?? error.name}: ${error.message}`))
  return {
    stop: async () => {
      await reader.close()
      await loop
    },
  }
}

/** @logdna/tail-file as its README shows it: `tail.pipe(split2())`, stopped by `quit()`. */
async function followTailFile(path, { lib: { TailFile, split2 }, onLine, onError }) {
  const tail = new TailFile(path)
  tail.on('tail_error', (error) => onError(`tail_error: ${error.message}`))
  tail.on('error', (error) => onError(`error: ${error.message}`))
  await tail.start()
  tail.pipe(split2()).on('data', onLine)
  return { stop: () => tail.quit() }
}

/** tail (lucagrulla/node-tail): the `line` event, stopped by `unwatch()`. */
function followTail(path, { lib: Tail, onLine, onError }) {
  const tail = new Tail(path)
  tail.on('line', onLine)
  tail.on('error', (error) => onError(`error: ${error?.message ?? error}`))
  return { stop: async () => tail.unwatch() }
}

/** /proc/<pid>/stat counts CPU time in USER_HZ ticks, 100 a second on Linux. */
const USER_HZ = 100

/** The CPU time, user and system, of a running process, from /proc; undefined where unreadable. */
function processCpuMs(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / USER_HZ
  } catch {
    return undefined
  }
}

/**
 * GNU `tail -n 0 -F path` in a child process; its stdout is split by readline. Its notices on
 * stderr (truncation, replacement) are passed to `onError` prefixed with `stderr:`. `stop()`
 * resolves to `{ childCpuMs }`: the CPU time `tail` used, in 10 ms ticks.
 */
function followGnuTail(path, { onLine, onError }) {
  const child = spawn('tail', ['-n', '0', '-F', path], { stdio: ['ignore', 'pipe', 'pipe'] })
  child.on('error', (error) => onError(`spawn: ${error.message}`))
  readline.createInterface({ input: child.stdout, crlfDelay: Infinity }).on('line', onLine)
  readline.createInterface({ input: child.stderr }).on('line', (line) => onError(`stderr: ${line}`))
  const exited = new Promise((resolve) => child.on('close', resolve))
  return {
    stop: async () => {
      const childCpuMs = processCpuMs(child.pid)
      child.kill()
      await exited
      return { childCpuMs }
    },
  }
}

/**
 * Follows nothing: says it saw the `hello` line at once, then waits. Its idle CPU time is the
 * runtime's own, the floor under every follower's.
 */
function followNothing(path, { onLine }) {
  setImmediate(() => onLine(HELLO))
  return { stop: async () => {} }
}

/**
 * Is told of every change to the file by the OS and does nothing with it: `fs.watch(p, () => {})`,
 * which watches the file itself with inotify (libuv on Node, each runtime's own elsewhere) and
 * wakes the JS thread per event. Reads no line: what being woken per write costs a process of
 * the runtime, the floor under a follower woken by the OS.
 */
function watchNothing(path, { onLine }) {
  const watcher = fs.watch(path, () => {})
  setImmediate(() => onLine(HELLO))
  return { stop: async () => watcher.close() }
}

/**
 * The hand-written follower: `fs.watch(p)`, whose callback reads what was appended with
 * `fs.readSync` into one reused buffer and splits it at `\n` (the writer's lines are ASCII).
 * What a process of the runtime woken by the OS per change costs when it reads every line and
 * makes each line's string, with no rotation handled: the floor under a follower woken per write
 * that loses nothing, where the runtime's `fs.watch` loses nothing (Bun's calls back once for
 * many writes, and may never call back for the last ones).
 */
function followByHand(path, { onLine }) {
  const fd = fs.openSync(path, 'r')
  const buffer = Buffer.allocUnsafe(1024 * 1024)
  let position = fs.fstatSync(fd).size
  let rest = ''
  const readAppended = () => {
    for (;;) {
      const got = fs.readSync(fd, buffer, 0, buffer.length, position)
      if (got === 0) return
      position += got
      const lines = (rest + buffer.toString('latin1', 0, got)).split('\n')
      rest = lines.pop()
      for (const line of lines) onLine(line)
      if (got < buffer.length) return
    }
  }
  const watcher = fs.watch(path, readAppended)
  return {
    stop: async () => {
      watcher.close()
      fs.closeSync(fd)
    },
  }
}

/**
 * In table order. `only` lists the scenarios a follower runs in when not all (and `parts` the
 * flood parts); `native` marks one that does not depend on the runtime, run once (by Node when it
 * is selected); `floor` one that reads no line; `note` is shown under the tables.
 */
export const FOLLOWERS = {
  fastlines: { library: 'fastlines', follow: followFastlines, note: '`for await (const line of followLines(p))`' },
  'tail-file': {
    library: 'tail-file',
    follow: followTailFile,
    note: '@logdna/tail-file, `new TailFile(p)` piped into `split2()`: it polls the file every 1 s (its default)',
  },
  tail: { library: 'tail', follow: followTail, note: "`new Tail(p)`'s `line` event: `fs.watch`, then a read stream" },
  'idle-floor': {
    follow: followNothing,
    only: ['idle'],
    floor: true,
    note: 'a process of the same runtime that follows nothing: the runtime idling on its own',
  },
  'watch-floor': {
    follow: watchNothing,
    only: ['flood'],
    parts: ['no-loss'],
    floor: true,
    note: '`fs.watch(p, () => {})`, reading nothing: what being woken by the OS for each write costs the runtime, the floor under a follower woken per write',
  },
  'watch-read': {
    follow: followByHand,
    only: ['flood'],
    parts: ['no-loss'],
    note: '`fs.watch(p)` whose callback reads what was appended with `fs.readSync` and splits it: the hand-written follower, the floor under one woken per write that reads every line (no rotation handled)',
  },
  'tail -F': {
    follow: followGnuTail,
    only: ['flood'],
    native: true,
    note: 'GNU `tail -n 0 -F p` (inotify), a child process whose stdout a Node process splits with readline: the reference for rotations',
  },
}

/** The last `n` lines of the file, as `readline` gives them, by reading it all (kept in a ring). */
async function readlineLast(path, n) {
  if (n === 0) return []
  const ring = new Array(n)
  let count = 0
  const lines = readline.createInterface({ input: fs.createReadStream(path), crlfDelay: Infinity })
  for await (const line of lines) ring[count++ % n] = line
  if (count <= n) return ring.slice(0, count)
  const at = count % n
  return [...ring.slice(at), ...ring.slice(0, at)]
}

/** A string of lines each ended by `\n` (as read-last-lines and `tail -n` give them), split. */
function splitTerminated(text) {
  const lines = text.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  return lines
}

/** In table order; `slow` marks a reader of the whole file, measured with fewer runs. */
export const LAST_LINES = {
  fastlines: {
    library: 'fastlines',
    run: (path, n, { lib }) => lib.readLastLines(path, n),
    note: '`await readLastLines(p, n)`',
  },
  'read-last-lines': {
    library: 'read-last-lines',
    run: async (path, n, { lib }) => splitTerminated(await lib.read(path, n)),
    note: "`(await read(p, n)).split('\\n')` (read-last-lines returns one string)",
  },
  readline: {
    run: (path, n) => readlineLast(path, n),
    slow: true,
    note: '`for await` over `readline.createInterface(...)`, keeping the last n lines: reads the whole file',
  },
  'tail -n': {
    run: (path, n) => splitTerminated(execFileSync('tail', ['-n', String(n), path], { encoding: 'utf8' })),
    note: 'GNU `tail -n n p` through `execFileSync`, split: its time includes spawning the process',
  },
}
