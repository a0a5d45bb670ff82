// Checks issue 10's performance targets against a results file: for each target, runtime and
// corpus, the figure measured and whether it holds, as markdown; then issue 12's, on the search
// section, for each target, runtime and query; then the compressed section's, for each target,
// runtime and format; then issue 20's, on the sources section, for each target, runtime and case;
// then issue 23's, on the cores section, for each target, runtime and case; then issue 24's, on the
// JSON Lines section, for each target, runtime and case; then issue 11's, on the follow section,
// for each target, runtime and case. run.mjs prints it at the end of a run; it never changes the
// exit status, except here, alone, on a results file it cannot read.
// Usage: node bench/targets.mjs [--results <latest.json>]
import fs from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { COMPRESSED_FORMAT_NAMES } from './compressed-corpora.mjs'
import { COMPRESSED_BASELINE, COMPRESSED_CAT, compressedRatio } from './compressed.mjs'
import { CORPORA } from './corpora.mjs'
import { CORE_MATCH } from './core-readers.mjs'
import { busyOf, casesOf as coreCasesOf, coresRatio } from './cores.mjs'
import { FLOOD_PARTS, everyLineOnce, formatBigRatio, lastLinesRatio, neighbourCpuPerSecond } from './follow-report.mjs'
import { casesOf as jsonCasesOf, jsonRatio, jsonRow } from './json-lines.mjs'
import { formatAmount, hasCold, isFailure, markdownTable } from './report.mjs'
import { RUNTIME_NAMES, inRuntimeOrder, runtimeLabel } from './runtimes.mjs'
import { SEARCH_BASELINE, SEARCH_QUERY_NAMES, searchRatio } from './search.mjs'
import { LONG_LINE_BYTES, readsCase } from './source-readers.mjs'
import {
  HAND_SPLIT,
  CHUNKS_SPLIT_FLOOR,
  RAW_CHUNKS,
  SPLIT_FLOOR,
  PER_LINE_READERS,
  SOURCES_BASELINE,
  casesOf as sourceCasesOf,
  sourcesFailures,
  sourcesRatio,
  sourcesRow,
} from './sources.mjs'

const DEFAULT_RESULTS = fileURLToPath(new URL('./results/latest.json', import.meta.url))
const ALL_CORPORA = Object.keys(CORPORA)
const PROBE_CORPUS = 'logs-1g'
const COLD_CORPUS = 'logs-70k'
const PURE_JS = ['stream-split', 'readFileSync-split', 'split2']
const ASYNC_PER_LINE = ['readline', 'filehandle-readLines', 'split2']
const PROBED = ['fastlines-lines', 'fastlines-batches', 'fastlines-chunks']
const SHORT_NAMES = { 'fastlines-lines': 'lines', 'fastlines-batches': 'batches', 'fastlines-chunks': 'chunks' }

const short = (name) => SHORT_NAMES[name] ?? name
/** Ratios and times a digit finer than the tables, so that a figure next to its bound reads apart. */
const times = (value) => `${value.toFixed(value < 10 ? 2 : 1)}x`
const ms = (value) => `${value.toFixed(value < 10 ? 2 : value < 1000 ? 1 : 0)} ms`
const seconds = (value) => (value / 1000).toFixed(2)

/**
 * What one runtime × corpus measured: `row(name)` is a contender's row if it was measured and saw
 * the right lines; `probe(name)` its probe row, likewise. The view keeps what a check asked for
 * and did not get: `failed`, rows that were measured and failed (wrong lines, an error), and
 * `missing`, rows not measured (see judged).
 */
function view(results, runtime, corpus) {
  const rows = results.rows.filter((row) => row.runtime === runtime && row.corpus === corpus)
  const probe = (results.probes ?? []).find((item) => item.runtime === runtime && item.corpus === corpus)
  const failed = new Set()
  const missing = new Set()
  // A contender that cannot run here (`skipped`: no such API, a file too large for it) is no
  // contender here: neither failed nor missing. `measured` is whether it has its figures.
  const usable = (row, name, measured) => {
    if (row?.skipped !== undefined) return undefined
    if (row !== undefined && isFailure(row)) failed.add(name)
    else if (row === undefined || !measured(row)) missing.add(name)
    else return row
    return undefined
  }
  return {
    failed,
    missing,
    row: (name) =>
      usable(
        rows.find((row) => row.contender === name),
        name,
        (row) => row.median !== undefined,
      ),
    probe: (name) =>
      usable(
        probe?.rows.find((row) => row.contender === name),
        `${name}'s probe`,
        (row) => row.runs !== undefined,
      ),
  }
}

/**
 * A check's outcome on view `v`, as the table shows it: a miss where a row it asked for failed
 * (a contender that saw the wrong lines says nothing of speed, and the check may not be left
 * out for it); and a hold that lacked a row it asked for (a race run without every contender it
 * names, such as the default run's) is no hold: undecided, counted with those not measured.
 */
function judged(outcome, v) {
  if (v.failed.size > 0) return { figure: `${[...v.failed].join(', ')} failed`, holds: false }
  if (outcome?.holds === true && v.missing.size > 0) {
    return { figure: `${outcome.figure} (without ${[...v.missing].join(', ')})`, holds: undefined }
  }
  return outcome
}

/** `{ figure, holds }` for a ratio that must be at least `min`. */
function atLeast(ratio, min, detail = '') {
  return { figure: `${times(ratio)}${detail}`, holds: ratio >= min }
}

/** fastlines-batches vs readline: at least `min[runtime]` times as fast. */
function batchesVsReadline(min) {
  return {
    check(v, runtime) {
      const batches = v.row('fastlines-batches')
      const readline = v.row('readline')
      if (batches === undefined || readline === undefined) return undefined
      return atLeast(readline.median / batches.median, min[runtime])
    },
  }
}

/** The row with the lowest median among the `contenders` measured, if any was. */
function fastestOf(v, contenders) {
  return contenders
    .map(v.row)
    .filter(Boolean)
    .sort((a, b) => a.median - b.median)[0]
}

