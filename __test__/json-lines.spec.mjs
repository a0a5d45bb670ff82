// readJsonLines and readJsonLinesSync: the values of JSON Lines files and byte sources, checked
// against JSON.parse of readline's lines of the same bytes (a BOM at the file's start dropped,
// blank lines skipped) on seeded files holding every kind of JSON value, escapes, surrogate
// pairs, invalid UTF-8 in strings, CRLF, blank lines, a BOM and no final newline, through every
// reader kind and at every small read size; every field of a parse error; onError in its three
// forms; reviver; the options readLines takes (match, decompress, share, a byte source) and
// the ones refused; and closing, breaking and aborting as for readLines.
import fs from 'node:fs'
import { Readable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import zlib from 'node:zlib'

import test from 'ava'

import { codes, readJsonLines, readJsonLinesSync, readLines } from '../index.js'
import { isOpen, makeTempDir } from './helpers/files.mjs'
import { runProcess } from './helpers/processes.mjs'
import { evalArgs } from './helpers/runtimes.mjs'
import { SMALL_READS } from './helpers/line-inputs.mjs'
import { referenceLines, seededRandom } from './helpers/lines-reference.mjs'

const temp = makeTempDir(test)
const indexPath = fileURLToPath(new URL('../index.js', import.meta.url))

// ---- the reference -----------------------------------------------------------------------------

/**
 * What readJsonLines must give for `bytes`: per non-blank line of readline's lines, its number
 * and offset, and JSON.parse's value or the error it throws.
 */
function referenceValues(bytes) {
  const lines = referenceLines(bytes)
  const entries = []
  let offset = 0
  let rest = Buffer.from(bytes)
  for (let i = 0; i < lines.length; i++) {
    const length = lineLength(rest)
    let text = lines[i]
    if (i === 0 && text.startsWith('\uFEFF')) text = text.slice(1)
    if (!/^[ \t\r]*$/.test(text)) {
      let parsed
      try {
        parsed = { value: JSON.parse(text) }
      } catch (error) {
        parsed = { error }
      }
      entries.push({ lineNumber: i + 1, lineOffset: offset, end: offset + length, line: text, ...parsed })
    }
    offset += length
    rest = rest.subarray(length)
  }
  return entries
}

/** The bytes of the first line of `bytes`, its terminator included (readline's rule). */
function lineLength(bytes) {
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0x0a) return i + 1
    if (bytes[i] === 0x0d) return bytes[i + 1] === 0x0a ? i + 2 : i + 1
  }
  return bytes.length
}

/** JSON texts of every kind, written differently (spaces, escapes), on one line each. */
const VALUE_TEXTS = [
  'null',
  'true',
  'false',
  '0',
  '-0',
  '12.5e-3',
  '-1E+400',
  '9007199254740993',
  '""',
  '"plain"',
  '"esc \\" \\\\ \\/ \\b \\f \\n \\r \\t \\u0041 \\u00e9 \\ud83d\\ude00"',
  '"raw é ü 漢字 😀"',
  '"\\u2028 and \\u2029"',
  '[]',
  '{}',
  ' [1, "two", {"three": [3.0, null]}, false] ',
  '\t{"a": {"b": {"c": [[[]]]}}, "": 1, "dup": 1, "dup": 2}\t',
  '{"__proto__": {"polluted": true}}',
  `${'['.repeat(500)}${']'.repeat(500)}`,
  `{"long": "${'x'.repeat(5000)}"}`,
]

/** A JSON Lines file from `random`: values, blank and whitespace lines, mixed terminators. */
function jsonLinesFile(random, count) {
  const parts = ['\uFEFF']
  for (let i = 0; i < count; i++) {
    const pick = random()
    if (pick < 0.1) parts.push('')
    else if (pick < 0.15) parts.push(' \t ')
    else parts.push(VALUE_TEXTS[Math.floor(random() * VALUE_TEXTS.length)])
    const terminator = random()
    parts.push(terminator < 0.7 ? '\n' : terminator < 0.9 ? '\r\n' : '\r')
  }
  parts.push('{"last": "no final newline"}')
  return Buffer.from(parts.join(''))
}

/** Invalid UTF-8 inside a string: JSON.parse sees U+FFFD there, as in readLines' lines. */
const INVALID_UTF8 = Buffer.concat([
  Buffer.from('{"bad": "'),
  Buffer.from([0xff, 0xc3, 0x28, 0xe2, 0x82]),
  Buffer.from('"}\n["ok"]\n'),
])

async function collect(iterable) {
  const items = []
  for await (const item of iterable) items.push(item)
  return items
}

/** Every way of reading the values of `path`, each giving `[lineNumber, value]` pairs. */
const READERS = {
  values: async (path, options) => {
    const reader = readJsonLines(path, options)
    const entries = []
    for await (const value of reader) entries.push([reader.lineNumber, value])
    return entries
  },
  batches: async (path, options) => {
    const values = (await collect(readJsonLines(path, options).batches())).flat()
    const numbers = (await collect(readJsonLines(path, options).entries())).map(([n]) => n)
    return values.map((value, i) => [numbers[i], value])
  },
  entries: (path, options) => collect(readJsonLines(path, options).entries()),
  sync: (path, options) => {
    const reader = readJsonLinesSync(path, options)
    const entries = []
    for (const value of reader) entries.push([reader.lineNumber, value])
    return entries
  },
  syncBatches: (path, options) => {
    const values = [...readJsonLinesSync(path, options).batches()].flat()
    const numbers = [...readJsonLinesSync(path, options).entries()].map(([n]) => n)
    return values.map((value, i) => [numbers[i], value])
  },
}

// ---- values ------------------------------------------------------------------------------------

test('every reader gives JSON.parse of every non-blank line, at every read size', async (t) => {
  const random = seededRandom(24)
  const bytes = jsonLinesFile(random, 300)
  const path = temp.file(bytes)
  const expected = referenceValues(bytes).map(({ lineNumber, value }) => [lineNumber, value])
  t.true(expected.length > 200)
  for (const [name, read] of Object.entries(READERS)) {
    t.deepEqual(await read(path), expected, name)
  }
  for (const highWaterMark of [...SMALL_READS, 64, 4096]) {
    t.deepEqual(await READERS.values(path, { highWaterMark }), expected, `values, reads of ${highWaterMark}`)
    t.deepEqual(READERS.sync(path, { highWaterMark }), expected, `sync, reads of ${highWaterMark}`)
  }
})

