// Turns the follow section's results (follow.mjs) into markdown: the tables printed after a run,
// the compact "Following" part of the README summary, and the figures the targets check.
import { FOLLOWERS, LAST_LINES } from './followers.mjs'
import { formatAmount, formatCount, formatSize, markdownTable, measuredApart } from './report.mjs'
import { cellLegend, inRuntimeOrder, runtimeLabel } from './runtimes.mjs'

/** The flood parts, as the tables name them. */
export const FLOOD_PARTS = { 'no-loss': 'no rotation', rename: 'rename', copytruncate: 'copytruncate' }

const unique = (values) => [...new Set(values)]
const bullets = (lines) => lines.map((text) => `- ${text}`).join('\n')
const amount = (value) => (value === null || value === undefined ? 'n/a' : formatAmount(value))
const seconds = (ms) => (ms === null || ms === undefined ? 'n/a' : (ms / 1000).toFixed(2))

/** A ratio with thousands separated: `52,310x`, `12x`, `3.4x`, `0.52x`, `0.0001x`. */
export function formatBigRatio(ratio) {
  if (ratio >= 100) return `${formatCount(Math.round(ratio))}x`
  return ratio >= 0.01 ? `${formatAmount(ratio)}x` : `${ratio.toPrecision(1)}x`
}

/** Whether a flood row saw every line once, in order, nothing garbled. */
export const everyLineOnce = (row) =>
  row.lost === 0 && row.duplicates === 0 && row.outOfOrder === 0 && row.garbled === 0

/** Whether a flood row's follower was stopped while still catching up: the last line had not come. */
const behind = (row) => row.timedOut && !row.gotLast

/** What went wrong with a row's lines, as short phrases: `3 lost`, `12 duplicated`, ... */
function lineFaults(row) {
  const faults = []
  if (row.lost > 0) faults.push(`${formatCount(row.lost)} ${behind(row) ? 'not yet in' : 'lost'}`)
  if (row.duplicates > 0) faults.push(`${formatCount(row.duplicates)} duplicated`)
  if (row.outOfOrder > 0) faults.push(`${formatCount(row.outOfOrder)} out of order`)
  if (row.garbled > 0) faults.push(`${formatCount(row.garbled)} garbled`)
  return faults
}

/** The rows of `kind` for one follower (or contender) on one runtime, with `extra` matching. */
function find(rows, runtime, name, extra = {}) {
  return rows.find(
    (row) =>
      row.runtime === runtime &&
      (row.follower ?? row.contender) === name &&
      Object.entries(extra).every(([key, value]) => row[key] === value),
  )
}

/** fastlines' readLastLines median against another contender's: `{ ratio, same }`, if both ran. */
export function lastLinesRatio(follow, runtime, n, other) {
  const mine = find(follow.lastLines, runtime, 'fastlines', { n })
  const theirs = find(follow.lastLines, runtime, other, { n })
  if (mine?.median === undefined || theirs?.median === undefined) return undefined
  return { ratio: theirs.median / mine.median, same: mine.same && theirs.same, mine, theirs }
}

/** Rows that failed (a worker error) or, for the last lines, returned other lines than expected. */
export function followFailures(follow) {
  if (follow === undefined) return []
  const { latency, idle, neighbour = [], flood, lastLines } = follow
  return [...latency, ...idle, ...neighbour, ...flood, ...lastLines].filter(
    (row) => row.error !== undefined || row.same === false,
  )
}

/** Errors and notices the followers reported, one bullet each (first few per row). */
function followerNotices(rows, label) {
  return rows
    .filter((row) => row.errorCount > 0)
    .map((row) => {
      const shown = row.errors.slice(0, 3).map((message) => `\`${message}\``)
      const more = row.errorCount > shown.length ? ` (${row.errorCount} in all)` : ''
      return `${row.follower} · ${runtimeLabel(row.runtime)} · ${label(row)}: ${shown.join('; ')}${more}`
    })
}

/** The failures among `rows`, one bullet each. */
function failureNotices(rows, label) {
  return rows.filter((row) => row.error !== undefined).map((row) => `**ERROR** ${label(row)}: ${row.error}`)
}

