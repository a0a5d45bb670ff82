// Compressed fixtures and their oracle, for decompress.spec.mjs. gzip is made by Node's zlib,
// or member by member by hand (a deflate stream in RFC 1952's frame) to get the header fields
// and bgzip's many small members; zstd by the zstd CLI. What a file decompresses to, and how it
// fails, comes from Node 24's zlib run in a child process (`decompressOutcomes`), so that the
// references are the same on Node 20, 22 and 24, Bun and Deno. Node's zlib reads one gzip
// member sequence and one zstd frame; the oracle walks the members and frames as `gzip -d` and
// `zstd -d` do and takes Node's outcome for each, which is what the `decompress` contract asks.
import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import zlib from 'node:zlib'

import { machineArch, nodeBinary } from './runtimes.mjs'

/** The zstd CLI, for zstd fixtures and for what it decodes before an error. */
export const ZSTD_CLI = 'zstd'

/**
 * Runs `run(pathOf)` with a fresh temp directory, removed after. Child processes get their
 * input and give their output through files: Deno's execFileSync deadlocks when both the input
 * and the output of a child outgrow a pipe's buffer.
 */
function withTempDir(run) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fastlines-compressed-'))
  try {
    return run((name) => path.join(dir, name))
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

const LF = 0x0a
const CR = 0x0d

// ---- gzip --------------------------------------------------------------------------------------

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})

/** CRC-32 as gzip's trailer holds it (zlib.crc32 is missing before Node 20.15). */
export function crc32(bytes) {
  let crc = 0xffffffff
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8)
  return (crc ^ 0xffffffff) >>> 0
}

const u16le = (value) => Buffer.from([value & 0xff, (value >>> 8) & 0xff])
function u32le(value) {
  const bytes = Buffer.alloc(4)
  bytes.writeUInt32LE(value >>> 0)
  return bytes
}

const FHCRC = 2
const FEXTRA = 4
const FNAME = 8
const FCOMMENT = 16

/**
 * One gzip member of `bytes`, made by hand: zlib's raw deflate stream between RFC 1952's header
 * and trailer, with the optional header fields (`extra` bytes, a `name`, a `comment`, a header
 * CRC) that Node's gzip never writes.
 */
export function gzipMember(bytes, { level = 6, extra, name, comment, headerCrc = false } = {}) {
  const flags = (extra ? FEXTRA : 0) | (name !== undefined ? FNAME : 0) | (comment !== undefined ? FCOMMENT : 0)
  const parts = [Buffer.from([0x1f, 0x8b, 8, flags | (headerCrc ? FHCRC : 0), 0x78, 0x56, 0x34, 0x12, 0, 0xff])]
  if (extra) parts.push(u16le(extra.length), Buffer.from(extra))
  if (name !== undefined) parts.push(Buffer.from(name, 'latin1'), Buffer.from([0]))
  if (comment !== undefined) parts.push(Buffer.from(comment, 'latin1'), Buffer.from([0]))
  if (headerCrc) parts.push(u16le(crc32(Buffer.concat(parts)) & 0xffff))
  const body = zlib.deflateRawSync(bytes, { level })
  return Buffer.concat([...parts, body, u32le(crc32(bytes)), u32le(bytes.length)])
}

/** One bgzip block: a member whose extra field `BC` gives the block's size less one. */
function bgzipBlock(bytes) {
  const body = zlib.deflateRawSync(bytes)
  const size = 10 + 2 + 6 + body.length + 8
  const header = Buffer.from([0x1f, 0x8b, 8, FEXTRA, 0, 0, 0, 0, 0, 0xff, 6, 0, 0x42, 0x43, 2, 0])
  return Buffer.concat([header, u16le(size - 1), body, u32le(crc32(bytes)), u32le(bytes.length)])
}

/**
 * `bytes` as bgzip writes it: cut every `blockSize` bytes (with no regard for lines or
 * characters), each piece its own member, then bgzip's empty end-of-file member.
 */
