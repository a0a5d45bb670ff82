// followLines: `tail -F` on real files. Where it starts (the end, `start`, `lastLines`); lines
// handed out only once their terminator is on disk (a partial line, `\r\n` split across
// appends); real rotations while a writer process writes (rename and recreate, copytruncate),
// deletion and recreation; 1,000 followers on one shared inotify instance; close and abort
// while a step waits; no CPU while idle; workers terminated and processes exiting while
// following; `position`, `maxLineLength` and `batches()` on a follower. Every wait is on the
// reader's own steps or state, with ava's timeout as the guard; the few sleeps only order a
// write before a rotation where that order is the point.
import { execFileSync, spawn } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'

import test from 'ava'

import { followLines, readLastLines, readLines } from '../index.js'
import { descriptorInfo, isOpen, makeTempDir, numberedLines, openDescriptors, openPaths } from './helpers/files.mjs'
import {
  INOTIFY,
  collect,
  fixturePath,
  inotifyInstances,
  logLine,
  logLineNumber,
  take,
  until,
  within,
} from './helpers/tail.mjs'
import { hangLimit } from './helpers/hang.mjs'
import { describeRun, runProcess } from './helpers/processes.mjs'
import { scriptArgs } from './helpers/runtimes.mjs'

const temp = makeTempDir(test)
/**
 * Quiet times (see helpers/hang.mjs), the longest in a quiet run of the suite: a line appended
 * reaching its follower while a thousand followers start beside it (2.3 s); a writer process's
 * rotation run (2.9 s).
 */
const LINE_QUIET_MS = 2_500
const WRITER_QUIET_MS = 3_000
const indexPath = fileURLToPath(new URL('../index.js', import.meta.url))
const done = { value: undefined, done: true }
const line = (value) => ({ value, done: false })

/** Inotify instances before this file started any follower (the runtime may hold its own). */
const inotifyBaseline = inotifyInstances()

/** The inotify watches of this process: inode (hex, as fdinfo gives it) and event mask. */
function inotifyMasks() {
  return openDescriptors()
    .filter(({ target }) => target === INOTIFY)
    .flatMap(({ fd }) =>
      Array.from(descriptorInfo(fd).matchAll(/^inotify wd:\S+ ino:(\S+) sdev:\S+ mask:(\S+)/gm), ([, ino, mask]) => ({
        ino,
        mask: Number.parseInt(mask, 16),
      })),
    )
}

/** The file offsets of this process's descriptors open on `file` (their `pos` in /proc/self/fdinfo). */
function offsetsOn(file) {
  const real = fs.realpathSync(file)
  return openDescriptors()
    .filter(({ target }) => target === real)
    .map(({ fd }) => /^pos:\s+(\d+)/m.exec(descriptorInfo(fd)))
    .filter((pos) => pos !== null)
    .map((pos) => Number(pos[1]))
}

/** A new empty file and a follower of it from offset 0, closed when the test ends. */
function emptyFollowed(t, name, options = {}) {
  const file = temp.file('', name)
  const reader = followLines(file, { start: 0, ...options })
  t.teardown(() => reader.close())
  return { file, reader }
}

/** Appends `data`, then waits until the follower has read `bytes` bytes in all. */
async function appendAndRead(reader, file, data, bytes) {
  fs.appendFileSync(file, data)
  await until(() => reader.bytesRead === bytes, `the follower to read ${bytes} bytes (it read ${reader.bytesRead})`)
}

/** Runs `code` as an ES module in a fresh process of this runtime, with `fastlines` imported. */
function runScript(name, code, options) {
  const script = temp.file(`import * as fastlines from ${JSON.stringify(indexPath)}\n${code}`, `${name}.mjs`)
  return runProcess([script], options)
}

// ---- where following starts ------------------------------------------------------------------

test('starts at the end as of the call: lines appended before the first step come, nothing is opened before it', async (t) => {
  const file = temp.file('old 1\nold 2\n')
  const reader = followLines(file)
  t.is(reader.position, 12, 'the end as of the call, before the first step')
  fs.appendFileSync(file, 'written before the first step\n')
  // Anything asynchronous between the call and the loop (opening a database, say).
  await fs.promises.readFile(file)
  t.false(isOpen(file), 'nothing is opened before the first step')
  t.deepEqual(await reader.next(), line('written before the first step'))
  t.is(reader.position, fs.statSync(file).size)
  const step = reader.next()
  fs.appendFileSync(file, 'new 1\n')
  t.deepEqual(await step, line('new 1'))
  fs.appendFileSync(file, 'new 2\nnew 3\n')
  t.deepEqual(await take(reader, 2), ['new 2', 'new 3'])
  t.is(reader.linesRead, 4)
  t.is(reader.bytesRead, 'written before the first step\nnew 1\nnew 2\nnew 3\n'.length)
  t.is(reader.position, fs.statSync(file).size)
  await reader.close()
  t.false(isOpen(file))
  t.deepEqual(await reader.next(), done)
})

// What happens to the file between followLines() and the first step, for each way of starting:
// the follower starts from the file as it was at the call, and reads on as if it had been
// running since then.
const ORIGINAL = 'o1\no2\r\no3\ro4\n'
const startModes = [
  { name: 'at the end', options: undefined, before: [] },
  { name: 'at start', options: { start: 3 }, before: ['o2', 'o3', 'o4'] },
  { name: 'with lastLines', options: { lastLines: 2 }, before: ['o3', 'o4'] },
]
const inBetween = [
  {
    name: 'an append',
    change: (file) => fs.appendFileSync(file, 'between\n'),
    after: ['between'],
  },
  {
    name: 'an append, then a rename rotation',
    change: (file) => {
      fs.appendFileSync(file, 'between\n')
      fs.renameSync(file, `${file}.1`)
      fs.writeFileSync(file, 'new file\n')
    },
    after: ['between', 'new file'],
  },
  {
    // What the copy took before the truncation is in the copy only, as for a running
    // follower that had not read it yet; the truncated file, shorter than at the call, is read
    // from its start.
    name: 'an append, then copytruncate',
    change: (file) => {
      fs.appendFileSync(file, 'between\n')
      fs.copyFileSync(file, `${file}.1`)
      fs.truncateSync(file, 0)
      fs.appendFileSync(file, 'truncated\n')
    },
    after: ['truncated'],
    truncated: true,
  },
]
for (const mode of startModes) {
  for (const change of inBetween) {
    test(`starting ${mode.name}, ${change.name} between the call and the first step: no line lost`, async (t) => {
      const file = temp.file(ORIGINAL, `between-${mode.name}-${change.name}.log`.replaceAll(/[ ,]+/g, '-'))
      const reader = followLines(file, mode.options)
      t.teardown(() => reader.close())
      change.change(file)
      await fs.promises.stat(file)
      const expected = [...(change.truncated ? [] : mode.before), ...change.after]
      t.deepEqual(await take(reader, expected.length), expected)
      t.is(reader.position, fs.statSync(file).size, 'position is in the file at the path')
      const step = reader.next()
      fs.appendFileSync(file, 'later\n')
      t.deepEqual(await step, line('later'))
    })
  }
}

test('a file deleted and recreated before the first step is read from 0, even given the same inode', async (t) => {
  const file = temp.file('0123456789 old line\n'.repeat(10), 'reborn-before.log')
  const reader = followLines(file)
  t.teardown(() => reader.close())
  const oldInode = fs.statSync(file).ino
  fs.unlinkSync(file)
  // Long enough that starting at the old length would skip lines of the new file.
  const lines = Array.from({ length: 20 }, (_, i) => logLine(i))
  fs.writeFileSync(file, `${lines.join('\n')}\n`)
  t.log(fs.statSync(file).ino === oldInode ? 'the new file was given the old inode' : 'a new inode')
  t.deepEqual(await take(reader, 20), lines)
})

/** A follower of a symbolic link (named from `name`) to `day1`, holding `old`; `day2` is not made. */
function followedLink(t, name) {
  const dir = fs.mkdtempSync(path.join(temp.dir, 'targets-'))
  const [day1, day2] = [path.join(dir, 'day-1.log'), path.join(dir, 'day-2.log')]
  fs.writeFileSync(day1, 'old\n')
  const link = temp.path(name)
  fs.symlinkSync(day1, link)
  const reader = followLines(link)
  t.teardown(() => reader.close())
  return { day1, day2, link, reader }
}

test('a symbolic link re-pointed before the first step: the old target is read on, then the new one', async (t) => {
  const { day1, day2, link, reader } = followedLink(t, 'current-link.log')
  fs.appendFileSync(day1, 'late on day 1\n')
  fs.writeFileSync(day2, 'day 2\n')
  fs.unlinkSync(link)
  fs.symlinkSync(day2, link)
  t.deepEqual(await take(reader, 2), ['late on day 1', 'day 2'])
})

/** A log holding `text` in a directory of its own (named from `prefix`), followed with `options`. */
function logInOwnDirectory(t, prefix, text = 'old\n', options = undefined) {
  const dir = fs.mkdtempSync(path.join(temp.dir, prefix))
  const file = path.join(dir, 'app.log')
  fs.writeFileSync(file, text)
  const reader = followLines(file, options)
  t.teardown(() => reader.close())
  return { dir, file, reader }
}

/** Until this process watches `dir`: a follower of a file in it waits there for one to come. */
function untilWatched(dir) {
  const ino = fs.statSync(dir).ino.toString(16)
  return until(() => inotifyMasks().some((watch) => watch.ino === ino), `the follower to watch ${dir}`)
}

// A running follower whose file is deleted waits for the path to name a file again; so does one
// whose file went between the call and the first step (it failed with ENOENT, as if the path
// had never named a file).
const goneBefore = [
  { name: 'deleted', change: (file) => fs.unlinkSync(file) },
  { name: 'moved to another directory', change: (file) => fs.renameSync(file, `${path.dirname(file)}-moved-away.log`) },
]
for (const gone of goneBefore) {
  test(`a file ${gone.name} before the first step, nothing in its place: the step waits for one and reads it from 0`, async (t) => {
    for (const mode of startModes) {
      const { dir, file, reader } = logInOwnDirectory(t, 'gone-before-', ORIGINAL, mode.options)
      gone.change(file)
      const step = reader.next()
      await untilWatched(dir)
      fs.writeFileSync(file, 'new 1\nnew 2\n')
      t.deepEqual(await within(step, LINE_QUIET_MS, `the first line, ${mode.name}`), line('new 1'), mode.name)
      t.deepEqual(await reader.next(), line('new 2'))
      t.is(reader.position, 12)
      const next = reader.next()
      fs.appendFileSync(file, 'later\n')
      t.deepEqual(await within(next, LINE_QUIET_MS, 'a line appended'), line('later'))
      await reader.close()
    }
  })
}

test('a file renamed in its directory before the first step, nothing in its place: it is read on, then the one that comes', async (t) => {
  const { file, reader } = logInOwnDirectory(t, 'renamed-before-')
  fs.appendFileSync(file, 'between\n')
  fs.renameSync(file, `${file}.1`)
  t.deepEqual(await reader.next(), line('between'))
  // Its writer goes on writing to it until told to reopen (or for good, with logrotate's
  // `nocreate`): a running follower reads those lines, and so does this one.
  const late = reader.next()
  fs.appendFileSync(`${file}.1`, 'written to the renamed file\n')
  t.deepEqual(
    await within(late, LINE_QUIET_MS, 'a line written to the renamed file'),
    line('written to the renamed file'),
  )
  const step = reader.next()
  fs.writeFileSync(file, 'new\n')
  t.deepEqual(await within(step, LINE_QUIET_MS, 'the line of the file that came'), line('new'))
})

