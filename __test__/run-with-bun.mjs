// Runs the ava suite under Bun: `bun __test__/run-with-bun.mjs`. ava's workers then run in Bun
// too (they are forked with Bun's own executable). The only gap is ava calling
// `v8.takeCoverage()` at the end of a run, which Bun does not implement; coverage is not
// collected here, so it becomes a no-op.
import v8 from 'node:v8'

import { CHECKED_AGAINST_NODE_24, V8_ONLY, leaveOut } from './helpers/left-out.mjs'

if (typeof Bun === 'undefined') throw new Error('run this file with bun')
v8.takeCoverage = () => {}
// The series that compare each case with Node 24's own result run on Node, and what only V8 has
// (helpers/left-out.mjs).
process.argv.push(...leaveOut({ ...CHECKED_AGAINST_NODE_24, ...V8_ONLY }))
await import('../node_modules/ava/entrypoints/cli.mjs')
