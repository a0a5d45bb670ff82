// `tail -n 20 -F`: the last lines of a log, then every line appended, with none lost in between.
// node examples/tail-follow.mjs app.log [20]
import { followLines, readLastLines } from 'fastlines'

const [file, count = '20'] = process.argv.slice(2)
const last = await readLastLines(file, Number(count))
for (const line of last) console.log(line)
// From where those lines were read: a line appended since readLastLines is not lost.
// (followLines(file, { lastLines: 20 }) does both in one call.)
for await (const line of followLines(file, { start: last.position })) console.log(line)
