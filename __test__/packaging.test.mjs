// What `npm install fastlines` gives a user, checked end to end: the root package and this
// machine's platform package are packed as they would be published, installed from the tarballs
// into fresh directories outside the repository with npm and with Bun, on a PATH without cargo or
// rustc, and then used from Node 20, 22 and 24, from Bun, and from Deno (with only the
// permissions fastlines needs, through each way a Deno program can import it). It drives package
// managers and runtimes as child processes, once, so it runs under `node --test` rather than
// inside the ava suite that every runtime repeats. Needs the release binary (`npm run build`).
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { linkedCrates, NOTICES, renderNotices } from '../scripts/notices.mjs'
import { makeApp as makeAppIn, pack, packRelease, releaseManifest, repo, run } from './helpers/packages.mjs'
import { nodeBinary } from './helpers/runtimes.mjs'

const pkg = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8'))
const bun = fs.realpathSync(path.join(repo, 'node_modules/.bin/bun'))
const deno = fs.realpathSync(path.join(repo, 'node_modules/.bin/deno'))
/**
 * Every supported runtime that runs smoke.mjs as it is: this Node, the oldest Node that
 * package.json's engines admit (20.0.0, which has no external strings), the other Node majors,
 * Bun.
 */
const runtimes = [process.execPath, nodeBinary(oldestNode()), nodeBinary(22), nodeBinary(24), bun]
/** The oldest release of Node that package.json's `engines` admit (`>= 20` admits 20.0.0). */
function oldestNode() {
  const [, major, minor = '0', patch = '0'] = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(pkg.engines.node) ?? []
  assert.ok(major, `engines.node is not of the form ">= x.y.z": ${pkg.engines.node}`)
  return `${major}.${minor}.${patch}`
}
const platformDir = 'linux-x64-gnu'
const platformPackage = `fastlines-${platformDir}`
const binaryName = `fastlines.${platformDir}.node`
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepare']

let work
let release

before(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'fastlines-packaging-'))
  release = packRelease(work, platformDir)
})

after(() => fs.rmSync(work, { recursive: true, force: true }))

/** A fresh project that depends on the packed root package, the platform package from its tarball. */
const makeApp = (name) => makeAppIn(work, name, release)

function assertSucceeded(result, what) {
  assert.equal(result.status, 0, `${what} failed:\n${result.stdout}\n${result.stderr}`)
}

// ---- Deno ----------------------------------------------------------------------------------

/**
 * The Deno permissions fastlines needs, and no more (each is shown needed below): loading a
 * native addon (`--allow-ffi`); the environment variables napi-rs' generated loader reads
 * (`binding.js`: an override of the binary's path, the WASI switches, and, after a version
 * mismatch only, NAPI_RS_ENFORCE_VERSION_CHECK); and, on Linux, reading `/usr/bin/ldd`, which
 * tells the loader glibc from musl (without it, the loader asks for a process report, which
 * needs `--allow-sys`). No `--allow-read` for the files read: the native code opens them, outside
 * Deno's permission checks, as any code loaded with `--allow-ffi` may.
 */
const DENO_PERMISSIONS = [
  '--allow-ffi',
  '--allow-env=NAPI_RS_NATIVE_LIBRARY_PATH,NAPI_RS_FORCE_WASI,NAPI_RS_WASI_FLAVOR,NAPI_RS_ENFORCE_VERSION_CHECK',
  '--allow-read=/usr/bin/ldd',
]

/** The ways a Deno program imports fastlines from the node_modules npm made, one script each. */
const DENO_IMPORTS = {
  'deno-import.mjs': "import * as fastlines from 'fastlines'",
  'deno-npm-specifier.mjs': "import * as fastlines from 'npm:fastlines'",
  'deno-require.mjs': "const fastlines = createRequire(import.meta.url)('fastlines')",
}