test('a symbolic link re-pointed before the first step at a file not made yet: the old target is read on until it comes', async (t) => {
  const { day1, day2, link, reader } = followedLink(t, 'link-to-come.log')
  fs.appendFileSync(day1, 'between\n')
  fs.unlinkSync(link)
  fs.symlinkSync(day2, link)
  t.deepEqual(await reader.next(), line('between'))
  const late = reader.next()
  fs.appendFileSync(day1, 'late on day 1\n')
  t.deepEqual(await within(late, LINE_QUIET_MS, 'a line written to the old target'), line('late on day 1'))
  const step = reader.next()
  fs.writeFileSync(day2, 'day 2\n')
  t.deepEqual(await within(step, LINE_QUIET_MS, 'the line of the new target'), line('day 2'))
})

test('a follower whose file went before the first step waits past what a running follower takes as nothing there', async (t) => {
  // A loop of links, a directory on the way turned into a file, a FIFO, a directory or a socket
  // at the path: a running follower waits past each for a file to come; the first step rejected
  // (ELOOP, ENOTDIR, ESPIPE, EISDIR, ENXIO) where it waited only past ENOENT.
  const inPlace = {
    'a loop of links': (file) => fs.symlinkSync(path.basename(file), file),
    'a file where its directory was': (file) => {
      fs.rmSync(path.dirname(file), { recursive: true })
      fs.writeFileSync(path.dirname(file), 'not a directory\n')
    },
    'a FIFO': (file) => execFileSync('mkfifo', [file]),
    'a directory': (file) => fs.mkdirSync(file),
    'a socket': (file) => {
      const server = net.createServer().listen(file)
      t.teardown(() => server.close())
    },
  }
  for (const [name, put] of Object.entries(inPlace)) {
    const top = fs.mkdtempSync(path.join(temp.dir, 'nothing-there-'))
    const dir = path.join(top, 'logs')
    fs.mkdirSync(dir)
    const file = path.join(dir, 'app.log')
    fs.writeFileSync(file, 'old\n')
    const reader = followLines(file)
    t.teardown(() => reader.close())
    fs.unlinkSync(file)
    put(file)
    const step = reader.next()
    const watched = [top, dir].map((at) => fs.statSync(at).ino.toString(16))
    await until(() => inotifyMasks().some((watch) => watched.includes(watch.ino)), `the follower to wait (${name})`)
    fs.rmSync(path.dirname(file), { recursive: true, force: true })
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(file, 'after\n')
    t.deepEqual(await within(step, LINE_QUIET_MS, `the line of the file that came after ${name}`), line('after'), name)
    await reader.close()
  }
})

test('the anchored log come back while the first step waits is read on from the anchor, as a running follower reads it', async (t) => {
  // Taken from the files the watcher saw come, it was read from 0: its lines from before the
  // call came again.
  const { dir, file, reader } = logInOwnDirectory(t, 'back-while-waiting-', 'old 1\nold 2\n')
  const away = `${dir}-away`
  fs.mkdirSync(away)
  fs.renameSync(file, path.join(away, 'app.log'))
  const step = reader.next()
  await untilWatched(dir)
  fs.renameSync(path.join(away, 'app.log'), file)
  fs.appendFileSync(file, 'new\n')
  t.deepEqual(await within(step, LINE_QUIET_MS, 'the line appended after the call'), line('new'))
  t.is(reader.position, fs.statSync(file).size)
})

test('a FIFO at the path while the first step waits is not opened: a writer waiting for a reader goes on waiting', async (t) => {
  // The first step's look opened what was there, and let the writer go on, to meet EPIPE.
  const { dir, file, reader } = logInOwnDirectory(t, 'fifo-while-waiting-')
  fs.unlinkSync(file)
  const step = reader.next()
  await untilWatched(dir)
  // The writer waits for a reader before the FIFO comes to the path.
  const fifo = path.join(dir, 'fifo')
  execFileSync('mkfifo', [fifo])
  const writer = spawn('sh', ['-c', `echo hi > '${fifo}'`], { stdio: 'ignore' })
  t.teardown(() => writer.kill('SIGKILL'))
  await until(() => fs.readFileSync(`/proc/${writer.pid}/wchan`, 'utf8') === 'wait_for_partner', 'the writer to wait')
  fs.renameSync(fifo, file)
  // Time for the follower to look at the FIFO (had it not looked by then, this would check less).
  await sleep(300)
  t.is(writer.exitCode, null, 'the writer still waits in open(2)')
  t.is(writer.signalCode, null, 'the writer still waits in open(2)')
  fs.unlinkSync(file)
  fs.writeFileSync(file, 'after\n')
  t.deepEqual(await within(step, LINE_QUIET_MS, 'the line of the file that came'), line('after'))
})

test('a path that named a directory or a FIFO at the call, and nothing at the first step, rejects with ENOENT', async (t) => {
  // No log was there to wait for the return of.
  for (const [name, make, remove] of [
    ['a directory', (at) => fs.mkdirSync(at), (at) => fs.rmdirSync(at)],
    ['a FIFO', (at) => execFileSync('mkfifo', [at]), (at) => fs.unlinkSync(at)],
  ]) {
    const at = temp.path(`was-${name.replace(' ', '-')}`)
    make(at)
    const reader = followLines(at)
    remove(at)
    await t.throwsAsync(within(reader.next(), LINE_QUIET_MS, name), { code: 'ENOENT' }, name)
  }
})

test('a watch refused while the first step waits for its file fails the follower with ENOSPC, rather than wait for ever', async (t) => {
  // A follower of a link whose target went before the first step waits, watching the link's
  // directory and the target's; the link re-pointed into a third directory finds no watch left
  // (in a user namespace of its own, whose limit the script sets to the watches it has). The
  // refusal was not looked at while it waited: nothing coming to the unwatched directory could
  // wake it.
  const top = fs.mkdtempSync(path.join(temp.dir, 'wait-watch-limit-'))
  const [links, old, next] = ['links', 'old', 'next'].map((name) => path.join(top, name))
  for (const dir of [links, old, next]) fs.mkdirSync(dir)
  const link = path.join(links, 'app.log')
  fs.writeFileSync(path.join(old, 'real.log'), 'old\n')
  fs.symlinkSync(path.join(old, 'real.log'), link)
  const script = temp.file(
    `import fs from 'node:fs'
    import { followLines } from ${JSON.stringify(indexPath)}
    const link = ${JSON.stringify(link)}
    const reader = followLines(link)
    fs.unlinkSync(${JSON.stringify(path.join(old, 'real.log'))})
    const step = reader.next()
    const watches = () =>
      fs.readdirSync('/proc/self/fd').reduce((count, fd) => {
        try {
          return count + (fs.readFileSync('/proc/self/fdinfo/' + fd, 'utf8').match(/^inotify wd:/gm) ?? []).length
        } catch {
          return count
        }
      }, 0)
    while (watches() < 2) await new Promise((resolve) => setTimeout(resolve, 2))
    // No watch more from here on, in this namespace.
    fs.writeFileSync('/proc/sys/user/max_inotify_watches', String(watches()))
    fs.symlinkSync(${JSON.stringify(path.join(next, 'new.log'))}, link + '.new')
    fs.renameSync(link + '.new', link)
    try {
      console.log(JSON.stringify({ got: await step }))
    } catch ({ code, syscall }) {
      console.log(JSON.stringify({ error: { code, syscall } }))
    }`,
    'wait-watch-limit.mjs',
  )
  const run = await runProcess(['-U', '-r', process.execPath, ...scriptArgs(script)], {
    command: 'unshare',
    quietMs: 1_000,
  }).result
  t.true(run.status === 0 && !run.timedOut, describeRun(run))
  t.deepEqual(JSON.parse(run.stdout), { error: { code: 'ENOSPC', syscall: 'watch' } })
})

test('a follower waiting at its first step for its deleted file to come back ends on close() and on abort, holding nothing', async (t) => {
  for (const end of ['close', 'abort']) {
    const dir = fs.mkdtempSync(path.join(temp.dir, `gone-${end}-`))
    const file = path.join(dir, 'app.log')
    fs.writeFileSync(file, 'old\n')
    const controller = new AbortController()
    const reader = followLines(file, { signal: controller.signal })
    fs.unlinkSync(file)
    const step = reader.next()
    const dirIno = fs.statSync(dir).ino.toString(16)
    const watched = () => inotifyMasks().some((watch) => watch.ino === dirIno)
    await until(watched, 'the follower to watch the directory')
    if (end === 'close') {
      await reader.close()
      t.deepEqual(await within(step, LINE_QUIET_MS, 'the step after close()'), done)
    } else {
      controller.abort()
      await t.throwsAsync(within(step, LINE_QUIET_MS, 'the step after abort'), { name: 'AbortError' })
    }
    await until(() => !watched(), `the watch to go (${end})`)
    fs.writeFileSync(file, 'new\n')
    if (end === 'close') t.deepEqual(await reader.next(), done)
    else await t.throwsAsync(reader.next(), { name: 'AbortError' })
    t.false(isOpen(file))
  }
})

test('a directory link on the way re-pointed before the first step: the old file is read on, then the new one', async (t) => {
  // As a deployment's `current` is: only a link at the path's last name was looked through,
  // and the old file's last lines were lost.
  for (const options of [undefined, { lastLines: 1 }]) {
    const dir = fs.mkdtempSync(path.join(temp.dir, 'releases-'))
    for (const release of ['v1', 'v2']) fs.mkdirSync(path.join(dir, release))
    fs.writeFileSync(path.join(dir, 'v1', 'app.log'), 'old\n')
    fs.writeFileSync(path.join(dir, 'v2', 'app.log'), 'new\n')
    const current = path.join(dir, 'current')
    fs.symlinkSync(path.join(dir, 'v1'), current)
    const reader = followLines(path.join(current, 'app.log'), options)
    t.teardown(() => reader.close())
    fs.appendFileSync(path.join(dir, 'v1', 'app.log'), 'late on v1\n')
    fs.symlinkSync(path.join(dir, 'v2'), `${current}.next`)
    fs.renameSync(`${current}.next`, current)
    const expected = [...(options === undefined ? [] : ['old']), 'late on v1', 'new']
    t.deepEqual(await take(reader, expected.length), expected, JSON.stringify(options))
    await reader.close()
  }
})

test('a path that names nothing at the call but a file at the first step: the whole file comes', async (t) => {
  for (const options of [undefined, { lastLines: 1 }]) {
    const file = temp.path(`appears-${options === undefined ? 'end' : 'last'}.log`)
    const reader = followLines(file, options)
    t.is(reader.position, undefined)
    fs.writeFileSync(file, 'first\nsecond\n')
    t.deepEqual(await take(reader, 2), ['first', 'second'], JSON.stringify(options))
    await reader.close()
  }
  const file = temp.path('appears-start.log')
  const reader = followLines(file, { start: 6 })
  fs.writeFileSync(file, 'first\nsecond\n')
  t.deepEqual(await reader.next(), line('second'))
  await reader.close()
})

test('start: follows from a byte offset, with the lines readLines gives from there, but for a \\n right after a \\r', async (t) => {
  const content = 'a\nbb\r\nccc\rdddd\n\né\n'
  const bytes = Buffer.from(content)
  const file = temp.file(content)
  for (let start = 0; start <= bytes.length + 2; start++) {
    // Inside a \r\n, the \n is the rest of the line before's terminator, not a line: where
    // readLines from there begins with an empty line, a follower skips it.
    const insideCrlf = bytes[start - 1] === 0x0d && bytes[start] === 0x0a
    const expected = (await collect(readLines(file, { start }))).slice(insideCrlf ? 1 : 0)
    const reader = followLines(file, { start })
    t.is(reader.position, start)
    t.deepEqual(await take(reader, expected.length), expected, `start=${start}`)
    t.is(reader.position, Math.max(start, Buffer.byteLength(content)), `start=${start}`)
    await reader.close()
  }
  // Appends after the start offset come, also when it was past the end when following began.
  const reader = followLines(file, { start: Buffer.byteLength(content) })
  const step = reader.next()
  fs.appendFileSync(file, 'appended\n')
  t.deepEqual(await step, line('appended'))
  await reader.close()
})

