// Packing fastlines as the release publishes it and installing it as a user does, for the
// packaging tests (packaging.test.mjs for this machine's platform, platform-package.test.mjs for
// the others): the root package and one platform package, packed into tarballs, and a fresh app
// outside the repository that depends on them, used on a PATH without a Rust toolchain.
import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

import { parseTriple } from '@napi-rs/cli'

import { copyPlatformFiles } from '../../scripts/notices.mjs'

export const repo = fileURLToPath(new URL('../..', import.meta.url))

/** PATH without the directories that hold a Rust toolchain, so nothing can compile. */
const pathWithoutRust = process.env.PATH.split(path.delimiter)
  .filter((dir) => !['cargo', 'rustc'].some((tool) => fs.existsSync(path.join(dir, tool))))
  .join(path.delimiter)
const userEnv = { ...process.env, PATH: pathWithoutRust, CARGO_HOME: '/nonexistent', RUSTUP_HOME: '/nonexistent' }

/** Runs `command` in `cwd` as a user would, with no Rust toolchain; its outcome, as spawnSync gives it. */
export function run(command, args, cwd, extraEnv = {}) {
  return spawnSync(command, args, { cwd, env: { ...userEnv, ...extraEnv }, encoding: 'utf8', timeout: 5 * 60_000 })
}

/** Runs `npm pack` in `dir` into `work` and returns what npm reports: filename and file list. */
export function pack(dir, work) {
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: dir, encoding: 'utf8' })
  const [report] = JSON.parse(out)
  return { file: path.join(work, report.filename), paths: report.files.map((f) => f.path).sort() }
}

/**
 * The root package's manifest as the release publishes it: `napi pre-publish` adds an optional
 * dependency on each napi target's package at the root's version. package.json leaves them out
 * until then, so that `npm ci` works while they are not on the registry.
 */
export function releaseManifest() {
  const pkg = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8'))
  const names = pkg.napi.targets.map((triple) => `${pkg.name}-${parseTriple(triple).platformArchABI}`)
  return { ...pkg, optionalDependencies: Object.fromEntries(names.map((name) => [name, pkg.version])) }
}

/** Packs the root package, with the release's manifest, from a copy of what it publishes. */
function packRoot(work) {
  const staged = path.join(work, 'root')
  const manifest = releaseManifest()
  for (const entry of [...manifest.files, 'README.md', 'LICENSE']) {
    fs.cpSync(path.join(repo, entry), path.join(staged, entry), { recursive: true })
  }
  fs.writeFileSync(path.join(staged, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)
  return pack(staged, work)
}

/**
 * Packs the root package and the platform package of `platform` (`linux-x64-gnu`, say) into
 * `work`, the binary built at the root (or `binary`) going into the platform package as the
 * release's `napi artifacts` puts it there: `{ root, platform, platformPackage, binaryName }`.
 */
export function packRelease(work, platform, binary = path.join(repo, `fastlines.${platform}.node`)) {
  const binaryName = `fastlines.${platform}.node`
  if (!fs.existsSync(binary)) throw new Error(`build ${binaryName} first (npm run build, or npm run build:platform)`)
  const root = packRoot(work)
  const staged = path.join(work, platform)
  fs.cpSync(path.join(repo, 'npm', platform), staged, { recursive: true })
  fs.copyFileSync(binary, path.join(staged, binaryName))
  copyPlatformFiles(staged)
  return { root, platform: pack(staged, work), platformPackage: `fastlines-${platform}`, binaryName }
}

/**
 * A fresh project in `work` that depends on the packed root package, the platform package from
 * its tarball (`release`, from packRelease), with the smoke script in it.
 */
export function makeApp(work, name, release) {
  const app = path.join(work, name)
  fs.mkdirSync(app)
  const manifest = {
    name,
    private: true,
    type: 'module',
    dependencies: { fastlines: `file:${release.root.file}` },
    overrides: { [release.platformPackage]: `file:${release.platform.file}` },
  }
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify(manifest, null, 2))
  fs.copyFileSync(path.join(repo, '__test__/smoke.mjs'), path.join(app, 'smoke.mjs'))
  return app
}
