// Running a musl platform's programs on this glibc machine as a musl system (Alpine) runs them.
// Two things differ from Alpine here, and both are set up, not faked in the code under test:
// - the musl loader (/lib/ld-musl-<cpu>.so.1) is Debian's `musl` package, which must be 1.2.4 or
//   later: the runtimes' libstdc++ use DT_RELR relocations, and bookworm's 1.2.3 crashes on them
//   (.ci/run installs trixie's);
// - `/usr/bin/ldd` is glibc's, and that file is how the loader napi-rs generates (binding.js)
//   tells a musl system from a glibc one. So the run is repeated in a mount namespace of its
//   own (`unshare --mount`, root only) in which `/usr/bin/ldd` is a musl one, as on Alpine.
import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

/** The name of the musl loader for each Node `process.arch`. */
const LOADER_CPU = { x64: 'x86_64', arm64: 'aarch64' }
/** The oldest musl whose loader applies DT_RELR relocations. */
const MUSL_MIN = [1, 2, 4]
/** Set in the namespace's environment, so that the run inside does not start another. */
const INSIDE = 'FASTLINES_MUSL_SYSTEM'

/**
 * Checks that `arch`'s musl loader is there and new enough (run under emulation for another
 * CPU), and returns its version. Throws, saying what to install, when it is not.
 */
export function muslLoader(arch) {
  const loader = `/lib/ld-musl-${LOADER_CPU[arch] ?? arch}.so.1`
  const install = `install Debian trixie's musl (${arch}): see .ci/run`
  if (!fs.existsSync(loader)) throw new Error(`${loader} is missing: ${install}`)
  // Run with no arguments, the loader prints its version on stderr and exits with 1.
  const { stderr } = spawnSync(loader, [], { encoding: 'utf8' })
  const version = /Version ([\d.]+)/.exec(stderr ?? '')?.[1]
  if (version === undefined) throw new Error(`${loader} did not say its version: ${stderr}`)
  const parts = version.split('.').map(Number)
  const older = MUSL_MIN.findIndex((min, i) => (parts[i] ?? 0) !== min)
  if (older !== -1 && (parts[older] ?? 0) < MUSL_MIN[older]) {
    throw new Error(`${loader} is musl ${version}; the runtimes need ${MUSL_MIN.join('.')} or later: ${install}`)
  }
  return version
}

/**
 * Runs this script again, with the same arguments, in a mount namespace whose `/usr/bin/ldd` is
 * musl's, and exits with its status; returns at once when already inside one.
 */
export function asMuslSystem(arch) {
  if (process.env[INSIDE] === '1') return
  const ldd = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fastlines-musl-')), 'ldd')
  // What Alpine's /usr/bin/ldd holds.
  fs.writeFileSync(ldd, `#!/bin/sh\nexec /lib/ld-musl-${LOADER_CPU[arch] ?? arch}.so.1 --list "$@"\n`, { mode: 0o755 })
  try {
    execFileSync('unshare', ['--mount', 'true'], { stdio: 'pipe' })
  } catch (error) {
    throw new Error(`cannot make a mount namespace (this needs root and util-linux's unshare): ${error.message}`)
  }
  const bindLdd = 'mount --bind "$0" /usr/bin/ldd && exec "$@"'
  const argv = [process.execPath, ...process.execArgv, ...process.argv.slice(1)]
  const { status, signal } = spawnSync('unshare', ['--mount', '--', 'sh', '-c', bindLdd, ldd, ...argv], {
    stdio: 'inherit',
    env: { ...process.env, [INSIDE]: '1' },
  })
  fs.rmSync(path.dirname(ldd), { recursive: true, force: true })
  process.exit(status ?? (signal ? 1 : 0))
}
