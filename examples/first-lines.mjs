// `head`: the first lines, with `await using` closing the file when the block is left (Node 24,
// Bun, Deno; on Node 20 and 22, close it with `break` or `await reader.close()` instead).
// node examples/first-lines.mjs app.log [10]
import { readLines } from 'fastlines'

const [file, count = '10'] = process.argv.slice(2)
{
  await using reader = readLines(file)
  for await (const line of reader) {
    console.log(line)
    if (reader.linesRead === Number(count)) break
  }
}
