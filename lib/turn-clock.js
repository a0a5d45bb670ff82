// How long JS that keeps ahead of its work may run on without letting the event loop turn:
// a reader handing out batches already read, a pump feeding chunks a source gives from memory.
'use strict'

/**
 * After this long without a turn, the code that keeps the clock lets the event loop turn once
 * (setImmediate: timers, I/O and immediates run), so that it never starves them. That turn is
 * cheap: asking the native side instead (a promise its thread settles) left a consumer that
 * works a millisecond per batch idle for 15% of a JSON Lines read.
 */
const MAX_MS_WITHOUT_A_TURN = 2

/**
 * What `#lastTurn` holds once the event loop has just turned: the clock is read at the next
 * check rather than at the turn. A reader fed a line per chunk turns once per line, and so
 * reads the clock once per line rather than twice.
 */
const JUST_TURNED = null

/** When the event loop last turned, as far as its keeper saw. */
class TurnClock {
  #lastTurn = JUST_TURNED

  /** The event loop just turned (or what was waited on had its turn). */
  turned() {
    this.#lastTurn = JUST_TURNED
  }

  /**
   * The event loop has not turned for longer than MAX_MS_WITHOUT_A_TURN. The clock is
   * `Date.now()`, the cheapest on every runtime, read once per check (per call on a quiet
   * machine: Node 48 ns against `process.uptime()`'s 125, Deno 55 against
   * `performance.now()`'s 102, Bun 38 against 45); its whole milliseconds make the bound 1-3
   * ms. A clock set back counts as overdue: one turn more, never a longer stretch without one.
   */
  overdue() {
    const now = Date.now()
    if (this.#lastTurn === JUST_TURNED) {
      this.#lastTurn = now
      return false
    }
    const elapsed = now - this.#lastTurn
    return elapsed >= MAX_MS_WITHOUT_A_TURN || elapsed < 0
  }
}

module.exports = { TurnClock }
