// The native addon, loaded once through the generated loader (binding.js); when it does not
// load, the error names the platform package that should have brought it and why it did not.
'use strict'

const { codedError, codes } = require('./errors')

/**
 * The name napi-rs gives this machine's platform package: `fastlines-linux-x64-gnu`,
 * `fastlines-darwin-arm64`, `fastlines-win32-x64-msvc`, ...
 */
function platformPackageName() {
  const { platform, arch } = process
  let abi = ''
  if (platform === 'win32') abi = '-msvc'
  if (platform === 'linux') {
    const libc = isMusl() ? 'musl' : 'gnu'
    abi = arch === 'arm' ? `-${libc}eabihf` : `-${libc}`
  }
  return `fastlines-${platform}-${arch}${abi}`
}

/** Whether this Linux runs on musl: its `ldd` says so, or Node's process report lacks glibc. */
function isMusl() {
  try {
    return require('node:fs').readFileSync('/usr/bin/ldd', 'utf8').includes('musl')
  } catch {
    try {
      return !process.report.getReport().header.glibcVersionRuntime
    } catch {
      return false
    }
  }
}

/**
 * What requiring `name` itself gives: 'missing' when it is not installed, 'loads' when it loads
 * (then the loader failed for another reason, such as its environment overrides), or the real
 * error (say, the OS refusing the binary), which the generated loader buries under its own.
 */
function probePlatformPackage(name) {
  try {
    require(name)
    return 'loads'
  } catch (error) {
    const missing = error.code === 'MODULE_NOT_FOUND' && String(error.message).includes(`'${name}'`)
    return missing ? 'missing' : error
  }
}

/**
 * The error for a binary that did not load, naming the package that should have brought it: the
 * generated loader's own message blames an npm bug, which is rarely the cause (an install with
 * `--omit=optional`, a `node_modules` copied from another OS, a platform without a build, or a
 * binary the OS refuses are).
 */
function bindingError(loaderError) {
  // First: without a permission, reading the environment below would fail the same way.
  const denied = denoRefusal(loaderError)
  if (denied !== undefined) {
    const message = `fastlines: ${DENO_NEEDS[denied.flag]} (see "Deno" in fastlines' README.md for the narrowest permissions). Deno said: ${denied.error.message}`
    return codedError(Error, codes.BINDING_FAILED, message, { cause: loaderError })
  }
  const override = process.env.NAPI_RS_NATIVE_LIBRARY_PATH
  if (override) {
    const message =
      `fastlines: NAPI_RS_NATIVE_LIBRARY_PATH names ${JSON.stringify(override)}, which did not load ` +
      `(${deepestCause(loaderError).message}). Point it at a fastlines .node file by its absolute path ` +
      `(require() resolves a relative one from fastlines' own directory, not the working one), or unset it.`
    return codedError(Error, codes.BINDING_FAILED, message, { cause: loaderError })
  }
  // A setting that asks for WebAssembly alone: no native binary was looked for.
  const wasiOnly = loaderSettings().filter((setting) => !setting.startsWith(`${VERSION_CHECK}=`))
  if (wasiOnly.length > 0) {
    const message =
      `fastlines: ${wasiOnly.join(', ')} asks the addon's loader for a WebAssembly build alone, ` +
      `which fastlines does not have: unset it. The loader said: ${loaderReasons(loaderError)}`
    return codedError(Error, codes.BINDING_FAILED, message, { cause: loaderError })
  }
  const name = platformPackageName()
  const platform = `${process.platform}-${process.arch}`
  // Read only now: loading package.json costs every process that loads fastlines fine.
  const { optionalDependencies, napi } = require('../package.json')
  // A published package lists its binaries' packages; a pack of the repository does not.
  const published = optionalDependencies !== undefined
  const prebuilt = published ? Object.keys(optionalDependencies) : napi.targets.map(packageNameOf)
  if (!prebuilt.includes(name)) {
    const message =
      `fastlines: there is no prebuilt binary for ${platform} ("${name}" does not exist). ` +
      `Prebuilt: ${prebuilt.join(', ')}. To build one, see "Building from source" in fastlines' README.md.`
    return codedError(Error, codes.BINDING_MISSING, message, { cause: loaderError })
  }
  const probe = probePlatformPackage(name)
  if (probe === 'loads') {
    const settings = loaderSettings()
    const under = settings.length === 0 ? '' : ` under ${settings.join(', ')}`
    const message = `fastlines: "${name}" loads, but the addon's loader refused it${under}: ${loaderReasons(loaderError)}`
    return codedError(Error, codes.BINDING_FAILED, message, { cause: loaderError })
  }
  if (probe === 'missing' && !published) {
    const message =
      `fastlines: this copy was packed from its repository, not published, so no binary for ${platform} ` +
      `comes with it ("${name}" is not among its dependencies). Build one in a checkout of the ` +
      `repository (npm install && npm run build makes ${binaryFileOf(name)} there) and point ` +
      `NAPI_RS_NATIVE_LIBRARY_PATH at it by its absolute path, or install a published fastlines; see "Building from source" ` +
      `in fastlines' README.md.`
    return codedError(Error, codes.BINDING_MISSING, message, { cause: loaderError })
  }
  if (probe === 'missing') {
    const message =
      `fastlines: its native binary for ${platform} comes in the package "${name}", an optional ` +
      `dependency of fastlines, which is not installed. Install again without --omit=optional ` +
      `(or --no-optional), or add "${name}" to your dependencies.`
    return codedError(Error, codes.BINDING_MISSING, message, { cause: loaderError })
  }
  const message = `fastlines: "${name}" is installed but its binary did not load: ${probe.message}`
  return codedError(Error, codes.BINDING_FAILED, message, { cause: probe })
}

