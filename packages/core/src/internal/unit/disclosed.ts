/**
 * What one execution unit has disclosed of one kind of entry — the tool ids it activated, the
 * resource URIs it revealed — as an ordered set in a `Ref` made in the unit's `Scope`. Adding is
 * idempotent and keeps first-added order (a stable order keeps provider prompt caches warm). With a
 * capacity, adding past it drops the entries used least recently (added or `touch`ed): the loaded-set
 * cap of a long-lived unit such as a gateway session. Once the scope closes every use is a defect
 * (`UnitClosed`): a reference kept past its unit cannot carry state into another.
 *
 * Each operation exists as an effect and, for the unit's own hot paths (every request and call reads
 * the set), as a synchronous function to call inside one of the unit's effects: the same code, and
 * the same defect once the scope is closed (thrown, so the effect around it dies with it).
 *
 * One implementation for every kind: the unit holds one set per kind.
 *
 * @internal
 */
import { Effect, MutableRef, Ref } from "effect"

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
  /** `add`, synchronously: only inside an effect of the unit (a closed set throws its defect). */
  readonly addNow: (keys: ReadonlyArray<string>) => ReadonlyArray<string>
  /** `values`, synchronously: only inside an effect of the unit. */
  readonly valuesNow: () => ReadonlyArray<string>
  /** `has`, synchronously: only inside an effect of the unit. */
  readonly hasNow: (key: string) => boolean
  /** `touch`, synchronously: only inside an effect of the unit. */
  readonly touchNow: (key: string) => void
}

interface State {
  /** Keys in the order they were first added. */
  readonly keys: ReadonlyArray<string>
  /** Last use of each key, by a counter that only grows. */
  readonly used: ReadonlyMap<string, number>
  readonly clock: number
}

/** How a set is made: its capacity, and the defect of a use after it closed. */
export interface Options {
  readonly capacity?: number | undefined
  readonly closed: () => unknown
}

/**
 * A set holding `initial` (a copy, its last `capacity` keys when it is over), and the function that
 * closes it (its owner, the unit, calls it from its one finalizer); `closed` makes the defect of a
 * late use.
 */
export const make = (
  initial: ReadonlyArray<string>,
  options: Options
): { readonly disclosed: Disclosed; readonly close: () => void } => {
  const capacity = options.capacity === undefined ? Number.POSITIVE_INFINITY : Math.max(1, options.capacity)
  const start = [...new Set(initial)].slice(-capacity)
  // `undefined` marks a closed set. Every change is one synchronous step: a fiber of the unit
  // reads and writes it without yielding in between.
  const ref = Ref.makeUnsafe<State | undefined>({
    keys: start,
    used: new Map(start.map((key, i) => [key, i + 1])),
    clock: start.length
  })
  const current = (): State => {
    const state = Ref.getUnsafe(ref)
    if (state === undefined) throw options.closed()
    return state
  }
  const set = (state: State) => MutableRef.set(ref.ref, state)

  const addNow = (keys: ReadonlyArray<string>): ReadonlyArray<string> => {
    const state = current()
    const used = new Map(state.used)
    let clock = state.clock
    const added: Array<string> = []
    for (const key of keys) {
      if (!used.has(key) && !added.includes(key)) added.push(key)
      used.set(key, ++clock)
    }
    if (added.length === 0 && clock === state.clock) return []
    let kept = added.length === 0 ? state.keys : [...state.keys, ...added]
    if (kept.length > capacity) {
      // drop the least recently used until the capacity holds
      const order = [...kept].sort((a, b) => (used.get(a) ?? 0) - (used.get(b) ?? 0))
      const gone = new Set(order.slice(0, kept.length - capacity))
      kept = kept.filter((key) => !gone.has(key))
      for (const key of gone) used.delete(key)
    }
    set({ keys: kept, used, clock })
    return added.filter((key) => used.has(key))
  }

  const touchNow = (key: string): void => {
    const state = current()
    if (!state.used.has(key)) return
    const used = new Map(state.used)
    used.set(key, state.clock + 1)
    set({ ...state, used, clock: state.clock + 1 })
  }

  const remove = (keys: ReadonlyArray<string>) =>
    Effect.sync(() => {
      const state = current()
      const gone = new Set(keys.filter((key) => state.used.has(key)))
      if (gone.size === 0) return
      const used = new Map(state.used)
      for (const key of gone) used.delete(key)
      set({ ...state, keys: state.keys.filter((key) => !gone.has(key)), used })
    })

  const valuesNow = () => current().keys
  const hasNow = (key: string) => current().used.has(key)
  const disclosed: Disclosed = {
    add: (keys) => Effect.sync(() => addNow(keys)),
    remove,
    values: Effect.sync(valuesNow),
    has: (key) => Effect.sync(() => hasNow(key)),
    touch: (key) => Effect.sync(() => touchNow(key)),
    addNow,
    valuesNow,
    hasNow,
    touchNow
  }
  return { disclosed, close: () => MutableRef.set(ref.ref, undefined) }
}
