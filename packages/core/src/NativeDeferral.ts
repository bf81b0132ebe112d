/**
 * The contract between an agent that sends deferred tools "the provider's way" (the executor's
 * `native` delivery) and a provider that can express it, such as Anthropic's Messages API with
 * `defer_loading: true` tools and `tool_reference` blocks. Both sides only read `effect/ai` values,
 * so the channel is `effect/ai`'s own extension points:
 *
 * - a tool annotated `DeferLoading` is sent deferred: its definition is in the request, but not in
 *   the model's context until a tool result references it;
 * - a tool result whose part options carry `references` names the tools it loads (Anthropic:
 *   `tool_reference` blocks in the `tool_result` content);
 * - `Support`, provided next to a `LanguageModel`, says whether the provider does either. An agent
 *   asking for `native` delivery on a model that does not fails at configuration with the
 *   provider's name and the reason.
 *
 * A provider that ignores the annotation sends every deferred tool in full: the request is still
 * valid, only larger — which is why `native` is refused, not degraded, where it is not supported.
 *
 * @since 0.2.0
 */
import { Context } from "effect"
import type { Prompt, Tool } from "effect/ai"

// -----------------------------------------------------------------------------
// Tools
// -----------------------------------------------------------------------------

/**
 * An `effect/ai` tool annotation: `true` asks the provider to send the tool deferred (Anthropic's
 * `defer_loading: true`). Unlike `CatalogTool.Deferred`, which classifies a tool in the catalog,
 * this one is about one request.
 *
 * ```ts
 * const sent = Tool.dynamic("weather_forecast", { parameters }).annotate(NativeDeferral.DeferLoading, true)
 * ```
 *
 * @since 0.2.0
 * @category annotations
 */
export const DeferLoading = Context.Reference<boolean>("@tool-search/core/NativeDeferral/DeferLoading", {
  defaultValue: () => false
})

/**
 * Whether a tool of a request is to be sent deferred.
 *
 * @since 0.2.0
 * @category annotations
 */
export const isDeferred = (tool: Tool.Any): boolean => Context.get(tool.annotations, DeferLoading)

// -----------------------------------------------------------------------------
// Tool results
// -----------------------------------------------------------------------------

/** The key of the part options this module writes (`effect/ai` keys options by their owner). */
const KEY = "toolSearch"

/**
 * The part options of a tool result that loads `names` (Anthropic: one `tool_reference` block per
 * name replaces the result's text).
 *
 * @since 0.2.0
 * @category tool results
 */
export const references = (names: ReadonlyArray<string>): Prompt.ToolResultPartOptions => ({
  [KEY]: { toolReferences: [...names] }
})

/**
 * The tool names a tool result references; empty when it references none.
 *
 * @since 0.2.0
 * @category tool results
 */
export const referencesOf = (part: { readonly options: Prompt.ProviderOptions }): ReadonlyArray<string> => {
  const value = part.options[KEY]
  if (typeof value !== "object" || value === null || Array.isArray(value)) return []
  const names = (value as { readonly toolReferences?: unknown }).toolReferences
  return Array.isArray(names) ? names.filter((n): n is string => typeof n === "string") : []
}

// -----------------------------------------------------------------------------
// Support
// -----------------------------------------------------------------------------

/**
 * What the language model in context can do with deferred tools.
 *
 * @since 0.2.0
 * @category models
 */
export interface Capability {
  /** The provider and model, for messages (`anthropic:claude-sonnet-4-5`). */
  readonly provider: string
  /** Whether it sends `DeferLoading` tools deferred and turns `references` into loads. */
  readonly deferredTools: boolean
  /** Why not, when it cannot. */
  readonly reason?: string
}

/**
 * The deferred-tool support of the language model in context; a provider layer provides it next
 * to its `LanguageModel`. Without one: not supported.
 *
 * @since 0.2.0
 * @category services
 */
export const Support = Context.Reference<Capability>("@tool-search/core/NativeDeferral/Support", {
  defaultValue: () => ({
    provider: "the language model in context",
    deferredTools: false,
    reason: "its layer does not declare deferred-tool support (NativeDeferral.Support)"
  })
})
