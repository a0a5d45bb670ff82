// Every core on one file: n worker threads, each reading its share of the lines
// (`share: [i, n, size]`) and sending back one small aggregate, which the main thread merges.
// node examples/shares.mjs app.log [workers]
import { once } from 'node:events'
import fs from 'node:fs'
import os from 'node:os'
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads'
import { countLines, readLines } from 'fastlines'

if (isMainThread) {
  const [file, workers = os.availableParallelism()] = process.argv.slice(2)
  const n = Number(workers)
  // One size for every share: they meet exactly even if the file grows meanwhile.
  const { size } = await fs.promises.stat(file)
  const parts = await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const worker = new Worker(new URL(import.meta.url), { workerData: { file, share: [i, n, size] } })
      const [part] = await once(worker, 'message') // rejects if the worker throws
      return part
    }),
  )
  const total = { lines: 0, characters: 0, errors: 0 }
  for (const part of parts) for (const key in total) total[key] += part[key]
  console.log(JSON.stringify(total))
  // The shares hold every line once: together, as many as one count of the file as it was.
  const lines = await countLines(file, { share: [0, 1, size] })
  if (total.lines !== lines) throw new Error(`the shares hold ${total.lines} lines, countLines ${lines}`)
} else {
  const { file, share } = workerData
  const part = { lines: 0, characters: 0, errors: 0 }
  for await (const batch of readLines(file, { share }).batches()) {
    part.lines += batch.length
    for (const line of batch) {
      part.characters += line.length
      if (line.includes('ERROR')) part.errors++
    }
  }
  parentPort.postMessage(part) // one message per worker, never one per line
}