test('a start past the end: the file is read from 0, as after a truncation', async (t) => {
  // A saved position past the end means the log was truncated since it was saved.
  const file = temp.file('a\nb\n')
  const reader = followLines(file, { start: 100 })
  t.teardown(() => reader.close())
  t.deepEqual(await within(take(reader, 2), LINE_QUIET_MS, 'the lines from 0'), ['a', 'b'])
  t.is(reader.position, 4)
})

test('lastLines: the last n lines, then every line appended', async (t) => {
  const file = temp.file('l1\nl2\r\nl3\rl4\n\nl6 é\n')
  for (const lastLines of [1, 2, 5, 6, 7, 100]) {
    const reader = followLines(file, { lastLines })
    t.deepEqual(
      await take(reader, Math.min(lastLines, 6)),
      await readLastLines(file, lastLines),
      `lastLines=${lastLines}`,
    )
    t.is(reader.position, fs.statSync(file).size)
    const step = reader.next()
    fs.appendFileSync(file, `appended ${lastLines}\n`)
    t.deepEqual(await step, line(`appended ${lastLines}`))
    await reader.close()
    fs.writeFileSync(file, 'l1\nl2\r\nl3\rl4\n\nl6 é\n')
  }
  const reader = followLines(file, { lastLines: 0 })
  const step = reader.next()
  await until(() => reader.position !== undefined, 'the first step to open the file')
  t.is(reader.position, fs.statSync(file).size)
  fs.appendFileSync(file, 'only this\n')
  t.deepEqual(await step, line('only this'))
  await reader.close()
})

test('lastLines: 0 reads a last line still being written at the call whole, judged whole by match', async (t) => {
  // It started where the writer was at the call: the rest of the line came as a line of its own
  // (from inside a character, with a U+FFFD), and match judged that fragment.
  const cases = [
    { text: 'old ERROR\nnew ERR', rest: 'OR done\n', options: {}, first: 'new ERROR done' },
    { text: 'old ERROR\nnew ERR', rest: 'OR done\n', options: { match: 'ERROR' }, first: 'new ERROR done' },
    { text: 'old ERROR\nnew ERR', rest: 'OR done\n', options: { match: 'OR d' }, first: 'new ERROR done' },
    { text: Buffer.from('old\ncaf\xc3', 'latin1'), rest: Buffer.from('\xa9\n', 'latin1'), options: {}, first: 'café' },
  ]
  for (const { text, rest, options, first } of cases) {
    const file = temp.file(text, 'being-written.log')
    const reader = followLines(file, { lastLines: 0, ...options })
    const step = reader.next()
    fs.appendFileSync(file, rest)
    t.deepEqual(await within(step, LINE_QUIET_MS, 'the line ended'), line(first), JSON.stringify(options))
    const next = reader.next()
    fs.appendFileSync(file, 'later ERROR done\n')
    t.deepEqual(await within(next, LINE_QUIET_MS, 'a line appended'), line('later ERROR done'))
    await reader.close()
  }
})

test('lastLines on a large file reads only its end', async (t) => {
  const file = temp.file(numberedLines(200_000), 'large-last.log')
  const reader = followLines(file, { lastLines: 3 })
  t.deepEqual(await take(reader, 3), numberedLines(200_000).trimEnd().split('\n').slice(-3))
  t.true(reader.bytesRead < 1024 * 1024, `read ${reader.bytesRead} bytes of a 12 MB file for 3 lines`)
  await reader.close()
})

test('start and lastLines together, or end, are refused', (t) => {
  const file = temp.file('x\n')
  t.throws(() => followLines(file, { start: 0, lastLines: 1 }), { code: 'ERR_INVALID_ARG_VALUE' })
  t.throws(() => followLines(file, { end: 10 }), { code: 'ERR_INVALID_ARG_VALUE' })
  t.throws(() => followLines(file, { start: -1 }), { code: 'ERR_OUT_OF_RANGE' })
  t.throws(() => followLines(42), { instanceOf: TypeError, code: 'ERR_INVALID_ARG_TYPE' })
  t.throws(() => followLines(file, { highWaterMark: 0 }), { code: 'ERR_OUT_OF_RANGE' })
})

// ---- lines complete only once their terminator is on disk -------------------------------------

test('a partial line waits for its terminator, across several appends', async (t) => {
  const { file, reader } = emptyFollowed(t, 'partial.log')
  const step = reader.next()
  await appendAndRead(reader, file, 'hel', 3)
  await appendAndRead(reader, file, 'lo wor', 9)
  fs.appendFileSync(file, 'ld\nnext')
  t.deepEqual(await step, line('hello world'))
  t.is(reader.position, 12)
  const second = reader.next()
  await until(() => reader.bytesRead === 16, 'the follower to read the partial line')
  fs.appendFileSync(file, '\n')
  t.deepEqual(await second, line('next'))
  t.is(reader.position, 17)
})

test('a character split across appends is decoded whole', async (t) => {
  const { file, reader } = emptyFollowed(t, 'split-char.log')
  const step = reader.next()
  await appendAndRead(reader, file, Buffer.from([0x63, 0x61, 0x66, 0xc3]), 4)
  fs.appendFileSync(file, Buffer.from([0xa9, 0x0a]))
  t.deepEqual(await step, line('café'))
  const emoji = reader.next()
  await appendAndRead(reader, file, Buffer.from([0xf0, 0x9f]), 8)
  await appendAndRead(reader, file, Buffer.from([0x98]), 9)
  fs.appendFileSync(file, Buffer.from([0x80, 0x0d, 0x0a]))
  t.deepEqual(await emoji, line('😀'))
  t.is(reader.position, 12)
})

test('a \\r\\n split across two appends is one terminator; a line ending in \\r waits for the next byte', async (t) => {
  const { file, reader } = emptyFollowed(t, 'crlf.log')
  const first = reader.next()
  await appendAndRead(reader, file, 'a\r', 2)
  fs.appendFileSync(file, '\nb\r')
  t.deepEqual(await first, line('a'))
  t.is(reader.position, 3)
  // 'b\r' may yet become 'b\r\n': it is handed out only with the byte after it.
  const second = reader.next()
  await until(() => reader.bytesRead === 5, 'the follower to read b\\r')
  fs.appendFileSync(file, 'c\n')
  t.deepEqual(await second, line('b'))
  t.is(reader.position, 5)
  t.deepEqual(await reader.next(), line('c'))
  const third = reader.next()
  await appendAndRead(reader, file, 'd\r', 9)
  fs.appendFileSync(file, '\r\n')
  t.deepEqual(await third, line('d'))
  t.deepEqual(await reader.next(), line(''))
  t.is(reader.position, 11)
  // Nothing else is there: the next step waits, and close() ends it.
  const fourth = reader.next()
  await reader.close()
  t.deepEqual(await fourth, done)
  t.is(reader.linesRead, 5)
})

test('a follower starting at the end of a file caught between the \\r and the \\n of a \\r\\n: the \\n ends that line', async (t) => {
  // The \r ended 'one' for readLastLines and for the reader: its \n is not an empty line.
  const file = temp.file('one\r', 'caught-crlf.log')
  const last = await readLastLines(file, 1)
  t.deepEqual([...last], ['one'])
  const followers = {
    'from the end': followLines(file),
    "from readLastLines' position": followLines(file, { start: last.position }),
    'with the last line': followLines(file, { lastLines: 1 }),
  }
  const firsts = Object.fromEntries(Object.entries(followers).map(([name, reader]) => [name, reader.next()]))
  // Each is anchored at its call, before the \n is written, whenever it opens the file.
  fs.appendFileSync(file, '\ntwo\n')
  t.deepEqual(await firsts['from the end'], line('two'))
  t.deepEqual(await firsts["from readLastLines' position"], line('two'))
  t.deepEqual(await firsts['with the last line'], line('one'))
  t.deepEqual(await followers['with the last line'].next(), line('two'))
  // readLastLines' position, given to a follower called once the \n is there: the \n still
  // ends 'one', as it did for the others, where readLines from there begins with an empty line.
  const late = followLines(file, { start: last.position })
  t.deepEqual(await take(late, 1), ['two'])
  t.deepEqual((await collect(readLines(file, { start: last.position })))[0], '')
  for (const reader of [...Object.values(followers), late]) await reader.close()
})

test("a start past the file's length at the call is a truncation since, however long the file grew before the first step", async (t) => {
  // A position saved before the log was truncated to 6 bytes, which grew to 30 before the loop.
  const file = temp.file('new-1\n', 'start-past-end.log')
  const reader = followLines(file, { start: 20 })
  t.teardown(() => reader.close())
  fs.appendFileSync(file, 'new-2\nnew-3\nnew-4\nnew-5\n')
  t.deepEqual(await take(reader, 5), ['new-1', 'new-2', 'new-3', 'new-4', 'new-5'])
})

/** The user a follower that must not read everything runs as: root reads anything. */
const ANOTHER_USER = process.getuid() === 0 ? { uid: 65534, gid: 65534 } : {}

/**
 * Follows `file` in a child process as ANOTHER_USER (the test's directory made passable), which
 * runs `between` (code, with `fs` imported) after the call, then prints `"ready"`, each line, and
 * the error it fails with, one JSON value a line. Returns `next(what)`, the next value, within a
 * line's quiet time.
 */
function followAsAnotherUser(t, file, scriptName, between = '') {
  fs.chmodSync(temp.dir, 0o755)
  const script = temp.file(
    `import fs from 'node:fs'
     import { followLines } from ${JSON.stringify(indexPath)}
     const reader = followLines(${JSON.stringify(file)})
     ${between}
     console.log('"ready"')
     try {
       for await (const line of reader) console.log(JSON.stringify(line))
     } catch ({ code, errno, syscall, path, message }) {
       console.log(JSON.stringify({ code, errno, syscall, path, message }))
     }`,
    scriptName,
  )
  fs.chmodSync(script, 0o644)
  const child = spawn(process.execPath, scriptArgs(script), { stdio: ['ignore', 'pipe', 'inherit'], ...ANOTHER_USER })
  t.teardown(() => child.kill())
  const outputs = readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]()
  return async (what) => JSON.parse((await within(outputs.next(), LINE_QUIET_MS, what)).value)
}

test('a file that a rotation makes unreadable is followed once a chmod makes it readable, as tail -F follows it', async (t) => {
  const dir = path.join(temp.dir, 'unreadable-rotation')
  fs.mkdirSync(dir, { mode: 0o755 })
  const file = path.join(dir, 'app.log')
  fs.writeFileSync(file, '', { mode: 0o644 })
  const next = followAsAnotherUser(t, file, 'follow-unreadable.mjs')
  t.is(await next('the follower to start'), 'ready')
  fs.appendFileSync(file, 'one\n')
  t.is(await next('the first line'), 'one')
  fs.renameSync(file, `${file}.1`)
  fs.writeFileSync(file, 'two\n', { mode: 0o000 })
  // Time for the follower to look at the path and find the file unreadable (had it not looked
  // by then, it would find it readable, and this would check less).
  await sleep(300)
  fs.chmodSync(file, 0o644)
  fs.appendFileSync(file, 'three\n')
  t.deepEqual([await next('the unreadable file once readable'), await next('its next line')], ['two', 'three'])
})

test('a log the follower may not read fails its first step with EACCES, where it is or renamed away, rather than wait', async (t) => {
  // Renamed, it was found where it went but could not be opened, and the follower waited for ever.
  for (const renamed of [false, true]) {
    const dir = path.join(temp.dir, `unreadable-log${renamed ? '-renamed' : ''}`)
    fs.mkdirSync(dir, { mode: 0o777 })
    fs.chmodSync(dir, 0o777)
    const file = path.join(dir, 'app.log')
    fs.writeFileSync(file, 'secret\n', { mode: 0o600 })
    const rename = renamed ? `fs.renameSync(${JSON.stringify(file)}, ${JSON.stringify(`${file}.1`)})` : ''
    const next = followAsAnotherUser(t, file, `follow-unreadable-log-${renamed}.mjs`, rename)
    t.is(await next('the follower to start'), 'ready')
    t.like(await next('the error'), { code: 'EACCES', syscall: 'open', path: file }, `renamed: ${renamed}`)
  }
})

