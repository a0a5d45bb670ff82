// A progress report while reading: `position` (the offset past the last line taken) over the
// file's size. `bytesRead` would run ahead of it by the read-ahead, up to about 1 MiB.
// node examples/progress.mjs big.log
import { statSync } from 'node:fs'
import { readLines } from 'fastlines'

const [file] = process.argv.slice(2)
const { size } = statSync(file)
const reader = readLines(file)
let shown = -1
for await (const batch of reader.batches()) {
  const percent = size === 0 ? 100 : Math.floor((reader.position / size) * 100)
  if (percent !== shown) console.error(`${percent}%`)
  shown = percent
}
console.log(`${reader.linesRead} lines`)
