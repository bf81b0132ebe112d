/**
 * The resources revealed in one execution unit — a turn or a fork — in the order they were
 * revealed: the resource counterpart of `Activation`.
 *
 * A resource is revealed when `sample_resources` or `search_resources` shows it to the model; only
 * a revealed resource can be read (`read_resource`) or rendered (`get_prompt`), so what the model
 * did not reveal it cannot read. The set is a `Ref` created inside the unit's `Scope`: building
 * `RevealedResources.layer` in a scope makes a fresh, empty one, and closing that scope ends it.
 * Using it after its scope closed is a defect (`RevealedResourcesClosed`), so a leaked reference
 * cannot carry a reveal from one turn into the next; a fork builds its own and inherits nothing.
 *
 * @since 0.2.0
 */
import { Context, Effect, Layer, Ref, Schema } from "effect"
import type { Scope } from "effect"

/**
 * Using a revealed set after its scope closed: a programming error, raised as a defect.
 *
 * @since 0.2.0
 * @category errors
 */
export class RevealedResourcesClosed
  extends Schema.TaggedError<RevealedResourcesClosed>()("RevealedResourcesClosed", {})
{
  override get message(): string {
    return "This set of revealed resources belongs to a turn or fork whose scope has closed"
  }
}

/**
 * The revealed resources of one execution unit, by URI (a template's URI reveals its family).
 *
 * @since 0.2.0
 * @category services
 */
export class RevealedResources extends Context.Service<RevealedResources, {
  /** Reveals URIs (idempotent); returns those that were not revealed before, in order. */
  readonly reveal: (uris: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<string>>
  /** Revealed URIs, in reveal order. */
  readonly uris: Effect.Effect<ReadonlyArray<string>>
  readonly has: (uri: string) => Effect.Effect<boolean>
}>()("@tool-search/core/RevealedResources") {
  /** A fresh, empty set bound to the scope that builds the layer. */
  static readonly layer: Layer.Layer<RevealedResources> = Layer.effect(
    RevealedResources,
    Effect.suspend(() => make([]))
  )
  /** A fresh set that starts with `uris` (an explicit copy, independent of its origin). */
  static readonly layerFrom = (uris: ReadonlyArray<string>): Layer.Layer<RevealedResources> =>
    Layer.effect(RevealedResources, Effect.suspend(() => make(uris)))
}

/**
 * A fresh set in the current scope; it ends when the scope closes.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (
  initial: ReadonlyArray<string>
): Effect.Effect<RevealedResources["Service"], never, Scope.Scope> =>
  Effect.gen(function*() {
    // `undefined` marks a closed set.
    const ref = yield* Ref.make<ReadonlyArray<string> | undefined>([...new Set(initial)])
    yield* Effect.addFinalizer(() => Ref.set(ref, undefined))
    const current = Effect.flatMap(
      Ref.get(ref),
      (uris) => uris === undefined ? Effect.die(new RevealedResourcesClosed()) : Effect.succeed(uris)
    )
    return RevealedResources.of({
      reveal: (uris) =>
        Effect.flatMap(
          Ref.modify(ref, (state): readonly [ReadonlyArray<string> | undefined, ReadonlyArray<string> | undefined] => {
            if (state === undefined) return [undefined, state]
            const known = new Set(state)
            const added = uris.filter((uri) => !known.has(uri) && (known.add(uri), true))
            return [added, added.length === 0 ? state : [...state, ...added]]
          }),
          (added) => added === undefined ? Effect.die(new RevealedResourcesClosed()) : Effect.succeed(added)
        ),
      uris: current,
      has: (uri) => Effect.map(current, (uris) => uris.includes(uri))
    })
  })