/** Each target: `id`, `text`, the corpora it is checked on, and `check(view, runtime)`. */
const TARGETS = [
  {
    id: '1a',
    text: '`fastlines-batches` at least 2x the fastest of `stream-split`, `readFileSync-split`, `split2` (ms ratio)',
    corpora: ALL_CORPORA,
    check(v) {
      const batches = v.row('fastlines-batches')
      const fastest = fastestOf(v, PURE_JS)
      if (batches === undefined || fastest === undefined) return undefined
      return atLeast(fastest.median / batches.median, 2, ` vs ${fastest.contender}`)
    },
  },
  {
    id: '1b',
    text: '`fastlines-lines` faster than every per-line async contender (`readline`, `filehandle-readLines`, `split2`)',
    corpora: ALL_CORPORA,
    check(v) {
      const lines = v.row('fastlines-lines')
      const fastest = fastestOf(v, ASYNC_PER_LINE)
      if (lines === undefined || fastest === undefined) return undefined
      const ratio = fastest.median / lines.median
      return { figure: `${times(ratio)} vs ${fastest.contender}`, holds: ratio > 1 }
    },
  },
  {
    id: '2',
    text: '`fastlines-batches` vs `readline`: Node >= 10x, Bun >= 8x, Deno >= 10x',
    corpora: ['logs-1g'],
    ...batchesVsReadline({ node: 10, bun: 8, deno: 10 }),
  },
  {
    id: '3',
    text: '`fastlines-batches` vs `readline`: Node >= 8x, Bun >= 5x, Deno >= 8x',
    corpora: ['utf8-heavy'],
    ...batchesVsReadline({ node: 8, bun: 5, deno: 8 }),
  },
  {
    id: '4',
    text: '`fastlines-batches` vs `readline` >= 5x',
    corpora: ['long-lines', 'crlf'],
    ...batchesVsReadline({ node: 5, bun: 5, deno: 5 }),
  },
  {
    id: '5a',
    text: '`fastlines-batches` within 1.3x of `batches-floor` (ms ratio <= 1.3)',
    corpora: ALL_CORPORA,
    check(v) {
      const batches = v.row('fastlines-batches')
      const floor = v.row('batches-floor')
      if (batches === undefined || floor === undefined) return undefined
      const ratio = batches.median / floor.median
      return { figure: `${times(ratio)} the floor`, holds: ratio <= 1.3 }
    },
  },
  {
    id: '5b',
    text: '`fastlines-lines` ms <= `fastlines-batches` ms + 1.1 × `for-await-floor` ms',
    corpora: ALL_CORPORA,
    check(v) {
      const [lines, batches, floor] = ['fastlines-lines', 'fastlines-batches', 'for-await-floor'].map(v.row)
      if (lines === undefined || batches === undefined || floor === undefined) return undefined
      const bound = batches.median + 1.1 * floor.median
      return { figure: `${ms(lines.median)} vs ${ms(bound)}`, holds: lines.median <= bound }
    },
  },
  {
    id: '6a',
    text: 'cold: `fastlines-batches` >= 4x `readline` (cold ratio)',
    corpora: [COLD_CORPUS],
    check(v) {
      const batches = v.row('fastlines-batches')
      const readline = v.row('readline')
      if (!hasCold(batches) || !hasCold(readline)) return undefined
      return atLeast(readline.cold.median / batches.cold.median, 4)
    },
  },
  {
    id: '6b',
    text: 'cold: `fastlines-lines` faster than `stream-split`',
    corpora: [COLD_CORPUS],
    check(v) {
      const lines = v.row('fastlines-lines')
      const split = v.row('stream-split')
      if (!hasCold(lines) || !hasCold(split)) return undefined
      const figure = `${ms(lines.cold.median)} vs ${ms(split.cold.median)}`
      return { figure, holds: lines.cold.median < split.cold.median }
    },
  },
  {
    id: '7a',
    text: '`fastlines-count` ms <= `wc -l` ms',
    corpora: ALL_CORPORA,
    check(v) {
      const count = v.row('fastlines-count')
      const wc = v.row('wc -l')
      if (count === undefined || wc === undefined) return undefined
      return { figure: `${ms(count.median)} vs ${ms(wc.median)}`, holds: count.median <= wc.median }
    },
  },
  {
    id: '7b',
    text: '`fastlines-chunks` >= 1.5x `raw-stream`',
    corpora: ALL_CORPORA,
    check(v) {
      const chunks = v.row('fastlines-chunks')
      const raw = v.row('raw-stream')
      if (chunks === undefined || raw === undefined) return undefined
      return atLeast(raw.median / chunks.median, 1.5)
    },
  },
  {
    id: '7c',
    text: 'probe: event-loop delay p99 < 10 ms for `fastlines-lines`, `-batches`, `-chunks`',
    corpora: [PROBE_CORPUS],
    check(v) {
      const rows = PROBED.map(v.probe).filter((row) => row !== undefined && row.eldP99Ms !== null)
      if (rows.length === 0) return undefined
      const figure = rows.map((row) => `${short(row.contender)} ${formatAmount(row.eldP99Ms)}`).join(', ')
      return { figure: `${figure} ms`, holds: rows.every((row) => row.eldP99Ms < 10) }
    },
  },
  {
    id: '7d',
    text: "probe: first line sooner than `readline`'s for `fastlines-lines`, `-batches`, `-chunks`",
    corpora: [PROBE_CORPUS],
    check(v) {
      const readline = v.probe('readline')
      const rows = PROBED.map(v.probe).filter((row) => row !== undefined && row.firstLineMs !== null)
      if (readline?.firstLineMs == null || rows.length === 0) return undefined
      const figures = rows.map((row) => `${short(row.contender)} ${formatAmount(row.firstLineMs)}`)
      const figure = `${figures.join(', ')} vs ${formatAmount(readline.firstLineMs)} ms`
      return { figure, holds: rows.every((row) => row.firstLineMs < readline.firstLineMs) }
    },
  },
  {
    id: '7e',
    text: "probe: peak RSS of `fastlines-lines` and `-batches` no higher than `readline`'s",
    corpora: [PROBE_CORPUS],
    check(v) {
      const readline = v.probe('readline')
      const rows = ['fastlines-lines', 'fastlines-batches'].map(v.probe).filter(Boolean)
      if (readline === undefined || rows.length === 0) return undefined
      const figures = rows.map((row) => `${short(row.contender)} ${formatAmount(row.rssAboveIdleMB)}`)
      const figure = `${figures.join(', ')} vs ${formatAmount(readline.rssAboveIdleMB)} MB`
      return { figure, holds: rows.every((row) => row.rssAboveIdleMB <= readline.rssAboveIdleMB) }
    },
  },
  {
    id: '8a',
    text: 'Deno: `fastlines-batches` at least 2x `deno-streams` (ms ratio)',
    corpora: ALL_CORPORA,
    runtimes: ['deno'],
    check(v) {
      const batches = v.row('fastlines-batches')
      const streams = v.row('deno-streams')
      if (batches === undefined || streams === undefined) return undefined
      return atLeast(streams.median / batches.median, 2)
    },
  },
  {
    id: '8b',
    text: 'Deno: `fastlines-lines` faster than `deno-streams`',
    corpora: ALL_CORPORA,
    runtimes: ['deno'],
    check(v) {
      const lines = v.row('fastlines-lines')
      const streams = v.row('deno-streams')
      if (lines === undefined || streams === undefined) return undefined
      const ratio = streams.median / lines.median
      return { figure: times(ratio), holds: ratio > 1 }
    },
  },
]