test('a file the follower may not read, come in place of its log gone before the first step, is waited past until a chmod', async (t) => {
  // As a running follower waits past one (above); the first step rejected with EACCES.
  const dir = path.join(temp.dir, 'unreadable-before-first-step')
  fs.mkdirSync(dir, { mode: 0o777 })
  fs.chmodSync(dir, 0o777)
  const file = path.join(dir, 'app.log')
  fs.writeFileSync(file, 'old\n', { mode: 0o644 })
  const next = followAsAnotherUser(t, file, 'follow-unreadable-before.mjs', `fs.unlinkSync(${JSON.stringify(file)})`)
  t.is(await next('the follower to delete its log'), 'ready')
  fs.writeFileSync(`${file}.tmp`, 'two\n', { mode: 0o000 })
  fs.renameSync(`${file}.tmp`, file)
  // Time for the follower to look at the path and find the file unreadable (see above).
  await sleep(300)
  fs.chmodSync(file, 0o644)
  t.is(await next('the file once readable'), 'two')
})

test('a directory that may be entered but not listed fails the follower with EACCES, syscall watch, where no rotation in it could be seen', async (t) => {
  // Its watch was refused (inotify needs to read it), and the follower waited above it for its
  // name instead: writes to the file woke it, but after a rotation it read the old file for
  // ever and said nothing.
  const dir = path.join(temp.dir, 'unlisted')
  fs.mkdirSync(dir)
  const file = path.join(dir, 'app.log')
  fs.writeFileSync(file, '', { mode: 0o644 })
  // Entered, not listed: by others (0711, the follower being another user), or by its owner.
  fs.chmodSync(dir, ANOTHER_USER.uid === undefined ? 0o311 : 0o711)
  t.teardown(() => fs.chmodSync(dir, 0o755))
  const next = followAsAnotherUser(t, file, 'follow-unlisted.mjs')
  t.is(await next('the follower to start'), 'ready')
  fs.appendFileSync(file, 'one\n')
  t.deepEqual(await next('the follower to fail'), {
    code: 'EACCES',
    errno: -13,
    syscall: 'watch',
    path: file,
    message: `EACCES: permission denied, watch '${file}'`,
  })
})

test('appends of many lines at once all come, in order', async (t) => {
  const { file, reader } = emptyFollowed(t, 'burst.log')
  const expected = []
  for (let round = 0; round < 50; round++) {
    let text = ''
    for (let i = 0; i < 40; i++) {
      const n = round * 40 + i
      expected.push(logLine(n))
      text += `${logLine(n)}${['\n', '\r\n', '\r'][n % 3]}`
    }
    fs.appendFileSync(file, text)
  }
  fs.appendFileSync(file, '\n')
  t.deepEqual(await take(reader, expected.length), expected)
})

test('a symbolic link to a file in another directory: writes to its target wake the follower', async (t) => {
  const targetDir = temp.path('link-target-dir')
  const linkDir = temp.path('link-dir')
  fs.mkdirSync(targetDir)
  fs.mkdirSync(linkDir)
  const target = path.join(targetDir, 'app.log')
  const link = path.join(linkDir, 'app.log')
  fs.writeFileSync(target, 'before\n')
  fs.symlinkSync(target, link)
  const reader = followLines(link)
  t.teardown(() => reader.close())
  const step = reader.next()
  await until(() => reader.position !== undefined, 'the follower to open the link')
  fs.appendFileSync(target, 'through the target\n')
  t.deepEqual(await within(step, LINE_QUIET_MS, 'the line written to the target'), line('through the target'))
})

/**
 * A follower of a link (`<prefix>-link/current.log`) to `<prefix>-first/app.log`, which has had
 * its first line read; `second` is `<prefix>-second/app.log`, a path in a third directory not
 * made yet.
 */
async function followingALink(t, prefix) {
  const [linkDir, firstDir, secondDir] = ['link', 'first', 'second']
    .map((suffix) => `${prefix}-${suffix}`)
    .map((name) => {
      const dir = temp.path(name)
      fs.mkdirSync(dir)
      return dir
    })
  const [first, second] = [path.join(firstDir, 'app.log'), path.join(secondDir, 'app.log')]
  fs.writeFileSync(first, '')
  const link = path.join(linkDir, 'current.log')
  fs.symlinkSync(first, link)
  const reader = followLines(link)
  t.teardown(() => reader.close())
  const step = reader.next()
  await until(() => reader.position !== undefined, 'the follower to open the link')
  fs.appendFileSync(first, 'first target\n')
  t.deepEqual(await within(step, LINE_QUIET_MS, 'the line written to the first target'), line('first target'))
  return { linkDir, second, link, reader }
}

test('a symbolic link re-pointed to a file in a third directory while following: read on there, woken by its writes', async (t) => {
  const { linkDir, second, link, reader } = await followingALink(t, 'repoint')
  // Re-pointed in one step, as `ln -sfn` does: a new link renamed over the old one.
  fs.writeFileSync(second, 'second target, before the link\n')
  fs.symlinkSync(second, path.join(linkDir, 'next.log'))
  fs.renameSync(path.join(linkDir, 'next.log'), link)
  t.deepEqual(
    await within(reader.next(), LINE_QUIET_MS, 'the new target read from its start'),
    line('second target, before the link'),
  )
  fs.appendFileSync(second, 'second target, after\n')
  t.deepEqual(
    await within(reader.next(), LINE_QUIET_MS, 'a line written to the new target, in a directory not watched before'),
    line('second target, after'),
  )
})

test('a symbolic link re-pointed at a file not made yet: read there once it is made, woken by its making', async (t) => {
  const { linkDir, second, link, reader } = await followingALink(t, 'dangling')
  // The link first, its target after: the path names nothing in between.
  fs.symlinkSync(second, path.join(linkDir, 'next.log'))
  fs.renameSync(path.join(linkDir, 'next.log'), link)
  const next = reader.next()
  fs.writeFileSync(second, 'made after the link\n')
  t.deepEqual(
    await within(next, LINE_QUIET_MS, 'the line of the target made after the link'),
    line('made after the link'),
  )
})

test('a symbolic link re-pointed into a loop, then to a file: waited through as a path naming nothing', async (t) => {
  const { linkDir, second, link, reader } = await followingALink(t, 'loop')
  // A link to itself, renamed over the followed one: opening the path fails with ELOOP, which
  // ended the follower.
  fs.symlinkSync(link, path.join(linkDir, 'next.log'))
  fs.renameSync(path.join(linkDir, 'next.log'), link)
  const next = reader.next()
  // Time for the follower to look at the path while it is a loop (no event says it has).
  const meanwhile = await Promise.race([
    next.then(
      () => 'a line',
      (error) => error.code,
    ),
    sleep(200, 'waiting'),
  ])
  t.is(meanwhile, 'waiting', 'the follower waits while the link is a loop')
  fs.writeFileSync(second, 'after the loop\n')
  fs.symlinkSync(second, path.join(linkDir, 'next.log'))
  fs.renameSync(path.join(linkDir, 'next.log'), link)
  t.deepEqual(await within(next, LINE_QUIET_MS, 'the line of the file the link names again'), line('after the loop'))
})

test('a symbolic link re-pointed into a directory not made yet: read there once it is made', async (t) => {
  const { linkDir, second, link, reader } = await followingALink(t, 'into-new-dir')
  const above = path.dirname(second)
  const target = path.join(above, 'day2', 'app.log')
  fs.symlinkSync(target, path.join(linkDir, 'next.log'))
  fs.renameSync(path.join(linkDir, 'next.log'), link)
  const next = reader.next()
  // The follower waits for `day2` in the nearest directory there; it watched nothing there before.
  const aboveIno = fs.statSync(above).ino.toString(16)
  await until(
    () => inotifyMasks().some((watch) => watch.ino === aboveIno),
    'the follower to watch where the directory will be made',
  )
  fs.mkdirSync(path.dirname(target))
  fs.writeFileSync(target, 'in the new directory\n')
  t.deepEqual(
    await within(next, LINE_QUIET_MS, 'the line of the target in the directory made after the link'),
    line('in the new directory'),
  )
})

test("a directory link on the way re-pointed, as a deployment's `current` is: the old file to its end, then the new one", async (t) => {
  const base = temp.path('deploys')
  for (const release of ['r1', 'r2']) fs.mkdirSync(path.join(base, 'releases', release, 'log'), { recursive: true })
  const logOf = (release) => path.join(base, 'releases', release, 'log', 'app.log')
  fs.writeFileSync(logOf('r1'), 'r1 one\n')
  fs.symlinkSync(path.join('releases', 'r1'), path.join(base, 'current'))
  const reader = followLines(path.join(base, 'current', 'log', 'app.log'), { start: 0 })
  t.teardown(() => reader.close())
  t.deepEqual(await reader.next(), line('r1 one'))
  const next = reader.next()
  fs.writeFileSync(logOf('r2'), 'r2 one\n')
  // Re-pointed as `ln -sfn` does: a new link renamed over the old one.
  fs.symlinkSync(path.join('releases', 'r2'), path.join(base, 'next'))
  fs.renameSync(path.join(base, 'next'), path.join(base, 'current'))
  t.deepEqual(await within(next, LINE_QUIET_MS, 'the first line of the new release'), line('r2 one'))
  fs.appendFileSync(logOf('r2'), 'r2 two\n')
  t.deepEqual(await within(reader.next(), LINE_QUIET_MS, 'a line written to the new release'), line('r2 two'))
})

test('a link to a link whose inner link is re-pointed: followed like a rename', async (t) => {
  const base = temp.path('link-to-link')
  fs.mkdirSync(path.join(base, 'inner'), { recursive: true })
  const [first, second] = [path.join(base, 'first.log'), path.join(base, 'second.log')]
  fs.writeFileSync(first, 'first\n')
  fs.writeFileSync(second, 'second\n')
  const inner = path.join(base, 'inner', 'current')
  fs.symlinkSync(first, inner)
  const outer = path.join(base, 'app.log')
  fs.symlinkSync(inner, outer)
  const reader = followLines(outer, { start: 0 })
  t.teardown(() => reader.close())
  t.deepEqual(await reader.next(), line('first'))
  const next = reader.next()
  fs.symlinkSync(second, path.join(base, 'inner', 'next'))
  fs.renameSync(path.join(base, 'inner', 'next'), inner)
  t.deepEqual(await within(next, LINE_QUIET_MS, "the line of the inner link's new target"), line('second'))
})

test('a directory deleted and made again, with the one above it: the new file is read from its start', async (t) => {
  const top = temp.path('deleted-dirs')
  const dir = path.join(top, 'a', 'b')
  fs.mkdirSync(dir, { recursive: true })
  const file = path.join(dir, 'app.log')
  fs.writeFileSync(file, 'one\n')
  const reader = followLines(file, { start: 0 })
  t.teardown(() => reader.close())
  t.deepEqual(await reader.next(), line('one'))
  const next = reader.next()
  fs.rmSync(path.join(top, 'a'), { recursive: true })
  // Once it has seen the deletion, the follower waits for `a` in `top`, the nearest directory
  // there; it watched nothing there before.
  const topIno = fs.statSync(top).ino.toString(16)
  await until(() => inotifyMasks().some((watch) => watch.ino === topIno), 'the follower to watch the directory above')
  fs.mkdirSync(path.join(top, 'a'))
  fs.mkdirSync(dir)
  fs.writeFileSync(file, 'two\n')
  t.deepEqual(await within(next, LINE_QUIET_MS, 'the line of the file in the directories made again'), line('two'))
  // Deleted and made again at once, before the watcher has seen the deletion.
  const again = reader.next()
  fs.rmSync(path.join(top, 'a'), { recursive: true })
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(file, 'three\n')
  t.deepEqual(await within(again, LINE_QUIET_MS, 'the line of the file made again at once'), line('three'))
})

