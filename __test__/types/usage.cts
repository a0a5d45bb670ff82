// The same package from CommonJS TypeScript: `require` gives the same typed functions.
import fastlines = require('fastlines')

export async function typedRequire(): Promise<number> {
  let total = 0
  for await (const line of fastlines.readLines('app.log', { highWaterMark: 4096 })) total += line.length
  // @ts-expect-error: there is no such export
  fastlines.readLine('app.log')
  return total + (await fastlines.countLines('app.log'))
}