test('invalid UTF-8 in a string parses as the U+FFFD readLines gives', async (t) => {
  const path = temp.file(INVALID_UTF8)
  const values = await collect(readJsonLines(path))
  t.deepEqual(values, [{ bad: (await collect(readLines(path)))[0].slice(9, -2) }, ['ok']])
  t.true(values[0].bad.includes('\uFFFD'))
  t.deepEqual(
    values,
    referenceValues(INVALID_UTF8).map(({ value }) => value),
  )
})

test('a BOM is dropped only at the very start of the file', async (t) => {
  const path = temp.file('\uFEFF1\n\uFEFF2\n')
  const error = await t.throwsAsync(collect(readJsonLines(path)), { code: codes.JSON_PARSE })
  t.is(error.lineNumber, 2)
  // Read from the second line on, its BOM is not at the start of the file.
  await t.throwsAsync(collect(readJsonLines(path, { start: 5 })), { code: codes.JSON_PARSE })
  t.deepEqual(await collect(readJsonLines(temp.file('\uFEFF"a"\n'))), ['a'])
})

test('numbers past 2^53 lose precision as JSON.parse loses it', async (t) => {
  const path = temp.file('9007199254740993\n{"id": 12345678901234567890}\n')
  t.deepEqual(await collect(readJsonLines(path)), [9007199254740992, { id: 12345678901234567000 }])
})

test('reviver is passed to JSON.parse for every line', async (t) => {
  const path = temp.file('{"when": "2024-01-02T00:00:00.000Z", "n": 1}\n[1, 2]\n')
  const reviver = (key, value) => (key === 'when' ? new Date(value) : typeof value === 'number' ? value * 10 : value)
  const expected = [JSON.parse('{"when": "2024-01-02T00:00:00.000Z", "n": 1}', reviver), [10, 20]]
  t.deepEqual(await collect(readJsonLines(path, { reviver })), expected)
  t.deepEqual([...readJsonLinesSync(path, { reviver })], expected)
  t.true(expected[0].when instanceof Date)
})

test('reviver: null is none, as JSON.parse takes it', async (t) => {
  const path = temp.file('{"n": 1}\n[1.5, "x"]\n')
  const expected = [JSON.parse('{"n": 1}', null), JSON.parse('[1.5, "x"]', null)]
  t.deepEqual(await collect(readJsonLines(path, { reviver: null })), expected)
  t.deepEqual([...readJsonLinesSync(path, { reviver: null })], expected)
  t.deepEqual(await collect(readJsonLines(path, { reviver: null }).batches()), [expected])
})

test('position, lineNumber and lineOffset name the line of the last value, across blank lines', async (t) => {
  const bytes = Buffer.from('\n"é"\r\n\n  \n{"k": "ü"}\n\n')
  const path = temp.file(bytes)
  const reader = readJsonLines(path, { highWaterMark: 3 })
  t.is(reader.lineNumber, 0)
  t.is(reader.lineOffset, undefined)
  t.is(reader.position, 0)
  const seen = []
  for await (const value of reader) seen.push([value, reader.lineNumber, reader.lineOffset, reader.position])
  const reference = referenceValues(bytes)
  t.deepEqual(
    seen,
    reference.map(({ value, lineNumber, lineOffset, end }) => [value, lineNumber, lineOffset, end]),
  )
  // After the end, still the last value's line (the blank line after it is not a value).
  t.is(reader.lineNumber, 5)
  // Resuming at the position gives the values after it.
  t.deepEqual(
    await collect(readJsonLines(path, { start: seen[0][3] })),
    ['ü'].map((u) => ({ k: u })),
  )
})

test('position and lineOffset after every value of a batch of many lines measure each line of it', async (t) => {
  // Lines that all end in \n and decode exactly: the native side lists no line ends, and JS
  // measures each line in the batch's text (on V8, a JSON array's, see LineCursor), forward for
  // the position and back a line for the offset. With blank lines, it is parsed in stretches.
  const texts = ['{"k":"é"}\n[1,2]\n"x"\n 3 \n', '{"k":"é"}\n\n"ü"\n  \n7\n', ',\n1\n']
  for (const text of texts) {
    const bytes = Buffer.from(text.repeat(50))
    const path = temp.file(bytes)
    const reference = referenceValues(bytes).map(({ value, error, lineNumber, lineOffset, end }) => [
      error === undefined ? value : null,
      lineNumber,
      lineOffset,
      end,
    ])
    const seen = []
    const reader = readJsonLines(path, { onError: () => null })
    for await (const value of reader) seen.push([value, reader.lineNumber, reader.lineOffset, reader.position])
    t.deepEqual(seen, reference, JSON.stringify(text))
    const seenSync = []
    const sync = readJsonLinesSync(path, { onError: () => null })
    for (const value of sync) seenSync.push([value, sync.lineNumber, sync.lineOffset, sync.position])
    t.deepEqual(seenSync, reference, JSON.stringify(text))
  }
})

// Serial: it counts the calls of the global JSON.parse (and Bun.JSONL.parseChunk), which other
// tests' readers make too.
test.serial(
  'a batch is parsed a stretch at a time between blank and bad lines, from its bytes on Bun, bad ones unparsed',
  async (t) => {
    // The native side lists the blank and the cut line; with onError: 'skip' neither is parsed.
    // The lines between them are parsed a stretch at a time: on V8 with one JSON.parse from the
    // batch's array text, on Bun with one Bun.JSONL.parseChunk of the batch's bytes.
    const text = `${'{"a":1}\n'.repeat(50)}\n${'[2]\n'.repeat(50)}{"cut\n${'3\n'.repeat(50)}`
    const path = temp.file(text)
    const expected = [...Array(50).fill({ a: 1 }), ...Array(50).fill([2]), ...Array(50).fill(3)]
    const calls = { parse: 0, parseChunk: 0 }
    const counting = (object, name) => {
      const original = object[name]
      object[name] = (...args) => {
        calls[name]++
        return original.apply(object, args)
      }
      return () => (object[name] = original)
    }
    const restores = [counting(JSON, 'parse')]
    if (process.versions.bun !== undefined) restores.push(counting(Bun.JSONL, 'parseChunk'))
    try {
      for (const read of [
        () => collect(readJsonLines(path, { onError: 'skip' })),
        async () => [...readJsonLinesSync(path, { onError: 'skip' })],
      ]) {
        calls.parse = calls.parseChunk = 0
        t.deepEqual(await read(), expected)
        t.deepEqual(
          calls,
          process.versions.bun === undefined ? { parse: 3, parseChunk: 0 } : { parse: 0, parseChunk: 3 },
        )
      }
    } finally {
      for (const restore of restores) restore()
    }
  },
)

