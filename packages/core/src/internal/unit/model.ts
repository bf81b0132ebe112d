/**
 * The shapes a unit deals in — the tools it sends, their outputs, the calls it runs — and its
 * errors. `Unit` re-exports them; internal modules import them from here, not from `Unit`.
 *
 * @internal
 */
import type { Effect, JsonSchema } from "effect"
import type * as CatalogTool from "../../CatalogTool.js"
import type * as ToolCatalogModule from "../../ToolCatalog.js"
import type { UnitService } from "./service.js"

import type { InvalidQuery, Refused, ResourceReadError, SearchFailed, ToolExecutionError } from "../../Errors.js"

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
  ) => Effect.Effect<Output, ToolExecutionError, Unit>
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
 * What a resource request can fail with.
 */
export type ResourceError = Refused | ResourceReadError | SearchFailed | InvalidQuery
