// The ESM entry point: index.js's exports, named and as the default, so that import and require
// share one copy of the readers (and of the native addon).
import fastlines from './index.js'

export const { readLines, readLinesSync, readChunks, countLines } = fastlines
export default fastlines