/** The runtimes a run measured, in table order (every runtime for results that do not say). */
function runtimesOf(results) {
  const names = results.runtimes?.map((runtime) => runtime.name)
  return names === undefined || names.length === 0 ? RUNTIME_NAMES : inRuntimeOrder(names)
}

/** Whether a target is checked on a runtime (`runtimes`, when it lists some, else every one). */
const appliesTo = (target, runtime) => target.runtimes === undefined || target.runtimes.includes(runtime)

/** A follow row of `kind` for `follower` on `runtime` that ran (no worker error), with `extra` matching. */
function followRow(follow, kind, runtime, follower, extra = {}) {
  const row = (follow[kind] ?? []).find(
    (candidate) =>
      candidate.runtime === runtime &&
      candidate.follower === follower &&
      Object.entries(extra).every(([key, value]) => candidate[key] === value),
  )
  return row !== undefined && row.error === undefined ? row : undefined
}

/** What went wrong with a flood row's lines, or its lag: `✓`-less figure parts. */
function floodFigure(row) {
  const faults = []
  if (row.lost > 0) faults.push(`${row.lost} missing`)
  if (row.duplicates > 0) faults.push(`${row.duplicates} duplicated`)
  if (row.outOfOrder > 0) faults.push(`${row.outOfOrder} out of order`)
  if (row.garbled > 0) faults.push(`${row.garbled} garbled`)
  const lag = row.gotLast ? `last line ${ms(row.lagMs)} after the writer` : 'last line never came'
  return [...faults, lag].join(', ')
}

const LAST_LINES_CASES = { 'last 10': 10, 'last 1,000': 1000 }
const LAG_MS = 1000

/** readLastLines at least `min` times as fast as `other`, on the same lines. */
function lastLinesVs(other, min) {
  return (follow, runtime, name) => {
    const found = lastLinesRatio(follow, runtime, LAST_LINES_CASES[name], other)
    if (found === undefined) return undefined
    if (!found.same) return { figure: 'different lines', holds: false }
    const figure = `${formatBigRatio(found.ratio)} (${ms(found.mine.median)} vs ${ms(found.theirs.median)})`
    return { figure, holds: found.ratio >= min }
  }
}

/** Issue 11's and issue 25's targets, on the follow section: `id`, `text`, the cases and `check(follow, runtime, case)`. */
const FOLLOW_TARGETS = [
  {
    id: 'F1',
    text: 'latency, a line every 5 ms: `fastlines` median <= 1 ms and p99 <= 5 ms, no line missing',
    cases: ['latency'],
    check(follow, runtime) {
      const row = followRow(follow, 'latency', runtime, 'fastlines')
      if (row === undefined || row.median === null) return undefined
      const missing = row.lost > 0 ? `, ${row.lost} missing` : ''
      const figure = `median ${ms(row.median)}, p99 ${ms(row.p99)}${missing}`
      return { figure, holds: row.median <= 1 && row.p99 <= 5 && row.lost === 0 }
    },
  },
  {
    id: 'F2',
    text: 'idle: `fastlines` under 10 ms of CPU time over 10 s with nothing written, and still following',
    cases: ['idle'],
    check(follow, runtime) {
      const row = followRow(follow, 'idle', runtime, 'fastlines')
      if (row === undefined) return undefined
      const floor = followRow(follow, 'idle', runtime, 'idle-floor')
      const alone = floor === undefined ? '' : ` (the runtime alone: ${ms(floor.cpuMs)})`
      const missed = row.stillFollows ? '' : ', then missed a line'
      const figure = `${ms(row.cpuMs)} in ${row.idleMs / 1000} s${alone}${missed}`
      return { figure, holds: row.cpuMs < 10 && row.stillFollows }
    },
  },
  {
    id: 'F3',
    text: `no loss: every line once, in order, the last within ${LAG_MS / 1000} s of the writer`,
    cases: [FLOOD_PARTS['no-loss'], FLOOD_PARTS.rename],
    check(follow, runtime, name) {
      const part = Object.keys(FLOOD_PARTS).find((key) => FLOOD_PARTS[key] === name)
      const row = followRow(follow, 'flood', runtime, 'fastlines', { part })
      if (row === undefined) return undefined
      return { figure: floodFigure(row), holds: everyLineOnce(row) && row.lagMs <= LAG_MS }
    },
  },
  {
    id: 'F4',
    text:
      'copytruncate: no more lines missing than GNU `tail -F` (run on Node), none duplicated, out of ' +
      `order or garbled, the last within ${LAG_MS / 1000} s of the writer`,
    cases: [FLOOD_PARTS.copytruncate],
    check(follow, runtime) {
      const row = followRow(follow, 'flood', runtime, 'fastlines', { part: 'copytruncate' })
      const bound = follow.flood.find(
        (candidate) => candidate.follower === 'tail -F' && candidate.part === 'copytruncate' && !candidate.error,
      )
      if (row === undefined || bound === undefined) return undefined
      const clean = row.duplicates === 0 && row.outOfOrder === 0 && row.garbled === 0
      const figure = `${floodFigure(row)}; tail -F: ${bound.lost} missing`
      return { figure, holds: clean && row.lost <= bound.lost && row.gotLast && row.lagMs <= LAG_MS }
    },
  },
  {
    id: 'F5',
    text: '`readLastLines` at least 1000x `readline` reading the whole file (same lines)',
    cases: Object.keys(LAST_LINES_CASES),
    check: lastLinesVs('readline', 1000),
  },
  {
    id: 'F6',
    text:
      '`readLastLines` no slower than `read-last-lines` (same lines; issue 11 asked 10x, from an old ' +
      '`read-last-lines` figure: both are bound by reaching the file, issue 25)',
    cases: Object.keys(LAST_LINES_CASES),
    check: lastLinesVs('read-last-lines', 1),
  },
  {
    id: 'F7',
    text:
      'CPU for the no-rotation flood: `fastlines` no more than GNU `tail -F` (run on Node; issue 25); the ' +
      'figure also gives `watch-floor`, a process of the runtime woken per write that reads nothing, and ' +
      '`watch-read`, the same reading every line by hand, with the lines it missed',
    cases: ['CPU, no rotation'],
    check(follow, runtime) {
      const row = followRow(follow, 'flood', runtime, 'fastlines', { part: 'no-loss' })
      const bound = follow.flood.find(
        (candidate) => candidate.follower === 'tail -F' && candidate.part === 'no-loss' && !candidate.error,
      )
      if (row === undefined || bound === undefined) return undefined
      const floor = followRow(follow, 'flood', runtime, 'watch-floor', { part: 'no-loss' })
      const woken = floor === undefined ? '' : `; fs.watch alone ${seconds(floor.cpuMs)} s`
      const hand = followRow(follow, 'flood', runtime, 'watch-read', { part: 'no-loss' })
      const missed = hand?.lost > 0 ? `, ${hand.lost} lines missed` : ''
      const read = hand === undefined ? '' : `; by hand ${seconds(hand.cpuMs)} s${missed}`
      const figure = `${seconds(row.cpuMs)} s; tail -F ${seconds(bound.cpuMs)} s${woken}${read}`
      return { figure, holds: everyLineOnce(row) && row.cpuMs <= bound.cpuMs }
    },
  },
  {
    id: 'F8',
    text:
      'writes to another file of the directory, about 10,000 a second: `fastlines` under 1 ms of CPU a ' +
      'second, and still following (issue 25)',
    cases: ['neighbour'],
    check(follow, runtime) {
      const row = followRow(follow, 'neighbour', runtime, 'fastlines')
      if (row === undefined) return undefined
      const floor = followRow(follow, 'neighbour', runtime, 'idle-floor')
      const alone = floor === undefined ? '' : ` (the runtime alone: ${ms(neighbourCpuPerSecond(floor))})`
      const rate = Math.round(row.writesPerSecond).toLocaleString('en-US')
      const missed = row.stillFollows ? '' : ', then missed a line'
      const figure = `${ms(neighbourCpuPerSecond(row))} a second at ${rate} writes a second${alone}${missed}`
      return { figure, holds: neighbourCpuPerSecond(row) < 1 && row.stillFollows }
    },
  },
]

