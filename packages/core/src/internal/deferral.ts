/**
 * The rules that read the disclosure settings for one unit: whether it defers at all, whether
 * `staged` mode offers `search_tools`, and the result count a search honours.
 *
 * @internal
 */
import type * as Disclosure from "../Disclosure.js"
import * as Clamp from "./clamp.js"

/**
 * Whether tools are deferred when `searchableCount` tools could be: see `Options.defer`.
 */
export const defers = (options: Pick<Disclosure.Options, "defer">, searchableCount: number): boolean =>
  options.defer === "always" || (options.defer !== "never" && searchableCount >= options.defer)

/**
 * Whether `staged` mode offers `search_tools` over `searchableCount` searchable tools. An explicit
 * `true` or `false` always wins; only `"auto"` consults the size threshold, so an agent that opted
 * in (for example to force discovery first) gets the tool even in a seven-tool catalog.
 */
export const offersSearchTools = (options: Disclosure.Options, searchableCount: number): boolean =>
  options.mode === "staged" &&
  (options.searchTools === true || (options.searchTools === "auto" && searchableCount >= options.searchToolsThreshold))

/**
 * Clamps a requested `max_results` (tools) or `max` (resources) into [1, limit]; non-numbers give
 * the default. One rule for both kinds: their settings share the two names.
 */
export const clampMaxResults = (
  requested: unknown,
  options: Pick<Disclosure.Options, "defaultMaxResults" | "maxResultsLimit">
): number => Clamp.count(requested, options.defaultMaxResults, options.maxResultsLimit)
