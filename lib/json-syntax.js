// Where a line stops being JSON, for the message of a line JSON.parse refused: the engines say it
// differently (V8 gives a position, JavaScriptCore none), so readJsonLines finds the place
// itself, with the same wording on every runtime. Only lines that failed to parse come here.
'use strict'

const SPACE = new Set([0x20, 0x09, 0x0a, 0x0d])
const DIGITS = /[0-9]+/y
/** What may follow a backslash in a string, but `u`. */
const ESCAPED = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't'])
const HEX_DIGIT = /^[0-9a-fA-F]$/
const LITERALS = ['true', 'false', 'null']

/**
 * Where `text` is first not a single JSON text (RFC 8259), and what was there: `{ index,
 * message }`, index in UTF-16 units; null if it is one (then JSON.parse failed for another
 * reason, such as a reviver that threw). Iterative: nesting as deep as JSON.parse takes.
 */
function jsonSyntaxFailure(text) {
  const scan = new Scan(text)
  /** The closers of the arrays and objects open around the current place, innermost last. */
  const open = []
  for (;;) {
    // A value is expected here.
    scan.skipSpace()
    const c = scan.peek()
    if (c === '[' || c === '{') {
      scan.index++
      scan.skipSpace()
      const closer = c === '[' ? ']' : '}'
      if (scan.peek() === closer) scan.index++
      else {
        open.push(closer)
        if (closer === '}' && !scan.key()) return scan.failure
        continue
      }
    } else if (!scan.scalar()) return scan.failure
    // A value ended here: what may follow it.
    for (;;) {
      scan.skipSpace()
      if (open.length === 0) {
        if (scan.atEnd()) return null
        scan.unexpected('non-whitespace character after JSON')
        return scan.failure
      }
      const closer = open[open.length - 1]
      const next = scan.peek()
      if (next === closer) {
        scan.index++
        open.pop()
      } else if (next === ',') {
        scan.index++
        if (closer === '}' && !scan.key()) return scan.failure
        break
      } else {
        scan.unexpected()
        return scan.failure
      }
    }
  }
}

/** A place in the text being checked, and the failure found, if any. */
class Scan {
  index = 0
  failure = null

  constructor(text) {
    this.text = text
  }

  atEnd() {
    return this.index >= this.text.length
  }

  /** The character here (a whole code point), or undefined at the end. */
  peek() {
    if (this.atEnd()) return undefined
    return String.fromCodePoint(this.text.codePointAt(this.index))
  }

  skipSpace() {
    while (!this.atEnd() && SPACE.has(this.text.charCodeAt(this.index))) this.index++
  }

  /** Records the failure here; returns false. */
  unexpected(what = undefined) {
    const message = this.atEnd() ? 'Unexpected end of JSON input' : `Unexpected ${what ?? `token '${this.peek()}'`}`
    this.failure = { index: Math.min(this.index, this.text.length), message }
    return false
  }

  /** An object's key and its colon, after the `{` or `,` before them. */
  key() {
    this.skipSpace()
    if (this.peek() !== '"') return this.unexpected()
    if (!this.string()) return false
    this.skipSpace()
    if (this.peek() !== ':') return this.unexpected()
    this.index++
    return true
  }

  /** A string, a number, or true, false or null. */
  scalar() {
    const c = this.peek()
    if (c === '"') return this.string()
    if (c === '-' || (c >= '0' && c <= '9')) return this.number()
    const literal = LITERALS.find((word) => word[0] === c)
    if (literal === undefined) return this.unexpected()
    // Fails at the first character that differs, as the engines do.
    for (const expected of literal) {
      if (this.text[this.index] !== expected) return this.unexpected()
      this.index++
    }
    return true
  }

  /**
   * A number, failing where V8 does: at the first character that is not the digit a minus
   * sign, a decimal point or an exponent needs, or at a digit after a leading zero, which is
   * the whole integer part (V8: `Unexpected number`).
   */
  number() {
    if (this.peek() === '-') {
      this.index++
      if (!this.integer()) return this.failHere('No number after minus sign')
    } else this.integer()
    // Digits are stepped over whole, so one here follows a leading zero.
    const next = this.text[this.index]
    if (next >= '0' && next <= '9') return this.failHere('Unexpected number')
    if (this.text[this.index] === '.') {
      this.index++
      if (!this.digits()) return this.failHere('Unterminated fractional number')
    }
    if (this.text[this.index] === 'e' || this.text[this.index] === 'E') {
      this.index++
      if (this.text[this.index] === '+' || this.text[this.index] === '-') this.index++
      if (!this.digits()) return this.failHere('Exponent part is missing a number')
    }
    return true
  }

  /** An integer part here (`0`, or digits not starting with 0), stepped over; false if none. */
  integer() {
    if (this.text[this.index] === '0') {
      this.index++
      return true
    }
    return this.digits()
  }

  /** Digits here, stepped over; false if there are none. */
  digits() {
    DIGITS.lastIndex = this.index
    const found = DIGITS.exec(this.text)
    if (found === null) return false
    this.index += found[0].length
    return true
  }

  /** Records `message` as the failure here; returns false. */
  failHere(message) {
    this.failure = { index: this.index, message }
    return false
  }

  /** A string from its opening quote: no raw control characters, only JSON's escapes. */
  string() {
    this.index++
    for (;;) {
      if (this.atEnd()) return this.unexpected()
      const code = this.text.charCodeAt(this.index)
      if (code === 0x22) {
        this.index++
        return true
      }
      if (code === 0x5c) {
        if (!this.escape()) return false
      } else if (code < 0x20) return this.failHere('Bad control character in string literal')
      else this.index++
    }
  }

  /** An escape from its backslash, failing where V8 does: at the first character it refuses. */
  escape() {
    this.index++
    if (this.atEnd()) return this.unexpected()
    const escaped = this.text[this.index]
    if (ESCAPED.has(escaped)) {
      this.index++
      return true
    }
    if (escaped !== 'u') return this.failHere('Bad escaped character')
    this.index++
    for (let digit = 0; digit < 4; digit++) {
      if (this.atEnd() || !HEX_DIGIT.test(this.text[this.index])) return this.failHere('Bad Unicode escape')
      this.index++
    }
    return true
  }
}

module.exports = { jsonSyntaxFailure }