// ---- errors ------------------------------------------------------------------------------------

test('a line that does not parse rejects after every value before it, with where it is', async (t) => {
  const bytes = Buffer.from('{"a": "é"}\n\n  \n{"b": 1,}\n[2]\n')
  const path = temp.file(bytes)
  const reader = readJsonLines(path)
  const values = []
  const error = await t.throwsAsync(
    (async () => {
      for await (const value of reader) values.push(value)
    })(),
    { instanceOf: SyntaxError, code: 'ERR_FASTLINES_JSON_PARSE' },
  )
  t.deepEqual(values, [{ a: 'é' }])
  t.is(error.lineNumber, 4)
  t.is(error.lineOffset, Buffer.byteLength('{"a": "é"}\n\n  \n'))
  t.is(error.column, 9)
  t.is(error.path, path)
  // Shown, as console.log shows own enumerable properties: JavaScriptCore's errors have a
  // `column` of their own (where they were made in JS), not enumerable.
  t.deepEqual(Object.keys(error).sort(), ['code', 'column', 'lineNumber', 'lineOffset', 'path'])
  t.true(error.cause instanceof SyntaxError)
  t.is(error.cause.message, referenceValues(bytes)[1].error.message)
  t.is(error.message, `Unexpected token '}' at line 4, column 9 of '${path}': {"b": 1,}`)
  // The reader is closed: no more values, and the file is closed.
  t.deepEqual(await reader.next(), { value: undefined, done: true })
  t.false(isOpen(path))
})

test('the same error from the sync reader, and from batches() after the values before it', async (t) => {
  const path = temp.file('1\n2\nnope\n3\n')
  const sync = readJsonLinesSync(path)
  t.deepEqual([sync.next().value, sync.next().value], [1, 2])
  const error = t.throws(() => sync.next(), { code: codes.JSON_PARSE })
  t.like(error, { lineNumber: 3, lineOffset: 4, column: 2, path })
  t.deepEqual(sync.next(), { value: undefined, done: true })
  t.false(isOpen(path))

  const batches = readJsonLines(path).batches()
  t.deepEqual(await batches.next(), { value: [1, 2], done: false })
  await t.throwsAsync(batches.next(), { code: codes.JSON_PARSE, message: /line 3, column 2/ })
})

test('the message quotes at most 80 characters around the failure, whole characters only', async (t) => {
  const head = `{"k": "${'😀'.repeat(60)}", `
  const cases = [
    { line: `nul${'l'.repeat(200)}`, column: 5, quoted: `nul${'l'.repeat(77)}…` },
    { line: `${head}"x": tru}`, column: head.length + 9 },
    { line: `[${'1,'.repeat(100)}]`, column: 202 },
    { line: '"unterminated', column: 14, quoted: '"unterminated' },
    { line: '"bad \\x escape"', column: 7 },
    { line: '{"a":1} {"b":2}', column: 9 },
  ]
  for (const { line, column, quoted } of cases) {
    const path = temp.file(`${line}\n`)
    const error = await t.throwsAsync(collect(readJsonLines(path)), { code: codes.JSON_PARSE })
    t.is(error.column, column, JSON.stringify(line.slice(0, 20)))
    const shown = error.message.slice(error.message.indexOf(`of '${path}': `) + path.length + 7)
    t.true(shown.replace(/^…|…$/g, '').length <= 80, shown)
    t.true(line.includes(shown.replace(/^…|…$/g, '')), shown)
    t.false(/[\ud800-\udbff]$|^[\udc00-\udfff]/.test(shown.replace(/^…|…$/g, '')), 'half a surrogate pair')
    if (quoted !== undefined) t.is(shown, quoted)
    if (line.length > 80) t.true(shown.startsWith('…') || shown.endsWith('…'))
    t.throws(() => JSON.parse(line), { instanceOf: SyntaxError })
  }
})

test('a malformed number or escape fails where V8 places it (its position + 1), in its words', async (t) => {
  // JavaScriptCore gives no position: fastlines finds it itself, the same on every runtime.
  const cases = [
    ['-', 2, 'No number after minus sign'],
    ['[1,-]', 5, 'No number after minus sign'],
    ['--1', 2, 'No number after minus sign'],
    ['1.', 3, 'Unterminated fractional number'],
    ['{"a":1.e5}', 8, 'Unterminated fractional number'],
    ['1e', 3, 'Exponent part is missing a number'],
    ['[1e+]', 5, 'Exponent part is missing a number'],
    ['01', 2, 'Unexpected number'],
    ['-01', 3, 'Unexpected number'],
    ['{"a":00.5}', 7, 'Unexpected number'],
    ['[1,01]', 5, 'Unexpected number'],
    ['"\\x"', 3, 'Bad escaped character'],
    ['{"\\u12g4":1}', 7, 'Bad Unicode escape'],
    ['"\\u', 4, 'Bad Unicode escape'],
    ['"ab\\u1', 7, 'Bad Unicode escape'],
    ['"\\', 3, 'Unexpected end of JSON input'],
    ['"a\u0001"', 3, 'Bad control character in string literal'],
  ]
  for (const [line, column, words] of cases) {
    const path = temp.file(`${line}\n`)
    const error = await t.throwsAsync(collect(readJsonLines(path)), { code: codes.JSON_PARSE }, line)
    t.is(error.column, column, line)
    t.true(error.message.startsWith(`${words} at line 1, column ${column} `), `${line}: ${error.message}`)
    const v8 = /^(.*) in JSON at position (\d+)/.exec(t.throws(() => JSON.parse(line)).message)
    if (v8 !== null) t.deepEqual([v8[1], Number(v8[2]) + 1], [words, column], `${line}: V8's words and position`)
  }
})

