// Runs the ava suite under Deno: `deno run -A __test__/run-with-deno.mjs [ava args]`. It must be
// run from this file, inside the repository: Deno resolves ava's dependencies from here. ava's
// workers then run in Deno too: ava forks them with `process.execPath`, and Deno's
// `child_process` turns that Node command line into `deno run -A --unstable-detect-cjs ...`.
// As for Bun, `v8.takeCoverage()`, which ava calls at the end of a run, is a no-op here.
//
// Every spec file runs (ava's own glob), minus the tests listed in NOT_ON_DENO: each fails on
// Deno for a reason in Deno itself, shown by a reproduction that does not use fastlines. They
// are left out by title with `--match '!<title>'`, and listed with their reasons at the start
// of every run.
import fs from 'node:fs'
import v8 from 'node:v8'

if (typeof Deno === 'undefined') throw new Error('run this file with deno: deno run -A __test__/run-with-deno.mjs')

// Deno does not finalize the native objects of a worker_threads worker when it ends
// (terminated or not): Node and Bun run every napi_wrap finalizer at a worker's env teardown,
// and Deno 2.9 runs them only at the exit of the main thread (it runs env cleanup hooks, not
// finalizers). Reproduced with an addon of a few lines of C whose wrapped objects each hold an
// open file, closed by their finalizer: after a worker holding one ends, the file is closed in
// Node 20 and Bun 1.4.5 and still open in Deno 2.9.6. So the readers a worker leaves behind keep
// their files open and go on reading.
const UNFINALIZED = 'Deno does not run napi finalizers when a worker ends, so its readers stay open'
const NOT_ON_DENO = [
  {
    file: 'follow.spec.mjs',
    title: 'workers terminated while following neither crash nor hang the process, and leave nothing open',
    reason: `${UNFINALIZED}: the followers' logs are still open after their workers ended`,
  },
  {
    file: 'stress.spec.mjs',
    title: 'a worker terminated while counting an endless device stops the count',
    reason: `${UNFINALIZED}: the count is never cancelled and reads /dev/zero on a native thread for ever`,
  },
  {
    file: 'stress.spec.mjs',
    title: '50 workers terminated mid-read leave a healthy process that exits by itself',
    // And `new Worker` in Deno blocks its caller until the worker has started, which takes
    // longer the more workers already run: 50 pure-JS workers that keep a CPU busy take 45 s
    // to start on 2 cores (Node: 1.7 s), so the child outlives its 40 s limit before it can
    // terminate any of them.
    reason: `${UNFINALIZED}: the workers' files are still open; and Deno's blocking new Worker makes 50 busy workers take longer to start than the test allows`,
  },
]

// A test renamed or removed must leave this list too, rather than be left out unseen; and since
// --match applies to every file, no other spec file may have a test of the same title.
const specDir = new URL('./', import.meta.url)
const specFiles = fs.readdirSync(specDir, { recursive: true }).filter((file) => file.endsWith('.spec.mjs'))
for (const { file, title } of NOT_ON_DENO) {
  const holders = specFiles.filter((spec) => fs.readFileSync(new URL(spec, specDir), 'utf8').includes(`'${title}'`))
  if (holders.join() !== file) throw new Error(`run-with-deno.mjs: '${title}' is in [${holders}], not in ${file} alone`)
  if (title.includes('*')) throw new Error(`run-with-deno.mjs: '${title}' holds a *, a wildcard to --match`)
}
console.log(`Not run on Deno ${Deno.version.deno} (see __test__/run-with-deno.mjs):`)
for (const { file, title, reason } of NOT_ON_DENO) console.log(`  - ${file} › ${title}\n    ${reason}`)
process.argv.push(...NOT_ON_DENO.flatMap(({ title }) => ['--match', `!${title}`]))

// Deno checks for a newer release in the background of every process it starts (ava's workers
// and the fixtures' children too), over HTTPS: it reads the CA certificates, about 220 KB here,
// which /proc/self/io then counts among the bytes a test measures (last-lines.spec.mjs).
process.env.DENO_NO_UPDATE_CHECK = '1'

v8.takeCoverage = () => {}
await import('../node_modules/ava/entrypoints/cli.mjs')
