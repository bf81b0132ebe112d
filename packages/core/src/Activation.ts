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

/** Using an activation after its scope closed: a programming error, raised as a defect. */
export class ActivationClosed extends Schema.TaggedError<ActivationClosed>()("ActivationClosed", {}) {
  override get message(): string {
    return "This activation belongs to a turn or fork whose scope has closed"
  }
}

/** The activation state of one execution unit. */
export class Activation extends Context.Service<Activation, {
  /** Activates ids (idempotent); returns the ids that were not active before, in order. */
  readonly activate: (ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<string>>
  /** Active ids, in activation order. */
  readonly ids: Effect.Effect<ReadonlyArray<string>>
  readonly has: (id: string) => Effect.Effect<boolean>
}>()("@tool-search/core/Activation") {
  /** A fresh, empty activation bound to the scope that builds the layer. */
  static readonly layer: Layer.Layer<Activation> = Layer.effect(Activation, Effect.suspend(() => make([])))
  /**
   * A fresh activation that starts with `ids` — for session policies that carry tools over, and for
   * forks that explicitly copy a snapshot of their parent's. The copy is independent of its origin.
   */
  static readonly layerFrom = (ids: ReadonlyArray<string>): Layer.Layer<Activation> =>
    Layer.effect(Activation, Effect.suspend(() => make(ids)))
}

/** A fresh activation in the current scope; it ends when the scope closes. */
export const make = (initial: ReadonlyArray<string>): Effect.Effect<Activation["Service"], never, Scope.Scope> =>
  Effect.gen(function*() {
    const set = yield* UnitSet.make(initial, () => new ActivationClosed())
    return Activation.of({ activate: set.add, ids: set.values, has: set.has })
  })
