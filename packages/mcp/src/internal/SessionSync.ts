/**
 * A gateway session's loaded tools, kept in step with a stored copy (`SessionState`):
 *
 * - `adopt`, when the session opens on this process (resumed after a restart, or first served
 *   here): it loads what the stored copy holds;
 * - `store`, after a request that changed what is loaded: the session writes what it loaded and
 *   unloaded since the copy was last read or written;
 * - `refresh`, when another instance changed the stored copy (or a call names a tool this copy does
 *   not have): the session loads what the copy gained and unloads what it lost — never what this
 *   process itself changed and has not stored yet.
 *
 * A store that cannot answer (or answers nothing) never takes tools away from a live session. The
 * three steps run one at a time.
 *
 * @internal
 */
import { Unit } from "@tool-search/core"
import { Effect, Option, Semaphore } from "effect"
import type { Change } from "../SessionState.js"
import type { SessionView } from "./SessionView.js"

/** A session's link to its stored copy. */
export interface Persisted {
  /** The tools the stored session has loaded now; `None` when nothing is stored (or readable). */
  readonly load: Effect.Effect<Option.Option<ReadonlyArray<string>>>
  /** Stores what the session loaded and unloaded. */
  readonly change: (change: Change) => Effect.Effect<void>
  /** Waits until another instance changed the stored copy. */
  readonly changed?: Effect.Effect<void>
}

/** The steps around a session's requests; all do nothing without a stored copy. */
export interface SessionSync {
  /** Loads into the session what the stored copy has and it lacks. */
  readonly adopt: Effect.Effect<void>
  /** Writes what the session loaded and unloaded since the copy was last read or written. */
  readonly store: Effect.Effect<void>
  /** Follows the stored copy: what it gained is loaded, what it lost unloaded; true when that changed anything. */
  readonly refresh: Effect.Effect<boolean>
}

/** Keeps the session's unit in step with `persisted`. */
export const make = (
  view: Pick<SessionView, "inUnit">,
  persisted: Persisted | undefined
): Effect.Effect<SessionSync> =>
  Effect.map(Semaphore.make(1), (lock): SessionSync => {
    if (persisted === undefined) return { adopt: Effect.void, store: Effect.void, refresh: Effect.succeed(false) }
    // what the stored copy holds, as last read or written
    let known: ReadonlySet<string> = new Set()

    const adopt = lock.withPermits(1)(Effect.gen(function*() {
      const stored = yield* persisted.load
      if (Option.isNone(stored)) return
      yield* view.inUnit(Unit.restore(stored.value))
      known = new Set(stored.value)
    }))

    const store = lock.withPermits(1)(Effect.gen(function*() {
      const ids = yield* view.inUnit(Unit.snapshot)
      const now = new Set(ids)
      const loaded = ids.filter((id) => !known.has(id))
      const unloaded = [...known].filter((id) => !now.has(id))
      if (loaded.length === 0 && unloaded.length === 0) return
      known = now
      yield* persisted.change({ loaded, unloaded })
    }))

    const refresh = lock.withPermits(1)(Effect.gen(function*() {
      const stored = yield* persisted.load
      if (Option.isNone(stored)) return false
      const desired = new Set(stored.value)
      const local = yield* view.inUnit(Unit.snapshot)
      const here = new Set(local)
      // gained elsewhere: in the copy, not here, and not unloaded here since the copy was last read
      const gained = stored.value.filter((id) => !here.has(id) && !known.has(id))
      // lost elsewhere: here, stored before, gone from the copy (what this process loaded and has not stored stays)
      const lost = local.filter((id) => known.has(id) && !desired.has(id))
      known = desired
      // unloads first: loading what was gained must not push out what the copy still has
      if (lost.length > 0) yield* view.inUnit(Unit.unload(lost))
      if (gained.length > 0) yield* view.inUnit(Unit.restore(gained))
      return gained.length > 0 || lost.length > 0
    }))

    return { adopt, store, refresh }
  })
