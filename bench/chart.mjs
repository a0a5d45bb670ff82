// The ratios to readline as a horizontal bar chart: one section per corpus × runtime, one bar per
// contender from 1x to its ratio on a log scale. Hand-written SVG, no dependencies.
import { baselineOf, formatRatio, formatSize, groupSections, speedup } from './report.mjs'

const WIDTH = 760
const MARGIN = 16
const PLOT_LEFT = 190
const PLOT_RIGHT = WIDTH - 2 * MARGIN
const TITLE_HEIGHT = 76
const SECTION_HEAD = 26
const ROW_HEIGHT = 19
const BAR_HEIGHT = 13
const AXIS_HEIGHT = 26
/** Room past the longest and shortest bars for their labels, as a ratio factor. */
const LABEL_ROOM = 2.2
const TICKS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]
const COLORS = {
  fastlines: '#2563eb',
  baseline: '#374151',
  other: '#9ca3af',
  grid: '#e5e7eb',
  axis: '#6b7280',
  text: '#111827',
  error: '#dc2626',
}
const FONT = 'font-family="system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif"'

const XML_ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }
const escapeXml = (text) => String(text).replace(/[&<>"]/g, (c) => XML_ESCAPES[c])

function text(x, y, content, { size = 12, anchor = 'start', color = COLORS.text, weight } = {}) {
  const bold = weight === undefined ? '' : ` font-weight="${weight}"`
  const attributes = `x="${x}" y="${y}" font-size="${size}" text-anchor="${anchor}" fill="${color}"`
  return `<text ${attributes}${bold}>${escapeXml(content)}</text>`
}

const line = (x1, y1, x2, y2, color) =>
  `<line x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" stroke="${color}" stroke-width="1"/>`

const rect = (x, y, width, height, color) =>
  `<rect x="${x}" y="${y}" width="${width}" height="${height}" fill="${color}"/>`

/** The ratio of every measured row: `[{ row, ratio }]` per section, ratio undefined if none. */
function sectionsWithRatios(rows) {
  return groupSections(rows).map((section) => {
    const baseline = baselineOf(section.rows)
    const bars = section.rows.map((row) => ({ row, ratio: speedup(row, baseline) }))
    return { ...section, bars }
  })
}

/** A log scale from the tick below the smallest ratio to the tick above the largest, with room. */
function logScale(ratios) {
  const low = Math.min(0.5, ...ratios) / LABEL_ROOM
  const high = Math.max(2, ...ratios) * LABEL_ROOM
  const from = TICKS.findLast((tick) => tick <= low) ?? TICKS[0]
  const to = TICKS.find((tick) => tick >= high) ?? TICKS[TICKS.length - 1]
  const span = Math.log(to) - Math.log(from)
  const fraction = (ratio) => (Math.log(ratio) - Math.log(from)) / span
  const round = (value) => Math.round(value * 10) / 10
  const x = (ratio) => round(PLOT_LEFT + fraction(ratio) * (PLOT_RIGHT - PLOT_LEFT))
  return { x, ticks: TICKS.filter((tick) => tick >= from && tick <= to) }
}

function barColor(contender) {
  if (contender === 'readline') return COLORS.baseline
  return contender.startsWith('fastlines') ? COLORS.fastlines : COLORS.other
}

function bar({ row, ratio }, y, scale) {
  const name = row.capped ? `${row.contender} †` : row.contender
  const label = text(PLOT_LEFT - 8, y + BAR_HEIGHT - 2, name, { anchor: 'end' })
  const one = scale.x(1)
  if (ratio === undefined) {
    const status = row.error === undefined ? 'n/a' : 'error'
    const color = row.error === undefined ? COLORS.axis : COLORS.error
    return [label, text(one + 6, y + BAR_HEIGHT - 2, status, { color })]
  }
  const end = scale.x(ratio)
  const value =
    ratio >= 1
      ? text(end + 5, y + BAR_HEIGHT - 2, formatRatio(ratio), { weight: 600 })
      : text(end - 5, y + BAR_HEIGHT - 2, formatRatio(ratio), { anchor: 'end', weight: 600 })
  const width = Math.max(Math.abs(end - one), 1)
  return [label, rect(Math.min(one, end), y, width, BAR_HEIGHT, barColor(row.contender)), value]
}

function grid(scale, top, bottom) {
  return scale.ticks.flatMap((tick) => {
    const x = scale.x(tick)
    return [
      line(x, top, x, bottom, tick === 1 ? COLORS.axis : COLORS.grid),
      text(x, bottom + 14, `${tick}x`, { size: 10, anchor: 'middle', color: COLORS.axis }),
    ]
  })
}

/** One corpus × runtime: its heading, grid and bars; returns the elements and its height. */
function section({ corpus, runtime, version, bytes, bars }, top, scale) {
  const barsTop = top + SECTION_HEAD
  const bottom = barsTop + bars.length * ROW_HEIGHT
  const heading = `${runtime} ${version} · ${corpus} (${formatSize(bytes)})`
  const elements = [
    text(MARGIN, top + 16, heading, { size: 13, weight: 600 }),
    ...grid(scale, barsTop - 4, bottom),
    ...bars.flatMap((item, i) => bar(item, barsTop + i * ROW_HEIGHT + 3, scale)),
  ]
  return { elements, height: bottom + AXIS_HEIGHT - top }
}

function legend(y) {
  const entries = [
    ['fastlines', COLORS.fastlines],
    ['readline (baseline)', COLORS.baseline],
    ['alternatives', COLORS.other],
  ]
  let x = MARGIN
  return entries.flatMap(([name, color]) => {
    const elements = [rect(x, y - 9, 10, 10, color), text(x + 14, y, name, { size: 11 })]
    x += 28 + name.length * 6
    return elements
  })
}

function heading(results) {
  const { cpu, cores } = results.machine
  const runtimes = results.runtimes.map(({ name, version }) => `${name} ${version}`).join(', ')
  const date = results.startedAt.slice(0, 10)
  return [
    text(MARGIN, 22, 'Speed vs readline (median; higher is faster; log scale)', {
      size: 15,
      weight: 700,
    }),
    text(MARGIN, 40, `${date} · ${cpu}, ${cores} cores · ${runtimes}`, {
      size: 11,
      color: COLORS.axis,
    }),
    ...legend(62),
  ]
}

/** The SVG document for a results object as written to bench/results/latest.json. */
export function renderChart(results) {
  const sections = sectionsWithRatios(results.rows)
  const ratios = sections.flatMap(({ bars }) => bars.map(({ ratio }) => ratio))
  const scale = logScale(ratios.filter((ratio) => ratio !== undefined))
  const elements = heading(results)
  let y = TITLE_HEIGHT
  for (const item of sections) {
    const { elements: drawn, height } = section(item, y, scale)
    elements.push(...drawn)
    y += height
  }
  const height = y + MARGIN
  const size = `width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}"`
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" ${size} ${FONT}>`,
    rect(0, 0, WIDTH, height, '#ffffff'),
    ...elements,
    '</svg>',
    '',
  ].join('\n')
}