test("random near-JSON lines: an error exactly where JSON.parse refuses, at V8's position", async (t) => {
  const random = seededRandom(52)
  const alphabet = [...'019-+.eE"\\uaf[]{}:, xntr\u0001é']
  const lines = Array.from({ length: 20_000 }, () =>
    Array.from({ length: random.int(1, 8) }, () => random.pick(alphabet)).join(''),
  ).filter((line) => line.trim() !== '')
  const failures = []
  const reader = readJsonLines(temp.file(`${lines.join('\n')}\n`), {
    onError: (error, line) => failures.push([line, error.column]),
  })
  for await (const _ of reader);
  const expected = []
  for (const line of lines) {
    try {
      JSON.parse(line)
    } catch (error) {
      const v8 = /at position (\d+)/.exec(error.message)
      expected.push([line, v8 === null ? undefined : Number(v8[1]) + 1])
    }
  }
  t.true(expected.length > 10_000)
  t.is(failures.length, expected.length)
  for (let i = 0; i < expected.length; i++) {
    const [line, column] = expected[i]
    t.is(failures[i][0], line)
    if (column !== undefined && failures[i][1] !== column)
      t.fail(`${JSON.stringify(line)}: column ${failures[i][1]}, V8 ${column}`)
  }
})

test('lines that make a valid array together, none of them JSON, are each an error', async (t) => {
  // `[` + these joined by `,` + `]` parses; each line alone does not.
  const path = temp.file('[[1\n2]]\n3],[4\n')
  const error = await t.throwsAsync(collect(readJsonLines(path)), { code: codes.JSON_PARSE })
  t.like(error, { lineNumber: 1, column: 4 })
  const reader = readJsonLines(path, { onError: 'skip' })
  t.deepEqual(await collect(reader), [])
  t.is(reader.skipped, 3)
  // Shaped like one text each, but not JSON: every line still parsed on its own.
  const shaped = temp.file('1\n2 3\n{"a" 1}\n4\n')
  const lenient = readJsonLines(shaped, { onError: (error) => error.column })
  t.deepEqual(await collect(lenient.entries()), [
    [1, 1],
    [2, 3],
    [3, 6],
    [4, 4],
  ])
})

test('what a JSON Lines parser takes across or within lines is an error per line, as JSON.parse has it', async (t) => {
  // On Bun, batches of ASCII lines are parsed with Bun.JSONL, which reads a stream of values:
  // it takes one value across lines and two on one line. Among many good lines (one batch),
  // each of these is refused on its own line, as JSON.parse refuses it.
  const bad = ['{"a":', '1}', '1 2', '{"a":1}{"b":2}', '[1][2]', '"a""b"', '-', '1', 'tru', 'e']
  const good = Array.from({ length: 200 }, (_, i) => `{"i":${i}}`)
  const lines = [...good.slice(0, 100), ...bad, ...good.slice(100)]
  const path = temp.file(`${lines.join('\n')}\n`)
  const expected = lines.map((line, i) => {
    try {
      return [i + 1, JSON.parse(line)]
    } catch {
      return [i + 1, 'refused']
    }
  })
  for (const highWaterMark of [undefined, 64]) {
    const reader = readJsonLines(path, { highWaterMark, onError: () => 'refused' })
    t.deepEqual(await collect(reader.entries()), expected, `highWaterMark ${highWaterMark}`)
    t.deepEqual(
      [...readJsonLinesSync(path, { highWaterMark, onError: () => 'refused' })],
      expected.map(([, value]) => value),
    )
  }
})

test("onError: 'skip' goes on past every bad line and counts them", async (t) => {
  const path = temp.file('1\n{bad\n2\n\n]\n3')
  const reader = readJsonLines(path, { onError: 'skip' })
  t.deepEqual(await collect(reader.entries()), [
    [1, 1],
    [3, 2],
    [6, 3],
  ])
  t.is(reader.skipped, 2)
  const sync = readJsonLinesSync(path, { onError: 'skip' })
  t.deepEqual([...sync], [1, 2, 3])
  t.is(sync.skipped, 2)
})

/** What a mutated line may gain: a bracket, a comma, a quote, an escape, a token, a space. */
const FRAGMENTS = ['[', ']', '{', '}', ',', ':', '"', '\\', '\\"', ' ', '\t', '1', 'null', '"x"', '"]"', '"{,"']

/** `text` with a random fragment put in at a random place, or a random stretch of it cut out. */
function mutated(random, text) {
  const at = Math.floor(random() * (text.length + 1))
  if (random() < 0.5) return text.slice(0, at) + FRAGMENTS[Math.floor(random() * FRAGMENTS.length)] + text.slice(at)
  return text.slice(0, at) + text.slice(at + 1 + Math.floor(random() * 4))
}

test("onError: 'skip' gives JSON.parse's value of every line that parses, whatever the line's shape", async (t) => {
  // Lines the native side finds not shaped like one JSON text are skipped without JSON.parse:
  // none of them may be JSON. Mutated values make every shape, valid and not, in every batch.
  const random = seededRandom(31)
  const lines = []
  for (let i = 0; i < 3000; i++) {
    let text = VALUE_TEXTS[Math.floor(random() * VALUE_TEXTS.length)]
    for (let k = Math.floor(random() * 3); k > 0; k--) text = mutated(random, text)
    lines.push(text)
  }
  const bytes = Buffer.from(`${lines.join('\n')}\n`)
  const path = temp.file(bytes)
  const reference = referenceValues(bytes)
  const expected = reference.filter((entry) => 'value' in entry).map(({ lineNumber, value }) => [lineNumber, value])
  const bad = reference.length - expected.length
  t.true(expected.length > 1000 && bad > 1000, `${expected.length} values, ${bad} bad lines`)
  for (const [name, read] of Object.entries(READERS)) {
    t.deepEqual(await read(path, { onError: 'skip' }), expected, name)
  }
  const reader = readJsonLines(path, { onError: 'skip' })
  await collect(reader)
  t.is(reader.skipped, bad)
  const sync = readJsonLinesSync(path, { onError: 'skip' })
  t.is([...sync].length, expected.length)
  t.is(sync.skipped, bad)
})

