// Times one contender's first read of one file in the fresh process of the runtime running this
// script (Node, Bun or Deno): from just before its package is loaded (Node's built-in modules already
// are) until the read ends, printed as one line of JSON on stdout, with the runtime that ran it.
// Usage: <runtime> bench/cold.mjs <contender> <file>
import { CONTENDERS, NotApplicable, loadLibrary } from './contenders.mjs'
import { currentRuntime } from './runtimes.mjs'

function contenderNamed(name) {
  const contender = CONTENDERS[name]
  if (contender === undefined) throw new Error(`unknown contender: ${name}`)
  if (contender.floor !== undefined) throw new NotApplicable(contender.floor)
  return contender
}

async function firstRead(name, file) {
  const contender = contenderNamed(name)
  const started = performance.now()
  const lib = await loadLibrary(contender)
  const { lines, chars } = await contender.run(file, { lib })
  return { ms: performance.now() - started, lines, chars }
}

async function main([name, file]) {
  try {
    return await firstRead(name, file)
  } catch (error) {
    if (error instanceof NotApplicable) return { skipped: error.message }
    throw error
  }
}

process.stdout.write(`${JSON.stringify({ ...currentRuntime(), ...(await main(process.argv.slice(2))) })}\n`)
