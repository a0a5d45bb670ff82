// Running another Linux CPU's programs on this machine: qemu-user (Debian's qemu-user-static),
// started by the kernel for every program of that CPU through binfmt_misc, so that a runtime's
// child processes (ava's workers, the tests' own children) are emulated as the runtime is. A
// glibc program finds its loader and libraries under the Debian cross sysroot that
// QEMU_LD_PREFIX names (libc6-<arch>-cross, libstdc++6-<arch>-cross); the variable is inherited.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

const BINFMT = '/proc/sys/fs/binfmt_misc'

/** qemu's name for each Node `process.arch` emulated here, and the Debian cross sysroot of its glibc. */
const CPUS = {
  arm64: { qemu: 'aarch64', sysroot: '/usr/aarch64-linux-gnu', packages: 'libc6-arm64-cross libstdc++6-arm64-cross' },
  arm: {
    qemu: 'arm',
    sysroot: '/usr/arm-linux-gnueabihf',
    packages: 'libc6-armhf-cross libstdc++6-armhf-cross libatomic1-armhf-cross',
  },
}

/**
 * The environment that runs `arch`'s programs here, once the kernel is set to start them under
 * qemu. `sysroot` is where the loader and libraries of the program's libc are (by default the
 * Debian cross sysroot of glibc). Throws, naming what to install, when that cannot be done.
 */
export function emulation(arch, sysroot = CPUS[arch]?.sysroot) {
  const cpu = CPUS[arch]
  if (cpu === undefined) throw new Error(`no emulation set up for ${arch}: ${Object.keys(CPUS).join(', ')} only`)
  registerQemu(cpu.qemu)
  if (!fs.existsSync(sysroot)) {
    throw new Error(`${sysroot} is missing: apt-get install ${cpu.packages} (the ${arch} loader and libraries)`)
  }
  return { QEMU_LD_PREFIX: sysroot }
}

/** Makes the kernel start `qemu`'s CPU's programs under qemu-<qemu>-static (root only, once). */
function registerQemu(qemu) {
  const entry = path.join(BINFMT, `qemu-${qemu}`)
  if (fs.existsSync(entry)) return
  const conf = `/usr/lib/binfmt.d/qemu-${qemu}.conf`
  if (!fs.existsSync(conf)) throw new Error(`${conf} is missing: apt-get install qemu-user-static`)
  try {
    if (!fs.existsSync(path.join(BINFMT, 'register'))) {
      execFileSync('mount', ['-t', 'binfmt_misc', 'binfmt_misc', BINFMT], { stdio: 'pipe' })
    }
    fs.writeFileSync(path.join(BINFMT, 'register'), fs.readFileSync(conf))
  } catch (error) {
    throw new Error(`cannot register qemu-${qemu} with binfmt_misc (this needs root): ${error.message}`, {
      cause: error,
    })
  }
}
