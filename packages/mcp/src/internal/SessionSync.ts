/**
 * A gateway session's loaded tools, kept in step with a stored copy (`SessionState`): before a
 * request the session adopts what the store holds and it lacks (a restarted gateway resuming the
 * session, or another instance that served it meanwhile); after a call that changed what is loaded
 * the session writes its whole set back. Adopting only adds, so a store that cannot answer (or
 * answers nothing) never takes tools away from a live session.
 *
 * @internal
 */
import { Unit } from "@tool-search/core"
import { Effect, Option } from "effect"
import type { SessionView } from "./SessionView.js"

/** A session's link to its stored copy. */
export interface Persisted {
  /** The tools the stored session has loaded now; `None` when nothing is stored (or readable). */
  readonly load: Effect.Effect<Option.Option<ReadonlyArray<string>>>
  /** Stores the tools the session has loaded now. */
  readonly save: (tools: ReadonlyArray<string>) => Effect.Effect<void>
}

/** The two steps around a request; both do nothing without a stored copy. */
export interface SessionSync {
  /** Loads into the session what the stored copy has and it lacks. */
  readonly adopt: Effect.Effect<void>
  /** Writes the session's loaded tools back, if they changed since last read or written. */
  readonly store: Effect.Effect<void>
}

/** Keeps the session's unit in step with `persisted`. */
export const make = (view: Pick<SessionView, "inUnit">, persisted: Persisted | undefined): SessionSync => {
  if (persisted === undefined) return { adopt: Effect.void, store: Effect.void }
  // what the stored copy holds, as last read or written
  let known = ""
  const adopt = Effect.gen(function*() {
    const stored = yield* persisted.load
    if (Option.isNone(stored)) return
    yield* view.inUnit(Unit.restore(stored.value))
    known = JSON.stringify(stored.value)
  })
  const store = Effect.gen(function*() {
    const ids = yield* view.inUnit(Unit.snapshot)
    const now = JSON.stringify(ids)
    if (now === known) return
    known = now
    yield* persisted.save(ids)
  })
  return { adopt, store }
}
