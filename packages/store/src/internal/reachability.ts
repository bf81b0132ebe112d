/**
 * Whether the database answered the last operation of one component (the session store, the
 * audit trail), logged on each change only: a warning when it goes, a line when it is back, so an
 * outage is visible once instead of once per turn.
 *
 * @internal
 */
import { Effect, Ref } from "effect"
import type { StoreUnavailable } from "../StoreError.js"

/** Reports for one component. */
export interface Reachability {
  /** The database did not complete an operation. */
  readonly lost: (error: StoreUnavailable) => Effect.Effect<void>
  /** The database completed an operation. */
  readonly back: Effect.Effect<void>
}

/** A reachability report for `component` (`Session store`, `Audit`); `consequence` says what happens meanwhile. */
export const make = (component: string, database: string, consequence: string): Effect.Effect<Reachability> =>
  Effect.map(Ref.make(true), (reachable) => ({
    lost: (error) =>
      Effect.flatMap(
        Ref.getAndSet(reachable, false),
        (was) => was ? Effect.logWarning(`${component}: ${error.message}. ${consequence}`) : Effect.void
      ),
    back: Effect.flatMap(
      Ref.getAndSet(reachable, true),
      (was) => was ? Effect.void : Effect.logInfo(`${component}: the database ${database} answers again`)
    )
  }))