test('the file is watched for writes and its directory only for names: writing to a neighbour wakes nothing', async (t) => {
  const IN_MODIFY = 0x2
  const IN_CREATE = 0x100
  const dir = temp.path('neighbours')
  fs.mkdirSync(dir)
  const file = path.join(dir, 'app.log')
  fs.writeFileSync(file, '')
  const reader = followLines(file)
  t.teardown(() => reader.close())
  const step = reader.next()
  await until(() => reader.position !== undefined, 'the follower to open the file')
  const watchOf = (target) => {
    const ino = fs.statSync(target).ino.toString(16)
    return inotifyMasks().find((watch) => watch.ino === ino)
  }
  const [fileWatch, dirWatch] = [watchOf(file), watchOf(dir)]
  t.truthy(fileWatch, 'the file has a watch')
  t.truthy(dirWatch, 'the directory has a watch')
  t.is(fileWatch.mask & IN_MODIFY, IN_MODIFY, 'the file is watched for writes')
  t.is(dirWatch.mask & IN_MODIFY, 0, 'the directory is not watched for writes to its files')
  t.is(dirWatch.mask & IN_CREATE, IN_CREATE, 'the directory is watched for names')
  const neighbour = fs.openSync(path.join(dir, 'other.log'), 'a')
  for (let i = 0; i < 1000; i++) fs.writeSync(neighbour, `neighbour ${i}\n`)
  fs.closeSync(neighbour)
  fs.appendFileSync(file, 'mine\n')
  t.deepEqual(await within(step, LINE_QUIET_MS, 'the line written to the followed file'), line('mine'))
})

test('two rotations while the consumer is behind: every file the path named is read, in order', async (t) => {
  const dir = path.join(temp.dir, 'rotated-twice-behind')
  fs.mkdirSync(dir)
  const file = path.join(dir, 'app.log')
  fs.writeFileSync(file, '')
  const lines = (from, to) => Array.from({ length: to - from }, (_, i) => `${from + i} ${'x'.repeat(60)}\n`).join('')
  const reader = followLines(file)
  t.teardown(() => reader.close())
  const first = reader.next()
  // 3 MB, more than the follower reads ahead: it waits for its consumer, who is busy.
  fs.appendFileSync(file, lines(0, 50_000))
  t.is((await first).value, `0 ${'x'.repeat(60)}`)
  fs.renameSync(file, `${file}.1`)
  fs.writeFileSync(file, lines(50_000, 50_010))
  await until(() => isOpen(file), 'the follower to open the first new file')
  fs.renameSync(file, `${file}.2`)
  fs.writeFileSync(file, lines(50_010, 50_020))
  await until(() => isOpen(file), 'the follower to open the second new file')
  const rest = await within(take(reader, 50_019), LINE_QUIET_MS, 'the lines of all three files')
  t.deepEqual(
    rest.map((text) => Number.parseInt(text)),
    Array.from({ length: 50_019 }, (_, i) => i + 1),
  )
})

test('a consumer stopped while its log rotates on: 16 files wait open at most, then the newest is read', async (t) => {
  // Each file that came to the path was opened and held until the consumer caught up: 190
  // descriptors after 300 rotations, towards the process's limit.
  const dir = path.join(temp.dir, 'rotated-while-stopped')
  fs.mkdirSync(dir)
  const file = path.join(dir, 'app.log')
  const other = path.join(dir, 'other.log')
  fs.writeFileSync(file, '')
  fs.writeFileSync(other, '')
  const reader = followLines(file)
  const otherReader = followLines(other)
  t.teardown(() => Promise.all([reader.close(), otherReader.close()]))
  const first = reader.next()
  // 3 MB, more than the follower reads ahead: it waits for its consumer, who does not step.
  fs.appendFileSync(file, Array.from({ length: 50_000 }, (_, i) => `${i} ${'x'.repeat(60)}\n`).join(''))
  t.is((await first).value, `0 ${'x'.repeat(60)}`)
  const rotations = 40
  for (let i = 1; i <= rotations; i++) {
    fs.renameSync(file, `${file}.${i}`)
    fs.writeFileSync(file, `rotated ${i}\n`)
    // One watcher reads every follower's events in order: once the follower of a file in the
    // same directory has a line written after this rotation, the rotation has been seen.
    const seen = otherReader.next()
    fs.appendFileSync(other, `after rotation ${i}\n`)
    t.deepEqual(
      await within(seen, LINE_QUIET_MS, `the other follower's line after rotation ${i}`),
      line(`after rotation ${i}`),
    )
  }
  // This process's other tests follow files of the same names in other directories.
  const heldHere = () => openPaths().filter((open) => path.dirname(open) === dir && /app\.log(\.\d+)?$/.test(open))
  const held = heldHere()
  t.is(held.length, 17, `the file being read and the 16 that wait: ${held.map((open) => path.basename(open))}`)
  const rest = await within(take(reader, 49_999 + 17), LINE_QUIET_MS, 'the lines of the files read')
  t.deepEqual(
    rest.slice(0, 49_999).map((text) => Number.parseInt(text)),
    Array.from({ length: 49_999 }, (_, i) => i + 1),
  )
  const rotated = rest.slice(49_999).map((text) => Number(text.slice('rotated '.length)))
  t.deepEqual(
    rotated,
    [...Array.from({ length: 16 }, (_, i) => i + 1), rotations],
    'the 16 that waited, then the newest',
  )
  const step = reader.next()
  fs.appendFileSync(file, 'appended to the newest\n')
  t.deepEqual(await within(step, LINE_QUIET_MS, 'a line appended to the newest'), line('appended to the newest'))
  t.deepEqual(heldHere(), [file], 'only the newest is held once read up to')
})

test('several followers of one file each get every line', async (t) => {
  const file = temp.file('', 'shared.log')
  const readers = Array.from({ length: 10 }, () => followLines(file, { start: 0 }))
  t.teardown(() => Promise.all(readers.map((reader) => reader.close())))
  const steps = readers.map((reader) => take(reader, 3))
  fs.appendFileSync(file, 'one\n')
  fs.appendFileSync(file, 'two\nthree\n')
  for (const lines of await Promise.all(steps)) t.deepEqual(lines, ['one', 'two', 'three'])
})

test('closing one follower leaves the others of the same directory woken', async (t) => {
  const kept = temp.file('', 'kept.log')
  const closed = temp.file('', 'closed.log')
  const keptReader = followLines(kept, { start: 0 })
  t.teardown(() => keptReader.close())
  const closedReader = followLines(closed, { start: 0 })
  const closedStep = closedReader.next()
  const keptStep = keptReader.next()
  fs.appendFileSync(kept, 'first\n')
  t.deepEqual(await keptStep, line('first'))
  await closedReader.close()
  t.deepEqual(await closedStep, done)
  const next = keptReader.next()
  fs.appendFileSync(kept, 'after the other closed\n')
  t.deepEqual(await next, line('after the other closed'))
})

test('one directory named in several ways (relative, through a symlink, Buffer, URL): every follower stays woken', async (t) => {
  // A directory of its own, so that if a follower here stops being woken, no other test's does.
  const dir = temp.path('aliases')
  fs.mkdirSync(dir)
  const link = temp.path('aliases-link')
  fs.symlinkSync(dir, link)
  const named = {
    absolute: path.join(dir, 'absolute.log'),
    relative: path.relative(process.cwd(), path.join(dir, 'relative.log')),
    symlink: path.join(link, 'symlink.log'),
    buffer: Buffer.from(path.join(dir, 'buffer.log')),
    url: new URL(`file://${path.join(dir, 'url.log')}`),
  }
  const readers = {}
  t.teardown(() => Promise.all(Object.values(readers).map((reader) => reader.close())))
  const check = async (name, text) => {
    const step = readers[name].next()
    fs.appendFileSync(named[name], `${text}\n`)
    t.deepEqual(await within(step, LINE_QUIET_MS, `${name}: ${text}`), line(text), name)
  }
  for (const [name, file] of Object.entries(named)) {
    fs.writeFileSync(file, '')
    readers[name] = followLines(file, { start: 0 })
  }
  await check('absolute', 'first')
  for (const name of Object.keys(named)) await check(name, `${name} while all follow`)
  await readers.relative.close()
  await readers.symlink.close()
  for (const name of ['absolute', 'buffer', 'url']) await check(name, `${name} after two closed`)
  const missing = path.relative(process.cwd(), path.join(dir, 'missing.log'))
  const error = await t.throwsAsync(followLines(missing).next())
  t.like(error, { code: 'ENOENT', path: missing })
})

// ---- rotation, truncation, deletion -----------------------------------------------------------

/**
 * Follows `log` while the writer fixture writes it and rotates it `rotations` times in `mode`,
 * asking for each rotation once the follower has read 2,000 lines into the newest file. Returns
 * the numbers of the lines the follower got, where the writer rotated, and how many it wrote.
 */
async function followWriter(t, log, mode, rotations) {
  fs.writeFileSync(log, '')
  const reader = followLines(log, { start: 0 })
  const rotatedAt = []
  let requested = 0
  let total
  let last = -1
  const got = []
  const malformed = []
  let output = ''
  // Asks for the next rotation once the follower has read 2,000 lines of the newest file. Checked
  // at each line and at each rotation the writer reports: a follower may read every line the
  // writer wrote (up to its cap, where it waits) before the report of the rotation before them
  // comes through its stdout, and then no line comes to check at (seen on Deno under load).
  const askToRotate = (child) => {
    const newest = rotatedAt.at(-1) ?? 0
    if (requested === rotatedAt.length && requested < rotations && last >= newest + 2000) {
      requested++
      child.stdin.write('rotate\n')
    }
  }
  const onStdout = (data, child) => {
    output += data
    let newline
    while ((newline = output.indexOf('\n')) !== -1) {
      const [what, n] = output.slice(0, newline).split(' ')
      output = output.slice(newline + 1)
      if (what === 'rotated') {
        rotatedAt.push(Number(n))
        if (mode === 'copytruncate' && last >= Number(n)) child.stdin.write('continue\n')
        askToRotate(child)
      } else if (what === 'done') {
        total = Number(n)
        if (last === total - 1) reader.close()
      }
    }
  }
  const { child, result } = runProcess([fixturePath('log-writer.mjs'), log, mode, '20000', String(rotations)], {
    onStdout,
    quietMs: WRITER_QUIET_MS,
  })
  for await (const text of reader) {
    const n = logLineNumber(text)
    if (!(n > last) || text !== logLine(n)) {
      malformed.push({ after: last, text })
      break
    }
    got.push(n)
    // The copytruncate writer waits after the first line it wrote into the truncated file.
    if (mode === 'copytruncate' && n === rotatedAt.at(-1)) child.stdin.write('continue\n')
    last = n
    if (n === total - 1) break
    askToRotate(child)
  }
  await reader.close()
  const run = await result
  t.is(run.status, 0, describeRun(run))
  t.deepEqual(malformed, [], 'every line whole, each after the one before')
  t.is(rotatedAt.length, rotations, 'the writer rotated as often as asked')
  t.is(last, total - 1, `the follower got to the last line the writer wrote (${total - 1})`)
  return { got, rotatedAt, total, position: reader.position }
}

test('rename rotation while a writer process writes: every line once, in order', async (t) => {
  t.timeout(hangLimit(WRITER_QUIET_MS))
  const log = temp.path('renamed.log')
  const { got, rotatedAt, total, position } = await followWriter(t, log, 'rename', 4)
  t.is(got.length, total, 'no line lost')
  t.true(
    got.every((n, i) => n === i),
    'no line repeated or out of order',
  )
  t.is(position, fs.statSync(log).size, 'position is in the newest file')
  for (let k = 1; k <= rotatedAt.length; k++) {
    const [firstOfNext] = (await readLastLines(`${log}.${k}`, 1)).map(logLineNumber)
    t.is(firstOfNext, rotatedAt[k - 1] - 1, `rotated file ${k} ends before rotation ${k}`)
  }
})

