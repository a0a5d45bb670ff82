// `wc -l` and `grep -c`: lines counted natively, without making a string per line.
// node examples/count.mjs app.log ERROR
import { countLines } from 'fastlines'

const [file, pattern] = process.argv.slice(2)
const total = await countLines(file)
const matching = pattern === undefined ? total : await countLines(file, { match: pattern })
console.log(`${total} lines, ${matching} with ${pattern ?? 'anything'}`)
