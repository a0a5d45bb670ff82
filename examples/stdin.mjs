// Lines from stdin: `cat app.log | node examples/stdin.mjs` prints each line's length.
import { readLines } from 'fastlines'

for await (const line of readLines(process.stdin)) console.log(line.length)