/**
 * A check that `contender` is at least `min` times as fast as `other` on one runtime and case (a
 * query, ...), as `ratioOf(section, runtime, case, contender, other)` finds them: `{ figure, holds }`
 * with both medians, or undefined where either was not measured.
 */
function ratioVs(ratioOf, contender, other, min) {
  return (section, runtime, name) => {
    const found = ratioOf(section, runtime, name, contender, other)
    if (found === undefined) return undefined
    return atLeast(found.ratio, min, ` (${ms(found.row.median)} vs ${ms(found.base.median)})`)
  }
}

/**
 * `floorOf(ratioOf)(check, floor, base, label)`: `check`, its figure followed by `label` and
 * `floor`'s own ratio to `base` on the same case (found by `ratioOf`), when measured.
 */
const floorOf =
  (ratioOf) =>
  (check, floor, base, label = 'floor') =>
  (section, runtime, name) => {
    const result = check(section, runtime, name)
    const found = ratioOf(section, runtime, name, floor, base)
    if (result === undefined || found === undefined) return result
    return { ...result, figure: `${result.figure}; ${label} ${times(found.ratio)}` }
  }

/** A searcher at least `min` times as fast as `other`, on one runtime and query. */
const searchVs = (searcher, other, min) => ratioVs(searchRatio, searcher, other, min)

/**
 * A search check followed by the ratio of the count in parts: the readers' reading work alone,
 * which they too do in parts, on two threads (parts.rs), with no batch framed or string made.
 */
const withSearchFloor = (check) => floorOf(searchRatio)(check, 'fastlines-count', SEARCH_BASELINE, 'count in parts')

/** Issue 12's targets, on the search section: `id`, `text` and `check(search, runtime, query)`. */
const SEARCH_TARGETS = [
  {
    id: 'S1',
    text: `per line: \`fastlines-lines\` with \`match\` at least 10x \`${SEARCH_BASELINE}\` (after \`count in parts\`: \`fastlines-count\`'s own ratio, the reading work alone, in parts as the readers do it on two cores)`,
    check: withSearchFloor(searchVs('fastlines-lines', SEARCH_BASELINE, 10)),
  },
  {
    id: 'S2',
    text: `batches: \`fastlines-batches\` with \`match\` at least 15x \`${SEARCH_BASELINE}\` (after \`count in parts\`, as in S1)`,
    check: withSearchFloor(searchVs('fastlines-batches', SEARCH_BASELINE, 15)),
  },
  {
    id: 'S3',
    text: '`countLines` with `match` no slower than `grep -F -c` (its time / ours)',
    check: searchVs('fastlines-count', 'grep -F -c', 1),
  },
  {
    id: 'S4',
    text: `every searcher found the lines \`${SEARCH_BASELINE}\` found`,
    check(search, runtime, query) {
      const rows = search.rows.filter((row) => row.runtime === runtime && row.query === query)
      if (rows.length === 0) return undefined
      const wrong = rows.filter((row) => row.error !== undefined || row.same !== true)
      const figure = wrong.length === 0 ? `all ${rows.length}` : `not: ${wrong.map((row) => row.searcher).join(', ')}`
      return { figure, holds: wrong.length === 0 }
    },
  },
]

/** The compressed section's targets: `id`, `text` and `check(section, runtime, format)`. */
const COMPRESSED_TARGETS = [
  {
    id: 'C1',
    text: `\`fastlines-batches\` with \`decompress\` at least 3x \`${COMPRESSED_BASELINE}\` (the runtime's zlib decompressor piped into readline)`,
    check(section, runtime, format) {
      const found = compressedRatio(section, runtime, format, 'fastlines-batches')
      if (found === undefined) return undefined
      return atLeast(found.ratio, 3, ` (${ms(found.row.median)} vs ${ms(found.base.median)})`)
    },
  },
  {
    id: 'C2',
    text: `\`countLines\` with \`decompress\` no slower than \`${COMPRESSED_CAT}\` (\`zcat\` for gzip, \`zstdcat\` for zstd)`,
    check(section, runtime, format) {
      const found = compressedRatio(section, runtime, format, 'fastlines-count', COMPRESSED_CAT)
      if (found === undefined) return undefined
      return { figure: `${ms(found.row.median)} vs ${ms(found.base.median)}`, holds: found.ratio >= 1 }
    },
  },
  {
    id: 'C3',
    text: "every contender saw the corpus's lines (count, and summed lengths where it sees lines; fastlines' `bytesRead` the compressed size)",
    check(section, runtime, format) {
      const rows = section.rows.filter((row) => row.runtime === runtime && row.format === format && !row.skipped)
      if (rows.length === 0) return undefined
      const wrong = rows.filter((row) => row.error !== undefined || row.problems.length > 0)
      const figure = wrong.length === 0 ? `all ${rows.length}` : `not: ${wrong.map((row) => row.contender).join(', ')}`
      return { figure, holds: wrong.length === 0 }
    },
  },
]

