/**
 * How found tools reach the model: the delivery strategy decides the tool list of each request and
 * how the calls of a response are dispatched. `list` — the one built today — sends the visible
 * tools (activated ones join the list of the next request) and runs each call by its name. A
 * `result` delivery (a fixed list and a `call_tool {name, arguments}` dispatcher, so the request
 * prefix and the provider's cache hold) plugs in here: its `tools` is the fixed list, its
 * `dispatch` unwraps `call_tool` and runs the named tool through the same `UnitToolkit.handle`.
 */
import type { ToolView } from "@tool-search/core"
import type { Effect } from "effect"
import type { Prompt } from "effect/ai"
import type { Call } from "../UnitToolkit.js"
import type { Unit } from "./unit.js"

/** A delivery strategy. */
export interface Delivery {
  /** The tools of the next request of `unit`, in the order they are sent. */
  readonly tools: (unit: Unit) => Effect.Effect<ReadonlyArray<ToolView.ModelTool>>
  /** Runs the calls of one response; the tool message that answers them. */
  readonly dispatch: (unit: Unit, calls: ReadonlyArray<Call>) => Effect.Effect<Prompt.Prompt>
}

/** Activated tools join the tool list of the next request; calls run by name. */
export const list: Delivery = {
  tools: (unit) => unit.toolkit.tools,
  dispatch: (unit, calls) => unit.toolkit.resolve(calls)
}
