// What `npm install fastlines` gives a user on another Linux platform (FASTLINES_PLATFORM, such
// as linux-arm64-gnu), built here with `npm run build:platform` and run under emulation by that
// platform's own runtimes (FASTLINES_PLATFORM_RUNTIMES, path-separated). Run by
// run-on-platform.mjs, which sets both and the emulation up. Checked: the binary needs nothing
// but the C library, and of glibc no symbol newer than the package claims; the packed packages
// install with npm as that platform's user gets them; each runtime reads a file through the
// installed package, from CommonJS and ESM (smoke.mjs).
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { GLIBC_MIN } from '../scripts/targets.mjs'
import { makeApp, packRelease, repo, run } from './helpers/packages.mjs'

const platform = process.env.FASTLINES_PLATFORM
const runtimes = (process.env.FASTLINES_PLATFORM_RUNTIMES ?? '').split(path.delimiter).filter(Boolean)
if (!platform || runtimes.length === 0) {
  throw new Error('run through run-on-platform.mjs: FASTLINES_PLATFORM and FASTLINES_PLATFORM_RUNTIMES are unset')
}
const [, cpu, libc] = /^linux-(\w+)-(gnu|gnueabihf|musl)$/.exec(platform) ?? []
const binary = path.join(repo, `fastlines.${platform}.node`)

let work
let release

before(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), `fastlines-${platform}-`))
  release = packRelease(work, platform)
})

after(() => fs.rmSync(work, { recursive: true, force: true }))

/** The numbers of a version such as `2.17`, to compare. */
const versionParts = (version) => version.split('.').map(Number)
const newer = (a, b) => {
  const [x, y] = [versionParts(a), versionParts(b)]
  for (let i = 0; i < Math.max(x.length, y.length); i++)
    if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) > (y[i] ?? 0)
  return false
}

test('the binary needs only the C library: no C++ runtime, and no glibc symbol newer than the package claims', () => {
  const dynamic = execFileSync('readelf', ['-d', '-W', binary], { encoding: 'utf8' })
  const needed = [...dynamic.matchAll(/\(NEEDED\)\s+Shared library: \[([^\]]+)\]/g)].map((m) => m[1])
  const cLibrary =
    libc === 'musl'
      ? /^libc\.(musl-\w+\.)?so(\.1)?$/
      : /^(libc|libm|libpthread|libdl|librt)\.so\.\d$|^ld-linux[-\w]*\.so\.\d$/
  assert.ok(needed.length > 0, dynamic)
  for (const library of needed) assert.match(library, cLibrary, `${platform} needs ${library}`)
  const symbols = execFileSync('readelf', ['--dyn-syms', '-W', binary], { encoding: 'utf8' })
  assert.doesNotMatch(symbols, /GLIBCXX|CXXABI/, 'a C++ runtime symbol is imported')
  const glibc = [...new Set([...symbols.matchAll(/@GLIBC_([\d.]+)/g)].map((m) => m[1]))]
  if (libc === 'musl') assert.deepEqual(glibc, [], 'a musl binary imports glibc symbols')
  else {
    assert.ok(glibc.length > 0, 'no glibc symbol versions: not a glibc binary?')
    const tooNew = glibc.filter((version) => newer(version, GLIBC_MIN))
    assert.deepEqual(tooNew, [], `glibc symbols newer than ${GLIBC_MIN}`)
  }
})

test('npm install on this platform: each of its runtimes reads lines through the installed package', () => {
  const app = makeApp(work, 'npm-app', release)
  const as = [`--cpu=${cpu}`, '--os=linux', `--libc=${libc === 'musl' ? 'musl' : 'glibc'}`]
  const install = run('npm', ['install', '--no-audit', '--no-fund', ...as], app)
  assert.equal(install.status, 0, `npm install failed:\n${install.stdout}\n${install.stderr}`)
  const installed = path.join(app, 'node_modules', release.platformPackage, release.binaryName)
  assert.deepEqual(fs.readFileSync(installed), fs.readFileSync(binary))
  for (const runtime of runtimes) {
    const result = run(runtime, ['smoke.mjs'], app)
    assert.equal(result.status, 0, `${runtime} smoke.mjs failed:\n${result.stdout}\n${result.stderr}`)
    assert.match(result.stdout, /fastlines works on (node|bun) /)
    assert.match(result.stdout, new RegExp(`\\b${cpu}\\b`), `${runtime} did not run as ${cpu}`)
  }
})