/** The JS-fed cases of the sources section, by chunk size. */
const JS_FED = ['generator', 'web-stream']
const jsFedAt = (...sizes) => JS_FED.flatMap((kind) => sizes.map((size) => `${kind}-${size}`))
/** A long line in 1,460-byte chunks may take this many times as long as in 64 KiB ones. */
const LONG_LINE_SLACK = 3
/** Peak RSS (stdin) may exceed readline's by this much. */
const RSS_SLACK_MB = 16

/** A sources contender at least `min` times as fast as `other` on one case. */
const sourcesVs = (contender, other, min) => ratioVs(sourcesRatio, contender, other, min)

const withFloor = floorOf(sourcesRatio)

/**
 * `check` on the stdin case, its figure followed by the pipeline's floor on the section's cores:
 * the baseline's time over the least time `cat` and a reader of the same bytes can take between
 * them, with every core busy: `cat`'s CPU time (as it fed `contender`) and `fileReader`'s (the
 * same reader on the file that `cat` reads, which reads no pipe), divided by the cores. Reading
 * a pipe costs the reader at least what reading the file costs it.
 */
const withPipelineFloor = (check, contender, fileReader) => (section, runtime, name) => {
  const result = check(section, runtime, name)
  const [fed, file, base] = [contender, fileReader, SOURCES_BASELINE].map((reader) =>
    sourcesRow(section, runtime, name, reader),
  )
  const measured = fed?.catCpuMs !== undefined && file?.cpuMs !== undefined && section.cores !== undefined
  if (result === undefined || !measured || base === undefined) {
    return result
  }
  const floorMs = Math.max(file.median, (fed.catCpuMs + file.cpuMs) / section.cores)
  const parts = `\`cat\` ${ms(fed.catCpuMs)} + the file's reader ${ms(file.cpuMs)} of CPU on ${section.cores} cores`
  const js = fed.jsCpuMs === undefined ? '' : `; its JS thread busy ${ms(fed.jsCpuMs)} of ${ms(fed.median)}`
  return { ...result, figure: `${result.figure}; the pipeline's floor ${times(base.median / floorMs)} (${parts})${js}` }
}

/** Issue 20's targets, on the sources section: `id`, `text`, `cases` and `check(section, runtime, case)`. */
const SOURCES_TARGETS = [
  {
    id: 'SR1',
    text:
      `stdin: \`fastlines-batches\` at least 5x \`${SOURCES_BASELINE}\` on \`process.stdin\` (after \`file\`: ` +
      "`file-batches`' own ratio, the same reader on the file that `cat` pipes in; after `pipe alone`: " +
      "`fastlines-count`'s, the pipe's bytes read with no string made; after `the pipeline's floor`: the " +
      "baseline's time over the CPU time of `cat` and of `file-batches` together, shared by the machine's cores)",
    cases: ['stdin'],
    check: withPipelineFloor(
      withFloor(
        withFloor(sourcesVs('fastlines-batches', SOURCES_BASELINE, 5), 'file-batches', SOURCES_BASELINE, 'file'),
        'fastlines-count',
        SOURCES_BASELINE,
        'pipe alone',
      ),
      'fastlines-batches',
      'file-batches',
    ),
  },
  {
    id: 'SR2',
    text:
      `stdin: \`fastlines-lines\` at least 2.5x \`${SOURCES_BASELINE}\` on \`process.stdin\` (the figure after ` +
      "`floor`: `file-lines`' own ratio)",
    cases: ['stdin'],
    check: withFloor(sourcesVs('fastlines-lines', SOURCES_BASELINE, 2.5), 'file-lines', SOURCES_BASELINE),
  },
  {
    id: 'SR3',
    text:
      `a child's stdout and a file stream: \`fastlines-batches\` at least 3x \`${SOURCES_BASELINE}\` on the same stream ` +
      `(the figure after \`floor\`: \`${RAW_CHUNKS}\`'s own ratio, the stream's chunks taken in JS with no line made, ` +
      "the bound of a stream that must be fed from JS, as a child's stdout is; on a child's stdout, after " +
      `\`chunks+split\`: \`${CHUNKS_SPLIT_FLOOR}\`'s, those chunks taken and the same text split, the bound of a ` +
      'reader of line strings fed from JS)',
    cases: ['child-stdout', 'fs-stream'],
    check: withFloor(
      withFloor(sourcesVs('fastlines-batches', SOURCES_BASELINE, 3), RAW_CHUNKS, SOURCES_BASELINE),
      CHUNKS_SPLIT_FLOOR,
      SOURCES_BASELINE,
      'chunks+split',
    ),
  },
  {
    id: 'SR4',
    text:
      `JS-fed chunks of 8 KiB and more: \`fastlines-batches\` at least 1.5x \`${HAND_SPLIT}\` on the same chunks ` +
      `(the figure after \`floor\`: \`${SPLIT_FLOOR}\`'s own ratio, which no reader of line strings passes)`,
    cases: jsFedAt('64k', '8k'),
    check: withFloor(sourcesVs('fastlines-batches', HAND_SPLIT, 1.5), SPLIT_FLOOR, HAND_SPLIT),
  },
  {
    id: 'SR5',
    text:
      'JS-fed chunks, every size: `fastlines-lines` faster than every per-line contender ' +
      `(${PER_LINE_READERS.filter((name) => readsCase(name, 'generator-64k') || readsCase(name, 'web-stream-64k'))
        .map((name) => `\`${name}\``)
        .join(', ')}, where they run)`,
    cases: jsFedAt('64k', '8k', '1k', '100b'),
    check(section, runtime, name) {
      const lines = sourcesRow(section, runtime, name, 'fastlines-lines')
      const fastest = PER_LINE_READERS.map((other) => sourcesRow(section, runtime, name, other))
        .filter(Boolean)
        .sort((a, b) => a.median - b.median)[0]
      if (lines === undefined || fastest === undefined) return undefined
      const ratio = fastest.median / lines.median
      return { figure: `${times(ratio)} vs ${fastest.contender}`, holds: ratio > 1 }
    },
  },
  {
    id: 'SR6',
    text:
      `gzip stream: \`fastlines-batches\` with \`decompress: 'gzip'\` at least 3x \`createGunzip()\` + \`${SOURCES_BASELINE}\` ` +
      "(after `inflating alone`: `fastlines-count`'s ratio, the same bytes inflated and counted with no string made)",
    cases: ['gzip-stream'],
    check: withFloor(
      sourcesVs('fastlines-batches', SOURCES_BASELINE, 3),
      'fastlines-count',
      SOURCES_BASELINE,
      'inflating alone',
    ),
  },
  {
    id: 'SR7',
    text:
      `one line per chunk: \`fastlines-lines\` and \`-batches\` no slower than \`${SOURCES_BASELINE}\` (ms <=; ` +
      `after \`chunks alone\`: \`${RAW_CHUNKS}\`, what taking the chunks costs before any line is made)`,
    cases: ['trickle'],
    check(section, runtime, name) {
      const base = sourcesRow(section, runtime, name, SOURCES_BASELINE)
      const rows = ['fastlines-lines', 'fastlines-batches'].map((other) => sourcesRow(section, runtime, name, other))
      if (base === undefined || rows.every((row) => row === undefined)) return undefined
      const measured = rows.filter(Boolean)
      const figures = measured.map((row) => `${short(row.contender)} ${ms(row.median)}`)
      const raw = sourcesRow(section, runtime, name, RAW_CHUNKS)
      const alone = raw === undefined ? '' : `; chunks alone ${ms(raw.median)}`
      return {
        figure: `${figures.join(', ')} vs ${ms(base.median)}${alone}`,
        holds: measured.length === rows.length && measured.every((row) => row.median <= base.median),
      }
    },
  },
  {
    id: 'SR8',
    text: `stdin: peak RSS above idle of \`fastlines-lines\` and \`-batches\` <= \`${SOURCES_BASELINE}\`'s + ${RSS_SLACK_MB} MB`,
    cases: ['stdin'],
    check(section, runtime, name) {
      const base = sourcesRow(section, runtime, name, SOURCES_BASELINE)
      const rows = ['fastlines-lines', 'fastlines-batches']
        .map((other) => sourcesRow(section, runtime, name, other))
        .filter((row) => row?.rssAboveIdleMB !== undefined)
      if (base?.rssAboveIdleMB === undefined || rows.length === 0) return undefined
      const figures = rows.map((row) => `${short(row.contender)} ${formatAmount(row.rssAboveIdleMB)}`)
      const bound = base.rssAboveIdleMB + RSS_SLACK_MB
      return {
        figure: `${figures.join(', ')} vs ${formatAmount(base.rssAboveIdleMB)} MB`,
        holds: rows.length === 2 && rows.every((row) => row.rssAboveIdleMB <= bound),
      }
    },
  },
  {
    id: 'SR9',
    text: 'every contender saw the lines the case fed (count, and summed lengths where it sees lines)',
    cases: undefined,
    check(section, runtime, name) {
      const rows = section.rows.filter((row) => row.runtime === runtime && row.case === name && !row.skipped)
      if (rows.length === 0) return undefined
      const wrong = sourcesFailures({ rows })
      const figure = wrong.length === 0 ? `all ${rows.length}` : `not: ${wrong.map((row) => row.contender).join(', ')}`
      return { figure, holds: wrong.length === 0 }
    },
  },
  {
    id: 'SR10',
    text:
      `a ${LONG_LINE_BYTES / 2 ** 20} MiB line: \`fastlines-lines\` and \`-batches\` in 1,460-byte chunks at most ` +
      `${LONG_LINE_SLACK}x their time in 64 KiB chunks (linear: a rescan of the line at each chunk cost 33x)`,
    cases: ['long-line-1460b'],
    check(section, runtime, name) {
      const pairs = ['fastlines-lines', 'fastlines-batches'].map((contender) => [
        sourcesRow(section, runtime, name, contender),
        sourcesRow(section, runtime, 'long-line-64k', contender),
      ])
      const measured = pairs.filter(([small, large]) => small !== undefined && large !== undefined)
      if (measured.length === 0) return undefined
      const figures = measured.map(
        ([small, large]) => `${short(small.contender)} ${times(small.median / large.median)}`,
      )
      return {
        figure: `${figures.join(', ')} (${measured.map(([small, large]) => `${ms(small.median)} vs ${ms(large.median)}`).join(', ')})`,
        holds:
          measured.length === pairs.length &&
          measured.every(([small, large]) => small.median <= LONG_LINE_SLACK * large.median),
      }
    },
  },
]

