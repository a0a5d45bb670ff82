// A pino log's errors: only the lines holding `"level":50` are parsed, a line that is not JSON
// is skipped (and counted), and each error is printed with its line number.
// node examples/json-lines.mjs app.jsonl
import { readJsonLines } from 'fastlines'

const [file] = process.argv.slice(2)
const reader = readJsonLines(file, { match: '"level":50', onError: 'skip' })
for await (const [lineNumber, event] of reader.entries()) {
  console.log(`${lineNumber}: ${event.msg}`)
}
console.log(`${reader.skipped} line(s) skipped`)
