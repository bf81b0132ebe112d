/**
 * Which catalog tools exist for an agent at all. A tool outside the visibility policy is never
 * listed, never returned by a search and never executable — for the model it does not exist.
 * The default includes every tool; policies such as strict mode, connected sources and platform
 * allow-lists are built on this hook.
 *
 * @since 0.1.0
 */
import { Context, Layer } from "effect"
import type { Entry } from "./ToolCatalog.js"

/** A visibility policy. */
export interface Policy {
  /** Whether the tool exists for this agent. */
  readonly includes: (tool: Entry) => boolean
}

/** Every tool exists. */
export const everything: Policy = { includes: () => true }

/** The visibility policy in context; everything unless one is provided. */
export const Visibility = Context.Reference<Policy>("@tool-search/core/Visibility", {
  defaultValue: () => everything
})

/** Provides a policy. */
export const layer = (policy: Policy): Layer.Layer<never> => Layer.succeed(Visibility, policy)
