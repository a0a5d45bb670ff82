// Lists the waits of a waits log (see hang.mjs) that took longer than their quiet time, the
// worst first: where each was made, on which runtime, its quiet time and the longest it took.
// Usage: node __test__/helpers/waits-report.mjs WAITS_LOG
import fs from 'node:fs'

const longest = new Map()
for (const line of fs.readFileSync(process.argv[2], 'utf8').split('\n')) {
  if (line === '') continue
  const wait = JSON.parse(line)
  const key = `${wait.at} ${wait.quietMs}`
  if ((longest.get(key)?.tookMs ?? -1) < wait.tookMs) longest.set(key, wait)
}
const over = [...longest.values()].filter((wait) => wait.tookMs > wait.quietMs)
over.sort((a, b) => b.tookMs / b.quietMs - a.tookMs / a.quietMs)
for (const { at, what, quietMs, tookMs, runtime } of over) {
  console.log(`${(tookMs / quietMs).toFixed(2)}x  ${at} (${runtime}): ${tookMs} ms, quiet ${quietMs} ms: ${what}`)
}
console.log(`${over.length} of ${longest.size} waits took longer than their quiet time`)
