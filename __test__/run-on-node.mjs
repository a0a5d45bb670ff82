// Runs the ava suite on another Node.js major: `node __test__/run-on-node.mjs 22 [ava args]`.
// ava forks its workers with the same executable, so every test runs on that version: every test
// but the exhaustive series' later groups (helpers/left-out.mjs), which Node 20 runs.
import { execFileSync, spawnSync } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

import { EXHAUSTIVE_SERIES, leaveOut } from './helpers/left-out.mjs'
import { nodeBinary } from './helpers/runtimes.mjs'

const [major, ...avaArgs] = process.argv.slice(2)
if (!/^\d+$/.test(major ?? '')) throw new Error('usage: node __test__/run-on-node.mjs <major> [ava args]')

const repo = fileURLToPath(new URL('..', import.meta.url))
const node = nodeBinary(major)
console.log(`ava on Node ${execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()}`)

const ava = path.join(repo, 'node_modules/ava/entrypoints/cli.mjs')
const { status, signal } = spawnSync(node, [ava, ...leaveOut(EXHAUSTIVE_SERIES), ...avaArgs], {
  cwd: repo,
  stdio: 'inherit',
})
process.exit(status ?? (signal ? 1 : 0))