/** What each of them does with fastlines: every reader on the file in argv, as JSON. */
const denoScript = (load) => `import { Buffer } from 'node:buffer'
import { createRequire } from 'node:module'
${load}

const [file, missing] = Deno.args
const required = createRequire(import.meta.url)('fastlines')
const names = Object.keys(required).sort()
const lines = []
for await (const line of fastlines.readLines(file)) lines.push(line)
const batched = []
for await (const batch of fastlines.readLines(file, { highWaterMark: 8 }).batches()) batched.push(...batch)
const chunks = []
for await (const chunk of fastlines.readChunks(file)) chunks.push(chunk)
const followed = []
for await (const line of fastlines.followLines(file, { start: 0 })) if (followed.push(line) === 3) break
const error = await fastlines.readLines(missing).next().catch((error) => error)
console.log(JSON.stringify({
  names,
  sameAsRequire: names.every((name) => fastlines[name] === required[name]),
  lines,
  batched,
  sync: [...fastlines.readLinesSync(file)],
  count: await fastlines.countLines(file),
  text: Buffer.concat(chunks).toString(),
  last: await fastlines.readLastLines(file, 2),
  followed,
  missing: { code: error.code, syscall: error.syscall },
}))
`

/** Loads fastlines, and when that fails, prints the error's code before Deno reports it. */
const DENO_LOAD = `try {
  await import('fastlines')
} catch (error) {
  console.error(\`code: \${error.code}\`)
  throw error
}
`

const DENO_TEXT = 'plain\r\nünïcödé 日本 🎉\n\nlast without newline'
const DENO_LINES = ['plain', 'ünïcödé 日本 🎉', '', 'last without newline']

/**
 * Runs `script` in `app` with Deno as a new user would: a Deno cache of its own, so nothing comes
 * from this machine's, and an npm registry that does not answer, so fastlines can only come from
 * the app's node_modules (a package.json there makes Deno use it as it is). Its messages come
 * without colours (Deno colours them even into a pipe).
 */
function runDeno(app, permissions, script, args = []) {
  const env = {
    DENO_DIR: path.join(work, 'deno-dir', path.basename(app)),
    NPM_CONFIG_REGISTRY: 'http://127.0.0.1:9/',
    NO_COLOR: '1',
  }
  return run(deno, ['run', ...permissions, script, ...args], app, env)
}

/** Every Deno import form reads a file in `app` with only DENO_PERMISSIONS, from its node_modules. */
function assertDenoReads(app) {
  const file = path.join(app, 'deno-lines.txt')
  fs.writeFileSync(file, DENO_TEXT)
  const expected = {
    names: [
      'codes',
      'countLines',
      'followLines',
      'isLineTooLongError',
      'readChunks',
      'readJsonLines',
      'readJsonLinesSync',
      'readLastLines',
      'readLines',
      'readLinesSync',
    ],
    sameAsRequire: true,
    lines: DENO_LINES,
    batched: DENO_LINES,
    sync: DENO_LINES,
    count: DENO_LINES.length,
    text: DENO_TEXT,
    last: DENO_LINES.slice(-2),
    followed: DENO_LINES.slice(0, 3), // the last line has no terminator yet, so a follower waits for it
    missing: { code: 'ENOENT', syscall: 'open' },
  }
  for (const [script, load] of Object.entries(DENO_IMPORTS)) {
    fs.writeFileSync(path.join(app, script), denoScript(load))
    const result = runDeno(app, DENO_PERMISSIONS, script, [file, path.join(app, 'missing.txt')])
    assertSucceeded(result, `deno ${script}`)
    assert.deepEqual(JSON.parse(result.stdout), expected, script)
  }
  // Deno used the node_modules it found and installed nothing of its own.
  assert.equal(fs.existsSync(path.join(app, 'node_modules', '.deno')), false)
}

/** Runs DENO_LOAD in `app` with `permissions`: its outcome, for the failure tests. */
function denoLoad(app, permissions = DENO_PERMISSIONS) {
  fs.writeFileSync(path.join(app, 'deno-load.mjs'), DENO_LOAD)
  return runDeno(app, permissions, 'deno-load.mjs')
}

/** Runs the smoke script in `app` on every supported runtime; each must succeed. */
function assertSmokeRuns(app) {
  for (const runtime of runtimes) {
    const result = run(runtime, ['smoke.mjs'], app)
    assertSucceeded(result, `${runtime} smoke.mjs`)
    assert.match(result.stdout, /fastlines works on (node|bun) /)
  }
}

test('the test environment has no Rust toolchain on PATH', () => {
  for (const tool of ['cargo', 'rustc']) assert.equal(run(tool, ['--version'], work).error?.code, 'ENOENT')
})

