// Rewrites the benchmark summary between the `<!-- bench:start -->` and `<!-- bench:end -->`
// markers of README.md from bench/results/latest.json, without running anything.
// Usage: node bench/update-readme.mjs [--results <latest.json>] [--readme <README.md>]
import fs from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { DEFAULT_README, updateReadme } from './readme.mjs'

const DEFAULT_RESULTS = fileURLToPath(new URL('./results/latest.json', import.meta.url))

const { values } = parseArgs({
  options: {
    results: { type: 'string', default: DEFAULT_RESULTS },
    readme: { type: 'string', default: DEFAULT_README },
  },
})

try {
  updateReadme(JSON.parse(fs.readFileSync(values.results, 'utf8')), values.readme)
  console.log(`${values.readme}: benchmark summary updated from ${values.results}`)
} catch (error) {
  console.error(`error: ${error.message}`)
  process.exitCode = 1
}
