/**
 * The state of one execution unit — activated tool ids (`Activation`), revealed resource URIs
 * (`RevealedResources`): an ordered set in a `Ref` made in the unit's `Scope`. Adding is
 * idempotent and keeps first-added order; once the scope closes, every use is a defect, so a
 * leaked reference cannot carry state from one turn into the next.
 *
 * @internal
 */
import { Effect, Ref } from "effect"
import type { Scope } from "effect"

/** An ordered set of keys that lives as long as the scope that made it. */
export interface UnitSet {
  /** Adds keys (idempotent); returns those that were not in the set before, in order. */
  readonly add: (keys: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<string>>
  /** The keys, in the order they were first added. */
  readonly values: Effect.Effect<ReadonlyArray<string>>
  readonly has: (key: string) => Effect.Effect<boolean>
}

/** A set holding `initial` (a copy), closed with the current scope; `closed` is the defect of a late use. */
export const make = (
  initial: ReadonlyArray<string>,
  closed: () => unknown
): Effect.Effect<UnitSet, never, Scope.Scope> =>
  Effect.gen(function*() {
    // `undefined` marks a closed set.
    const ref = yield* Ref.make<ReadonlyArray<string> | undefined>([...new Set(initial)])
    yield* Effect.addFinalizer(() => Ref.set(ref, undefined))
    const values = Effect.flatMap(
      Ref.get(ref),
      (keys) => keys === undefined ? Effect.die(closed()) : Effect.succeed(keys)
    )
    return {
      add: (keys) =>
        Effect.flatMap(
          Ref.modify(ref, (state): readonly [ReadonlyArray<string> | undefined, ReadonlyArray<string> | undefined] => {
            if (state === undefined) return [undefined, state]
            const known = new Set(state)
            const added = keys.filter((key) => !known.has(key) && (known.add(key), true))
            return [added, added.length === 0 ? state : [...state, ...added]]
          }),
          (added) => added === undefined ? Effect.die(closed()) : Effect.succeed(added)
        ),
      values,
      has: (key) => Effect.map(values, (keys) => keys.includes(key))
    }
  })