test('onError as a function replaces a line, skips it on undefined, and ends reading with what it throws', async (t) => {
  const path = temp.file('1\n{bad\n2\nworse\n3\n')
  const calls = []
  const replaced = await collect(
    readJsonLines(path, {
      onError: (error, line) => {
        calls.push([error.code, error.lineNumber, line])
        return line === 'worse' ? undefined : { replaced: line }
      },
    }),
  )
  t.deepEqual(replaced, [1, { replaced: '{bad' }, 2, 3])
  t.deepEqual(calls, [
    [codes.JSON_PARSE, 2, '{bad'],
    [codes.JSON_PARSE, 4, 'worse'],
  ])
  const mine = new Error('stop here')
  const reader = readJsonLines(path, {
    onError: () => {
      throw mine
    },
  })
  const values = []
  const thrown = await t.throwsAsync(async () => {
    for await (const value of reader) values.push(value)
  })
  t.is(thrown, mine)
  t.deepEqual(values, [1])
})

test('a reviver that throws ends reading with its own error', async (t) => {
  const path = temp.file('1\n{"boom": 1}\n2\n')
  const mine = new RangeError('no booms')
  const reviver = (key, value) => {
    if (key === 'boom') throw mine
    return value
  }
  const values = []
  const thrown = await t.throwsAsync(async () => {
    for await (const value of readJsonLines(path, { reviver })) values.push(value)
  })
  t.is(thrown, mine)
  t.deepEqual(values, [1])
  t.is(
    t.throws(() => [...readJsonLinesSync(path, { reviver })]),
    mine,
  )
  // Skipping skips lines that are not JSON, not a reviver's error.
  const skipping = readJsonLines(temp.file('1\n{bad\n{"boom": 2}\n'), { reviver, onError: 'skip' })
  t.is(await t.throwsAsync(collect(skipping)), mine)
  t.is(skipping.skipped, 1)
})

test('null or undefined thrown by onError or a reviver ends reading as an error does', async (t) => {
  const turn = () => new Promise((resolve) => setImmediate(resolve))
  /** The values before the end, and what ended it: `{ thrown }`, or `done` with no error. */
  const outcome = async (reader) => {
    const values = []
    try {
      for await (const value of reader) values.push(value)
    } catch (thrown) {
      return { values, thrown }
    }
    return { values, done: true }
  }
  const outcomeSync = (reader) => {
    const values = []
    try {
      for (const value of reader) values.push(value)
    } catch (thrown) {
      return { values, thrown }
    }
    return { values, done: true }
  }
  for (const thrown of [null, undefined]) {
    const onError = () => {
      throw thrown
    }
    const reviver = (key, value) => {
      if (value === 3) throw thrown
      return value
    }
    const bad = temp.file('1\n2\nbad\n3\n')
    const clean = temp.file('1\n2\n3\n4\n')
    t.deepEqual(await outcome(readJsonLines(bad, { onError })), { values: [1, 2], thrown }, `onError, ${thrown}`)
    t.deepEqual(outcomeSync(readJsonLinesSync(bad, { onError })), { values: [1, 2], thrown }, `sync, ${thrown}`)
    t.deepEqual(await outcome(readJsonLines(clean, { reviver })), { values: [1, 2], thrown }, `reviver, ${thrown}`)
    // From a byte source, a later chunk is not read on past the failure.
    async function* chunks() {
      yield Buffer.from('1\nbad\n3\n')
      await turn()
      yield Buffer.from('4\n')
    }
    t.deepEqual(await outcome(readJsonLines(chunks(), { onError })), { values: [1], thrown }, `source, ${thrown}`)
  }
})

test('a line over maxLineLength is the error readLines gives', async (t) => {
  const path = temp.file(`1\n"${'x'.repeat(100)}"\n`)
  const values = []
  const error = await t.throwsAsync(async () => {
    for await (const value of readJsonLines(path, { maxLineLength: 50 })) values.push(value)
  })
  const lines = await t.throwsAsync(collect(readLines(path, { maxLineLength: 50 })))
  t.deepEqual(values, [1])
  t.is(error.code, codes.LINE_TOO_LONG)
  t.is(error.message, lines.message)
})

// ---- options -----------------------------------------------------------------------------------

test('match selects the lines parsed; lineNumber counts the others', async (t) => {
  const lines = Array.from({ length: 1000 }, (_, i) => JSON.stringify({ i, level: i % 100 === 0 ? 50 : 30 }))
  lines[500] = 'not json "level":50'
  const path = temp.file(`${lines.join('\n')}\n`)
  const reader = readJsonLines(path, { match: '"level":50', onError: 'skip' })
  const entries = await collect(reader.entries())
  t.deepEqual(
    entries,
    Array.from({ length: 10 }, (_, k) => k * 100)
      .filter((i) => i !== 500)
      .map((i) => [i + 1, { i, level: 50 }]),
  )
  t.is(reader.skipped, 1)
  t.deepEqual(
    [...readJsonLinesSync(path, { match: '"level":30', invert: true, onError: 'skip' })].map((v) => v.i),
    entries.map(([, v]) => v.i),
  )
})

test('a gzip file with decompress, a share, and a byte source give the same values', async (t) => {
  const bytes = jsonLinesFile(seededRandom(7), 2000)
  const expected = referenceValues(bytes).map(({ value }) => value)
  const path = temp.file(bytes)
  const gz = temp.file(zlib.gzipSync(bytes), 'values.jsonl.gz')
  t.deepEqual(await collect(readJsonLines(gz, { decompress: 'auto' })), expected)
  const shares = []
  for (let k = 0; k < 3; k++) shares.push(...(await collect(readJsonLines(path, { share: [k, 3] }))))
  t.deepEqual(shares, expected)
  const chunks = []
  for (let at = 0; at < bytes.length; at += 7) chunks.push(bytes.subarray(at, at + 7))
  t.deepEqual(await collect(readJsonLines(Readable.from(chunks))), expected)
  t.deepEqual(
    (await collect(readJsonLines(fs.createReadStream(gz), { decompress: 'gzip' }).batches())).flat(),
    expected,
  )
})