test('the root tarball holds the loader, the JS API and the types, and nothing else', () => {
  assert.deepEqual(release.root.paths, [
    'LICENSE',
    'README.md',
    'binding.d.ts',
    'binding.js',
    'index.d.mts',
    'index.d.ts',
    'index.js',
    'index.mjs',
    'lib/abort.js',
    'lib/byte-source.js',
    'lib/call-site.js',
    'lib/chunk-reader.js',
    'lib/count.js',
    'lib/cursor.js',
    'lib/errors.js',
    'lib/follow.js',
    'lib/frame-here.js',
    'lib/iterator.js',
    'lib/json-lines.js',
    'lib/json-syntax.js',
    'lib/last-lines.js',
    'lib/line-reader-sync.js',
    'lib/line-reader.js',
    'lib/native-task.js',
    'lib/native.js',
    'lib/option-names.js',
    'lib/options.js',
    'lib/source.js',
    'lib/turn-clock.js',
    'lib/types.js',
    'package.json',
  ])
})

test('the platform tarball holds the binary, its manifest, and the licenses that go with it', () => {
  const notices = ['LICENSE', 'THIRD-PARTY-NOTICES.md']
  assert.deepEqual(release.platform.paths, [binaryName, 'README.md', 'package.json', ...notices].sort())
  for (const dir of fs.readdirSync(path.join(repo, 'npm'))) {
    assert.deepEqual(readManifest(`npm/${dir}`).files, [`fastlines.${dir}.node`, ...notices], dir)
  }
})

