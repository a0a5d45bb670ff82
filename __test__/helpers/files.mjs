// Real files for tests: a private temp directory per test file, and a way to see which files
// this process holds open.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

export function makeTempDir(test) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fastlines-test-'))
  test.after.always(() => fs.rmSync(dir, { recursive: true, force: true }))
  let made = 0
  return {
    dir,
    /** Writes `content` to a new file in the directory and returns its path. */
    file(content, name = `file-${made++}.txt`) {
      const file = path.join(dir, name)
      fs.writeFileSync(file, content)
      return file
    },
    path: (name) => path.join(dir, name),
  }
}

/**
 * Deno's own caches: SQLite databases it opens when it first needs them, each with its `-wal`
 * and `-shm` files, whenever that is (a loaded CI machine saw two appear in a test's loop).
 */
const DENO_CACHE = /\/deno\/[a-z0-9_]+_cache_v\d+(-wal|-shm)?$/

/**
 * System files the runtime's own threads open for a moment, whenever they choose: strace shows
 * Node 24's background threads reading /sys/devices/system/cpu/online (glibc's sysconf counting
 * CPUs), and a CI snapshot caught one open. fastlines opens none of them.
 */
const SYSTEM_FILES = /^\/(sys|proc)\//

/**
 * This process's open descriptors, each with what it is open on (its /proc/self/fd link: a
 * path, or `anon_inode:inotify` and the like), the runtime's own included.
 */
export function openDescriptors() {
  const open = []
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    try {
      open.push({ fd, target: fs.readlinkSync(`/proc/self/fd/${fd}`) })
    } catch {
      // the descriptor readdir itself used is gone by now
    }
  }
  return open
}

/** What /proc/self/fdinfo says of descriptor `fd`, or '' if it was closed meanwhile. */
export function descriptorInfo(fd) {
  try {
    return fs.readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8')
  } catch {
    return ''
  }
}

/** The paths this process has open, read from /proc/self/fd, but the runtime's own files. */
export function openPaths() {
  return openDescriptors()
    .map(({ target }) => target)
    .filter((path) => !DENO_CACHE.test(path) && !SYSTEM_FILES.test(path))
}

/** How many descriptors this process holds on `file`. */
export function openCount(file) {
  return openPaths().filter((open) => open === file).length
}

export function isOpen(file) {
  return openCount(file) > 0
}

/** `count` lines of `width` characters, numbered, each ending with `\n`. */
export function numberedLines(count, width = 60) {
  let text = ''
  for (let i = 0; i < count; i++) text += `${String(i).padStart(8, '0')} ${'x'.repeat(width - 9)}\n`
  return text
}