const followerNotes = (rows) =>
  unique(rows.map((row) => row.follower)).map((name) => `${name}: ${FOLLOWERS[name].note}.`)

function latencySection(follow) {
  const { pacedLines, intervalMs } = follow.settings
  const rows = follow.latency
  const body = rows.map((row) => {
    const head = [row.follower, runtimeLabel(row.runtime)]
    if (row.error !== undefined) return [...head, 'ERROR', '', '', '', '']
    const lines = `${formatCount(row.received)}${row.received < row.count ? ' ✗' : ''}`
    return [...head, amount(row.median), amount(row.p99), amount(row.max), lines, amount(row.cpuMs)]
  })
  const label = (row) => `${row.follower} · ${runtimeLabel(row.runtime)}`
  return [
    `### Follow latency: a line every ${intervalMs} ms, ${formatCount(pacedLines)} lines`,
    '',
    markdownTable(['follower', 'runtime', 'median ms', 'p99 ms', 'max ms', 'lines', 'CPU ms'], body, { left: 2 }),
    '',
    bullets([
      "latency: from the writer's `writeSync` returning to the line reaching the follower's loop body " +
        '(CLOCK_MONOTONIC, read in both processes). It can be negative: the follower the write wakes ' +
        'may run before the writer reads the clock (on a small machine, the writer can wait a ' +
        'millisecond for a core).',
      'CPU ms: the follower process, every thread, from following to the end of the writes.',
      ...followerNotes(rows),
      ...failureNotices(rows, label),
      ...followerNotices(rows, () => 'latency'),
    ]),
    '',
  ].join('\n')
}

/** Whether a follower still saw a line afterwards: `yes`, `NO ✗`, or `–` for a floor. */
const followsCell = (row) => (row.stillFollows === null ? '–' : row.stillFollows ? 'yes' : 'NO ✗')

function idleSection(follow) {
  const rows = follow.idle
  const body = rows.map((row) => {
    const head = [row.follower, runtimeLabel(row.runtime)]
    if (row.error !== undefined) return [...head, 'ERROR', '']
    return [...head, amount(row.cpuMs), followsCell(row)]
  })
  const label = (row) => `${row.follower} · ${runtimeLabel(row.runtime)}`
  return [
    `### Follow idle: ${follow.settings.idleMs / 1000} s with nothing written`,
    '',
    markdownTable(['follower', 'runtime', 'CPU ms', 'then sees a line'], body, { left: 2 }),
    '',
    bullets([
      "CPU ms: `process.cpuUsage()` of the follower's process (every thread) over the idle time, " +
        `which starts ${follow.settings.idleSettleMs / 1000} s after the follower started (the garbage ` +
        "collections start-up leaves behind, such as V8's memory reducer about 8 s after start, are " +
        'not the idle cost); the followers of a runtime idle at once, each on its own file.',
      'then sees a line: one line appended after the idle time arrived.',
      ...followerNotes(rows),
      ...failureNotices(rows, label),
      ...followerNotices(rows, () => 'idle'),
    ]),
    '',
  ].join('\n')
}

/** CPU per second of neighbour writes, in ms. */
export const neighbourCpuPerSecond = (row) => row.cpuMs / (row.wallMs / 1000)

