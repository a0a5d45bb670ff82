/// <reference types="./index.d.ts" />
// (For Deno: index.d.mts re-exports './index.js', which Deno takes for this file when the
// package is linked from outside node_modules; the directive names its types.)
// fastlines' public API: one function per way of reading a file. Each lives in its own module
// under lib/ (README.md's Layout says what each is for); this file only gathers them.
'use strict'

const { readChunks } = require('./lib/chunk-reader')
const { countLines } = require('./lib/count')
const { codes, isLineTooLongError } = require('./lib/errors')
const { followLines } = require('./lib/follow')
const { readJsonLines, readJsonLinesSync } = require('./lib/json-lines')
const { readLastLines } = require('./lib/last-lines')
const { readLines } = require('./lib/line-reader')
const { readLinesSync } = require('./lib/line-reader-sync')

module.exports = {
  readLines,
  readLinesSync,
  readJsonLines,
  readJsonLinesSync,
  readChunks,
  countLines,
  readLastLines,
  followLines,
  codes,
  isLineTooLongError,
}
