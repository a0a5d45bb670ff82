'use strict'

const fs = require('node:fs')

const { optionalDependencies = {} } = require('../package.json')

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
    return fs.readFileSync('/usr/bin/ldd', 'utf8').includes('musl')
  } catch {
    try {
      return !process.report.getReport().header.glibcVersionRuntime
    } catch {
      return false
    }
  }
}

function isInstalled(name) {
  try {
    require.resolve(`${name}/package.json`)
    return true
  } catch {
    return false
  }
}

/**
 * The error for a binary that did not load, naming the package that should have brought it: the
 * generated loader's own message blames an npm bug, which is rarely the cause (an install with
 * `--omit=optional`, a `node_modules` copied from another OS, or a platform without a build are).
 */
function bindingError(cause) {
  const name = platformPackageName()
  const platform = `${process.platform}-${process.arch}`
  const prebuilt = Object.keys(optionalDependencies)
  let message
  if (!prebuilt.includes(name)) {
    message =
      `fastlines: there is no prebuilt binary for ${platform} ("${name}" does not exist). ` +
      `Prebuilt: ${prebuilt.join(', ')}. To build one, see "Building from source" in fastlines' README.md.`
  } else if (!isInstalled(name)) {
    message =
      `fastlines: its native binary for ${platform} comes in the package "${name}", an optional ` +
      `dependency of fastlines, which is not installed. Install again without --omit=optional ` +
      `(or --no-optional), or add "${name}" to your dependencies.`
  } else {
    message = `fastlines: "${name}" is installed but its binary did not load: ${cause.message}`
  }
  const error = new Error(message, { cause })
  error.code = 'ERR_FASTLINES_BINDING_MISSING'
  return error
}

function loadBinding() {
  try {
    return require('../binding.js')
  } catch (cause) {
    throw bindingError(cause)
  }
}

module.exports = loadBinding()
