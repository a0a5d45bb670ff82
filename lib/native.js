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
  const denied = ffiDenied(loaderError)
  if (denied !== undefined) {
    const message =
      'fastlines: Deno did not allow loading its native addon: run with --allow-ffi ' +
      `(see "Deno" in fastlines' README.md for the narrowest permissions). Deno said: ${denied.message}`
    return codedError(Error, codes.BINDING_FAILED, message, { cause: loaderError })
  }
  const name = platformPackageName()
  const platform = `${process.platform}-${process.arch}`
  // Read only now: loading package.json costs every process that loads fastlines fine.
  const { optionalDependencies = {} } = require('../package.json')
  const prebuilt = Object.keys(optionalDependencies)
  if (!prebuilt.includes(name)) {
    const message =
      `fastlines: there is no prebuilt binary for ${platform} ("${name}" does not exist). ` +
      `Prebuilt: ${prebuilt.join(', ')}. To build one, see "Building from source" in fastlines' README.md.`
    return codedError(Error, codes.BINDING_MISSING, message, { cause: loaderError })
  }
  const probe = probePlatformPackage(name)
  if (probe === 'loads') return loaderError
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

/**
 * Deno's refusal to load an addon without `--allow-ffi`, if that is among the loader's errors:
 * the generated loader tries every place a binary may be and chains each failure as the cause
 * of the next, so the one that says why is several causes deep.
 */
function ffiDenied(error) {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (typeof Deno !== 'undefined' && String(cause.message).includes('--allow-ffi')) return cause
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
