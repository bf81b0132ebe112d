/**
 * Whether the database answers, for the whole store: one warning when it goes (whichever part of
 * the store saw it first) and one line when it is back, with how long it was away and what was
 * held meanwhile — never a line per request.
 *
 * @internal
 */
import { Clock, Effect, Ref } from "effect"
import type { StoreUnavailable } from "../StoreError.js"

/** The store's view of the database. */
export interface Reachability {
  /** The database did not complete an operation: logged when it was reachable until now. */
  readonly lost: (error: StoreUnavailable) => Effect.Effect<void>
  /** The database completed an operation: logged when it was away, with `summary` (what was held). */
  readonly back: (summary: () => string) => Effect.Effect<void>
  /** Whether the last operation completed. */
  readonly reachable: Effect.Effect<boolean>
}

/** A reachability report for `database`; `consequence` says what happens while it is away. */
export const make = (database: string, consequence: string): Effect.Effect<Reachability> =>
  Effect.map(Ref.make<number | undefined>(undefined), (since) => ({
    lost: (error) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.flatMap(
          Ref.getAndUpdate(since, (s) => s ?? now),
          (was) => was === undefined ? Effect.logWarning(`${error.message}. ${consequence}`) : Effect.void
        )),
    back: (summary) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.flatMap(
          Ref.getAndSet(since, undefined),
          (was) =>
            was === undefined ? Effect.void : Effect.suspend(() => {
              const held = summary()
              return Effect.logInfo(
                `The database ${database} answers again after ${((now - was) / 1000).toFixed(1)} s${
                  held === "" ? "" : `: ${held}`
                }`
              )
            })
        )),
    reachable: Effect.map(Ref.get(since), (s) => s === undefined)
  }))