test("a bad line in a share: its number counts from the share's first line, and the message says so, with its offset in the file", async (t) => {
  const good = (i) => JSON.stringify({ i })
  const lines = [
    ...Array.from({ length: 12 }, (_, i) => good(i)),
    '{bad}',
    ...Array.from({ length: 8 }, (_, i) => good(i)),
  ]
  const text = `${lines.join('\n')}\n`
  const path = temp.file(text, 'bad-in-a-share.jsonl')
  const offset = text.indexOf('{bad}')
  const expected = { lineNumber: 2, lineOffset: offset, column: 2, path }
  const message = `Unexpected token 'b' at line 2 of share 1 of 2 (byte ${offset}), column 2 of '${path}': {bad}`
  const error = await t.throwsAsync(collect(readJsonLines(path, { share: [1, 2] })), { message })
  t.like(error, expected)
  t.like(
    t.throws(() => [...readJsonLinesSync(path, { share: [1, 2] })], { message }),
    expected,
  )
  // The share the message names is the one read, whatever becomes of the caller's array.
  const share = [1, 2]
  const reader = readJsonLines(path, { share })
  const syncReader = readJsonLinesSync(path, { share })
  share.splice(0, 2, 0, 5)
  await t.throwsAsync(collect(reader), { message })
  t.throws(() => [...syncReader], { message })
  // Read whole, the same line is line 13, and the message needs no share.
  await t.throwsAsync(collect(readJsonLines(path)), {
    message: `Unexpected token 'b' at line 13, column 2 of '${path}': {bad}`,
  })
})

test('whole lines a turn apart, as NDJSON streams send them: the values, numbers, offsets and errors of the file', async (t) => {
  // Chunks of one to three whole lines, each on a turn of its own: a reader waiting for them
  // frames most of them on the JS thread (lib/frame-here.js); the ones with a \r, invalid UTF-8
  // or no final \n natively. The BOM, blank lines, and a bad line's number and offset as for the file.
  const bytes = Buffer.concat([jsonLinesFile(seededRandom(11), 300), Buffer.from('\n{"bad"\n"after"\n'), INVALID_UTF8])
  const chunks = []
  let start = 0
  let lines = 0
  for (let i = 0; i < bytes.length; i++) {
    // One, then two, then three lines a chunk, and again.
    if (bytes[i] !== 0x0a || ++lines < 1 + (chunks.length % 3)) continue
    chunks.push(bytes.subarray(start, i + 1))
    start = i + 1
    lines = 0
  }
  chunks.push(bytes.subarray(start))
  async function* turnsApart() {
    for (const chunk of chunks) {
      await new Promise((resolve) => setImmediate(resolve))
      yield chunk
    }
  }
  const path = temp.file(bytes)
  const placed = async (reader) => {
    const got = []
    for await (const value of reader) got.push([reader.lineNumber, reader.lineOffset, reader.position, value])
    return got
  }
  const options = { onError: 'skip' }
  t.deepEqual(await placed(readJsonLines(turnsApart(), options)), await placed(readJsonLines(path, options)))
  const fromFile = await t.throwsAsync(collect(readJsonLines(path)), { code: codes.JSON_PARSE })
  const fromChunks = await t.throwsAsync(collect(readJsonLines(turnsApart())), { code: codes.JSON_PARSE })
  t.like(fromChunks, { lineNumber: fromFile.lineNumber, lineOffset: fromFile.lineOffset })
})

test('a bad line of a byte source names no path; of a file stream, its path', async (t) => {
  const fromChunks = await t.throwsAsync(collect(readJsonLines(Readable.from([Buffer.from('1\n{x\n')]))), {
    code: codes.JSON_PARSE,
  })
  t.is(fromChunks.path, undefined)
  t.is(fromChunks.message, "Unexpected token 'x' at line 2, column 2: {x")
  const path = temp.file('{x\n')
  const fromStream = await t.throwsAsync(collect(readJsonLines(fs.createReadStream(path))))
  t.is(fromStream.path, path)
  // A stream opened with a Buffer path (Bun's fs.createReadStream refuses one) names it as a string, as fs does.
  let bufferStream
  try {
    bufferStream = fs.createReadStream(Buffer.from(path))
  } catch (error) {
    t.truthy(process.versions.bun, `only Bun refuses a Buffer path: ${error}`)
    return
  }
  const fromBufferStream = await t.throwsAsync(collect(readJsonLines(bufferStream)), { code: codes.JSON_PARSE })
  t.is(fromBufferStream.path, path)
  t.true(fromBufferStream.message.endsWith(`of '${path}': {x`), fromBufferStream.message)
})

test('bad options are refused at the call with Node-shaped errors', (t) => {
  const path = temp.file('1\n')
  t.throws(() => readJsonLines(path, { onError: 'ignore' }), { code: 'ERR_INVALID_ARG_VALUE', message: /onError/ })
  t.throws(() => readJsonLines(path, { onError: 1 }), { code: 'ERR_INVALID_ARG_TYPE', message: /onError/ })
  t.throws(() => readJsonLines(path, { reviver: 'no' }), { code: 'ERR_INVALID_ARG_TYPE', message: /reviver/ })
  t.throws(() => readJsonLinesSync(path, { reviver: 0 }), { code: 'ERR_INVALID_ARG_TYPE', message: /reviver/ })
  t.throws(() => readJsonLines(path, { onerror: 'skip' }), { code: 'ERR_INVALID_ARG_VALUE', message: /onError/ })
  t.throws(() => readJsonLines(path, { threads: 2 }), { code: 'ERR_INVALID_ARG_VALUE', message: /countLines/ })
  t.throws(() => readLines(path, { onError: 'skip' }), { code: 'ERR_INVALID_ARG_VALUE', message: /readJsonLines/ })
  t.throws(() => readJsonLines(Readable.from([]), { start: 1 }), { code: 'ERR_INVALID_ARG_VALUE', message: /start/ })
  t.throws(() => readJsonLinesSync(Readable.from([])), { code: 'ERR_INVALID_ARG_TYPE' })
  t.throws(() => readJsonLines(42), { code: 'ERR_INVALID_ARG_TYPE' })
  t.throws(() => readJsonLinesSync(path, { share: [1, 1] }), { code: 'ERR_OUT_OF_RANGE' })
})

// ---- ending ------------------------------------------------------------------------------------

