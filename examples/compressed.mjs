// Lines of a gzip or zstd file (or a plain one): `decompress: 'auto'` tells them apart by their
// first bytes. node examples/compressed.mjs app.log.gz
import { readLines } from 'fastlines'

const [file] = process.argv.slice(2)
let lines = 0
for await (const batch of readLines(file, { decompress: 'auto' }).batches()) lines += batch.length
console.log(lines)
