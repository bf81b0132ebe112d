/**
 * A session's search budget over time: its searches run one at a time, and together they may take
 * at most `millisPerMinute` of search time per minute (a bucket that refills continuously). A
 * search started with the bucket empty is refused with a result that says when to retry, so one
 * session's costly searches (expensive patterns, huge `max_results`) cannot fill the process's time
 * and delay the searches of other sessions; the other sessions' budgets are untouched.
 *
 * Time is Effect's `Clock`: tests drive it with `TestClock`.
 *
 * @internal
 */
import { Clock, Effect, Semaphore } from "effect"
import { type Answer, result, textResult } from "./Calls.js"

/** A session's search, within its budget. */
export const make = <R>(
  millisPerMinute: number,
  search: (params: Record<string, unknown>, requestId: string) => Effect.Effect<Answer, never, R>
): (params: Record<string, unknown>, requestId: string) => Effect.Effect<Answer, never, R> => {
  const one = Semaphore.makeUnsafe(1)
  const capacity = Math.max(1, millisPerMinute)
  let tokens = capacity
  let refilledAt: number | undefined
  const refill = (now: number) => {
    if (refilledAt !== undefined) tokens = Math.min(capacity, tokens + ((now - refilledAt) * capacity) / 60_000)
    refilledAt = now
  }
  return (params, requestId) =>
    one.withPermits(1)(Effect.gen(function*() {
      const started = yield* Clock.currentTimeMillis
      refill(started)
      if (tokens <= 0) {
        const wait = Math.ceil(((1 - tokens) * 60_000) / capacity / 1000)
        return result(textResult(
          `Search refused: this session used its search time (searchBudget: ${millisPerMinute} ms per minute). ` +
            `Retry in ${wait} s, or use the tools already loaded.`,
          true
        ))
      }
      const answer = yield* search(params, requestId)
      const now = yield* Clock.currentTimeMillis
      refill(now)
      tokens -= now - started
      return answer
    }))
}