test("the third-party notices are current: every crate linked into the binary, with its license's texts", () => {
  const written = fs.readFileSync(path.join(repo, NOTICES), 'utf8')
  assert.equal(written, renderNotices(), 'run node scripts/notices.mjs and commit THIRD-PARTY-NOTICES.md')
  // The libraries whose licenses ask for their notice in every copy of the binary.
  for (const crate of linkedCrates()) assert.match(written, new RegExp(`^## ${crate.name} `, 'm'))
  assert.match(written, /^### Zstandard.*\n\n```text\nBSD License\n\nFor Zstandard software/m)
  assert.match(written, /^### zlib-ng, Zlib.*\n\n```text\n\(C\) 1995-\d+ Jean-loup Gailly and Mark Adler/m)
  assert.match(
    written,
    /^### simdutf \(the C\+\+ library.*\n\n```text\nMIT License\n\nCopyright \(c\) 2021 The simdutf authors/m,
  )
})

test('every napi target is an optional dependency at the same version, and nothing runs at install', () => {
  // package.json has none, so that `npm ci` works; the release's `napi pre-publish` adds them.
  assert.equal(pkg.optionalDependencies, undefined)
  const published = releaseManifest()
  const names = fs.readdirSync(path.join(repo, 'npm')).map((dir) => `fastlines-${dir}`)
  assert.equal(names.length, pkg.napi.targets.length)
  assert.deepEqual(Object.keys(published.optionalDependencies).sort(), names.sort())
  for (const name of names) assert.equal(published.optionalDependencies[name], pkg.version, name)
  assert.deepEqual(pkg.dependencies ?? {}, {})
  for (const manifest of [pkg, ...names.map((n) => readManifest(`npm/${n.slice('fastlines-'.length)}`))]) {
    assert.equal(manifest.version, pkg.version, manifest.name)
    for (const script of INSTALL_SCRIPTS) {
      assert.equal(manifest.scripts?.[script], undefined, `${manifest.name} ${script}`)
    }
  }
})

function readManifest(dir) {
  return JSON.parse(fs.readFileSync(path.join(repo, dir, 'package.json'), 'utf8'))
}

test('npm install: every runtime reads lines with the prebuilt binary', () => {
  const app = makeApp('npm-app')
  assertSucceeded(run('npm', ['install', '--no-audit', '--no-fund'], app), 'npm install')
  const installed = path.join(app, 'node_modules', platformPackage, binaryName)
  assert.ok(fs.existsSync(installed), `${installed} is missing`)
  assertSmokeRuns(app)
  assertDenoReads(app)
})

/**
 * A TypeScript module that imports fastlines every way ESM can (default, named, type-only) and
 * passes its own optional options on: the types of the installed package, as a user meets them.
 */
const TYPED_IMPORTS = `import fastlines, { countLines, isLineTooLongError, readLines, type ReadLinesOptions } from 'fastlines'

export async function typed(options?: ReadLinesOptions): Promise<number> {
  let total: number = await fastlines.countLines('app.log', { match: undefined })
  for await (const line of readLines('app.log', options)) total += line.length
  try {
    await countLines('app.log', { match: 'ERROR' })
  } catch (error) {
    if (isLineTooLongError(error)) total += error.maxLineLength
  }
  // @ts-expect-error: a misspelt option
  readLines('app.log', { matches: 'x' })
  return total
}
`

test('TypeScript: the installed package type-checks every way ESM imports it, with tsc and with deno check', () => {
  const app = makeApp('types-app')
  assertSucceeded(run('npm', ['install', '--no-audit', '--no-fund'], app), 'npm install')
  // @types/node, as a TypeScript user has it (the types name Buffer and streams): Deno resolves
  // it from node_modules when package.json lists it.
  fs.symlinkSync(path.join(repo, 'node_modules/@types'), path.join(app, 'node_modules/@types'))
  const manifest = JSON.parse(fs.readFileSync(path.join(app, 'package.json'), 'utf8'))
  manifest.devDependencies = { '@types/node': '*' }
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify(manifest))
  fs.writeFileSync(path.join(app, 'typed.mts'), TYPED_IMPORTS)
  const tscArgs = ['--strict', '--exactOptionalPropertyTypes', '--noEmit', '--module', 'nodenext', '--target', 'es2022']
  const tsc = path.join(repo, 'node_modules/typescript/bin/tsc')
  assertSucceeded(run(process.execPath, [tsc, ...tscArgs, 'typed.mts'], app), 'tsc')
  const env = {
    DENO_DIR: path.join(work, 'deno-dir', 'types-app'),
    NPM_CONFIG_REGISTRY: 'http://127.0.0.1:9/',
    NO_COLOR: '1',
  }
  assertSucceeded(run(deno, ['check', 'typed.mts'], app, env), 'deno check')
  // Linked from outside node_modules (npm link, a workspace), Deno takes index.d.mts' './index.js'
  // for the JavaScript file, and its types from the reference directive that file holds.
  const installed = path.join(app, 'node_modules', 'fastlines')
  const linked = path.join(work, 'linked', 'fastlines')
  fs.cpSync(installed, linked, { recursive: true })
  fs.rmSync(installed, { recursive: true })
  fs.symlinkSync(linked, installed)
  // A linked checkout has its own devDependencies installed, @types/node among them.
  fs.mkdirSync(path.join(linked, 'node_modules'))
  fs.symlinkSync(path.join(repo, 'node_modules/@types'), path.join(linked, 'node_modules/@types'))
  assertSucceeded(run(deno, ['check', 'typed.mts'], app, env), 'deno check, linked')
})

test('Deno: each permission fastlines asks for is needed, and the error without it names the flag', () => {
  const app = makeApp('deno-permissions-app')
  assertSucceeded(run('npm', ['install', '--no-audit', '--no-fund'], app), 'npm install')
  assertSucceeded(denoLoad(app), 'deno deno-load.mjs')
  // What a user who left each out reads: the flag to add first, then what Deno said. Without
  // reading /usr/bin/ldd, the loader asks for a process report, as where that file is missing.
  const advice = {
    '--allow-ffi': null,
    '--allow-env=':
      /fastlines: Deno did not allow the addon's loader to read its NAPI_RS_\* variables: run with --allow-env=NAPI_RS_NATIVE_LIBRARY_PATH,NAPI_RS_FORCE_WASI,NAPI_RS_WASI_FLAVOR,NAPI_RS_ENFORCE_VERSION_CHECK .*Deno said: Requires env access/,
    '--allow-read=':
      /fastlines: Deno did not allow the addon's loader to tell glibc from musl: .*--allow-read=\/usr\/bin\/ldd.*--allow-sys=cpus,networkInterfaces,hostname\) .*Deno said: Requires sys access/,
  }
  for (const [i, flag] of DENO_PERMISSIONS.entries()) {
    const result = denoLoad(app, DENO_PERMISSIONS.toSpliced(i, 1))
    assert.notEqual(result.status, 0, `fastlines loaded on Deno without ${flag}`)
    if (flag === '--allow-ffi') {
      assertNamesFfi(result)
      continue
    }
    assert.match(result.stderr, /code: ERR_FASTLINES_BINDING_FAILED/, `without ${flag}`)
    const [, expected] = Object.entries(advice).find(([start]) => flag.startsWith(start))
    assert.match(result.stderr, expected, `without ${flag}`)
  }
  // With the report's permissions in place of reading /usr/bin/ldd, as on a Linux without it.
  const reportOnly = [...DENO_PERMISSIONS.slice(0, 2), '--allow-sys=cpus,networkInterfaces,hostname']
  assertSucceeded(denoLoad(app, reportOnly), 'deno deno-load.mjs with --allow-sys in place of /usr/bin/ldd')
})

/** What a user who forgot --allow-ffi reads: the permission first, then what Deno said. */
function assertNamesFfi(result) {
  assert.match(result.stderr, /code: ERR_FASTLINES_BINDING_FAILED/)
  assert.match(
    result.stderr,
    new RegExp(
      `fastlines: Deno did not allow loading its native addon: run with --allow-ffi .*Deno said: Requires ffi access to ".*${binaryName}", run again with the --allow-ffi flag`,
    ),
  )
}

test('Deno without --allow-ffi in a source checkout: the error names the permission, not a missing package', () => {
  const script = path.join(work, 'checkout-load.mjs')
  fs.writeFileSync(script, DENO_LOAD.replace("'fastlines'", JSON.stringify(path.join(repo, 'index.mjs'))))
  const env = { NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' }
  const result = run(deno, ['run', '--allow-read', '--allow-env', script], repo, env)
  assert.notEqual(result.status, 0)
  assertNamesFfi(result)
})

test('bun install: every runtime reads lines with the prebuilt binary', () => {
  const app = makeApp('bun-app')
  const cache = path.join(work, 'bun-cache')
  assertSucceeded(run(bun, ['install'], app, { BUN_INSTALL_CACHE_DIR: cache }), 'bun install')
  assert.ok(fs.existsSync(path.join(app, 'node_modules', platformPackage, binaryName)))
  assertSmokeRuns(app)
  assertDenoReads(app)
})

test('without the platform package, loading fails with a message that names it', () => {
  const app = makeApp('omitted-app')
  assertSucceeded(run('npm', ['install', '--no-audit', '--no-fund', '--omit=optional'], app), 'npm install')
  assert.equal(fs.existsSync(path.join(app, 'node_modules', platformPackage)), false)
  for (const runtime of runtimes) {
    const result = run(runtime, ['smoke.mjs'], app)
    assert.notEqual(result.status, 0)
    const named = `"${platformPackage}", an optional dependency of fastlines, which is not installed`
    assert.match(result.stderr, new RegExp(named))
    assert.match(result.stderr, /ERR_FASTLINES_BINDING_MISSING/)
  }
  const onDeno = denoLoad(app)
  assert.notEqual(onDeno.status, 0)
  assert.match(onDeno.stderr, /code: ERR_FASTLINES_BINDING_MISSING/)
  assert.match(
    onDeno.stderr,
    new RegExp(`"${platformPackage}", an optional dependency of fastlines, which is not installed`),
  )
})

test('a NAPI_RS_NATIVE_LIBRARY_PATH that loads nothing is named in the error', () => {
  const app = makeApp('override-app')
  assertSucceeded(run('npm', ['install', '--no-audit', '--no-fund'], app), 'npm install')
  for (const runtime of runtimes) {
    const result = run(runtime, ['smoke.mjs'], app, { NAPI_RS_NATIVE_LIBRARY_PATH: '/nonexistent/fastlines.node' })
    assert.notEqual(result.status, 0)
    assert.match(result.stderr, /NAPI_RS_NATIVE_LIBRARY_PATH names "\/nonexistent\/fastlines.node", which did not load/)
    assert.match(result.stderr, /ERR_FASTLINES_BINDING_FAILED/)
  }
  // A path relative to the working directory, where a binary is: require() looks from
  // fastlines' own directory, and the error says to give the absolute path.
  fs.copyFileSync(path.join(repo, binaryName), path.join(app, binaryName))
  const relative = run(process.execPath, ['smoke.mjs'], app, { NAPI_RS_NATIVE_LIBRARY_PATH: `./${binaryName}` })
  assert.notEqual(relative.status, 0)
  assert.match(relative.stderr, /Point it at a fastlines .node file by its absolute path/)
})

test('a pack of the repository itself, which brings no binary, says how to get one', () => {
  const app = path.join(work, 'repository-pack-app')
  fs.mkdirSync(app)
  const manifest = { name: 'repository-pack-app', private: true, type: 'module' }
  // Packed apart: the release's root tarball in `work` has the same name.
  const packed = fs.mkdtempSync(path.join(work, 'repository-pack-'))
  manifest.dependencies = { fastlines: `file:${pack(repo, packed).file}` }
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify(manifest))
  fs.copyFileSync(path.join(repo, '__test__/smoke.mjs'), path.join(app, 'smoke.mjs'))
  assertSucceeded(run('npm', ['install', '--no-audit', '--no-fund'], app), 'npm install')
  const result = run(process.execPath, ['smoke.mjs'], app)
  assert.notEqual(result.status, 0)
  assert.match(result.stderr, new RegExp(`packed from its repository, not published.*"${platformPackage}"`))
  assert.match(result.stderr, /ERR_FASTLINES_BINDING_MISSING/)
  // And what it says works: the binary a build makes in the repository, named by the variable.
  const built = /npm run build makes (\S+) there\) and point NAPI_RS_NATIVE_LIBRARY_PATH at it/.exec(result.stderr)
  assert.ok(built, result.stderr)
  assert.equal(built[1], binaryName)
  const loaded = run(process.execPath, ['smoke.mjs'], app, { NAPI_RS_NATIVE_LIBRARY_PATH: path.join(repo, built[1]) })
  assertSucceeded(loaded, 'smoke.mjs with NAPI_RS_NATIVE_LIBRARY_PATH')
})

