import fastlines from './index.js'

export const { readLines, readLinesSync, readChunks, countLines } = fastlines
export default fastlines
