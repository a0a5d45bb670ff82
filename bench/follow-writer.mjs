// The writer of the follow benchmark, always run on Node: appends numbered lines to a file with
// one `fs.writeSync` per line (a logger writing synchronously), and prints, as one line of JSON on
// stdout, when the writes returned on the monotonic clock of bench/clock.mjs.
// Usage:
//   node bench/follow-writer.mjs paced <file> <count> <interval-ms>
//     one line every <interval-ms>, on a fixed schedule from the first write (the pacing uses
//     timers: this is the harness, not what is measured); prints each write's return time
//   node bench/follow-writer.mjs flood <file> <count> <none|rename|copytruncate>
//     every line as fast as it can; halfway through, rotates the file: `rename` moves <file> to
//     <file>.1 and goes on in a new <file> (logrotate's default, the application reopening its
//     log), `copytruncate` copies <file> to <file>.1 and truncates <file> to 0 bytes while
//     writing on through the same descriptor (opened with O_APPEND, so the next line lands at
//     offset 0); prints when the first and last writes returned and when the rotation was done
import fs from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { monotonicNs } from './clock.mjs'
import { lineText } from './followers.mjs'

async function paced(file, count, intervalMs) {
  const returns = []
  const fd = fs.openSync(file, 'a')
  const started = performance.now()
  for (let seq = 0; seq < count; seq++) {
    const wait = started + seq * intervalMs - performance.now()
    if (wait > 0) await sleep(wait)
    fs.writeSync(fd, lineText(seq))
    returns.push(monotonicNs())
  }
  fs.closeSync(fd)
  return { returns, endNs: returns[returns.length - 1] }
}

/** Rotates `file` as `rotation` says; returns the descriptor to write on through. */
function rotate(file, fd, rotation) {
  if (rotation === 'rename') {
    fs.renameSync(file, `${file}.1`)
    fs.closeSync(fd)
    return fs.openSync(file, 'a')
  }
  if (rotation === 'copytruncate') {
    fs.copyFileSync(file, `${file}.1`)
    fs.ftruncateSync(fd, 0)
    return fd
  }
  throw new Error(`unknown rotation: ${rotation}`)
}

function flood(file, count, rotation) {
  const rotateAt = rotation === 'none' ? -1 : count >> 1
  let fd = fs.openSync(file, 'a')
  let rotatedNs
  const startNs = monotonicNs()
  for (let seq = 0; seq < count; seq++) {
    if (seq === rotateAt) {
      fd = rotate(file, fd, rotation)
      rotatedNs = monotonicNs()
    }
    fs.writeSync(fd, lineText(seq))
  }
  const endNs = monotonicNs()
  fs.closeSync(fd)
  return { startNs, endNs, rotatedNs, rotateAt }
}

async function main([mode, file, count, arg]) {
  if (mode === 'paced') return paced(file, Number(count), Number(arg))
  if (mode === 'flood') return flood(file, Number(count), arg)
  throw new Error(`unknown mode: ${mode}`)
}

process.stdout.write(`${JSON.stringify(await main(process.argv.slice(2)))}\n`)