test('a platform package whose binary cannot load says so, with the cause', () => {
  const app = makeApp('broken-app')
  assertSucceeded(run('npm', ['install', '--no-audit', '--no-fund'], app), 'npm install')
  fs.writeFileSync(path.join(app, 'node_modules', platformPackage, binaryName), 'not a shared object')
  for (const runtime of runtimes) {
    const result = run(runtime, ['smoke.mjs'], app)
    assert.notEqual(result.status, 0)
    assert.match(
      result.stderr,
      new RegExp(`"${platformPackage}" is installed but its binary did not load: .*${binaryName}`),
    )
    // The OS's own reason, not the generated loader's message about an npm bug.
    assert.match(result.stderr, /invalid ELF header|file too short|ERR_DLOPEN_FAILED/)
    assert.match(result.stderr, /ERR_FASTLINES_BINDING_FAILED/)
  }
  const onDeno = denoLoad(app)
  assert.notEqual(onDeno.status, 0)
  assert.match(onDeno.stderr, /code: ERR_FASTLINES_BINDING_FAILED/)
  assert.match(
    onDeno.stderr,
    new RegExp(`"${platformPackage}" is installed but its binary did not load: .*${binaryName}`),
  )
  assert.match(onDeno.stderr, /invalid ELF header|file too short/)
})