function neighbourSection(follow) {
  const rows = follow.neighbour
  const body = rows.map((row) => {
    const head = [row.follower, runtimeLabel(row.runtime)]
    if (row.error !== undefined) return [...head, 'ERROR', '', '', '']
    const rate = formatCount(Math.round(row.writesPerSecond))
    return [...head, rate, amount(row.cpuMs), amount(neighbourCpuPerSecond(row)), followsCell(row)]
  })
  const label = (row) => `${row.follower} · ${runtimeLabel(row.runtime)}`
  const { neighbourLines, idleSettleMs } = follow.settings
  return [
    `### Follow beside a busy file: ${formatCount(neighbourLines)} writes to another file of the directory`,
    '',
    markdownTable(['follower', 'runtime', 'writes a second', 'CPU ms', 'CPU ms a second', 'then sees a line'], body, {
      left: 2,
    }),
    '',
    bullets([
      'A writer process appends lines, paced, to `other.log` in the directory of the followed files ' +
        `(each follower its own), starting ${idleSettleMs / 1000} s after the followers did (as for idle); ` +
        "CPU ms: `process.cpuUsage()` of the follower's process over the writes; a follower woken by " +
        'writes it does not follow pays for each.',
      'then sees a line: one line appended to its own file afterwards arrived.',
      ...followerNotes(rows),
      ...failureNotices(rows, label),
      ...followerNotices(rows, () => 'neighbour'),
    ]),
    '',
  ].join('\n')
}

function floodSection(follow) {
  const rows = follow.flood
  const body = rows.map((row) => {
    const head = [row.follower, runtimeLabel(row.runtime), FLOOD_PARTS[row.part]]
    if (row.error !== undefined) return [...head, 'ERROR', '', '', '', '', '', '', '', '']
    if (FOLLOWERS[row.follower].floor) {
      return [...head, '–', '–', '–', '–', '–', '–', seconds(row.writerMs), seconds(row.cpuMs), '–']
    }
    const lag = row.gotLast ? amount(row.lagMs) : '–'
    const cells = [row.lost, row.duplicates, row.outOfOrder, row.garbled].map(formatCount)
    const verdict = everyLineOnce(row) ? '✓' : behind(row) ? 'behind' : '✗'
    return [...head, formatCount(row.received), ...cells, lag, seconds(row.writerMs), seconds(row.cpuMs), verdict]
  })
  const label = (row) => `${row.follower} · ${runtimeLabel(row.runtime)} · ${FLOOD_PARTS[row.part]}`
  const header = ['follower', 'runtime', 'rotation', 'lines', 'missing', 'duplicated', 'out of order', 'garbled']
  return [
    `### Follow without loss: ${formatCount(follow.settings.floodLines)} lines as fast as the writer can`,
    '',
    markdownTable([...header, 'last line after writer ms', 'writer s', 'CPU s', 'verdict'], body, { left: 3 }),
    '',
    bullets([
      'lines: distinct numbered lines that arrived; missing: the others; duplicated: lines that ' +
        'arrived again; out of order: lines that arrived after a later one; garbled: lines that ' +
        'are not a whole written line (a read that started or ended mid-line).',
      "last line after writer: from the writer's last write returning to the last line reaching the " +
        'follower (– when it never came).',
      'rename: halfway, `app.log` is renamed `app.log.1` and the writer goes on in a new `app.log`. ' +
        'copytruncate: halfway, the writer copies `app.log` to `app.log.1` and truncates `app.log` ' +
        '(no line is written in between, so a line missing is one the follower did not read before ' +
        'the truncation: `tail -F` is the bound).',
      `verdict: ✓ every line once, in order; behind: lines were still arriving ${follow.settings.catchUpMs / 1000} s ` +
        'after the writer finished, when the follower was stopped, and the last line had not come (its ' +
        'missing lines had not arrived yet); ✗ otherwise.',
      "writer s: from the writer's first write to its last returning (the follower shares the " +
        "machine's cores with it, and slows it down accordingly).",
      'CPU s: the follower process, every thread, from following until it was stopped; for ' +
        "`tail -F`, the `tail` process's own (in 10 ms ticks), not the Node process's that counts its " +
        'lines.',
      ...followerNotes(rows),
      ...failureNotices(rows, label),
      ...followerNotices(rows, (row) => FLOOD_PARTS[row.part]),
    ]),
    '',
  ].join('\n')
}