test('copytruncate while a writer process writes: every line after each truncation comes, from offset 0', async (t) => {
  t.timeout(hangLimit(WRITER_QUIET_MS))
  const log = temp.path('truncated.log')
  const { got, rotatedAt, total, position } = await followWriter(t, log, 'copytruncate', 3)
  const received = new Set(got)
  // Lines written before a truncation but not yet read are in the copy only: what tail -F loses.
  for (const first of rotatedAt) t.true(received.has(first), `line ${first}, the first after a truncation`)
  const afterLast = got.slice(got.indexOf(rotatedAt.at(-1)))
  t.deepEqual(
    afterLast,
    Array.from({ length: total - rotatedAt.at(-1) }, (_, i) => rotatedAt.at(-1) + i),
    'every line after the last truncation',
  )
  t.is(position, fs.statSync(log).size, 'position is in the truncated file')
  t.log(`${total - got.length} of ${total} lines were in the copies only`)
})

test('rename: the old file is read to its end, its unterminated last line as a line, then the new one from 0', async (t) => {
  const { file, reader } = emptyFollowed(t, 'rename.log')
  const fd = fs.openSync(file, 'a')
  fs.writeSync(fd, 'one\n')
  t.deepEqual(await reader.next(), line('one'))
  const step = reader.next()
  fs.writeSync(fd, 'two\nhal')
  t.deepEqual(await step, line('two'))
  await until(() => reader.bytesRead === 11, 'the follower to read the partial line')
  fs.renameSync(file, `${file}.1`)
  // The follower sees the rename before the old file grows and before the new one appears.
  await sleep(50)
  fs.writeSync(fd, 'f\nafter the rename\nunterminated')
  await sleep(50)
  fs.closeSync(fd)
  fs.writeFileSync(file, 'new\r\n')
  t.deepEqual(await take(reader, 4), ['half', 'after the rename', 'unterminated', 'new'])
  t.is(reader.position, 5, 'position is in the new file')
  fs.appendFileSync(file, 'more\n')
  t.deepEqual(await reader.next(), line('more'))
  t.is(reader.position, 10)
})

test('rename: a lone \\r ending the old file and a \\n starting the new one are two terminators', async (t) => {
  const { file, reader } = emptyFollowed(t, 'rename-cr.log')
  const step = reader.next()
  await appendAndRead(reader, file, 'x\r', 2)
  fs.renameSync(file, `${file}.1`)
  fs.writeFileSync(file, '\nb\n')
  t.deepEqual(await step, line('x'))
  t.deepEqual(await take(reader, 2), ['', 'b'])
  t.is(reader.position, 3)
})

/** `app.log` holding the line `first`, in a directory of its own, followed from 0 past that line. */
async function followedInOwnDirectory(t, name, first) {
  const dir = temp.path(name)
  fs.mkdirSync(dir)
  const file = path.join(dir, 'app.log')
  fs.writeFileSync(file, `${first}\n`)
  const reader = followLines(file, { start: 0 })
  t.teardown(() => reader.close())
  t.deepEqual(await reader.next(), line(first))
  return { dir, file, reader }
}

test('a directory moved aside and made again: its follower reads on in the old file, then the new one; a follower made later sees its rotations', async (t) => {
  // The watch of the moved directory, found by its old path, stood for the new one.
  const { dir, file, reader: first } = await followedInOwnDirectory(t, 'moved-aside', 'old')
  fs.renameSync(dir, `${dir}.old`)
  // The first follower stays on the file it has open, as GNU tail -F does, until a file is at
  // its path again.
  fs.appendFileSync(path.join(`${dir}.old`, 'app.log'), 'old 2\n')
  t.deepEqual(await first.next(), line('old 2'))
  const firstNext = first.next()
  fs.mkdirSync(dir)
  fs.writeFileSync(file, 'one\n')
  t.deepEqual(await within(firstNext, LINE_QUIET_MS, 'the line of the file in the directory made again'), line('one'))
  const reader = followLines(file, { start: 0 })
  t.teardown(() => reader.close())
  t.deepEqual(await reader.next(), line('one'))
  const step = reader.next()
  fs.renameSync(file, `${file}.1`)
  fs.writeFileSync(file, 'two\n')
  t.deepEqual(await step, line('two'))
})

test('a directory on the path swapped for a moment for a file or a loop of links: the follower goes on once it is back', async (t) => {
  // A name on the way that is for now a file (ENOTDIR) or a loop of links (ELOOP) names nothing,
  // as tail -F takes it; but the watcher stopped listening for the directory's name then, and the
  // follower never heard of the directory coming back.
  const swaps = {
    'a file': (at) => fs.writeFileSync(at, ''),
    'a loop of links': (at) => fs.symlinkSync(path.basename(at), at),
  }
  for (const [swap, putAt] of Object.entries(swaps)) {
    const name = `swapped-for-${swap.replaceAll(' ', '-')}`
    const { dir, file, reader } = await followedInOwnDirectory(t, name, 'one')
    // A follower of a file beside the directory: one watcher reads every event in order, so
    // once it has a line written after the swap, the swap has been seen.
    const beside = temp.file('', `${name}.beside.log`)
    const besideReader = followLines(beside, { start: 0 })
    t.teardown(() => besideReader.close())
    fs.renameSync(dir, `${dir}.old`)
    putAt(dir)
    const seen = besideReader.next()
    fs.appendFileSync(beside, 'after the swap\n')
    t.deepEqual(await within(seen, LINE_QUIET_MS, `${swap}: the line beside`), line('after the swap'))
    const step = reader.next()
    fs.rmSync(dir)
    fs.mkdirSync(dir)
    fs.writeFileSync(file, 'two\n')
    t.deepEqual(await within(step, LINE_QUIET_MS, `${swap}: the line of the directory back`), line('two'))
    const next = reader.next()
    fs.appendFileSync(file, 'three\n')
    t.deepEqual(await within(next, LINE_QUIET_MS, `${swap}: a line appended there`), line('three'))
  }
})

test('a watch the OS refuses after a rotation (the watches used up) fails the follower with ENOSPC, after the lines before', async (t) => {
  // The refusal was dropped: the follower waited at the end of the new file for ever, woken by
  // no write, and said nothing. Run in a user namespace of its own whose limit of inotify
  // watches is 2 (the follower's directory and its file), so that the new file finds none left;
  // this machine's own limit is not touched.
  const dir = temp.path('watch-limit')
  fs.mkdirSync(dir)
  const log = path.join(dir, 'app.log')
  fs.writeFileSync(log, '')
  const script = temp.file(
    `import fs from 'node:fs'
    import { followLines } from ${JSON.stringify(indexPath)}
    const log = ${JSON.stringify(log)}
    const reader = followLines(log)
    const got = []
    const first = reader.next()
    fs.appendFileSync(log, 'one\\n')
    got.push((await first).value)
    const step = reader.next()
    fs.renameSync(log, log + '.1')
    fs.writeFileSync(log, 'two\\n')
    try {
      for (let result = await step; !result.done; result = await reader.next()) got.push(result.value)
      console.log(JSON.stringify({ got }))
    } catch ({ message, code, errno, syscall, path, filename }) {
      console.log(JSON.stringify({ got, error: { message, code, errno, syscall, path, filename } }))
    }`,
    'watch-limit.mjs',
  )
  const limited = 'echo 2 > /proc/sys/user/max_inotify_watches && exec "$@"'
  const run = await runProcess(['-U', '-r', 'sh', '-c', limited, 'sh', process.execPath, ...scriptArgs(script)], {
    command: 'unshare',
    quietMs: 1_000,
  }).result
  t.true(run.status === 0 && !run.timedOut, describeRun(run))
  const { got, error } = JSON.parse(run.stdout)
  t.is(got[0], 'one', 'the line before the rotation')
  t.like(error, {
    code: 'ENOSPC',
    errno: -28,
    syscall: 'watch',
    path: log,
    filename: log,
    message: `ENOSPC: System limit for number of file watchers reached, watch '${log}'`,
  })
})

test('following a FIFO fails with ESPIPE at once, with or without a writer, and holds no thread', async (t) => {
  // Its open waited in open(2) for a writer, on one of the 32 blocking threads, which close()
  // could not free: 32 such followers stopped every read of the process.
  const dir = temp.path('fifos')
  fs.mkdirSync(dir)
  for (let i = 0; i < 33; i++) {
    const fifo = path.join(dir, `fifo-${i}`)
    execFileSync('mkfifo', [fifo])
    const options = [undefined, { start: 0 }, { lastLines: 2 }][i % 3]
    const error = await t.throwsAsync(followLines(fifo, options).next(), { code: 'ESPIPE' }, `fifo ${i}`)
    t.is(error.path, fifo)
  }
  const written = path.join(dir, 'written')
  execFileSync('mkfifo', [written])
  // Opened read-write, so that the open waits for no reader (Linux).
  const writer = fs.openSync(written, 'r+')
  t.teardown(() => fs.closeSync(writer))
  await t.throwsAsync(followLines(written).next(), { code: 'ESPIPE' })
  const file = temp.file('still read\n', 'after-fifos.log')
  t.deepEqual(await collect(readLines(file)), ['still read'])
})

test('a FIFO followed by mistake, there at the call or come before the first step, is not opened: its waiting writer goes on waiting', async (t) => {
  // Opened only to fail with ESPIPE, it let a writer waiting for a reader go on, to meet EPIPE.
  for (const when of ['at the call', 'before the first step']) {
    const dir = fs.mkdtempSync(path.join(temp.dir, 'fifo-by-mistake-'))
    const [fifo, file] = [path.join(dir, 'fifo'), path.join(dir, 'app.log')]
    execFileSync('mkfifo', [fifo])
    const writer = spawn('sh', ['-c', `echo hi > '${fifo}'`], { stdio: 'ignore' })
    t.teardown(() => writer.kill('SIGKILL'))
    const waiting = () => fs.readFileSync(`/proc/${writer.pid}/wchan`, 'utf8') === 'wait_for_partner'
    await until(waiting, 'the writer to wait for a reader')
    if (when === 'at the call') fs.renameSync(fifo, file)
    const reader = followLines(file)
    if (when !== 'at the call') fs.renameSync(fifo, file)
    const error = await t.throwsAsync(within(reader.next(), LINE_QUIET_MS, when), { code: 'ESPIPE' }, when)
    t.like(error, { syscall: 'read', path: file }, when)
    // The writer would have gone on at once, with the open.
    await sleep(100)
    t.true(waiting(), `${when}: the writer still waits`)
  }
})

test('following a directory by mistake fails with EISDIR, and the followers of files in it still see their rotations', async (t) => {
  // Its file watch had replaced the directory's watch for names, which the others share.
  const { dir, file, reader } = await followedInOwnDirectory(t, 'with-a-directory-follower', 'one')
  const step = reader.next()
  await t.throwsAsync(followLines(dir, { start: 0 }).next(), { code: 'EISDIR' })
  fs.writeFileSync(`${file}.tmp`, 'two\n')
  fs.renameSync(`${file}.tmp`, file)
  t.deepEqual(await step, line('two'))
})

test('following / or .. fails with EISDIR, and every other follower goes on being woken', async (t) => {
  // Such a path names no file in a directory: setting up its watch failed, and the failure
  // dropped its registration under the watcher's lock, which it took again: the watcher's
  // thread and every follower of the process waited for ever.
  const { file, reader } = emptyFollowed(t, 'beside-root.log')
  for (const [i, path] of ['/', '..'].entries()) {
    const step = reader.next()
    const bad = followLines(path, { start: 0 })
    const error = await t.throwsAsync(within(bad.next(), LINE_QUIET_MS, `following ${path} to fail`))
    t.like(error, { code: 'EISDIR', syscall: 'read', path })
    await bad.close()
    fs.appendFileSync(file, `line ${i}\n`)
    t.deepEqual(await within(step, LINE_QUIET_MS, `the other follower, after ${path}`), line(`line ${i}`))
  }
})

