// Type checks that hold across realms, as Node's own `util.types` checks do: a Buffer or
// Uint8Array made in a `vm` context (or by code a test runner such as Jest loads into one) is
// no `instanceof` this realm's Uint8Array.
'use strict'

/** %TypedArray%.prototype's Symbol.toStringTag getter: the array's kind, or undefined for anything else. */
const typedArrayKind = Object.getOwnPropertyDescriptor(
  Object.getPrototypeOf(Uint8Array.prototype),
  Symbol.toStringTag,
).get

/** Whether `value` is a Uint8Array (a Buffer is one) of any realm. */
function isUint8Array(value) {
  return value instanceof Uint8Array || typedArrayKind.call(value) === 'Uint8Array'
}

module.exports = { isUint8Array }
