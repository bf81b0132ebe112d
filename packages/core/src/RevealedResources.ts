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
import { Context, Effect, Layer, Schema } from "effect"
import type { Scope } from "effect"
import * as UnitSet from "./internal/unitSet.js"

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
 * The operations of one unit's revealed set.
 *
 * @since 0.2.0
 * @category models
 */
export interface Service {
  /** Reveals URIs (idempotent); returns those that were not revealed before, in order. */
  readonly reveal: (uris: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<string>>
  /** Revealed URIs, in reveal order. */
  readonly uris: Effect.Effect<ReadonlyArray<string>>
  readonly has: (uri: string) => Effect.Effect<boolean>
}

/**
 * A fresh set in the current scope; it ends when the scope closes.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (initial: ReadonlyArray<string>): Effect.Effect<Service, never, Scope.Scope> =>
  Effect.map(
    UnitSet.make(initial, () => new RevealedResourcesClosed()),
    (set): Service => ({ reveal: set.add, uris: set.values, has: set.has })
  )

/**
 * The revealed resources of one execution unit, by URI (a template's URI reveals its family).
 *
 * @since 0.2.0
 * @category services
 */
export class RevealedResources
  extends Context.Service<RevealedResources, Service>()("@tool-search/core/RevealedResources")
{
  /** A fresh, empty set bound to the scope that builds the layer. */
  static readonly layer: Layer.Layer<RevealedResources> = Layer.effect(RevealedResources, make([]))
  /** A fresh set that starts with `uris` (an explicit copy, independent of its origin). */
  static readonly layerSeeded = (uris: ReadonlyArray<string>): Layer.Layer<RevealedResources> =>
    Layer.effect(RevealedResources, make(uris))
}