const VERSION_CHECK = 'NAPI_RS_ENFORCE_VERSION_CHECK'

/**
 * The generated loader's settings that take effect, as `NAME=value` (NAPI_RS_NATIVE_LIBRARY_PATH
 * is named apart): a version check of the platform package, and WebAssembly alone asked for.
 * One Deno does not let this read is taken as unset: the loader read it, or did not need it.
 */
function loaderSettings() {
  const setting = (name, takesEffect) => {
    let value
    try {
      value = process.env[name]
    } catch {
      return []
    }
    return value !== undefined && takesEffect(value) ? [`${name}=${value}`] : []
  }
  return [
    ...setting(VERSION_CHECK, (value) => value !== '' && value !== '0'),
    ...setting('NAPI_RS_FORCE_WASI', (value) => value === 'error'),
    ...setting('NAPI_RS_WASI_FLAVOR', (value) => value !== ''),
  ]
}

/**
 * Why the generated loader failed, from its error and the chain of causes it keeps: each
 * place it tried, but the local `.node` files a published package does not have and its
 * summary blaming npm.
 */
function loaderReasons(loaderError) {
  const reasons = []
  for (let error = loaderError; error instanceof Error; error = error.cause) {
    const reason = error.message
    const generic = reason.startsWith('Cannot find module') || reason.startsWith('Cannot find native binding')
    if (!generic && !reasons.includes(reason)) reasons.push(reason)
  }
  return reasons.join('; ') || loaderError.message
}

/** The binary `napi build` makes for a platform package: fastlines-linux-x64-gnu's is fastlines.linux-x64-gnu.node. */
function binaryFileOf(packageName) {
  return `${packageName.replace(/^fastlines-/, 'fastlines.')}.node`
}

/** The platform package napi-rs names for a Rust target: x86_64-unknown-linux-gnu is fastlines-linux-x64-gnu. */
function packageNameOf(target) {
  const [machine, , system, abi] = target.split('-')
  const arch = { x86_64: 'x64', aarch64: 'arm64', armv7: 'arm', i686: 'ia32' }[machine] ?? machine
  if (system === 'darwin') return `fastlines-darwin-${arch}`
  if (system === 'windows') return `fastlines-win32-${arch}-${abi}`
  return `fastlines-${system}-${arch}-${abi}`
}

/** The innermost cause of `error`: the generated loader chains each place it tried. */
function deepestCause(error) {
  let deepest = error
  while (deepest.cause instanceof Error) deepest = deepest.cause
  return deepest
}

/** What the generated loader needs of each Deno permission, and the flag that grants it. */
const DENO_NEEDS = {
  '--allow-ffi': 'Deno did not allow loading its native addon: run with --allow-ffi',
  '--allow-env':
    "Deno did not allow the addon's loader to read its NAPI_RS_* variables: run with " +
    '--allow-env=NAPI_RS_NATIVE_LIBRARY_PATH,NAPI_RS_FORCE_WASI,NAPI_RS_WASI_FLAVOR,NAPI_RS_ENFORCE_VERSION_CHECK',
  '--allow-sys':
    "Deno did not allow the addon's loader to tell glibc from musl: it reads /usr/bin/ldd " +
    '(run with --allow-read=/usr/bin/ldd), and where that file is missing, as on NixOS or in a ' +
    'distroless image, asks for a process report (run with --allow-sys=cpus,networkInterfaces,hostname)',
}

/**
 * Deno's refusal of a permission the loader needs, and the flag it asks for, if that is among
 * the loader's errors: the generated loader tries every place a binary may be and chains each
 * failure as the cause of the next, so the one that says why may be several causes deep.
 */
function denoRefusal(error) {
  if (typeof Deno === 'undefined') return undefined
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    const flag = Object.keys(DENO_NEEDS).find((name) => String(cause.message).includes(`${name} flag`))
    if (flag !== undefined) return { flag, error: cause }
  }
  return undefined
}

function loadBinding() {
  try {
    return require('../binding.js')
  } catch (cause) {
    throw bindingError(cause)
  }
}

module.exports = loadBinding()
