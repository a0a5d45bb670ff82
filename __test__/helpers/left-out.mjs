// What the runs of the suite on other runtimes than the main one leave out, as ava `--match`
// patterns with their reasons: the exhaustive series over inputs, cut points and read sizes.
// They take minutes on this machine (search and decompress together 90 s on its 2 cores, about
// 8 times as long under emulation), and they check the bytes fastlines' own code cuts, decodes
// and matches, which no runtime changes. Each series keeps its first group, so every code path
// still runs on every runtime; `npm test` runs them all on Node 20, and on Bun and Deno all but
// those checked against Node 24.
/**
 * The series that check each case against Node 24 in a child process: what they compare is
 * fastlines' native decompression with Node 24's zlib, whichever runtime hosts the test.
 */
export const CHECKED_AGAINST_NODE_24 = {
  '!*(seeded)*': 'random corruption series, each case checked against Node 24 in a child',
  '!*truncated at every byte*': 'a file cut at each of its bytes, each cut checked against Node 24 in a child',
}

/**
 * What only V8 (Node, Deno) has: Bun's JavaScriptCore makes no decision per allocation site, and
 * takes none of the V8 flags that make one show.
 */
export const V8_ONLY = {
  '!*pretenured by V8*': "V8's allocation-site pretenuring, which JavaScriptCore does not have",
}

export const EXHAUSTIVE_SERIES = {
  ...CHECKED_AGAINST_NODE_24,
  '!*group 2/*': 'exhaustive series: the first group only',
  '!*group 3/*': 'exhaustive series: the first group only',
  '!*group 4/*': 'exhaustive series: the first group only',
  '!*group 5/*': 'exhaustive series: the first group only',
  '!*group 6/*': 'exhaustive series: the first group only',
  '!*group 7/*': 'exhaustive series: the first group only',
  '!*group 8/*': 'exhaustive series: the first group only',
}

/** ava's arguments that leave out what `leftOut` names. */
export const leaveOut = (leftOut) => Object.keys(leftOut).map((pattern) => `--match=${pattern}`)
