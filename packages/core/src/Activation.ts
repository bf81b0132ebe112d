/**
 * The tools activated in one execution unit — a turn or a fork — in activation order.
 *
 * An activation is a `Ref` created inside the unit's `Scope`: building `Activation.layer` in a
 * scope makes a fresh, empty one, and closing that scope ends it. Reading or writing it after its
 * scope closed is a defect (`ActivationClosed`), so a leaked reference cannot carry tools from one
 * turn into the next. Two units never share one: concurrent forks each build their own.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Schema } from "effect"
import type { Scope } from "effect"
import * as UnitSet from "./internal/unitSet.js"

/**
 * Using an activation after its scope closed: a programming error, raised as a defect.
 *
 * @since 0.1.0
 * @category errors
 */
export class ActivationClosed extends Schema.TaggedError<ActivationClosed>()("ActivationClosed", {}) {
  override get message(): string {
    return "This activation belongs to a turn or fork whose scope has closed"
  }
}

/**
 * The operations of one unit's activation.
 *
 * @since 0.2.0
 * @category models
 */
export interface Service {
  /** Activates ids (idempotent); returns the ids that were not active before, in order. */
  readonly activate: (ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<string>>
  /** Active ids, in activation order. */
  readonly ids: Effect.Effect<ReadonlyArray<string>>
  readonly has: (id: string) => Effect.Effect<boolean>
}

/**
 * A fresh activation in the current scope, holding a copy of `initial`; it ends when the scope closes.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (initial: ReadonlyArray<string>): Effect.Effect<Service, never, Scope.Scope> =>
  Effect.map(
    UnitSet.make(initial, () => new ActivationClosed()),
    (set): Service => ({ activate: set.add, ids: set.values, has: set.has })
  )

/**
 * The activation state of one execution unit.
 *
 * @since 0.1.0
 * @category services
 */
export class Activation extends Context.Service<Activation, Service>()("@tool-search/core/Activation") {
  /** A fresh, empty activation bound to the scope that builds the layer. */
  static readonly layer: Layer.Layer<Activation> = Layer.effect(Activation, make([]))
  /**
   * A fresh activation that starts with `ids` — for session policies that carry tools over, and for
   * forks that explicitly copy a snapshot of their parent's. The copy is independent of its origin.
   */
  static readonly layerSeeded = (ids: ReadonlyArray<string>): Layer.Layer<Activation> =>
    Layer.effect(Activation, make(ids))
}
