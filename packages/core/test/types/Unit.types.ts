/**
 * Type tests, checked by `tsc -b` (never run): a unit's lifetime is in the types.
 *
 * - There is no service object to take out of a unit: the leak of issue 20,
 *   `ToolView.withUnit(Effect.gen(function*() { return yield* ToolView.ToolView }))`, has nothing to
 *   name — neither `ToolView` nor a `Unit` value exists.
 * - An effect taken out of its unit still requires `Unit`: it cannot run until a new unit is
 *   provided.
 * - There is no unit layer to provide once around two turns: `Unit.session` is the deliberate,
 *   named form of a shared unit.
 */
import { Effect } from "effect"
import type { ToolCatalog } from "../../src/index.js"
import * as Core from "../../src/index.js"
import { Unit } from "../../src/index.js"

// @ts-expect-error the view of a unit is not a service anyone can hold: there is no ToolView
// oxlint-disable-next-line import/namespace
export const noToolView = Core.ToolView

// @ts-expect-error `Unit` is a type (the capability in R), not a value to yield and keep
export const noUnitValue = Unit.Unit

/** An effect of a unit, returned out of it. */
const leaked = Unit.provide(Effect.succeed(Unit.tools))

/** Running it needs a new unit: its requirements still name `Unit`. */
// @ts-expect-error the leaked effect requires Unit, which nothing outside a unit provides
export const leakNeedsAUnit: Effect.Effect<unknown, never, ToolCatalog.ToolCatalog> = Effect.flatten(leaked)

/** Provided a new unit, it runs — in that unit. */
export const leakInANewUnit: Effect.Effect<unknown, never, ToolCatalog.ToolCatalog> = Unit.provide(
  Effect.flatten(leaked)
)

// @ts-expect-error there is no unit layer to provide around two turns: a shared unit is `Unit.session`
// oxlint-disable-next-line import/namespace
export const noUnitLayer = Unit.layer

/** The deliberate form: one unit shared by every effect it is provided to. */
export const sharedOnPurpose = Effect.all([Unit.tools, Unit.tools]).pipe(Effect.provide(Unit.session()))