export function bgzip(bytes, blockSize) {
  const blocks = []
  for (let at = 0; at < bytes.length; at += blockSize) blocks.push(bgzipBlock(bytes.subarray(at, at + blockSize)))
  blocks.push(bgzipBlock(Buffer.alloc(0)))
  return Buffer.concat(blocks)
}

/** Codes that make a fixed-Huffman deflate stream invalid, each with zlib's name for it. */
const BAD_CODES = {
  'invalid distance too far back': (code, put) => {
    code(1, 7) // length 3
    code(29, 5) // a distance of 24577 + the 13 extra bits, beyond what was written
    put(8000, 13)
  },
  'invalid distance code': (code) => {
    code(1, 7)
    code(30, 5) // distance codes 30 and 31 do not occur
  },
  'invalid literal/length code': (code) => code(0xc6, 8), // 286 and 287 do not occur
}

/**
 * A gzip member of one fixed-Huffman block (RFC 1951, 3.2.6) holding `text` as literals, then
 * the damage zlib names `damage` (a key of BAD_CODES), then `padding` zero bytes: with 15 bytes
 * of input and 258 of output space left, zlib finds the damage on its fast path (inflate_fast).
 */
export function damagedGzip(text, damage, padding = 32) {
  const bits = []
  const put = (value, count) => {
    for (let i = 0; i < count; i++) bits.push((value >> i) & 1)
  }
  const code = (value, count) => {
    for (let i = count - 1; i >= 0; i--) bits.push((value >> i) & 1)
  }
  put(1, 1) // the last block
  put(1, 2) // fixed Huffman codes
  for (const byte of Buffer.from(text)) {
    if (byte < 144) code(0x30 + byte, 8)
    else code(0x190 + byte - 144, 9)
  }
  BAD_CODES[damage](code, put)
  const body = Buffer.alloc(Math.ceil(bits.length / 8))
  bits.forEach((bit, i) => (body[i >> 3] |= bit << (i & 7)))
  return Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]), body, Buffer.alloc(padding)])
}

export const GZIP_DAMAGES = Object.keys(BAD_CODES)

/** bgzip's end-of-file member, as the SAM specification spells it. */
export const BGZIP_EOF = Buffer.from('1f8b08040000000000ff0600424302001b0003000000000000000000', 'hex')

// ---- zstd --------------------------------------------------------------------------------------

/**
 * `bytes` compressed by the zstd CLI with `args` (e.g. '-19', '--no-check'): one frame, without
 * its content size in the header (as the CLI writes a stream) unless `args` has '--content-size'.
 */
export function zstd(bytes, args = []) {
  const size = args.includes('--content-size') ? [] : ['--no-content-size']
  return withTempDir((file) => {
    fs.writeFileSync(file('in'), bytes)
    execFileSync(ZSTD_CLI, ['-q', '-f', ...size, ...args, '-o', file('out'), file('in')], {
      stdio: ['ignore', 'ignore', 'inherit'],
    })
    return fs.readFileSync(file('out'))
  })
}

/** A zstd skippable frame holding `payload`; `nibble` picks its magic, 0x184D2A50 to ...5F. */
export function skippableFrame(payload, nibble = 0) {
  const bytes = Buffer.from(payload)
  return Buffer.concat([Buffer.from([0x50 + nibble, 0x2a, 0x4d, 0x18]), u32le(bytes.length), bytes])
}

// ---- lines of decoded bytes ---------------------------------------------------------------------

/** The bytes up to and including the last terminator: the lines a damaged read must yield. */
export function completeLines(bytes) {
  for (let i = bytes.length - 1; i >= 0; i--) {
    if (bytes[i] === LF || bytes[i] === CR) return bytes.subarray(0, i + 1)
  }
  return bytes.subarray(0, 0)
}

// ---- the oracle ----------------------------------------------------------------------------------

function attempt(run) {
  try {
    return { value: run() }
  } catch (error) {
    if (typeof error.code !== 'string') throw error
    return { error: { code: error.code, errno: error.errno, message: error.message } }
  }
}

/**
 * The length of the gzip member at the start of `bytes` (RFC 1952's header, the deflate stream
 * as far as zlib reads it, the 8-byte trailer), or undefined if it cannot be made out.
 */
