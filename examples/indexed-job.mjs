// One task of n, as a scheduler starts it: a Kubernetes Indexed Job (JOB_COMPLETION_INDEX), an
// AWS Batch array job (AWS_BATCH_JOB_ARRAY_INDEX), or any runner that passes the index. It reads
// the lines of its share of a file on shared storage and prints one JSON line; the tasks need no
// coordinator, since the shares depend only on the file's size (SHARE_SIZE, if the file may
// grow while the tasks start: one size for all, so that their shares meet).
// SHARE_COUNT=8 JOB_COMPLETION_INDEX=3 node examples/indexed-job.mjs /data/app.log
// node examples/indexed-job.mjs /data/app.log 3 8
import { readLines } from 'fastlines'

const [file, indexArg, countArg] = process.argv.slice(2)
const index = Number(indexArg ?? process.env.JOB_COMPLETION_INDEX ?? process.env.AWS_BATCH_JOB_ARRAY_INDEX)
const count = Number(countArg ?? process.env.SHARE_COUNT)
const size = process.env.SHARE_SIZE === undefined ? undefined : Number(process.env.SHARE_SIZE)
if (file === undefined || Number.isNaN(index) || Number.isNaN(count)) {
  throw new Error('usage: SHARE_COUNT=n JOB_COMPLETION_INDEX=k node indexed-job.mjs <file> (or: <file> <k> <n>)')
}

const result = { index, count, lines: 0, errors: 0, firstOffset: null, lastPosition: null }
const reader = readLines(file, { share: size === undefined ? [index, count] : [index, count, size] })
for await (const { lines, offsets } of reader.batches({ numbered: true })) {
  result.firstOffset ??= offsets[0] // where the share's first line starts in the file
  result.lines += lines.length
  for (const line of lines) if (line.includes('ERROR')) result.errors++
}
result.lastPosition = reader.position // just past the share's last line
console.log(JSON.stringify(result))
