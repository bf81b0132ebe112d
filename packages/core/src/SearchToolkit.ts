/**
 * Tool search for an existing `effect/ai` `Toolkit`.
 *
 * `layerFromToolkit` adds deferral in one step: mark the tools the model should find rather than
 * always see with the `CatalogTool.Deferred` annotation, and the layer builds the catalog (the
 * toolkit's tools with their handlers, ranked by BM25F unless told otherwise). Each turn then runs
 * as a unit (`ToolView.withUnit`), with the executor or with your own `generateText` loop
 * (`UnitToolkit` in `@tool-search/agent`).
 *
 * ```ts
 * const GetWeather = Tool.make("get_weather", { parameters: Schema.Struct({ city: Schema.String }) })
 *   .annotate(CatalogTool.Deferred, true)
 * const MyToolkit = Toolkit.make(ReadFile, GetWeather)
 * const Search = SearchToolkit.layerFromToolkit(MyToolkit).pipe(Layer.provide(MyToolkit.toLayer(handlers)))
 * ```
 *
 * `ToolSearch`, `toolkit` and `layer` are the search tool alone as an `effect/ai` tool, for a loop
 * that sends a fixed toolkit: merge `toolkit` into yours, provide `layer`, and run each turn with
 * `Unit.provide`. The handler finds the unit in the context of the call; without one it answers
 * with a clear error instead of searching some other unit's state.
 *
 * @since 0.1.0
 */
import { Effect, Layer, Option, Schema } from "effect"
import { Tool, Toolkit } from "effect/ai"
import * as CatalogTool from "./CatalogTool.js"
import * as Disclosure from "./Disclosure.js"
import type { DuplicateEntry, InvalidEntry } from "./Errors.js"
import * as Messages from "./internal/unit/messages.js"
import * as MetaTools from "./internal/unit/metaTools.js"
import { UnitService } from "./internal/unit/service.js"
import type { SearchStrategy } from "./SearchStrategy.js"
import * as Strategies from "./Strategies.js"
import * as ToolCatalogModule from "./ToolCatalog.js"
import type { ToolCatalog } from "./ToolCatalog.js"

// -----------------------------------------------------------------------------
// Deferral on an existing Toolkit
// -----------------------------------------------------------------------------

/**
 * What `layerFromToolkit` takes: how tools without a `Deferred` annotation load (default `eager`:
 * the annotation marks what is deferred), a category and source for all of them, and the search
 * strategy (default: BM25F).
 *
 * @since 0.2.0
 * @category models
 */
export interface LayerOptions extends CatalogTool.FromToolkitOptions {
  readonly strategy?: Layer.Layer<SearchStrategy>
}

/**
 * Accepts only toolkits whose handlers need nothing from a request's context: what a catalog shared
 * by every turn can hold (see `CatalogTool.SelfContained`).
 *
 * @since 0.2.0
 * @category models
 */
export type SelfContainedToolkit<Tools extends Record<string, Tool.Any>> =
  & Toolkit.Toolkit<Tools>
  & ([Tool.HandlerServices<Tools[keyof Tools]>] extends [never] ? unknown
    : { readonly "tools with request-level dependencies cannot join a catalog": never })

/**
 * A `ToolCatalog` (and its `SearchStrategy`) holding the tools of `toolkit`, with the handlers its
 * handler layer provides. Tools annotated `CatalogTool.Deferred` are deferred, the rest eager.
 *
 * **Example**
 *
 * ```ts
 * const Catalog = SearchToolkit.layerFromToolkit(MyToolkit).pipe(
 *   Layer.provide(MyToolkit.toLayer({ read_file: readFile, slack_send: sendMessage }))
 * )
 * ```
 *
 * @since 0.2.0
 * @category layers
 */
export const layerFromToolkit = <Tools extends Record<string, Tool.Any>>(
  toolkit: SelfContainedToolkit<Tools>,
  options: LayerOptions = {}
): Layer.Layer<
  ToolCatalog | SearchStrategy,
  InvalidEntry | DuplicateEntry,
  Tool.HandlersFor<Tools>
> => {
  const { strategy = Strategies.layer(Strategies.defaultName), ...rest } = options
  const toolkitEffect: Effect.Effect<Toolkit.WithHandler<Tools>, never, Tool.HandlersFor<Tools>> = toolkit
  const catalog = Layer.unwrap(Effect.map(toolkitEffect, (withHandlers) =>
    // `SelfContainedToolkit` proved that the handlers need no request-level services.
    ToolCatalogModule.layerWithTools(CatalogTool.fromToolkit(withHandlers as CatalogTool.SelfContained<Tools>, rest))))
  return catalog.pipe(Layer.provideMerge(strategy))
}

// -----------------------------------------------------------------------------
// ToolSearch alone, as an effect/ai tool
// -----------------------------------------------------------------------------

/** The default disclosure settings, whose limits `ToolSearch`'s schema states. */
const disclosure = Disclosure.Disclosure.defaultValue()

/**
 * `ToolSearch`, with the same schema the executor sends (`additionalProperties: false`).
 *
 * @since 0.1.0
 * @category tools
 */
const ToolSearch = Tool.dynamic(Disclosure.toolNames.toolSearch, {
  description: Messages.toolSearchDescription(disclosure.maxResultsLimit, disclosure.defaultMaxResults),
  parameters: Messages.toolSearchParameters(disclosure.maxResultsLimit, disclosure.defaultMaxResults),
  success: Schema.Unknown,
  failure: Schema.String,
  failureMode: "return"
})

/**
 * A toolkit holding `ToolSearch`; merge it with yours (`Toolkit.merge`).
 *
 * @since 0.1.0
 * @category tools
 */
export const toolkit = Toolkit.make(ToolSearch)

/** The answer when `ToolSearch` runs outside any execution unit. */
const NO_UNIT = "ToolSearch ran outside an execution unit: run each turn with Unit.provide"

/**
 * The handler of `ToolSearch`: searches and activates in the unit of the call. `effect/ai` handlers
 * cannot require services per call, so the unit is looked up in the call's context — a run-time
 * check: outside a unit it answers with an error naming `Unit.provide`, never another unit's state.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = toolkit.toLayer({
  ToolSearch: (params: unknown) =>
    Effect.serviceOption(UnitService).pipe(
      Effect.flatMap(Option.match({
        onNone: () => Effect.fail(NO_UNIT),
        onSome: (unit) =>
          Effect.flatMap(
            MetaTools.toolSearch(unit, params),
            (out) => out.isFailure ? Effect.fail(String(out.result)) : Effect.succeed(out.result)
          )
      }))
    )
})