test('a procfs file, whose size the OS gives as 0, is read once, not again as if truncated', async (t) => {
  // Its size, 0, below where it was read to looked like a truncation: its lines came twice.
  const content = fs.readFileSync('/proc/version', 'latin1')
  const reader = followLines('/proc/version', { start: 0 })
  t.teardown(() => reader.close())
  t.is((await within(reader.next(), LINE_QUIET_MS, 'the line')).value, content.trimEnd())
  const second = reader.next()
  // Nothing more comes: the duplicate came at once, on the follower's first look at the file.
  t.is(await Promise.race([second, sleep(500, 'nothing more')]), 'nothing more')
  t.is(reader.bytesRead, Buffer.byteLength(content, 'latin1'))
})

test('a procfs file followed from a start, as a saved position, is read from there, not again from 0', async (t) => {
  // Its size at the call, 0, made every start look past a truncation since.
  const [expected] = await collect(readLines('/proc/version', { start: 8 }))
  const reader = followLines('/proc/version', { start: 8 })
  t.teardown(() => reader.close())
  t.is(reader.position, 8)
  t.deepEqual(await within(reader.next(), LINE_QUIET_MS, 'the line'), line(expected))
})

test('copytruncate: a line ended by a lone \\r before the truncation still comes', async (t) => {
  // The \r ended the line; the follower held it only in case a \n came next.
  const { file, reader } = emptyFollowed(t, 'copytruncate-cr.log')
  fs.appendFileSync(file, 'line 1\n')
  t.deepEqual(await reader.next(), line('line 1'))
  const step = reader.next()
  await appendAndRead(reader, file, 'a\r', 9)
  fs.truncateSync(file, 0)
  // Fewer bytes than were read before: the truncation shows whenever the follower looks.
  fs.appendFileSync(file, 'b\n')
  t.deepEqual(await step, line('a'))
  t.deepEqual(await reader.next(), line('b'))
  t.is(reader.position, 2)
})

test('copytruncate: reading restarts at offset 0 and a partial line from before is dropped', async (t) => {
  const { file, reader } = emptyFollowed(t, 'copytruncate.log')
  const fd = fs.openSync(file, 'a')
  t.teardown(() => fs.closeSync(fd))
  fs.writeSync(fd, 'line 1\nline 2\n')
  t.deepEqual(await take(reader, 2), ['line 1', 'line 2'])
  const step = reader.next()
  fs.writeSync(fd, 'partial')
  await until(() => reader.bytesRead === 21, 'the follower to read the partial line')
  fs.copyFileSync(file, `${file}.1`)
  fs.truncateSync(file, 0)
  // Fewer bytes than were read before: the truncation shows whenever the follower looks.
  fs.writeSync(fd, 'after 1\n')
  t.deepEqual(await step, line('after 1'))
  t.is(reader.position, 8)
  fs.writeSync(fd, 'after 2\n')
  t.deepEqual(await reader.next(), line('after 2'))
  t.is(reader.position, 16)
})

test('copytruncate: a truncation seen before the file grows past the old offset restarts at 0 too', async (t) => {
  const { file, reader } = emptyFollowed(t, 'truncate-grow.log')
  fs.appendFileSync(file, 'short\n')
  t.deepEqual(await reader.next(), line('short'))
  const step = reader.next()
  t.true(offsetsOn(file).includes(6), 'the follower has read up to 6')
  fs.truncateSync(file, 0)
  // The truncation is seen before the new lines land: that order is the point. Seeing it, the
  // follower goes back to the start of its file. (A pause of 50 ms here was too short for a
  // follower woken late on a loaded machine, which then found the file regrown past 6 bytes.)
  await until(() => {
    const offsets = offsetsOn(file)
    return offsets.length > 0 && offsets.every((offset) => offset === 0)
  }, 'the follower to see the truncation')
  const lines = Array.from({ length: 20 }, (_, i) => logLine(i))
  fs.appendFileSync(file, `${lines.join('\n')}\n`)
  t.deepEqual([(await step).value, ...(await take(reader, 19))], lines)
  t.is(reader.position, fs.statSync(file).size)
})

for (const [name, pause] of [
  ['at once', 0],
  ['after a pause', 100],
]) {
  test(`a deleted file recreated ${name} is read from 0`, async (t) => {
    const { file, reader } = emptyFollowed(t, `deleted-${pause}.log`)
    fs.appendFileSync(file, 'before\n')
    t.deepEqual(await reader.next(), line('before'))
    const step = reader.next()
    fs.unlinkSync(file)
    // The deletion is seen before the file comes back: that order is the point.
    if (pause) await sleep(pause)
    fs.writeFileSync(file, 'reborn\n')
    t.deepEqual(await step, line('reborn'))
    t.is(reader.position, 7)
    fs.appendFileSync(file, 'and more\n')
    t.deepEqual(await reader.next(), line('and more'))
    t.is(reader.position, 16)
  })
}

test('a missing path rejects the first step with ENOENT, as fs does', async (t) => {
  const file = temp.path('never-there.log')
  const expected = await t.throwsAsync(fs.promises.open(file))
  for (const options of [undefined, { start: 0 }, { start: 10 }, { lastLines: 3 }]) {
    const reader = followLines(file, options)
    const error = await t.throwsAsync(reader.next(), { instanceOf: Error }, JSON.stringify(options))
    t.like(error, { code: 'ENOENT', errno: expected.errno, syscall: 'open', path: file })
    t.is(error.message, expected.message)
    t.deepEqual(await reader.next(), done)
  }
  await t.throwsAsync(followLines(file).batches().next(), { code: 'ENOENT' })
})

// ---- many followers --------------------------------------------------------------------------

test.serial('1,000 followers at once on distinct files: one inotify instance, every line, all closed', async (t) => {
  t.timeout(hangLimit(WRITER_QUIET_MS))
  const count = 1000
  const watchesBefore = inotifyMasks().length
  const files = Array.from({ length: count }, (_, i) => temp.file(`first ${i}\n`, `many-${i}.log`))
  const readers = files.map((file, i) => followLines(file, { start: `first ${i}\n`.length }))
  t.teardown(() => Promise.all(readers.map((reader) => reader.close())))
  const firstSteps = readers.map((reader) => reader.next())
  files.forEach((file, i) => fs.appendFileSync(file, `appended ${i}\n`))
  const firsts = await Promise.all(firstSteps)
  t.deepEqual(
    firsts.map(({ value }) => value),
    files.map((_, i) => `appended ${i}`),
  )
  // Linux allows 128 inotify instances per user by default: one per follower could not work.
  t.true(inotifyInstances() <= inotifyBaseline + 1, `${inotifyInstances() - inotifyBaseline} inotify instances`)
  const open = new Set(openPaths())
  t.is(files.filter((file) => open.has(file)).length, count, 'every follower holds its file open')

  const secondSteps = readers.map((reader) => reader.next())
  files.forEach((file, i) => fs.appendFileSync(file, `second ${i}\r\n`))
  t.deepEqual(
    (await Promise.all(secondSteps)).map(({ value }) => value),
    files.map((_, i) => `second ${i}`),
  )

  const pending = readers.map((reader) => reader.next())
  await Promise.all(readers.map((reader) => reader.close()))
  t.true(
    (await Promise.all(pending)).every((result) => result.done),
    'every pending step ends when its follower is closed',
  )
  const stillOpen = new Set(openPaths())
  t.is(files.filter((file) => stillOpen.has(file)).length, 0, 'every file is closed')
  await until(() => inotifyMasks().length <= watchesBefore, `the watches to be dropped (${inotifyMasks().length} left)`)
})

test('followers of a small log take the address space of its size, not of a large highWaterMark', async (t) => {
  // Each follower allocated a read of highWaterMark whole (and 1.25x it): eight at 256 MiB took
  // 2.5 GB of address space, where readLines sizes its reads by what the file holds. Untouched,
  // those pages cost no RSS, so it is the process's virtual size that shows them.
  const log = temp.file('one\ntwo\n', 'small-hwm.log')
  const code = `
    import fs from 'node:fs'
    const virtualSize = () => Number(/^VmSize:\\s+(\\d+) kB/m.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]) * 1024
    const log = ${JSON.stringify(log)}
    const warm = fastlines.followLines(log, { start: 0 })
    await warm.next()
    await warm.close()
    const before = virtualSize()
    const followers = []
    for (let i = 0; i < 8; i++) {
      const from = i % 2 === 0 ? { start: 0 } : { lastLines: 2 }
      const follower = fastlines.followLines(log, { ...from, highWaterMark: 256 * 2 ** 20 })
      followers.push([follower, (await follower.next()).value])
    }
    const grown = virtualSize() - before
    await Promise.all(followers.map(([follower]) => follower.close()))
    console.log(JSON.stringify({ grown, firsts: followers.map(([, first]) => first) }))`
  const run = await runScript('small-hwm', code, { quietMs: 1_000 }).result
  t.is(run.status, 0, describeRun(run))
  const { grown, firsts } = JSON.parse(run.stdout)
  t.deepEqual(firsts, Array(8).fill('one'))
  t.true(grown < 512 * 2 ** 20, `the address space grew by ${(grown / 2 ** 20).toFixed(0)} MiB for 8 followers`)
})

// ---- close, abort and idling -----------------------------------------------------------------

test('close() while a step waits: the step ends, the file is closed', async (t) => {
  const file = temp.file('a\n')
  const reader = followLines(file, { start: 0 })
  t.deepEqual(await reader.next(), line('a'))
  const waiting = reader.next()
  t.true(isOpen(file))
  await Promise.all([reader.close(), reader.close()])
  t.deepEqual(await waiting, done)
  t.false(isOpen(file))
  fs.appendFileSync(file, 'b\n')
  t.deepEqual(await reader.next(), done)
  t.is(reader.position, 2, 'position stays after the last line handed out')
})

test('close() before the first step opens nothing', async (t) => {
  const file = temp.file('a\n')
  const reader = followLines(file, { start: 0 })
  await reader.close()
  t.deepEqual(await reader.next(), done)
  t.false(isOpen(file))
})

test('break and return() close the follower', async (t) => {
  const file = temp.file('a\nb\nc\n')
  for await (const text of followLines(file, { start: 0 })) {
    t.true(isOpen(file))
    if (text === 'b') break
  }
  t.false(isOpen(file))
  const reader = followLines(file, { start: 0 })
  await reader.next()
  t.deepEqual(await reader.return('r'), { value: 'r', done: true })
  t.false(isOpen(file))
})

test('aborting while a step waits rejects it with an AbortError and closes the file', async (t) => {
  const file = temp.file('a\n')
  const controller = new AbortController()
  const reader = followLines(file, { start: 0, signal: controller.signal })
  t.deepEqual(await reader.next(), line('a'))
  const waiting = reader.next()
  t.true(isOpen(file))
  const reason = new Error('user cancelled')
  controller.abort(reason)
  const error = await t.throwsAsync(waiting)
  t.like(error, { name: 'AbortError', code: 'ABORT_ERR', cause: reason })
  await until(() => !isOpen(file), 'the abort to close the file')
  await t.throwsAsync(reader.next(), { name: 'AbortError' })
})

test('an already aborted signal rejects the first step without opening the file', async (t) => {
  const file = temp.file('a\n')
  await t.throwsAsync(followLines(file, { signal: AbortSignal.abort() }).next(), { name: 'AbortError' })
  await t.throwsAsync(followLines(file, { lastLines: 1, signal: AbortSignal.abort() }).next(), {
    name: 'AbortError',
  })
  t.false(isOpen(file))
})

