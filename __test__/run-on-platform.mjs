// Runs the tests on another Linux platform, with that platform's own runtimes (under emulation
// for another CPU, on a musl system for musl: see emulate.mjs and musl.mjs):
// `node __test__/run-on-platform.mjs linux-arm64-gnu [ava args]`, after
// `npm run build:platform -- aarch64-unknown-linux-gnu`. First the packaging test of that
// platform (platform-package.test.mjs) on each of its runtimes, then, on the first, the specs of
// the line contract, errors, lifecycle, search, decompress and follow (ava's workers are forked
// with that runtime, so every test runs on it), but for the exhaustive series (helpers/left-out.mjs)
// and what EMULATED_LEFT_OUT says.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

import { emulation } from './helpers/emulate.mjs'
import { EXHAUSTIVE_SERIES, leaveOut } from './helpers/left-out.mjs'
import { asMuslSystem, muslLoader } from './helpers/musl.mjs'
import { bunBinary, muslBunBinary, muslNodeBinary, nodeBinary } from './helpers/runtimes.mjs'

/**
 * The platforms tested here: their CPU and C library, their runtimes (from npm; musl's Node from
 * PyPI), and what their specs leave out beyond the exhaustive series. Every runtime runs the packaging test;
 * the first also runs the specs (each run takes minutes under emulation).
 */
const PLATFORMS = {
  'linux-x64-musl': {
    triple: 'x86_64-unknown-linux-musl',
    arch: 'x64',
    musl: true,
    runtimes: () => [muslNodeBinary('x64'), muslBunBinary('x64')],
  },
  'linux-arm64-musl': {
    triple: 'aarch64-unknown-linux-musl',
    arch: 'arm64',
    musl: true,
    runtimes: () => [muslNodeBinary('arm64'), muslBunBinary('arm64')],
    // `.ci/run` has time for one set of specs under emulation per CPU, shared by the two arm64
    // platforms: this one runs those where the C library shows most (system errors, descriptors
    // and threads, file watching), linux-arm64-gnu the others. linux-x64-musl runs all on musl.
    specs: ['errors', 'lifecycle', 'follow'],
  },
  'linux-arm64-gnu': {
    triple: 'aarch64-unknown-linux-gnu',
    arch: 'arm64',
    runtimes: () => [nodeBinary(22, 'arm64'), nodeBinary(24, 'arm64'), bunBinary('arm64')],
    // The other specs run on linux-arm64-musl (see there).
    specs: ['lines', 'search', 'decompress'],
    // The search's series over every offset and read size of 1-16 bytes took 6 of these specs'
    // 7 minutes emulated, more than `.ci/run` can spare. What they check is how a match is
    // carried across reads, the same Rust code on every CPU, which x64 runs in full; the NEON
    // search runs here in the spec's other tests (long lines, 8 MB logs).
    leftOut: {
      '!*its text matched at every offset and highWaterMark*': 'the search series over every offset: run on x64',
      '!*a needle cut by reads at every offset*': 'the search series over every offset: run on x64',
    },
  },
  'linux-arm-gnueabihf': {
    triple: 'armv7-unknown-linux-gnueabihf',
    arch: 'arm',
    // Node 20 is the newest Node built for armv7 on npm.
    runtimes: () => [nodeBinary(20, 'arm')],
    leftOut: {
      // `.ci/run` tests arm64 first and the two share its time; arm64 runs those of lines and decompress.
      '!*at every*':
        'the series over every offset, cut and read size: those of lines and decompress run on linux-arm64-gnu',
    },
  },
}

/**
 * The specs the first runtime runs, unless the platform names its own: the ones the packages'
 * users depend on most.
 */
const SPECS = ['lines', 'errors', 'lifecycle', 'search', 'decompress', 'follow']

/** What the specs leave out under emulation besides: what depends on speed, which it cannot give. */
const EMULATED_LEFT_OUT = {
  '!a FIFO delivers each line as it is written, with no CPU spent waiting (no polling)':
    'counts CPU against wall time: qemu spends CPU translating code the first time it runs',
  // Passed emulated until a run of 2026-12-02, where armv7's used 53.6 ms over 1 s (bound 50).
  '!no CPU is spent while waiting, and the process exits by itself after close()':
    'counts CPU against wall time, as the FIFO test above does',
  '!rename rotation while a writer process writes: every line once, in order':
    'the writer finishes before the emulated follower has read far enough to ask for every rotation',
}

const [platform, ...avaArgs] = process.argv.slice(2)
const target = PLATFORMS[platform]
if (target === undefined) {
  throw new Error(`usage: node __test__/run-on-platform.mjs <${Object.keys(PLATFORMS).join('|')}> [ava args]`)
}
const repo = fileURLToPath(new URL('..', import.meta.url))
if (!fs.existsSync(path.join(repo, `fastlines.${platform}.node`))) {
  throw new Error(`build it first: npm run build:platform -- ${target.triple}`)
}

const emulated = target.arch !== process.arch
if (emulated) Object.assign(process.env, emulation(target.arch), { FASTLINES_MACHINE_ARCH: process.arch })
if (target.musl) {
  muslLoader(target.arch)
  asMuslSystem(target.arch)
}
const runtimes = target.runtimes()

/** Runs `command`, its output shown; exits with its status if it fails. */
function step(what, command, args, extraEnv = {}) {
  console.log(`\n${platform}: ${what}`)
  const start = performance.now()
  const { status, signal } = spawnSync(command, args, {
    cwd: repo,
    stdio: 'inherit',
    env: { ...process.env, ...extraEnv },
  })
  console.log(`${platform}: ${what} took ${Math.round((performance.now() - start) / 1000)} s`)
  if (status !== 0) {
    console.error(`${platform}: ${what} failed (${signal ?? `exit ${status}`})`)
    process.exit(status || 1)
  }
}

for (const runtime of runtimes) step(`${runtime} --version`, runtime, ['--version'])
step('packaging', process.execPath, ['--test', '__test__/platform-package.test.mjs'], {
  FASTLINES_PLATFORM: platform,
  FASTLINES_PLATFORM_RUNTIMES: runtimes.join(path.delimiter),
})
const ava = path.join(repo, 'node_modules/ava/entrypoints/cli.mjs')
const leftOut = { ...EXHAUSTIVE_SERIES, ...(emulated ? EMULATED_LEFT_OUT : {}), ...target.leftOut }
const specs = (target.specs ?? SPECS).map((name) => `__test__/${name}.spec.mjs`)
step(`the specs on ${runtimes[0]}`, runtimes[0], [ava, ...specs, ...leaveOut(leftOut), ...avaArgs])
