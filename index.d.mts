// The types of the ESM entry point (index.mjs): index.d.ts's exports, named and as the default.
import * as fastlines from './index.js'

export * from './index.js'
export default fastlines