test('no CPU is spent while waiting, and the process exits by itself after close()', async (t) => {
  // A directory of its own: the other tests' writes to their files must not count here.
  const quiet = temp.path('quiet')
  fs.mkdirSync(quiet)
  const file = path.join(quiet, 'idle.log')
  fs.writeFileSync(file, 'there before\n')
  const run = await runProcess([fixturePath('follow-idle.mjs'), file], { quietMs: 2_500 }).result
  t.is(run.status, 0, describeRun(run))
  const { threads, processCpuMs, wallMs, line: woken } = JSON.parse(run.stdout)
  t.is(woken, 'woken')
  t.true(wallMs >= 990, `waited ${wallMs} ms`)
  const shown = threads.map((thread) => `${thread.name}: ${thread.cpuMs} ms, ${thread.sleeps} sleeps`).join('; ')
  const main = threads.find((thread) => thread.main)
  const own = threads.filter((thread) => !thread.main)
  t.true(own.length > 0, `no thread of fastlines: ${shown}`)
  // A follower that polled, natively or with a JS timer, would wake its thread once per period: a
  // poll every 40 ms or less shows here, however cheap each poll. The JS thread wakes a few times
  // for the engine's own timers (Bun's collector: up to 8 times a second).
  t.true(main.sleeps <= 25, `the JS thread woke ${main.sleeps} times in ${wallMs.toFixed(0)} ms: ${shown}`)
  const ownSleeps = own.reduce((sum, thread) => sum + thread.sleeps, 0)
  t.true(ownSleeps <= 2, `fastlines' threads woke ${ownSleeps} times in ${wallMs.toFixed(0)} ms: ${shown}`)
  // CPU in clock ticks of 10 ms: a spinning thread would show; the JS thread is given room for
  // the engine's own work on a loaded machine (a collection, a compile finishing).
  const ownCpuMs = own.reduce((sum, thread) => sum + thread.cpuMs, 0)
  t.true(ownCpuMs <= 20, `fastlines' threads used ${ownCpuMs} ms of CPU in ${wallMs.toFixed(0)} ms: ${shown}`)
  t.true(main.cpuMs <= 250, `the JS thread used ${main.cpuMs} ms of CPU in ${wallMs.toFixed(0)} ms: ${shown}`)
  t.log(`over ${wallMs.toFixed(0)} ms of waiting: ${shown}; the whole process ${processCpuMs.toFixed(1)} ms of CPU`)
})

// ---- processes and workers -------------------------------------------------------------------

test('a pending step keeps the process alive until its line is written', async (t) => {
  const file = temp.file('', 'keepalive.log')
  const { result } = runScript(
    'keepalive',
    `const reader = fastlines.followLines(${JSON.stringify(file)})
     const step = reader.next()
     while (reader.position === undefined) await new Promise((resolve) => setTimeout(resolve, 2))
     console.log('ready')
     console.log('got', (await step).value)
     await reader.close()`,
    { onStdout: (data) => data.includes('ready') && fs.appendFileSync(file, 'hello\n'), quietMs: 2_500 },
  )
  const run = await result
  t.is(run.status, 0, describeRun(run))
  t.is(run.stdout, 'ready\ngot hello\n')
})

test('a process that follows and then closes, breaks or aborts exits by itself', async (t) => {
  const file = temp.file(numberedLines(100), 'exit.log')
  const { result } = runScript(
    'exits',
    `const file = ${JSON.stringify(file)}
     const closed = fastlines.followLines(file, { lastLines: 2 })
     console.log((await closed.next()).value)
     console.log((await closed.next()).value)
     const waiting = closed.next()
     await closed.close()
     console.log(JSON.stringify(await waiting))
     for await (const line of fastlines.followLines(file, { start: 0 })) if (line.startsWith('00000003')) break
     const controller = new AbortController()
     const idle = fastlines.followLines(file)
     const step = idle.next()
     setTimeout(() => controller.abort(), 50)
     await fastlines.followLines(file, { signal: controller.signal }).next().catch((e) => console.log(e.name))
     await idle.close()
     console.log(JSON.stringify(await step))`,
    { quietMs: 2_500 },
  )
  const run = await result
  t.is(run.status, 0, describeRun(run))
  const [line98, line99] = numberedLines(100).split('\n').slice(98, 100)
  t.is(run.stdout, `${line98}\n${line99}\n{"done":true}\nAbortError\n{"done":true}\n`)
})

test("a follower whose watcher cannot start fails with the OS's error, and the next one starts it and follows", async (t) => {
  const file = temp.file('one\n', 'watcher-retry.log')
  // With one descriptor spare, the first follower opens its file and then finds none left for
  // the process's inotify instance; the second comes once descriptors are free again.
  const { result } = runScript(
    'watcher-retry',
    `import fs from 'node:fs'
     import { execFileSync } from 'node:child_process'
     const file = ${JSON.stringify(file)}
     await fastlines.countLines(file)
     // Deno sets up its signal handling (a socket pair) when something first listens for a
     // signal, and panics if no descriptor is left then (a clean-clone run): set it up first.
     const listener = () => {}
     process.on('SIGUSR2', listener).off('SIGUSR2', listener)
     const open = fs.readdirSync('/proc/self/fd').length
     execFileSync('prlimit', [\`--pid=\${process.pid}\`, \`--nofile=\${open + 32}\`])
     const hog = []
     const hogAll = () => {
       try {
         for (;;) hog.push(fs.openSync('/dev/null', 'r'))
       } catch (error) {
         if (error.code !== 'EMFILE') throw error
       }
     }
     hogAll()
     // What the runtime closes on its event loop meanwhile (once, in Bun's suite on a busy
     // machine, the follower found a descriptor to spare) is taken too.
     await new Promise((resolve) => setImmediate(resolve))
     hogAll()
     fs.closeSync(hog.pop())
     const failure = await fastlines.followLines(file, { start: 0 }).next().then(
       (step) => step,
       (error) => ({ code: error.code, errno: error.errno, syscall: error.syscall }),
     )
     for (const fd of hog) fs.closeSync(fd)
     const second = fastlines.followLines(file, { start: 0 })
     const first = (await second.next()).value
     fs.appendFileSync(file, 'two\\n')
     const appended = (await second.next()).value
     await second.close()
     console.log(JSON.stringify({ failure, first, appended }))`,
    { quietMs: 2_500 },
  )
  const run = await result
  t.is(run.status, 0, describeRun(run))
  const emfile = -os.constants.errno.EMFILE
  t.deepEqual(JSON.parse(run.stdout), {
    failure: { code: 'EMFILE', errno: emfile, syscall: 'watch' },
    first: 'one',
    appended: 'two',
  })
})

test('workers terminated while following neither crash nor hang the process, and leave nothing open', async (t) => {
  const run = await runProcess([fixturePath('follow-workers.mjs'), temp.dir], { quietMs: 2_500 }).result
  t.is(run.status, 0, describeRun(run))
  const { outcomes, stillOpen, line: own } = JSON.parse(run.stdout)
  for (const outcome of outcomes) {
    t.is(outcome.error, null, JSON.stringify(outcome))
    t.true(outcome.lines >= 1, JSON.stringify(outcome))
  }
  t.deepEqual(stillOpen, [])
  t.is(own, 'ready')
})

// ---- position, maxLineLength, batches on a follower -------------------------------------------

test('position: a follower resumed at it gets exactly the lines after the last one handed out', async (t) => {
  const file = temp.file('one\r\ntwo\rthree\nfour\n')
  const first = followLines(file, { start: 0 })
  t.deepEqual(await take(first, 2), ['one', 'two'])
  const saved = first.position
  t.is(saved, 9)
  await first.close()
  fs.appendFileSync(file, 'five\r\n')
  const resumed = followLines(file, { start: saved })
  t.deepEqual(await take(resumed, 3), ['three', 'four', 'five'])
  const step = resumed.next()
  fs.appendFileSync(file, 'six\n')
  t.deepEqual(await step, line('six'))
  const again = resumed.position
  await resumed.close()
  t.deepEqual(await collect(readLines(file, { start: again })), [])
  fs.appendFileSync(file, 'seven\nei')
  t.deepEqual(await collect(readLines(file, { start: again })), ['seven', 'ei'])
})

test('maxLineLength: a longer line rejects after the lines before it, even before its terminator', async (t) => {
  const maxLineLength = 20
  const file = temp.file(`short\n${'L'.repeat(30)}\nafter\n`)
  const reader = followLines(file, { start: 0, maxLineLength })
  t.deepEqual(await reader.next(), line('short'))
  const error = await t.throwsAsync(reader.next())
  t.like(error, { code: 'ERR_LINE_TOO_LONG', path: file, maxLineLength })
  t.is(reader.linesRead, 1)
  t.false(isOpen(file))
  t.deepEqual(await reader.next(), done)

  const { file: growing, reader: follower } = emptyFollowed(t, 'growing.log', { maxLineLength })
  fs.appendFileSync(growing, 'ok\n')
  t.deepEqual(await follower.next(), line('ok'))
  const step = follower.next()
  // A line that grows past the limit without a terminator is too long already.
  fs.appendFileSync(growing, 'x'.repeat(maxLineLength + 1))
  fs.appendFileSync(growing, 'x'.repeat(4096))
  await t.throwsAsync(step, { code: 'ERR_LINE_TOO_LONG' })
  t.false(isOpen(growing))
})

test('a large append (a long line, or lines that match passes over) is read whole, beside other followers', async (t) => {
  // A trip on the shared watcher's thread reads at most 1 MiB, then hands the rest to the
  // blocking pool (follow.rs has the tests of that hand-over); here the lines come out whole.
  const { file: long, reader: longReader } = emptyFollowed(t, 'long-append.log')
  const { file: filtered, reader: filteredReader } = emptyFollowed(t, 'filtered-append.log', { match: 'KEEP' })
  const { file: beside, reader: besideReader } = emptyFollowed(t, 'beside.log')
  const longLine = 'x'.repeat(8 << 20)
  const longStep = longReader.next()
  const filteredStep = filteredReader.next()
  fs.appendFileSync(long, `${longLine}\n`)
  fs.appendFileSync(filtered, `${'passed over\n'.repeat(700_000)}KEEP\n`)
  fs.appendFileSync(beside, 'beside\n')
  t.deepEqual(await besideReader.next(), line('beside'))
  const { value } = await longStep
  t.is(value.length, longLine.length)
  t.true(value === longLine)
  t.deepEqual(await filteredStep, line('KEEP'))
  fs.appendFileSync(long, 'after\n')
  t.deepEqual(await longReader.next(), line('after'))
})

test('batches(): non-empty batches of whole lines, as they are appended', async (t) => {
  const { file, reader } = emptyFollowed(t, 'batches.log', { highWaterMark: 16 })
  const batches = reader.batches()
  fs.appendFileSync(file, 'a\nbb\nccc\n')
  const got = []
  while (got.length < 3) {
    const { value, done: ended } = await batches.next()
    t.false(ended)
    t.true(value.length > 0, 'no empty batch')
    got.push(...value)
    t.is(reader.position, Buffer.byteLength(got.map((text) => `${text}\n`).join('')))
  }
  t.deepEqual(got, ['a', 'bb', 'ccc'])
  const step = batches.next()
  await appendAndRead(reader, file, 'dd', 11)
  fs.appendFileSync(file, 'd\r\neeeee\r\n')
  const more = [...(await step).value]
  while (more.length < 2) more.push(...(await batches.next()).value)
  t.deepEqual(more, ['ddd', 'eeeee'])
  t.is(reader.position, 21)
  // Per-line steps and batches share one position.
  fs.appendFileSync(file, 'f\ng\nh\n')
  t.deepEqual(await reader.next(), line('f'))
  const rest = [...(await batches.next()).value]
  while (rest.length < 2) rest.push(...(await batches.next()).value)
  t.deepEqual(rest, ['g', 'h'])
  const waiting = batches.next()
  await batches.close()
  t.deepEqual(await waiting, done)
  t.false(isOpen(file))
})

test('encoding latin1 on a follower', async (t) => {
  const { file, reader } = emptyFollowed(t, 'latin1.log', { encoding: 'latin1' })
  fs.appendFileSync(file, Buffer.from([0xe9, 0xff, 0x0d, 0x0a, 0xc3, 0xa9, 0x0a]))
  t.deepEqual(await take(reader, 2), ['éÿ', 'Ã©'])
})