/**
 * `{ figure, holds }` for a cores contender at least `min` times as fast as `other` on one case (on
 * every core), with both medians and the contender's median pinned to one core; `more(found,
 * section)` adds to the figure.
 */
function coresVs(contender, other, min, more = () => '') {
  return (section, runtime, name) => {
    const found = coresRatio(section, runtime, name, contender, other)
    if (found === undefined) return undefined
    const pinnedMs = found.row.pinned?.median
    const pinned = pinnedMs === undefined ? '' : `; pinned to 1 core: ${ms(pinnedMs)}`
    const detail = ` (${ms(found.row.median)} vs ${ms(found.base.median)}${pinned})${more(found, section)}`
    return atLeast(found.ratio, min, detail)
  }
}

/**
 * For n share readers against one (coresVs' `more`): how many cores the one reader kept busy. The
 * n readers do its work between them, so they can gain at most about the machine's cores / that
 * many over it.
 */
function oneReaderBusy({ base }, section) {
  const busy = busyOf(base)
  if (busy === undefined) return ''
  return `; one reader kept ${formatAmount(busy)} cores busy, ${section.cores} / that = ${formatAmount(section.cores / busy)}x`
}

/** Issue 23's targets, on the cores section: `id`, `text`, `cases` and `check(section, runtime, case)`. */
const CORES_TARGETS = [
  {
    id: 'CO1',
    text: '`countLines` with `threads: 2` at least 1.7x `threads: 1`',
    cases: ['count'],
    check: coresVs('fastlines-2-threads', 'fastlines-1-thread', 1.7),
  },
  {
    id: 'CO2',
    text: '`countLines` with `threads: 2` at least 1.5x `wc -l`',
    cases: ['count'],
    check: coresVs('fastlines-2-threads', 'wc -l', 1.5),
  },
  {
    id: 'CO3',
    text: `\`countLines\` with \`match: '${CORE_MATCH}'\` and \`threads: 2\` at least 1.7x the same with \`threads: 1\``,
    cases: ['count-match'],
    check: coresVs('fastlines-2-threads', 'fastlines-1-thread', 1.7),
  },
  {
    id: 'CO4',
    text: `\`countLines\` with \`match: '${CORE_MATCH}'\` and \`threads: 2\` at least 2x \`grep -F -c ${CORE_MATCH}\``,
    cases: ['count-match'],
    check: coresVs('fastlines-2-threads', 'grep -F -c', 2),
  },
  {
    id: 'CO5',
    text:
      "2 worker threads, each reading one `share` and tallying each line's level, at least 1.5x one reader doing " +
      'the same in the main thread, worker start-up included: with `batches()`',
    cases: ['shares-batches'],
    check: coresVs('2-workers', 'main-thread', 1.5, oneReaderBusy),
  },
  {
    id: 'CO6',
    text:
      '2 worker threads, each reading one `share` per line (`for await (const line of readLines(p, { share }))`) ' +
      'and tallying its level, at least 1.5x one reader doing the same in the main thread, worker start-up included',
    cases: ['shares-lines'],
    check: coresVs('2-workers', 'main-thread', 1.5, oneReaderBusy),
  },
  {
    id: 'CO7',
    text:
      "every contender's result was the expected one, on every core and pinned (line counts; the count of `match` " +
      "the one-thread count's; the share readers' tallies the main-thread reader's)",
    cases: undefined,
    check(section, runtime, name) {
      const rows = section.rows.filter((row) => row.runtime === runtime && row.case === name)
      if (rows.length === 0) return undefined
      const wrong = rows.filter((row) => row.error !== undefined || row.problems.length > 0)
      const figure = wrong.length === 0 ? `all ${rows.length}` : `not: ${wrong.map((row) => row.contender).join(', ')}`
      return { figure, holds: wrong.length === 0 }
    },
  },
]