test('break, close() and an abort end reading and close the file, as for readLines', async (t) => {
  const path = temp.file(Array.from({ length: 100_000 }, (_, i) => `{"i": ${i}}\n`).join(''))
  for await (const value of readJsonLines(path)) {
    t.is(value.i, 0)
    t.true(isOpen(path))
    break
  }
  t.false(isOpen(path))

  const reader = readJsonLines(path)
  await reader.next()
  await reader.close()
  t.deepEqual(await reader.next(), { value: undefined, done: true })
  t.false(isOpen(path))

  const controller = new AbortController()
  const aborted = readJsonLines(path, { signal: controller.signal })
  t.deepEqual((await aborted.next()).value, { i: 0 })
  controller.abort()
  // Values already parsed are not handed out after the abort.
  await t.throwsAsync(aborted.next(), { name: 'AbortError', code: 'ABORT_ERR' })
  // The abort rejects at once and the file closes right after, as for readLines: close() waits.
  await aborted.close()
  t.false(isOpen(path))

  const syncController = new AbortController()
  const sync = readJsonLinesSync(path, { signal: syncController.signal })
  t.deepEqual(sync.next().value, { i: 0 })
  syncController.abort()
  t.throws(() => sync.next(), { name: 'AbortError' })
  t.false(isOpen(path))

  const source = Readable.from(
    (function* () {
      for (let i = 0; ; i++) yield Buffer.from(`{"i": ${i}}\n`)
    })(),
  )
  for await (const batch of readJsonLines(source).batches()) {
    t.true(batch.length > 0)
    break
  }
  t.true(source.destroyed)
})

test('close() or an abort from inside onError or a reviver ends reading: nothing of that batch comes after it', async (t) => {
  const path = temp.file('1\n2\nbad\n4\n5\n')
  const closing = readJsonLines(path, { onError: () => void closing.close() })
  t.deepEqual(await collect(closing), [])
  t.false(isOpen(path))
  const syncClosing = readJsonLinesSync(path, { onError: () => void syncClosing.close() })
  t.deepEqual([...syncClosing], [])

  for (const abortIn of ['onError', 'reviver']) {
    const abortingOptions = (controller) =>
      abortIn === 'onError'
        ? { signal: controller.signal, onError: () => controller.abort() }
        : {
            signal: controller.signal,
            onError: 'skip',
            reviver: (key, value) => (value === 4 && controller.abort(), value),
          }
    const values = []
    await t.throwsAsync(
      async () => {
        for await (const value of readJsonLines(path, abortingOptions(new AbortController()))) values.push(value)
      },
      { name: 'AbortError' },
      abortIn,
    )
    t.deepEqual(values, [], abortIn)
    const syncValues = []
    t.throws(
      () => {
        for (const value of readJsonLinesSync(path, abortingOptions(new AbortController()))) syncValues.push(value)
      },
      { name: 'AbortError' },
      `sync, ${abortIn}`,
    )
    t.deepEqual(syncValues, [], `sync, ${abortIn}`)
  }
})

test('an abort from inside onError or a reviver over a source that gives a line a turn leaves no rejection unhandled', async (t) => {
  // Such lines are framed on the JS thread and parsed in the callback that fed them: the abort
  // rejected the step, and the next step's promise, which the abort rejects too, was left with
  // no handler, so the process died of an unhandled rejection once the loop had ended.
  const unhandled = []
  const onUnhandled = (reason) => unhandled.push(reason)
  process.on('unhandledRejection', onUnhandled)
  t.teardown(() => process.off('unhandledRejection', onUnhandled))
  async function* aLineATurn(lines) {
    for (const line of lines) {
      await new Promise((resolve) => setImmediate(resolve))
      yield line
    }
  }
  for (const abortIn of ['onError', 'reviver']) {
    const controller = new AbortController()
    const options =
      abortIn === 'onError'
        ? { signal: controller.signal, onError: () => controller.abort() }
        : { signal: controller.signal, reviver: (key, value) => (value === 2 && controller.abort(), value) }
    const values = []
    await t.throwsAsync(
      async () => {
        for await (const value of readJsonLines(
          aLineATurn(['0\n', '1\n', abortIn === 'onError' ? 'bad\n' : '2\n', '3\n']),
          options,
        )) {
          values.push(value)
        }
      },
      { name: 'AbortError' },
      abortIn,
    )
    t.deepEqual(values, [0, 1], abortIn)
  }
  // Unhandled rejections are reported once the microtasks of a turn are done.
  for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve))
  t.deepEqual(unhandled, [])
})

test('what onError or a reviver throws after closing or aborting the reader ends reading with it, not silently', async (t) => {
  const path = temp.file('1\n2\nbad\n4\n5\n')
  const thrown = new Error('thrown after closing')
  const ways = {
    'onError, close()': (reader) => ({ onError: () => (reader().close(), thrownAgain()) }),
    'reviver, close()': (reader) => ({
      onError: 'skip',
      reviver: (k, v) => (v === 4 ? (reader().close(), thrownAgain()) : v),
    }),
    'onError, abort': (reader, controller) => ({
      signal: controller.signal,
      onError: () => (controller.abort(), thrownAgain()),
    }),
    'reviver, abort': (reader, controller) => ({
      signal: controller.signal,
      reviver: (k, v) => (v === 4 ? (controller.abort(), thrownAgain()) : v),
      onError: 'skip',
    }),
  }
  function thrownAgain() {
    throw thrown
  }
  for (const [what, options] of Object.entries(ways)) {
    for (const open of [readJsonLines, readJsonLinesSync]) {
      let reader
      reader = open(
        path,
        options(() => reader, new AbortController()),
      )
      const values = []
      const read = async () => {
        for await (const value of reader) values.push(value)
      }
      t.is(await t.throwsAsync(read, undefined, `${open.name}, ${what}`), thrown, `${open.name}, ${what}`)
      t.deepEqual(values, [], `${open.name}, ${what}`)
      t.false(isOpen(path), `${open.name}, ${what}`)
    }
  }
})

test('a sync step taken from inside a reviver or onError throws ERR_INVALID_STATE, and loses no value', (t) => {
  const path = temp.file('1\n2\nbad\n4\n')
  const steps = { next: (reader) => reader.next(), batches: (reader) => reader.batches().next() }
  for (const [how, step] of Object.entries(steps)) {
    for (const inside of ['reviver', 'onError']) {
      const what = `${how} from ${inside}`
      let reader
      const caught = []
      const stepInside = () => {
        try {
          step(reader)
        } catch (error) {
          caught.push(error.code)
        }
      }
      reader = readJsonLinesSync(path, {
        reviver: (key, value) => (inside === 'reviver' && value === 2 && stepInside(), value),
        onError: () => (inside === 'onError' && stepInside(), 3),
      })
      t.deepEqual([...reader], [1, 2, 3, 4], what)
      t.deepEqual(caught, ['ERR_INVALID_STATE'], what)

      reader = readJsonLinesSync(path, {
        reviver: (key, value) => (inside === 'reviver' && value === 2 && step(reader), value),
        onError: () => (inside === 'onError' && step(reader), 3),
      })
      t.throws(() => [...reader], { instanceOf: TypeError, code: 'ERR_INVALID_STATE' }, what)
      t.false(isOpen(path), what)
    }
  }
})

