// Builds the release addon for one target: `npm run build:platform -- <rust target triple>`.
// Writes `fastlines.<platform>.node` at the repository's root, where the loader (binding.js)
// finds it, and into `npm/<platform>/`, the package the release publishes it in. The release
// workflow runs this same command, so what the tests here load is what is published.
//
// Linux targets are built with zig (`napi build -x`, through cargo-zigbuild), which links
// against a glibc of the version asked for rather than the build machine's (see targets.mjs);
// a musl build needs only the musl libc of the runtime that loads it. Other targets build as
// `napi build` builds them on their own runners.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

import { parseTriple } from '@napi-rs/cli'

import { copyPlatformFiles } from './notices.mjs'
import { extraFlags, zigTarget } from './targets.mjs'

const repo = fileURLToPath(new URL('..', import.meta.url))

/**
 * The napi CLI's script, run with this Node: `npx` is `npx.cmd` on Windows, which Node spawns only
 * through a shell (EINVAL since 20.12.2, CVE-2024-27980), and the Windows release builds run this.
 */
function napiCli() {
  const require = createRequire(import.meta.url)
  const manifest = require.resolve('@napi-rs/cli/package.json')
  return path.join(path.dirname(manifest), require(manifest).bin.napi)
}

function fail(message) {
  console.error(`build:platform: ${message}`)
  process.exit(1)
}

const [triple, ...extra] = process.argv.slice(2)
const targets = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8')).napi.targets
if (triple === undefined || !targets.includes(triple)) {
  fail(`give one of package.json's napi.targets: ${targets.join(', ')}${triple ? ` (not ${triple})` : ''}`)
}
const platform = parseTriple(triple).platformArchABI
const binary = `fastlines.${platform}.node`

// The loader and types are the host build's (binding.js, binding.d.ts): this build's types go
// under target/, not to napi's default index.d.ts, which is fastlines' own.
const dts = path.join('target', 'platform-types', `${platform}.d.ts`)
const args = ['build', '--platform', '--release', '--no-js', '--dts', dts, ...extra]
if (triple.includes('-linux-')) args.push('-x', '--target', zigTarget(triple))
else args.push('--target', triple)
const env = triple.includes('-linux-') ? { ...process.env, ...extraFlags(triple) } : process.env
const { status } = spawnSync(process.execPath, [napiCli(), ...args], { cwd: repo, stdio: 'inherit', env })
if (status !== 0) fail(`napi build for ${triple} failed`)
if (!fs.existsSync(path.join(repo, binary))) fail(`napi build gave no ${binary}`)
fs.copyFileSync(path.join(repo, binary), path.join(repo, 'npm', platform, binary))
// The binary's notices go with it (see notices.mjs).
copyPlatformFiles(path.join(repo, 'npm', platform))
console.log(`build:platform: ${binary}, at the root and in npm/${platform}/ with its notices`)
