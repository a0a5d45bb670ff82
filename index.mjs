import fastlines from './index.js'

export const { readLines, readLinesSync, readChunks, countLines, LineReader, LineReaderSync, ChunkReader } = fastlines
export default fastlines
