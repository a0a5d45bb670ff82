// The headline: what the default run measures (a few minutes on 2 cores) and the one table it
// ends with: fastlines per line, in batches and counting, on each corpus and runtime, against
// `readline`, the faster hand-written split and the floor each is held to.
import { formatAmount, isFailure, markdownTable } from './report.mjs'
import { inRuntimeOrder, runtimeLabel } from './runtimes.mjs'

/** The hand-written splits a user writes instead of readline (bench/contenders.mjs). */
const HAND_SPLITS = ['stream-split', 'readFileSync-split']

/**
 * fastlines' three ways of reading, each with the floor it is compared with; counting with
 * `wc -l`, a reference rather than a floor: its time includes starting `wc`, and `countLines`
 * counts a large file on every core.
 */
const READS = [
  { contender: 'fastlines-lines', label: 'per line', floor: 'for-await-floor' },
  { contender: 'fastlines-batches', label: 'batches', floor: 'batches-floor' },
  { contender: 'fastlines-count', label: 'count', floor: 'wc -l' },
]

/** The contenders the default run measures: the baselines, the floors and fastlines' reads. */
export const HEADLINE_CONTENDERS = [
  'readline',
  ...HAND_SPLITS,
  ...READS.map(({ floor }) => floor),
  ...READS.map(({ contender }) => contender),
]

/** The headline table of `results`, as markdown; '' when it measured none of fastlines' reads. */
export function formatHeadline(results) {
  const measured = (runtime, corpus, contender) => {
    const row = results.rows.find(
      (candidate) => candidate.runtime === runtime && candidate.corpus === corpus && candidate.contender === contender,
    )
    return row !== undefined && row.median !== undefined && !isFailure(row) ? row : undefined
  }
  const runtimes = inRuntimeOrder(results.rows.map((row) => row.runtime))
  const ratio = (base, row) => (base === undefined ? '–' : `${formatAmount(base.median / row.median)}x`)
  const body = []
  for (const { name: corpus } of results.corpora) {
    for (const { contender, label, floor } of READS) {
      const cells = runtimes.map((runtime) => {
        const row = measured(runtime, corpus, contender)
        if (row === undefined) return '–'
        const splits = HAND_SPLITS.map((name) => measured(runtime, corpus, name)).filter(Boolean)
        const split = splits.sort((a, b) => a.median - b.median)[0]
        const against = [measured(runtime, corpus, 'readline'), split, measured(runtime, corpus, floor)]
        return `${formatAmount(row.median)} ms: ${against.map((base) => ratio(base, row)).join(' / ')}`
      })
      if (cells.some((cell) => cell !== '–')) body.push([corpus, label, ...cells])
    }
  }
  if (body.length === 0) return ''
  return [
    '## Headline',
    '',
    markdownTable(['corpus', 'fastlines', ...runtimes.map(runtimeLabel)], body, { left: 2 }),
    '',
    "Each cell: fastlines' median, then how many times as fast as `readline`, as the faster hand-written " +
      `split (${HAND_SPLITS.map((name) => `\`${name}\``).join(', ')}) and as the floor (per line ` +
      '`for-await-floor`, batches `batches-floor`; for count `wc -l`, a reference, not a floor: its time ' +
      'includes starting `wc`, and `countLines` counts a large file on every core, `wc` on one), each the ' +
      "same runtime's median over fastlines'.",
  ].join('\n')
}