test('an async step taken from inside a reviver or onError waits behind the step that called it, and loses no value', async (t) => {
  // Before the fix, such a step was answered at once, from the batch being parsed: a value lost
  // and an undefined one given, or the steps settled out of order (a review's repros).
  const files = {
    '1\n2\nbad\n3\n4\n': [
      [1, 1],
      [2, 2],
      [3, 'R'],
      [4, 3],
      [5, 4],
    ],
    '1\n\n\nbad\n3\n4\n': [
      [1, 1],
      [4, 'R'],
      [5, 3],
      [6, 4],
    ],
  }
  const steps = { next: (reader) => reader.next(), entries: (reader) => reader.entries().next() }
  for (const [text, entries] of Object.entries(files)) {
    const path = temp.file(text)
    for (const highWaterMark of [2, 4, 64]) {
      for (const [how, step] of Object.entries(steps)) {
        for (const inside of ['reviver', 'onError']) {
          const what = `${JSON.stringify(text)}, highWaterMark ${highWaterMark}, ${how} from ${inside}`
          const settled = []
          let taken = 0
          let reader
          let inner
          const take = () => {
            const order = taken++
            const promise = step(reader)
            promise.then(({ value, done }) => settled.push({ order, value, done }))
            return promise
          }
          reader = readJsonLines(path, {
            highWaterMark,
            reviver: (key, value) => {
              if (inside === 'reviver' && key === '' && value === 2 && inner === undefined) inner = take()
              return value
            },
            onError: () => {
              if (inside === 'onError' && inner === undefined) inner = take()
              return 'R'
            },
          })
          while (!(await take()).done);
          await inner
          await new Promise(setImmediate)
          t.deepEqual(
            settled.map(({ order }) => order),
            settled.map((_, index) => index),
            `${what}: settled in the order taken`,
          )
          const values = settled.filter(({ done }) => !done).map(({ value }) => value)
          const want = how === 'entries' ? entries : entries.map(([, value]) => value)
          t.deepEqual(values, want, what)
          t.false(isOpen(path), what)
        }
      }
    }
  }
})

test("a batch of values is the caller's: emptying or growing it loses no failure and adds no value", async (t) => {
  const path = temp.file('1\n2\nx\n3\n4\n')
  const changes = [(rows) => (rows.length = 0), (rows) => rows.pop(), (rows) => rows.push('added'), () => {}]
  for (const change of changes) {
    for (const highWaterMark of [2, 6, 64]) {
      const what = `${change}, highWaterMark ${highWaterMark}`
      const seen = []
      const read = async () => {
        for await (const rows of readJsonLines(path, { highWaterMark }).batches()) {
          seen.push(...rows)
          change(rows)
        }
      }
      const error = await t.throwsAsync(read, { code: 'ERR_FASTLINES_JSON_PARSE' }, what)
      t.is(error.lineNumber, 3, what)
      t.deepEqual(seen, [1, 2], what)
      const seenSync = []
      t.throws(
        () => {
          for (const rows of readJsonLinesSync(path, { highWaterMark }).batches()) {
            seenSync.push(...rows)
            change(rows)
          }
        },
        { code: 'ERR_FASTLINES_JSON_PARSE' },
        what,
      )
      t.deepEqual(seenSync, [1, 2], what)
    }
  }
})

test('the batches of 96 MiB of values, lent to the engine where it takes them, leave memory outside the heap flat', async (t) => {
  // On Bun a JSON reader lends every batch to the engine (lib/json-lines.js, withJsonBatches),
  // which frees it when it collects the batch: read whole, a log held in lent batches would
  // raise the memory outside the engine's heap by its size. An ASCII log (batches of bytes on
  // Bun) and one with non-ASCII strings (transcoded text). What is measured is the most the
  // resident memory outside the JS heap (rss - heapTotal) grew at any batch: the process's
  // peak RSS also counts the parsed values the engine has not yet collected, and how far V8
  // lets its old space grow before a major collection varies from run to run (Deno: 20-49
  // MiB quiet, 80 once on a loaded CI machine) while this measure stays within 2-27 MiB.
  const MiB = 2 ** 20
  const record = (i, name) => `{"level":30,"time":${1700000000000 + i},"msg":"request ${i} of ${name}","n":${i % 97}}\n`
  for (const name of ['ascii', 'Zürich 東京 😀']) {
    const lines = []
    for (let i = 0, bytes = 0; bytes < 96 * MiB; i++) {
      lines.push(record(i, name))
      bytes += Buffer.byteLength(lines[i])
    }
    const file = temp.file(lines.join(''))
    const code = `
      const { readJsonLines } = require(${JSON.stringify(indexPath)})
      const outsideHeap = () => {
        const { rss, heapTotal } = process.memoryUsage()
        return rss - heapTotal
      }
      ;(async () => {
        for await (const batch of readJsonLines(${JSON.stringify(temp.file(record(0, name)))}).batches());
        const before = outsideHeap()
        let values = 0
        let last
        let grown = 0
        for await (const batch of readJsonLines(${JSON.stringify(file)}).batches()) {
          values += batch.length
          last = batch[batch.length - 1]
          grown = Math.max(grown, outsideHeap() - before)
        }
        console.log(JSON.stringify({ values, last, grown }))
      })()`
    const run = await runProcess(evalArgs(code), { quietMs: 10_000 }).result
    t.is(run.status, 0, run.stderr)
    const { values, last, grown } = JSON.parse(run.stdout)
    t.is(values, lines.length, name)
    t.deepEqual(last, JSON.parse(lines.at(-1)), name)
    t.true(grown < 48 * MiB, `${name}: memory outside the heap grew by ${(grown / MiB).toFixed(1)} MiB reading 96 MiB`)
  }
})