function gzipMemberSize(bytes) {
  if (bytes.length < 10 || bytes[0] !== 0x1f || bytes[1] !== 0x8b) return undefined
  const flags = bytes[3]
  let at = 10
  if (flags & FEXTRA) {
    if (at + 2 > bytes.length) return undefined
    at += 2 + bytes.readUInt16LE(at)
  }
  for (const flag of [FNAME, FCOMMENT]) {
    if (!(flags & flag)) continue
    const zero = bytes.indexOf(0, at)
    if (zero < 0) return undefined
    at = zero + 1
  }
  if (flags & FHCRC) at += 2
  if (at > bytes.length) return undefined
  const inflated = attempt(() => zlib.inflateRawSync(bytes.subarray(at), { info: true }))
  if (inflated.error) return undefined
  const size = at + inflated.value.engine.bytesWritten + 8
  return size <= bytes.length ? size : undefined
}

const gunzip = (bytes) => zlib.gunzipSync(bytes)
const syncFlush = { finishFlush: zlib.constants.Z_SYNC_FLUSH }

/**
 * gzip as the contract reads it: member after member, each with Node's outcome; after a
 * member, zeros to the end pad (Node's zlib ignores them), and other bytes that do not start
 * another member (1f 8b, or a lone 1f at the end) fail as Node's zlib fails on them alone. Zeros
 * followed by other bytes fail likewise, as those bytes alone: there Node's zlib stops at the
 * first zero and ignores the rest, even a member, which the contract does not (README).
 */
function gzipOutcome(bytes) {
  const outputs = []
  let rest = bytes
  for (let first = true; ; first = false) {
    if (!first) {
      if (rest.every((byte) => byte === 0)) return { output: Buffer.concat(outputs), error: null }
      const another = rest[0] === 0x1f && (rest.length === 1 || rest[1] === 0x8b)
      if (!another) return { output: Buffer.concat(outputs), error: attempt(() => gunzip(rest)).error }
    }
    const size = gzipMemberSize(rest)
    const member = size === undefined ? undefined : attempt(() => gunzip(rest.subarray(0, size)))
    if (member === undefined || member.error) {
      const failed = attempt(() => gunzip(rest))
      if (!failed.error) throw new Error(`oracle: Node gunzips ${rest.toString('hex')} that the member walk cannot`)
      const partial = attempt(() => zlib.gunzipSync(rest, syncFlush))
      outputs.push(partial.value ?? Buffer.alloc(0))
      return { output: Buffer.concat(outputs), error: failed.error, exact: !partial.error }
    }
    outputs.push(member.value)
    rest = rest.subarray(size)
  }
}

/** The length of the zstd frame at the start of `bytes`, which Node decompresses: its shortest prefix it takes. */
function zstdFrameSize(bytes) {
  let low = 1
  let high = bytes.length
  while (low < high) {
    const mid = (low + high) >>> 1
    if (attempt(() => zlib.zstdDecompressSync(bytes.subarray(0, mid))).error) low = mid + 1
    else high = mid
  }
  return low
}

/** What `zstd -dc` writes out for `bytes` (all it decoded, up to an error), and its exit status. */
const zstdCli = (bytes) =>
  spawnSync(ZSTD_CLI, ['-d', '-c', '-q'], { input: bytes, maxBuffer: 2 ** 31 - 1, stdio: ['pipe', 'pipe', 'ignore'] })

/** Whether `bytes` start with a zstd frame's magic or a skippable frame's. */
function startsZstdFrame(bytes) {
  if (bytes.length < 4) return false
  const magic = bytes.readUInt32LE(0)
  return magic === 0xfd2fb528 || (magic & 0xfffffff0) === 0x184d2a50
}

/**
 * zstd as the contract reads it: frame after frame (skippable ones give nothing), each with
 * Node's outcome, at least one. What the failing frame gives before its error is what the zstd
 * CLI writes out for it (alone: the CLI would also take a gzip or xz stream after a frame).
 * `cliAgrees` says whether the CLI (libzstd 1.5.4 here, older than Node's) failed where Node
 * did and decoded the same bytes where Node did; where it did not, Node's outcome stands and the
 * bytes before an error are only those of the frames before (`exact: false`).
 */
