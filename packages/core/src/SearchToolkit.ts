/**
 * `ToolSearch` as an `effect/ai` tool, for apps that run their own `generateText` loop: add
 * `SearchToolkit.toolkit` to the toolkit you send, provide `SearchToolkit.layer`, and run each turn
 * with a `ToolView` in context (`ToolView.withUnit`). The handler finds the view of the calling
 * unit in the context of the call; without one it answers with a clear error instead of searching
 * some other unit's state.
 *
 * @since 0.1.0
 */
import { Effect, Option, Schema } from "effect"
import { Tool, Toolkit } from "effect/ai"
import * as Disclosure from "./Disclosure.js"
import * as MetaTools from "./MetaTools.js"
import { ToolView } from "./ToolView.js"

/** The message when a search tool runs outside any execution unit. */
export const NO_VIEW = "ToolView not available in tool context: run the turn with ToolView.withUnit"

/** `ToolSearch`, with the same schema the executor sends (`additionalProperties: false`). */
export const ToolSearch = Tool.dynamic(Disclosure.TOOL_SEARCH, {
  description: MetaTools.toolSearchDescription(
    Disclosure.defaults.maxResultsLimit,
    Disclosure.defaults.defaultMaxResults
  ),
  parameters: MetaTools.toolSearchParameters(
    Disclosure.defaults.maxResultsLimit,
    Disclosure.defaults.defaultMaxResults
  ),
  success: Schema.Unknown,
  failure: Schema.String,
  failureMode: "return"
})

/** A toolkit holding `ToolSearch`; merge it with yours (`Toolkit.merge`). */
export const toolkit = Toolkit.make(ToolSearch)

/** The handler of `ToolSearch`: searches and activates in the calling unit's view. */
export const layer = toolkit.toLayer({
  ToolSearch: (params: unknown) =>
    Effect.serviceOption(ToolView).pipe(
      Effect.flatMap(Option.match({
        onNone: () => Effect.fail(NO_VIEW),
        onSome: (view) =>
          Effect.flatMap(view.resolve(Disclosure.TOOL_SEARCH), (tool) => tool.run(params, { toolCallId: "" })).pipe(
            Effect.mapError((e) => e.message),
            Effect.flatMap((out) => out.isFailure ? Effect.fail(String(out.result)) : Effect.succeed(out.result))
          )
      }))
    )
})
