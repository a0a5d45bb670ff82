// One worker thread of the cores section's share cases (core-readers.mjs): loads fastlines, tallies
// the level of each line of its share of the file (workerData `{ path, mode, share }`, mode
// `batches` or `lines`) and posts the tally to the main thread, once: an aggregate, never a message
// per line. Runs under node:worker_threads on Node, Bun and Deno.
import { parentPort, workerData } from 'node:worker_threads'
import { tallyLevels } from './core-readers.mjs'

const lib = await import('../index.mjs')
const { path, mode, share } = workerData
parentPort.postMessage(await tallyLevels(lib, path, mode, share))
