// `grep -n -i`: the lines that hold a string, with their line numbers.
// node examples/grep.mjs error app.log
import { readLines } from 'fastlines'

const [pattern, file] = process.argv.slice(2)
for await (const [lineNumber, line] of readLines(file, { match: pattern, ignoreCase: true }).entries()) {
  console.log(`${lineNumber}:${line}`)
}
