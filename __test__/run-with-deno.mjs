// Runs the ava suite under Deno: `deno run -A __test__/run-with-deno.mjs [ava args]`. It must be
// run from this file, inside the repository: Deno resolves ava's dependencies from here. ava's
// workers then run in Deno too: ava forks them with `process.execPath`, and Deno's
// `child_process` turns that Node command line into `deno run -A --unstable-detect-cjs ...`.
// As for Bun, `v8.takeCoverage()`, which ava calls at the end of a run, is a no-op here.
//
// Every spec file runs (ava's own glob), every test in it but those checked against Node 24.
import v8 from 'node:v8'

import { CHECKED_AGAINST_NODE_24, leaveOut } from './helpers/left-out.mjs'

if (typeof Deno === 'undefined') throw new Error('run this file with deno: deno run -A __test__/run-with-deno.mjs')

// Deno checks for a newer release in the background of every process it starts (ava's workers
// and the fixtures' children too), over HTTPS: it reads the CA certificates, about 220 KB here,
// which /proc/self/io then counts among the bytes a test measures (last-lines.spec.mjs). Without
// network that check also waits about 30 s, during which Deno now and then leaves a settled step
// unresumed (README, Deno).
process.env.DENO_NO_UPDATE_CHECK = '1'

v8.takeCoverage = () => {}
// The series that compare each case with Node 24's own result run on Node (helpers/left-out.mjs).
process.argv.push(...leaveOut(CHECKED_AGAINST_NODE_24))
await import('../node_modules/ava/entrypoints/cli.mjs')
