// Puts one section of a separate run's results into bench/results/latest.json, with when and how
// it was measured (`section.run`), so that the README summary can show a section measured apart
// from the full run (a full run takes hours): `node bench/merge-section.mjs cores /tmp/cores.json`,
// then `node bench/update-readme.mjs`.
import fs from 'node:fs'
import { fileURLToPath } from 'node:url'

const SECTIONS = ['search', 'compressed', 'sources', 'cores', 'follow']
const LATEST = fileURLToPath(new URL('./results/latest.json', import.meta.url))

const [name, file] = process.argv.slice(2)
if (!SECTIONS.includes(name) || file === undefined) {
  throw new Error(`usage: node bench/merge-section.mjs <${SECTIONS.join('|')}> <results.json>`)
}
const from = JSON.parse(fs.readFileSync(file, 'utf8'))
if (from[name] === undefined) throw new Error(`${file} has no ${name} section`)
const latest = JSON.parse(fs.readFileSync(LATEST, 'utf8'))
latest[name] = { ...from[name], run: { startedAt: from.startedAt, command: from.command, runtimes: from.runtimes } }
fs.writeFileSync(`${LATEST}.tmp`, `${JSON.stringify(latest, null, 2)}\n`)
fs.renameSync(`${LATEST}.tmp`, LATEST)
console.log(`${LATEST}: ${name} from ${file} (${from.startedAt})`)