function lastLinesSection(follow) {
  const rows = follow.lastLines
  const { corpus, bytes } = rows[0]
  const body = rows.map((row) => {
    const head = [row.contender, runtimeLabel(row.runtime), formatCount(row.n)]
    if (row.error !== undefined) return [...head, 'ERROR', '', '', '', '', '']
    const ratio = (other) => {
      const base = find(rows, row.runtime, other, { n: row.n })
      return base?.median === undefined ? '–' : formatBigRatio(base.median / row.median)
    }
    const name = row.shared ? `${row.contender} ‡` : row.contender
    const lines = `${formatCount(row.lines)}${row.same ? '' : ' ✗'}`
    return [name, ...head.slice(1), amount(row.median), amount(row.min), amount(row.max)].concat([
      ratio('readline'),
      ratio('read-last-lines'),
      lines,
    ])
  })
  const label = (row) => `${row.contender} · ${runtimeLabel(row.runtime)} · last ${row.n}`
  const size = bytes === undefined ? '' : ` (${formatSize(bytes)})`
  const header = ['contender', 'runtime', 'n', 'median ms', 'min', 'max', 'vs readline', 'vs read-last-lines', 'lines']
  const wrong = rows.filter((row) => row.same === false)
  return [
    `### Last lines of ${corpus}${size}`,
    '',
    markdownTable(header, body, { left: 2 }),
    '',
    bullets([
      `median of ${follow.settings.lastLinesRuns} runs after 3 untimed ones; ‡ reads the whole file: ` +
        `${follow.settings.lastLinesSlowRuns} runs, once for the largest n (its time does not ` +
        'depend on n; the smaller n are the end of those lines).',
      "vs X: X's median / the contender's (higher is faster).",
      'lines: how many were returned, ✗ if they are not the last n lines of the file.',
      ...unique(rows.map((row) => row.contender)).map((name) => `${name}: ${LAST_LINES[name].note}.`),
      ...failureNotices(rows, label),
    ]),
    '',
    wrong.length === 0
      ? `Lines: every contender returned the last n lines ✓`
      : ['**✗ WRONG LINES**', ...wrong.map((row) => `- ${label(row)}`)].join('\n'),
    '',
  ].join('\n')
}

/** The follow section's tables, as printed after a run. */
export function formatFollowSection(follow) {
  const { writer } = follow
  const parts = [
    '## Following',
    '',
    `Every follower runs in a process of its own and starts at the end of an empty file; the writer ` +
      `is another process (Node ${writer.version}) appending numbered lines with one ` +
      '`fs.writeSync` each.',
    '',
  ]
  if (follow.latency.length > 0) parts.push(latencySection(follow))
  if (follow.idle.length > 0) parts.push(idleSection(follow))
  if (follow.neighbour?.length > 0) parts.push(neighbourSection(follow))
  if (follow.flood.length > 0) parts.push(floodSection(follow))
  if (follow.lastLines.length > 0) parts.push(lastLinesSection(follow))
  return parts.join('\n')
}

/** `x / y`: one cell per runtime, `–` where a runtime has no row. */
function perRuntime(runtimes, rows, name, extra, cell) {
  return runtimes
    .map((runtime) => {
      const row = find(rows, runtime, name, extra)
      if (row === undefined) return '–'
      return row.error === undefined ? cell(row) : 'ERROR'
    })
    .join(' / ')
}

/** The no-loss cell of one run: `✓ 0.85` (every line, the last one that many ms after the writer) or its faults. */
function floodCell(row) {
  if (FOLLOWERS[row.follower].floor) return '–'
  if (everyLineOnce(row)) return `✓ ${amount(row.lagMs)}`
  return lineFaults(row).join(', ')
}