/** The JSON Lines cases where every parser and the floor are measured. */
const JSON_PARSED = ['pino', 'nested']

/** Issue 24's targets, on the JSON Lines section: `id`, `text`, `cases` and `check(section, runtime, case)`. */
const JSON_TARGETS = [
  {
    id: 'J1a',
    text: 'per value: `fastlines-values` at least 2x `readline` + `JSON.parse`',
    cases: JSON_PARSED,
    check: ratioVs(jsonRatio, 'fastlines-values', 'readline', 2),
  },
  {
    id: 'J1b',
    text:
      'per value: `fastlines-values` faster than every other contender (`readline`, `split2`, `ndjson`, ' +
      '`stream-json`, `hand-split`, `hand-split-values`, and `bun-jsonl` on Bun; not the floor; after ' +
      '`vs hand-split-values`: the hand split handing out its values through `for await`, as the per-value readers do)',
    cases: JSON_PARSED,
    check(section, runtime, name) {
      const mine = jsonRow(section, runtime, name, 'fastlines-values')
      const fastest = section.rows
        .filter((row) => row.runtime === runtime && row.case === name)
        .filter((row) => !row.contender.startsWith('fastlines') && row.contender !== 'floor')
        .map((row) => jsonRow(section, runtime, name, row.contender))
        .filter(Boolean)
        .sort((a, b) => a.median - b.median)[0]
      if (mine === undefined || fastest === undefined) return undefined
      const stepped = jsonRow(section, runtime, name, 'hand-split-values')
      const perStep = stepped === undefined ? '' : `; vs hand-split-values ${times(stepped.median / mine.median)}`
      const figure = `${times(fastest.median / mine.median)} vs ${fastest.contender} (${ms(mine.median)} vs ${ms(fastest.median)})${perStep}`
      return { figure, holds: mine.median < fastest.median }
    },
  },
  {
    id: 'J2',
    text: '`fastlines-batches` within 1.3x of `floor` (`JSON.parse` of each line, or on V8 of short lines as arrays, timed alone; ms ratio <= 1.3)',
    cases: JSON_PARSED,
    check(section, runtime, name) {
      const batches = jsonRow(section, runtime, name, 'fastlines-batches')
      const floor = jsonRow(section, runtime, name, 'floor')
      if (batches === undefined || floor === undefined) return undefined
      const figure = `${times(batches.median / floor.median)} the floor (${ms(batches.median)} vs ${ms(floor.median)})`
      return { figure, holds: batches.median <= 1.3 * floor.median }
    },
  },
  {
    id: 'J3',
    text: '`match` selecting 1% of the lines: `fastlines-values` at least 10x `readline-includes` (`readline` + `includes` + `JSON.parse`)',
    cases: ['match'],
    check: ratioVs(jsonRatio, 'fastlines-values', 'readline-includes', 10),
  },
  {
    id: 'J4',
    text: "1% bad lines skipped (`onError: 'skip'`): `fastlines-values` on `broken` at most 1.2x its time on `pino`",
    cases: ['broken'],
    check(section, runtime, name) {
      const skipping = jsonRow(section, runtime, name, 'fastlines-values')
      const clean = jsonRow(section, runtime, 'pino', 'fastlines-values')
      if (skipping === undefined || clean === undefined) return undefined
      const figure = `${times(skipping.median / clean.median)} (${ms(skipping.median)} vs ${ms(clean.median)})`
      return { figure, holds: skipping.median <= 1.2 * clean.median }
    },
  },
]

/**
 * The targets of a section whose rows are keyed by case, as markdown, each checked on the cases of
 * its `cases` (every case, without them) that `measuredCases(section)` finds.
 */
function formatMeasuredCaseTargets(title, targets, measuredCases, section, runtimes) {
  const measured = measuredCases(section)
  const casesOf = (target) => (target.cases ?? measured).filter((name) => measured.includes(name))
  const checked = targets.filter((target) => casesOf(target).length > 0)
  return formatCaseTargets(title, checked, casesOf, section, runtimes)
}

/** Issue 23's targets as markdown. */
const formatCoresTargets = (section, runtimes) =>
  formatMeasuredCaseTargets('## Cores targets (issue 23)', CORES_TARGETS, coreCasesOf, section, runtimes)

/** Issue 20's targets as markdown. */
const formatSourcesTargets = (section, runtimes) =>
  formatMeasuredCaseTargets('## Sources targets (issue 20)', SOURCES_TARGETS, sourceCasesOf, section, runtimes)

/** Issue 24's targets as markdown. */
const formatJsonTargets = (section, runtimes) =>
  formatMeasuredCaseTargets('## JSON Lines targets (issue 24)', JSON_TARGETS, jsonCasesOf, section, runtimes)

/** The compressed section's targets as markdown. */
function formatCompressedTargets(section, runtimes) {
  const title = '## Compressed targets'
  const formats = COMPRESSED_FORMAT_NAMES.filter((format) => section.rows.some((row) => row.format === format))
  return formatCaseTargets(title, COMPRESSED_TARGETS, () => formats, section, runtimes)
}

/** Issue 12's targets as markdown. */
function formatSearchTargets(search, runtimes) {
  const title = '## Search targets (issue 12)'
  return formatCaseTargets(title, SEARCH_TARGETS, () => SEARCH_QUERY_NAMES, search, runtimes)
}

/** Issue 11's targets as markdown. */
function formatFollowTargets(follow, runtimes) {
  const title = '## Follow targets (issues 11 and 25)'
  return formatCaseTargets(title, FOLLOW_TARGETS, (target) => target.cases, follow, runtimes)
}

/**
 * Targets checked per case (a follow case, a search query) and runtime, as markdown: the
 * targets, a table of their figures, and a count. `casesOf(target)` names a target's cases.
 */