test("a platform package the loader's own settings refuse says which setting and why", () => {
  const app = makeApp('refused-app')
  assertSucceeded(run('npm', ['install', '--no-audit', '--no-fund'], app), 'npm install')
  const manifest = path.join(app, 'node_modules', platformPackage, 'package.json')
  fs.writeFileSync(manifest, JSON.stringify({ ...JSON.parse(fs.readFileSync(manifest, 'utf8')), version: '0.0.9' }))
  for (const runtime of runtimes) {
    const result = run(runtime, ['smoke.mjs'], app, { NAPI_RS_ENFORCE_VERSION_CHECK: '1' })
    assert.notEqual(result.status, 0)
    // The generated loader's own error, passed on as it was, blamed an npm bug and had no code.
    assert.match(
      result.stderr,
      new RegExp(
        `"${platformPackage}" loads, but the addon's loader refused it under NAPI_RS_ENFORCE_VERSION_CHECK=1: ` +
          `Native binding package version mismatch, expected ${pkg.version} but got 0.0.9`,
      ),
    )
    assert.match(result.stderr, /ERR_FASTLINES_BINDING_FAILED/)
  }
  // Checks off, the same package loads.
  assertSucceeded(run(process.execPath, ['smoke.mjs'], app, { NAPI_RS_ENFORCE_VERSION_CHECK: '0' }), 'check off')
  for (const [name, value] of [
    ['NAPI_RS_FORCE_WASI', 'error'],
    ['NAPI_RS_WASI_FLAVOR', 'wasm32-wasi'],
  ]) {
    const wasi = run(process.execPath, ['smoke.mjs'], app, { [name]: value })
    assert.notEqual(wasi.status, 0)
    assert.match(
      wasi.stderr,
      new RegExp(
        `fastlines: ${name}=${value} asks the addon's loader for a WebAssembly build alone, which fastlines does not have`,
      ),
    )
    assert.match(wasi.stderr, /ERR_FASTLINES_BINDING_FAILED/)
  }
})