function zstdOutcome(bytes) {
  const outputs = []
  let rest = bytes
  do {
    const frame = attempt(() => zlib.zstdDecompressSync(rest))
    if (frame.error) {
      let cliAgrees = true
      if (startsZstdFrame(rest)) {
        const cli = zstdCli(rest)
        cliAgrees = cli.status !== 0
        if (cliAgrees) outputs.push(cli.stdout)
      }
      return { output: Buffer.concat(outputs), error: frame.error, exact: cliAgrees, cliAgrees }
    }
    const size = zstdFrameSize(rest)
    outputs.push(frame.value)
    rest = rest.subarray(size)
  } while (rest.length > 0)
  const output = Buffer.concat(outputs)
  const cli = zstdCli(bytes)
  return { output, error: null, cliAgrees: cli.status === 0 && cli.stdout.equals(output) }
}

/** What the child process does for each item: an outcome, or zstd compression by Node's zlib. */
const OPERATIONS = {
  gzip: gzipOutcome,
  zstd: zstdOutcome,
  zstdCompress: (bytes, { checksum = false, level = 3 } = {}) => ({
    output: zlib.zstdCompressSync(bytes, {
      params: {
        [zlib.constants.ZSTD_c_checksumFlag]: checksum ? 1 : 0,
        [zlib.constants.ZSTD_c_compressionLevel]: level,
      },
    }),
  }),
}

/**
 * Runs `items` ({ op, bytes, options }) through OPERATIONS in Node 24 (this machine's, see
 * machineArch), all in one child process.
 */
function inNode24(items) {
  const input = JSON.stringify(
    items.map(({ op, bytes, options }) => ({ op, options, bytes: Buffer.from(bytes).toString('base64') })),
  )
  const stdout = withTempDir((file) => {
    fs.writeFileSync(file('in.json'), input)
    const args = [fileURLToPath(import.meta.url), '--oracle', file('in.json'), file('out.json')]
    execFileSync(nodeBinary('24', machineArch), args, { stdio: ['ignore', 'ignore', 'inherit'] })
    return fs.readFileSync(file('out.json'), 'utf8')
  })
  return JSON.parse(stdout).map(({ output, ...result }) => ({ ...result, output: Buffer.from(output, 'base64') }))
}

/**
 * For each `{ format: 'gzip' | 'zstd', bytes }`, what reading it with `decompress: format` must
 * give: `{ output, error, exact }`. `output` is everything it decompresses to when `error` is
 * null; with an error (`{ code, errno, message }`, Node's), the bytes decompressed before it,
 * as zlib gives them from the prefix (gzip, with Z_SYNC_FLUSH) or the zstd CLI writes them
 * (`exact: false` where zlib gave nothing for the damaged member). Computed by Node 24 in a
 * child process, every item at once.
 */
export const decompressOutcomes = (items) => inNode24(items.map(({ format, bytes }) => ({ op: format, bytes })))

/** One item's outcome (see decompressOutcomes). */
export const decompressOutcome = (format, bytes) => decompressOutcomes([{ format, bytes }])[0]

/** The same outcome computed in this process: Node 22.15 or later for zstd (zlib.zstdDecompressSync). */
export const decompressOutcomeHere = (format, bytes) => OPERATIONS[format](Buffer.from(bytes))

/**
 * Each of `inputs` as one zstd frame made by Node 24's zlib (with the content size in its
 * header, unlike the CLI's from stdin), all in one child process.
 */
export const zstdFrames = (inputs, options) =>
  inNode24(inputs.map((bytes) => ({ op: 'zstdCompress', bytes, options }))).map(({ output }) => output)

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === '--oracle') {
  const items = JSON.parse(fs.readFileSync(process.argv[3], 'utf8'))
  const results = items.map(({ op, bytes, options }) => {
    const { output, ...result } = OPERATIONS[op](Buffer.from(bytes, 'base64'), options)
    return { ...result, output: output.toString('base64') }
  })
  fs.writeFileSync(process.argv[4], JSON.stringify(results))
}
