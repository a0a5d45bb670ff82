// The line contract's inputs, as bytes, for the specs that read them another way than
// lines.spec.mjs does (readLastLines, reader.position): the same edge cases, Latin-1 cases and
// read-boundary straddlers, so that every reader is held to the same inputs. lines.spec.mjs
// checks readLines itself on them against readline and the reference.
import { bytesOf } from './lines-reference.mjs'

/** Every read size from 1 to 16 bytes: terminators and characters land on every boundary. */
export const SMALL_READS = Array.from({ length: 16 }, (_, i) => i + 1)

/** Larger read sizes, the default (undefined) last. */
export const LARGER_READS = [17, 64, 4096, undefined]

/** Every read size the specs try. */
export const EVERY_READ_SIZE = [...SMALL_READS, ...LARGER_READS]

/** [name, bytes] of the UTF-8 edge cases. */
export const EDGE_INPUTS = [
  ['empty file', ''],
  ['a lone LF', '\n'],
  ['a lone CR', '\r'],
  ['CRLF', '\r\n'],
  ['LF LF', '\n\n'],
  ['CR CR', '\r\r'],
  ['CRLF CRLF', '\r\n\r\n'],
  ['LF CR', '\n\r'],
  ['CR CRLF', 'a\r\r\nb'],
  ['only terminators', '\r\n\n\r\r\n\n\r\n\r'],
  ['no final terminator', 'one\ntwo'],
  ['every terminator', 'one\ntwo\r\nthree\rfour\n'],
  ['blank lines between text', '\na\n\nb\r\rc\r\n\r\n'],
  ['empty lines only', '\n\n\n\n\n'],
  ['BOM at start is kept', bytesOf([0xef, 0xbb, 0xbf], 'bom\nx')],
  ['a BOM alone', bytesOf([0xef, 0xbb, 0xbf])],
  ['BOM mid-file is kept', 'a\n\uFEFFb\uFEFF'],
  ['NUL bytes are kept', 'a\0b\n\0\n\0'],
  ['U+2028, U+2029, NEL, FF and VT are not terminators', 'a\u2028b\u2029c\u0085d\fe\vf\n\u2028\r\n\u2029'],
  ['2-, 3- and 4-byte characters', 'é中😀\r\n😀中é\ré'],
  ['lone continuation bytes', bytesOf('a', [0x80], 'b', [0xbf, 0x80], '\n', [0xa9])],
  [
    'overlong encodings',
    bytesOf([0xc0, 0xaf], '|', [0xc1, 0xbf], '|', [0xe0, 0x80, 0xaf], '|', [0xf0, 0x80, 0x80, 0xaf]),
  ],
  ['surrogates encoded in UTF-8', bytesOf([0xed, 0xa0, 0x80], '\n', [0xed, 0xbf, 0xbf], '\n', [0xed, 0x9f, 0xbf])],
  [
    'above U+10FFFF and F5..FF bytes',
    bytesOf([0xf4, 0x90, 0x80, 0x80], '|', [0xf4, 0x8f, 0xbf, 0xbf], '|', [0xf5, 0xf8, 0xfc, 0xfe, 0xff]),
  ],
  [
    'truncated sequences mid-line',
    bytesOf([0xc3], 'x', [0xe4, 0xb8], 'x', [0xf0, 0x9f, 0x98], 'x', [0xf0, 0x9f, 0x98], '中'),
  ],
  [
    'truncated sequences before terminators',
    bytesOf('caf', [0xe9], '\n', [0xe4, 0xb8], '\r\n', [0xf0, 0x9f, 0x98], '\rz\n', [0xc3], '\r'),
  ],
  ['a truncated 2-byte sequence at EOF', bytesOf('caf', [0xc3])],
  ['a truncated 3-byte sequence at EOF', bytesOf('a\n', [0xe4, 0xb8])],
  ['a truncated 4-byte sequence at EOF', bytesOf('x', [0xf0, 0x9f, 0x98])],
  ['a lead byte alone after the final terminator', bytesOf('\r\n', [0xe4])],
  ['a Latin-1 byte at EOF', bytesOf('caf', [0xe9])],
  ['an F5 byte at EOF', bytesOf('a', [0xf5])],
  [
    'long and short lines, mixed terminators',
    bytesOf('x'.repeat(40), '\r\n', 'y'.repeat(33), '\r\r\n', 'z'.repeat(20)),
  ],
].map(([name, input]) => [name, bytesOf(input)])

const NON_TERMINATORS = [...Array(256).keys()].filter((byte) => byte !== 0x0a && byte !== 0x0d)

/** [name, bytes] read as Latin-1. */
export const LATIN1_INPUTS = [
  ['every byte but the terminators', bytesOf(NON_TERMINATORS, '\n')],
  ['high bytes between terminators', bytesOf([0xe9], '\r', [0xff, 0x80], '\r\n', [0xc3, 0xa9], '\n\n', [0x85, 0xa0])],
  ['a UTF-8 BOM is three characters', bytesOf([0xef, 0xbb, 0xbf], 'x\r')],
  ['U+2028 bytes are three characters', bytesOf('\u2028\n')],
]

/** [name, token]: each is put at every offset of every small read. */
export const STRADDLERS = [
  ['é', 'é'],
  ['中', '中'],
  ['😀', '😀'],
  ['U+2028', '\u2028'],
  ['BOM', '\uFEFF'],
  ['CRLF', '\r\n'],
  ['LF', '\n'],
  ['CR', '\r'],
  ['CR CRLF', '\r\r\n'],
  ['CRLF after 😀', '😀\r\n'],
  ['truncated 中', [0xe4, 0xb8]],
  ['truncated 😀', [0xf0, 0x9f, 0x98]],
  ['surrogate', [0xed, 0xa0, 0x80]],
  ['overlong', [0xc0, 0xaf]],
  ['truncated 中 before CRLF', [0xe4, 0xb8, 0x0d, 0x0a]],
]

/**
 * The straddler inputs for one token: padded so that the token lands at every offset of a read,
 * counted from the start of the file (`pad` bytes before it) and from its end (`pad` bytes
 * after it), since forward and backward readers cut reads from opposite ends.
 */
export function straddlerInputs(token, maxPad = SMALL_READS.length) {
  const inputs = []
  for (let pad = 0; pad < maxPad; pad++) {
    inputs.push(bytesOf('x'.repeat(pad), token, '|', token, token))
    inputs.push(bytesOf(token, '\n', token, 'y'.repeat(pad)))
    inputs.push(bytesOf(token, 'z'.repeat(pad), token, '\n'))
  }
  return inputs
}
