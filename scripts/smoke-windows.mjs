// Builds the addon for Windows with MinGW (`x86_64-pc-windows-gnu`) and runs the smoke test
// (__test__/smoke.mjs) on Node for Windows under wine: `npm run smoke:windows`. Windows cannot
// run here, and the release builds win32-x64-msvc on Windows runners; this checks the Windows
// code paths (notify's ReadDirectoryChangesW, Windows error numbers, named files) before that.
//
// Needs Debian's `wine` and `gcc-mingw-w64-x86-64-posix`, `g++-mingw-w64-x86-64-posix` and the
// Rust target. It runs on Node 20 and 22 for Windows, from npm: Node 24 stops at a breakpoint
// trap in its startup under Debian 12's wine 8.0. Node gets no console under wine (writing to a
// pipe fails with EBADF), so its output goes to a file.
import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import { makeApp, packRelease, repo, run } from '../__test__/helpers/packages.mjs'
import { cacheDir, windowsNodeBinary } from '../__test__/helpers/runtimes.mjs'

const triple = 'x86_64-pc-windows-gnu'
const out = path.join(repo, 'target', 'windows-gnu')
/** The Node majors it runs on (see above). */
const NODE_MAJORS = [20, 22]
/** How long the smoke test may take under wine before it counts as hung (it takes ~10 s). */
const HANG_MS = 5 * 60 * 1000

function fail(message) {
  console.error(`smoke:windows: ${message}`)
  process.exit(1)
}

fs.rmSync(out, { recursive: true, force: true })
fs.mkdirSync(out, { recursive: true })

// napi-build links a windows-gnu addon against a `libnode.dll` it must find, although napi
// resolves every Node-API function in the running process (its `dyn-symbols`): an empty DLL
// satisfies it, and the check below shows that nothing is imported from it.
const libnode = path.join(out, 'libnode')
fs.mkdirSync(libnode)
fs.writeFileSync(path.join(libnode, 'empty.c'), '')
execFileSync('x86_64-w64-mingw32-gcc', ['-shared', '-o', 'libnode.dll', 'empty.c'], { cwd: libnode })

const dts = path.join(out, 'binding.d.ts')
const build = ['napi', 'build', '--platform', '--release', '--no-js', '--dts', dts, '--target', triple, '-o', out]
const built = spawnSync('npx', build, { cwd: repo, stdio: 'inherit', env: { ...process.env, LIBNODE_PATH: libnode } })
if (built.status !== 0) fail(`napi build for ${triple} failed`)
const addon = path.join(out, 'fastlines.win32-x64-gnu.node')

// What the addon loads: Windows' own DLLs only (C++'s and GCC's runtimes are linked in).
const objdump = execFileSync('x86_64-w64-mingw32-objdump', ['-p', addon], {
  encoding: 'utf8',
  maxBuffer: 1 << 30,
})
const dlls = [...objdump.matchAll(/DLL Name: (\S+)/g)].map(([, name]) => name.toLowerCase())
const SYSTEM_DLLS = /^(kernel32|ntdll|msvcrt|bcryptprimitives|ws2_32|advapi32|userenv|api-ms-win-[\w-]+)\.dll$/
const foreign = dlls.filter((name) => !SYSTEM_DLLS.test(name))
if (foreign.length > 0) fail(`the addon needs DLLs a Windows machine may lack: ${foreign.join(', ')}`)

// The package as npm installs it on Windows: the addon goes into the package the loader looks
// for on Node for Windows (`win32-x64-msvc`, which MSVC builds): a Node-API addon's interface is
// C, whichever compiler built it.
const release = packRelease(out, 'win32-x64-msvc', addon)
const app = makeApp(out, 'app', release)
const install = run('npm', ['install', '--no-audit', '--no-fund', '--os=win32', '--cpu=x64'], app)
if (install.status !== 0) fail(`npm install failed:\n${install.stdout}\n${install.stderr}`)

const env = {
  ...process.env,
  WINEPREFIX: cacheDir('wine-prefix'),
  WINEDEBUG: '-all',
  WINEDLLOVERRIDES: 'mscoree,mshtml=',
}
// Wine 8.0 lacks two DLLs that every Rust program for Windows imports (since Rust 1.78): they
// are built from scripts/wine/ into the prefix's system32, as a Windows 10 machine has them.
const system32 = path.join(env.WINEPREFIX, 'drive_c', 'windows', 'system32')
const shims = path.join(repo, 'scripts', 'wine')
const SHIMS = {
  'bcryptprimitives.dll': ['bcryptprimitives.c', 'bcryptprimitives.def', '-ladvapi32'],
  'api-ms-win-core-synch-l1-2-0.dll': ['-nostdlib', '-Wl,--entry=0', 'api-ms-win-core-synch-l1-2-0.def'],
}
// A fresh prefix says it is Windows 7, on which Node 20 refuses to start.
const version = ['reg', 'add', 'HKCU\\Software\\Wine', '/v', 'Version', '/d', 'win10', '/f']
if (spawnSync('wine', version, { env, stdio: 'ignore' }).status !== 0) fail('wine could not be set to Windows 10')
for (const [dll, args] of Object.entries(SHIMS)) {
  if (fs.existsSync(path.join(system32, dll))) continue
  execFileSync('x86_64-w64-mingw32-gcc', ['-shared', '-o', path.join(system32, dll), ...args], { cwd: shims })
}
for (const major of NODE_MAJORS) {
  const log = path.join(out, `smoke-node${major}.log`)
  const logFd = fs.openSync(log, 'w')
  const run = spawnSync('wine', [windowsNodeBinary(major), 'smoke.mjs'], {
    cwd: app,
    env,
    stdio: ['ignore', logFd, logFd],
    timeout: HANG_MS,
  })
  fs.closeSync(logFd)
  process.stdout.write(fs.readFileSync(log, 'utf8'))
  if (run.error) fail(`wine: ${run.error.message}`)
  if (run.status !== 0) fail(`the smoke test failed on Node ${major} under wine (exit ${run.status})`)
}
console.log(`smoke:windows: the addon loads only ${[...new Set(dlls)].join(', ')}`)
