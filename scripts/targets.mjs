// What the release builds each target against, shared by build-platform.mjs and the tests that
// check the binaries it makes.

/** The oldest glibc a gnu binary loads on (napi-rs' own baseline): its symbols may be no newer. */
export const GLIBC_MIN = '2.17'

/**
 * The `--target` zig builds `triple` for: a gnu target with the glibc version pinned, so that a
 * build that needs a newer symbol fails here and not on a user's machine.
 */
export const zigTarget = (triple) =>
  triple.endsWith('-gnu') || triple.endsWith('-gnueabihf') ? `${triple}.${GLIBC_MIN}` : triple

/**
 * The compiler flags `triple` is built with beyond what cargo-zigbuild gives, as the variables
 * the `cc` crate reads (`CFLAGS_<triple>`, `CXXFLAGS_<triple>`).
 * - armv7: zig compiles C for the CPU Rust's target names, which has no NEON, and ignores
 *   `-mfpu=neon`; so zlib-ng's NEON sources, which it builds with that flag and picks at run
 *   time, fail to compile. NEON is asked for by CPU instead: the C code then needs an ARMv7 CPU
 *   with NEON, as every Raspberry Pi from the 2 on and every ARMv8 CPU running 32-bit code has.
 *   (Rust's own code keeps the target's baseline.)
 * - x86_64: zig's clang (20) gates 512-bit vectors behind `evex512`, which simdutf's AVX-512
 *   kernel does not ask for in its target attributes, so it fails to compile. `-mevex512` only
 *   allows 512-bit vectors where AVX-512 is enabled: in that kernel, which simdutf runs only on
 *   CPUs that have it.
 */
export function extraFlags(triple) {
  const env = triple.replaceAll('-', '_')
  if (triple.startsWith('armv7-')) return { [`CFLAGS_${env}`]: '-mcpu=generic+v7a+vfp3+d32+thumb2+neon' }
  if (triple.startsWith('x86_64-')) return { [`CXXFLAGS_${env}`]: '-mevex512' }
  return {}
}