function formatCaseTargets(title, targets, casesOf, section, runtimes) {
  const tally = { held: 0, missed: 0, unmeasured: 0, misses: [] }
  const body = targets.flatMap((target) =>
    casesOf(target).map((name) => {
      const outcomes = runtimes.map((runtime) => target.check(section, runtime, name))
      const missedOn = runtimes.filter((_, i) => outcomes[i]?.holds === false).map(runtimeLabel)
      tally.unmeasured += outcomes.filter((outcome) => outcome === undefined).length
      tally.held += outcomes.filter((outcome) => outcome?.holds).length
      tally.missed += missedOn.length
      if (missedOn.length > 0) tally.misses.push(`${target.id} ${name} (${missedOn.join(', ')})`)
      return [target.id, name, ...outcomes.map(cell)]
    }),
  )
  const missed = tally.misses.length === 0 ? '' : ` Missed: ${tally.misses.join('; ')}.`
  return [
    title,
    '',
    ...targets.map((target) => `- ${target.id}: ${target.text}`),
    '',
    markdownTable(['target', 'case', ...runtimes.map(runtimeLabel)], body, { left: 2 }),
    '',
    `${tally.held} of ${tally.held + tally.missed} checks hold (one per target × case × runtime measured; ` +
      `${tally.unmeasured} not measured).${missed}`,
    '',
  ].join('\n')
}

/**
 * A cell: the figure with ✓ or ✗ (`?` where undecided, see judged), `not measured`, or `–`
 * where the target does not apply.
 */
function cell(outcome) {
  if (outcome === NOT_APPLICABLE) return '–'
  if (outcome === undefined) return 'not measured'
  return `${outcome.holds === undefined ? '?' : outcome.holds ? '✓' : '✗'} ${outcome.figure}`
}

/** Throws unless `results` looks like what run.mjs writes. */
function checkShape(results) {
  if (results === null || typeof results !== 'object' || !Array.isArray(results.rows)) {
    throw new Error('not a results file: no `rows` array')
  }
  if (results.probes !== undefined && !Array.isArray(results.probes)) {
    throw new Error('malformed results file: `probes` is not an array')
  }
}

/** A target's outcome on a runtime it is not checked on. */
const NOT_APPLICABLE = Symbol('not applicable')

/** The table rows of one target: one per measured corpus, one for all the corpora not measured. */
function targetRows(results, target, runtimes, tally) {
  const measured = new Set(results.rows.map((row) => row.corpus))
  const body = []
  const checked = runtimes.filter((runtime) => appliesTo(target, runtime))
  if (checked.length === 0) return body
  tally.unmeasured += target.corpora.filter((corpus) => !measured.has(corpus)).length * checked.length
  for (const corpus of target.corpora.filter((name) => measured.has(name))) {
    const outcomes = runtimes.map((runtime) => {
      if (!appliesTo(target, runtime)) return NOT_APPLICABLE
      const v = view(results, runtime, corpus)
      return judged(target.check(v, runtime), v)
    })
    tally.unmeasured += outcomes.filter(
      (outcome) => outcome === undefined || (outcome !== NOT_APPLICABLE && outcome.holds === undefined),
    ).length
    // A run that measured none of the target's contenders on this corpus says nothing of it.
    if (outcomes.every((outcome) => outcome === undefined || outcome === NOT_APPLICABLE)) continue
    const missedOn = runtimes.filter((_, i) => outcomes[i]?.holds === false).map(runtimeLabel)
    tally.held += outcomes.filter((outcome) => outcome?.holds).length
    tally.missed += missedOn.length
    if (missedOn.length > 0) tally.misses.push(`${target.id} ${corpus} (${missedOn.join(', ')})`)
    body.push([target.id, corpus, ...outcomes.map(cell)])
  }
  return body
}

/** The sections with targets of their own: where the results keep them, what they are called, their check. */
const SECTION_TARGETS = [
  { key: 'search', what: 'search', format: formatSearchTargets },
  { key: 'compressed', what: 'compressed', format: formatCompressedTargets },
  { key: 'sources', what: 'sources', format: formatSourcesTargets },
  { key: 'cores', what: 'cores', format: formatCoresTargets },
  { key: 'json', what: 'JSON Lines', format: formatJsonTargets },
  { key: 'follow', what: 'follow', format: formatFollowTargets },
]

/**
 * The target check as markdown: the targets this run measured, a table of their figures and a
 * count, then each section's that ran, and which did not.
 */
export function formatTargets(results) {
  checkShape(results)
  const runtimes = runtimesOf(results)
  const ran = SECTION_TARGETS.filter(({ key }) => results[key] !== undefined)
  const notRun = SECTION_TARGETS.filter(({ key }) => results[key] === undefined).map(({ what }) => what)
  const sections = [
    ...ran.map(({ key, format }) => format(results[key], runtimes)),
    ...(notRun.length === 0 ? [] : [`Sections not run, so not checked: ${notRun.join(', ')}.`]),
  ]
  if (results.rows.length === 0) {
    return ['## Targets', '', 'Not measured: the run measured no corpus.', '', ...sections].join('\n')
  }
  const tally = { held: 0, missed: 0, unmeasured: 0, misses: [] }
  const bodies = TARGETS.map((target) => targetRows(results, target, runtimes, tally))
  const measured = TARGETS.filter((_, i) => bodies[i].length > 0)
  const checked = tally.held + tally.missed
  const missed = tally.misses.length === 0 ? '' : ` Missed: ${tally.misses.join('; ')}.`
  return [
    '## Targets',
    '',
    "Ratios and times are medians from this run; vs `readline` is the same runtime's `readline` median / " +
      "the contender's. `✓` holds, `✗` does not.",
    '',
    ...measured.map((target) => `- ${target.id}: ${target.text}`),
    '',
    markdownTable(['target', 'corpus', ...runtimes.map(runtimeLabel)], bodies.flat(), { left: 2 }),
    '',
    `${tally.held} of ${checked} checks hold (one per target × corpus × runtime measured; ` +
      `${tally.unmeasured} not measured by this run, left out; – where a target is not checked on a runtime).${missed}`,
    '',
    ...sections,
  ].join('\n')
}

function main() {
  let values
  try {
    values = parseArgs({ options: { results: { type: 'string', default: DEFAULT_RESULTS } } }).values
  } catch (error) {
    console.error(`error: ${error.message}\nUsage: node bench/targets.mjs [--results <latest.json>]`)
    return 2
  }
  let results
  try {
    results = JSON.parse(fs.readFileSync(values.results, 'utf8'))
    checkShape(results)
  } catch (error) {
    console.error(`error: ${values.results}: ${error.message}`)
    return 1
  }
  console.log(formatTargets(results))
  return 0
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(fs.realpathSync(process.argv[1])).href) {
  process.exitCode = main()
}
