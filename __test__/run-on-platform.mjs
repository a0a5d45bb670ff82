// Runs the tests on another Linux platform, with that platform's own runtimes under emulation:
// `node __test__/run-on-platform.mjs linux-arm64-gnu [ava args]`, after
// `npm run build:platform -- aarch64-unknown-linux-gnu`. First the packaging test of that
// platform (platform-package.test.mjs) on each of its runtimes, then, on the first, the specs of
// the line contract, errors, lifecycle, search, decompress and follow (ava's workers are forked
// with the emulated runtime, so every test runs on it), but for LEFT_OUT.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

import { emulation } from './helpers/emulate.mjs'
import { bunBinary, nodeBinary } from './helpers/runtimes.mjs'

/**
 * The platforms tested here: their CPU, their runtimes, from npm, and what their specs leave
 * out beyond LEFT_OUT. Every runtime runs the packaging test; the first also runs the specs
 * (each run takes minutes under emulation).
 */
const PLATFORMS = {
  'linux-arm64-gnu': {
    triple: 'aarch64-unknown-linux-gnu',
    arch: 'arm64',
    runtimes: () => [nodeBinary(22, 'arm64'), nodeBinary(24, 'arm64'), bunBinary('arm64')],
  },
  'linux-arm-gnueabihf': {
    triple: 'armv7-unknown-linux-gnueabihf',
    arch: 'arm',
    // Node 20 is the newest Node built for armv7 on npm.
    runtimes: () => [nodeBinary(20, 'arm')],
    leftOut: {
      // `.ci/run` tests arm64 first and the two share its time; arm64 runs these series.
      '!*at every*': 'the series over every offset, cut and read size: run on linux-arm64-gnu',
    },
  },
}

/** The specs each runtime runs: the ones the packages' users depend on most. */
const SPECS = ['lines', 'errors', 'lifecycle', 'search', 'decompress', 'follow'].map(
  (name) => `__test__/${name}.spec.mjs`,
)

/**
 * What the specs leave out under emulation, as ava `--match` patterns, each with its reason.
 * Emulation runs them about 8 times slower than this machine does.
 */
const LEFT_OUT = {
  // Of the exhaustive series over inputs, cut points and read sizes, which take minutes here
  // (search and decompress together 90 s on this machine's 2 cores), each series keeps its
  // first group: the same code runs for every group, on other inputs.
  '!*group 2/*': 'exhaustive series: the first group only',
  '!*group 3/*': 'exhaustive series: the first group only',
  '!*group 4/*': 'exhaustive series: the first group only',
  '!*group 5/*': 'exhaustive series: the first group only',
  '!*group 6/*': 'exhaustive series: the first group only',
  '!*group 7/*': 'exhaustive series: the first group only',
  '!*group 8/*': 'exhaustive series: the first group only',
  '!*(seeded)*': 'random corruption series, each case checked against Node 24 in a child',
  '!*truncated at every byte*': 'a file cut at each of its bytes, each cut checked against Node 24 in a child',
  // Speed, which emulation cannot give.
  '!a FIFO delivers each line as it is written, with no CPU spent waiting (no polling)':
    'counts CPU against wall time: qemu spends CPU translating code the first time it runs',
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

Object.assign(process.env, emulation(target.arch), { FASTLINES_MACHINE_ARCH: process.arch })
const runtimes = target.runtimes()

/** Runs `command`, its output shown; exits with its status if it fails. */
function step(what, command, args, extraEnv = {}) {
  console.log(`\n${platform}: ${what}`)
  const { status, signal } = spawnSync(command, args, {
    cwd: repo,
    stdio: 'inherit',
    env: { ...process.env, ...extraEnv },
  })
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
const leaveOut = Object.keys({ ...LEFT_OUT, ...target.leftOut }).map((pattern) => `--match=${pattern}`)
step(`the specs on ${runtimes[0]}`, runtimes[0], [ava, ...SPECS, ...leaveOut, ...avaArgs])
