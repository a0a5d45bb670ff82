// `npm test`: runs every stage of the test suite in order, stopping at the first that fails, and
// prints how long each took, so that a CI log shows where its time goes (`.ci/run` has 45
// minutes on 2 cores). The stages are the package's own `npm run` scripts.
import { spawnSync } from 'node:child_process'

const STAGES = [
  'test:format',
  'build',
  'test:rust',
  'test:types',
  'test:node',
  'test:node22',
  'test:node24',
  'test:bun',
  'test:deno',
  'test:packaging',
  'test:platforms',
]

const minutes = (ms) => {
  const seconds = Math.round(ms / 1000)
  return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`
}

const took = []
const started = performance.now()
for (const stage of STAGES) {
  const start = performance.now()
  const { status, signal } = spawnSync('npm', ['run', stage], { stdio: 'inherit' })
  took.push([stage, performance.now() - start])
  console.log(`\n${stage}: ${minutes(took.at(-1)[1])}`)
  if (status !== 0) {
    console.error(`${stage} failed (${signal ?? `exit ${status}`})`)
    process.exitCode = status || 1
    break
  }
}
console.log(`\nnpm test took ${minutes(performance.now() - started)}:`)
for (const [stage, ms] of took) console.log(`  ${stage.padEnd(16)} ${minutes(ms)}`)
