// The ESM entry point: index.js's exports, named and as the default, so that import and require
// share one copy of the readers (and of the native addon). index.js is loaded with `require`
// rather than `import`: Node then skips scanning it for named exports, which measured 1.5 ms of
// a cold start.
import { createRequire } from 'node:module'

const fastlines = createRequire(import.meta.url)('./index.js')

export const {
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
} = fastlines
export default fastlines
