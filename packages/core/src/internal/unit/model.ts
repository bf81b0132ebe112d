/**
 * The shapes a unit deals in — the tools it sends, their outputs, the calls it runs — and its
 * errors. `Unit` re-exports them; internal modules import them from here, not from `Unit`.
 *
 * @internal
 */
import { Schema } from "effect"
import type { Effect, JsonSchema } from "effect"
import type * as CatalogTool from "../../CatalogTool.js"
import type { InvalidQuery } from "../../Query.js"
import type { ResourceReadError } from "../../Resource.js"
import type { SearchFailed } from "../../SearchStrategy.js"
import type * as ToolCatalogModule from "../../ToolCatalog.js"
import type { UnitService } from "./service.js"

/** The capability of one unit in `R`. */
type Unit = UnitService

/**
 * A tool as the model is sent it, and how it runs — in the unit of the call.
 */
export interface ModelTool {
  readonly name: string
  readonly description: string
  readonly parameters: JsonSchema.JsonSchema
  /** `meta` for the search, resource and dispatcher tools, `eager` for always-visible tools, `activated` for found ones. */
  readonly kind: "meta" | "eager" | "activated"
  /** The catalog tool behind it; absent for meta tools. */
  readonly entry?: ToolCatalogModule.Entry
  readonly run: (
    params: unknown,
    context: CatalogTool.CallContext
  ) => Effect.Effect<Output, CatalogTool.ToolExecutionError, Unit>
}

/**
 * A tool result, with what a meta tool found and activated (for progress events).
 */
export interface Output extends CatalogTool.Output {
  /** Model names (or resource URIs) the call found (meta tools only). */
  readonly found?: ReadonlyArray<string>
  /** Model names the call activated that were not active before (meta tools only). */
  readonly activated?: ReadonlyArray<string>
}

/**
 * One call as the model made it.
 */
export interface Call {
  readonly id: string
  readonly name: string
  readonly params: unknown
  /** The dispatcher the model called this tool through (`call_tool`), when it did not call it by name. */
  readonly via?: string
}

/**
 * Why a call of a tool, a resource or a prompt was refused before anything ran: the `hint` is the
 * message, written for the model, naming the call that fixes it.
 */
export class Refused extends Schema.TaggedError<Refused>()("Refused", {
  kind: Schema.Literals(["tool", "resource", "prompt"]),
  name: Schema.String,
  reason: Schema.Literals(["unknown", "not-active", "not-permitted", "invalid-request"]),
  hint: Schema.String
}) {
  override get message(): string {
    return this.hint
  }
}

/**
 * What a resource request can fail with.
 */
export type ResourceError = Refused | ResourceReadError | SearchFailed | InvalidQuery

/**
 * A unit was asked to start with tool ids that no tool this agent may use has.
 */
export class UnknownTools extends Schema.TaggedError<UnknownTools>()("UnknownTools", {
  ids: Schema.Array(Schema.String)
}) {
  override get message(): string {
    return `Unknown tool ids: ${this.ids.join(", ")} (a unit starts with catalog ids, as a turn reports them)`
  }
}

/**
 * A unit's state was used after the unit ended: a programming error, raised as a defect.
 */
export class UnitClosed extends Schema.TaggedError<UnitClosed>()("UnitClosed", {}) {
  override get message(): string {
    return "This state belongs to a turn or fork that has ended"
  }
}
