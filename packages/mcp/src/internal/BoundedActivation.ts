/**
 * A session's activation with a cap: loading a tool past `capacity` unloads the one used least
 * recently (loaded or called). The order of what stays loaded is the order it was loaded in, so
 * the listed tools keep a stable order (provider prompt caches) while the set is bounded.
 *
 * It is the core `Activation` service, so a `ToolView` built over it behaves as over any other,
 * plus `touch` for calls. Like the core one it belongs to a scope: after the scope closed, using
 * it is a defect.
 *
 * @internal
 */
import { Activation, ActivationClosed } from "@tool-search/core"
import { Effect, Ref, type Scope } from "effect"

/** A bounded activation, and the one write the gateway adds to it. */
export interface BoundedActivation {
  readonly activation: Activation.Service
  /** Marks an active id as just used (a call), so it is unloaded last. */
  readonly touch: (id: string) => Effect.Effect<void>
  /** Unloads these ids (another instance unloaded them from the session's stored copy). */
  readonly unload: (ids: ReadonlyArray<string>) => Effect.Effect<void>
}

interface State {
  /** Active ids in activation order. */
  readonly ids: ReadonlyArray<string>
  /** Last use of each active id, by a counter that only grows. */
  readonly used: ReadonlyMap<string, number>
  readonly clock: number
}

/** A bounded activation in the current scope. */
export const make = (capacity: number): Effect.Effect<BoundedActivation, never, Scope.Scope> =>
  Effect.gen(function*() {
    const cap = Math.max(1, capacity)
    const ref = yield* Ref.make<State | undefined>({ ids: [], used: new Map(), clock: 0 })
    yield* Effect.addFinalizer(() => Ref.set(ref, undefined))
    const closed = Effect.die(new ActivationClosed())

    const current = Effect.flatMap(Ref.get(ref), (state) => state === undefined ? closed : Effect.succeed(state))

    const activate = (ids: ReadonlyArray<string>) =>
      Effect.flatMap(
        Ref.modify(ref, (state): readonly [ReadonlyArray<string> | undefined, State | undefined] => {
          if (state === undefined) return [undefined, state]
          const used = new Map(state.used)
          let clock = state.clock
          const added: Array<string> = []
          for (const id of ids) {
            if (!used.has(id) && !added.includes(id)) added.push(id)
            used.set(id, ++clock)
          }
          let kept = [...state.ids, ...added]
          if (kept.length > cap) {
            // unload the least recently used until the cap holds
            const order = [...kept].sort((a, b) => (used.get(a) ?? 0) - (used.get(b) ?? 0))
            const gone = new Set(order.slice(0, kept.length - cap))
            kept = kept.filter((id) => !gone.has(id))
            for (const id of gone) used.delete(id)
          }
          const newly = added.filter((id) => used.has(id))
          return [newly, { ids: kept, used, clock }]
        }),
        (added) => added === undefined ? closed : Effect.succeed(added)
      )

    const touch = (id: string) =>
      Effect.flatMap(
        Ref.modify(ref, (state): readonly [boolean, State | undefined] => {
          if (state === undefined) return [false, state]
          if (!state.used.has(id)) return [true, state]
          const used = new Map(state.used)
          used.set(id, state.clock + 1)
          return [true, { ...state, used, clock: state.clock + 1 }]
        }),
        (open) => open ? Effect.void : closed
      )

    const unload = (ids: ReadonlyArray<string>) =>
      Effect.flatMap(
        Ref.modify(ref, (state): readonly [boolean, State | undefined] => {
          if (state === undefined) return [false, state]
          const gone = new Set(ids)
          const used = new Map(state.used)
          for (const id of gone) used.delete(id)
          return [true, { ...state, ids: state.ids.filter((id) => !gone.has(id)), used }]
        }),
        (open) => open ? Effect.void : closed
      )

    return {
      unload,
      activation: Activation.Activation.of({
        activate,
        ids: Effect.map(current, (state) => state.ids),
        has: (id) => Effect.map(current, (state) => state.used.has(id))
      }),
      touch
    }
  })