/** The "Following" part of the README summary. */
export function followReadme(follow) {
  const runtimes = inRuntimeOrder(
    [...follow.latency, ...follow.idle, ...follow.flood, ...follow.lastLines].map((row) => row.runtime),
  )
  const legend = cellLegend(runtimes)
  const { settings } = follow
  const parts = ['### Following']
  const apart = measuredApart(follow)
  if (apart !== '') parts.push(apart.trimEnd())
  const neighbour = follow.neighbour ?? []
  const followers = unique([...follow.latency, ...follow.idle, ...neighbour].map((row) => row.follower))
  if (followers.length > 0) {
    const body = followers.map((name) => [
      `\`${name}\``,
      perRuntime(runtimes, follow.latency, name, {}, (row) => amount(row.median)),
      perRuntime(runtimes, follow.latency, name, {}, (row) => amount(row.p99)),
      perRuntime(runtimes, follow.idle, name, {}, (row) => amount(row.cpuMs)),
      ...(neighbour.length > 0
        ? [perRuntime(runtimes, neighbour, name, {}, (row) => amount(neighbourCpuPerSecond(row)))]
        : []),
    ])
    const beside =
      neighbour.length > 0
        ? ` Beside a busy file: its CPU a second (ms) while another process appends ${formatCount(
            Math.round(neighbour[0].writesPerSecond / 1000) * 1000,
          )} lines a second to another file of its directory.`
        : ''
    parts.push(
      `A writer process appends a line every ${settings.intervalMs} ms, ${formatCount(settings.pacedLines)} ` +
        "times; latency is from its `write` returning to the line reaching the follower's loop (ms, " +
        `median and p99). Idle CPU: the follower's process over ${settings.idleMs / 1000} s with ` +
        `nothing written (ms).${beside} ${legend[0].toUpperCase()}${legend.slice(1)}:`,
      markdownTable(
        [
          'follower',
          'latency median ms',
          'latency p99 ms',
          'idle CPU ms',
          ...(neighbour.length > 0 ? ['beside a busy file, CPU ms/s'] : []),
        ],
        body,
      ),
    )
  }
  const flooders = unique(follow.flood.map((row) => row.follower))
  if (flooders.length > 0) {
    const floodParts = Object.keys(FLOOD_PARTS).filter((part) => follow.flood.some((row) => row.part === part))
    const cpuPart = floodParts[0]
    const body = flooders.map((name) => [
      `\`${name}\``,
      ...floodParts.map((part) => perRuntime(runtimes, follow.flood, name, { part }, floodCell)),
      perRuntime(runtimes, follow.flood, name, { part: cpuPart }, (row) => seconds(row.cpuMs)),
    ])
    parts.push(
      `A writer process appends ${formatCount(settings.floodLines)} numbered lines as fast as it can ` +
        '(rotating the file halfway: renamed, or copied and truncated); ✓ means every line arrived once, ' +
        "in order, the last one that many ms after the writer's last write; otherwise what went " +
        `wrong (not yet in: still arriving ${settings.catchUpMs / 1000} s after the writer finished). ` +
        `CPU: the follower's, in seconds, ${FLOOD_PARTS[cpuPart]} (for \`tail -F\`, the \`tail\` ` +
        `process's); ${legend}:`,
      markdownTable(
        ['follower', ...floodParts.map((part) => FLOOD_PARTS[part]), `CPU s, ${FLOOD_PARTS[cpuPart]}`],
        body,
      ),
    )
  }
  if (follow.lastLines.length > 0) {
    const counts = unique(follow.lastLines.map((row) => row.n))
    const contenders = unique(follow.lastLines.map((row) => row.contender))
    const body = contenders.map((name) => [
      `\`${name}\``,
      ...counts.map((n) => perRuntime(runtimes, follow.lastLines, name, { n }, (row) => amount(row.median))),
    ])
    const { corpus, bytes } = follow.lastLines[0]
    const ratios = counts.map((n) => {
      const cells = (other) =>
        runtimes
          .map((runtime) => lastLinesRatio(follow, runtime, n, other))
          .map((found) => (found === undefined ? '–' : formatBigRatio(found.ratio)))
          .join(' / ')
      return `last ${formatCount(n)}: ${cells('readline')} and ${cells('read-last-lines')}`
    })
    parts.push(
      `The last lines of ${corpus} (${formatSize(bytes)}), median ms (\`readline\` reads the whole file); ` +
        `${legend}:`,
      markdownTable(['contender', ...counts.map((n) => `last ${formatCount(n)} ms`)], body),
      "The speed of fastlines' `readLastLines` relative to `readline` and to `read-last-lines` " +
        `(their median / its median): ${ratios.join('; ')}.`,
    )
  }
  return parts.join('\n\n')
}
