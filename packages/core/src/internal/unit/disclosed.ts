/**
 * What one execution unit has disclosed of one kind of entry — the tool ids it activated, the
 * resource URIs it revealed — as an ordered set in a `Ref` made in the unit's `Scope`. Adding is
 * idempotent and keeps first-added order (a stable order keeps provider prompt caches warm). With a
 * capacity, adding past it drops the entries used least recently (added or `touch`ed): the loaded-set
 * cap of a long-lived unit such as a gateway session. Once the scope closes every use is a defect
 * (`UnitClosed`): a reference kept past its unit cannot carry state into another.
 *
 * One implementation for every kind: the unit holds one set per kind.
 *
 * @internal
 */
import { Effect, Ref } from "effect"
import type { Scope } from "effect"

/** An ordered set of keys that lives as long as the scope that made it. */
export interface Disclosed {
  /** Adds keys (idempotent); returns those that were not in the set before and are in it now, in order. */
  readonly add: (keys: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<string>>
  /** The keys, in the order they were first added. */
  readonly values: Effect.Effect<ReadonlyArray<string>>
  readonly has: (key: string) => Effect.Effect<boolean>
  /** Marks a key as just used, so a capacity drops it last; unknown keys are ignored. */
  readonly touch: (key: string) => Effect.Effect<void>
  /** Removes keys (unknown keys are ignored): what a stored copy of the unit lost elsewhere. */
  readonly remove: (keys: ReadonlyArray<string>) => Effect.Effect<void>
}

interface State {
  /** Keys in the order they were first added. */
  readonly keys: ReadonlyArray<string>
  /** Last use of each key, by a counter that only grows. */
  readonly used: ReadonlyMap<string, number>
  readonly clock: number
}

/**
 * A set holding `initial` (a copy, its last `capacity` keys when it is over), closed with the current
 * scope; `closed` makes the defect of a late use.
 */
export const make = (
  initial: ReadonlyArray<string>,
  options: { readonly capacity?: number | undefined; readonly closed: () => unknown }
): Effect.Effect<Disclosed, never, Scope.Scope> =>
  // made in one step with its finalizer (every turn and fork makes two of these)
  Effect.suspend(() => {
    const capacity = options.capacity === undefined ? Number.POSITIVE_INFINITY : Math.max(1, options.capacity)
    const start = [...new Set(initial)].slice(-capacity)
    // `undefined` marks a closed set.
    const ref = Ref.makeUnsafe<State | undefined>({
      keys: start,
      used: new Map(start.map((key, i) => [key, i + 1])),
      clock: start.length
    })
    const closed = Effect.suspend(() => Effect.die(options.closed()))
    const current = Effect.flatMap(Ref.get(ref), (state) => state === undefined ? closed : Effect.succeed(state))

    const add = (keys: ReadonlyArray<string>) =>
      Effect.flatMap(
        Ref.modify(ref, (state): readonly [ReadonlyArray<string> | undefined, State | undefined] => {
          if (state === undefined) return [undefined, state]
          const used = new Map(state.used)
          let clock = state.clock
          const added: Array<string> = []
          for (const key of keys) {
            if (!used.has(key) && !added.includes(key)) added.push(key)
            used.set(key, ++clock)
          }
          if (added.length === 0 && clock === state.clock) return [[], state]
          let kept = added.length === 0 ? state.keys : [...state.keys, ...added]
          if (kept.length > capacity) {
            // drop the least recently used until the capacity holds
            const order = [...kept].sort((a, b) => (used.get(a) ?? 0) - (used.get(b) ?? 0))
            const gone = new Set(order.slice(0, kept.length - capacity))
            kept = kept.filter((key) => !gone.has(key))
            for (const key of gone) used.delete(key)
          }
          return [added.filter((key) => used.has(key)), { keys: kept, used, clock }]
        }),
        (added) => added === undefined ? closed : Effect.succeed(added)
      )

    const touch = (key: string) =>
      Effect.flatMap(
        Ref.modify(ref, (state): readonly [boolean, State | undefined] => {
          if (state === undefined) return [false, state]
          if (!state.used.has(key)) return [true, state]
          const used = new Map(state.used)
          used.set(key, state.clock + 1)
          return [true, { ...state, used, clock: state.clock + 1 }]
        }),
        (open) => open ? Effect.void : closed
      )

    const remove = (keys: ReadonlyArray<string>) =>
      Effect.flatMap(
        Ref.modify(ref, (state): readonly [boolean, State | undefined] => {
          if (state === undefined) return [false, state]
          const gone = new Set(keys.filter((key) => state.used.has(key)))
          if (gone.size === 0) return [true, state]
          const used = new Map(state.used)
          for (const key of gone) used.delete(key)
          return [true, { ...state, keys: state.keys.filter((key) => !gone.has(key)), used }]
        }),
        (open) => open ? Effect.void : closed
      )

    const disclosed: Disclosed = {
      add,
      remove,
      values: Effect.map(current, (state) => state.keys),
      has: (key) => Effect.map(current, (state) => state.used.has(key)),
      touch
    }
    return Effect.as(Effect.addFinalizer(() => Ref.set(ref, undefined)), disclosed)
  })
