// The types of the ESM entry point (index.mjs): index.d.ts's exports, named and as the default.
import * as exported from './index.js'

export * from './index.js'
/**
 * The exports as one object. Not the namespace itself: TypeScript gives a namespace of a
 * CommonJS declaration file a `default` of its own under `nodenext`, which the object has not.
 */
declare const fastlines: Omit<typeof exported, 'default'>
export default fastlines
