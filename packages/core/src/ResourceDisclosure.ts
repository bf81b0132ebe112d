/**
 * What the resource tools show and read, per agent: how many results `sample_resources` and
 * `search_resources` return, how long snippets and excerpts are, how much `read_resource` reads by
 * default and at most, and how long a read may take. Policy data with defaults, read by
 * `ResourceView`; provide it with `ResourceDisclosure.layer({...})`, or from the environment with
 * `ResourceConfig.layerConfig`.
 *
 * @since 0.2.0
 */
import { Context, type Duration, Layer } from "effect"

/**
 * The resource disclosure settings of one agent.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** Results when the model gives no `max`. */
  readonly defaultMaxResults: number
  /** Upper bound of `max`; larger requests are clamped, not rejected. */
  readonly maxResultsLimit: number
  /** Characters of the snippet `sample_resources` shows per resource (level 2). */
  readonly snippetLength: number
  /** Characters of the excerpt `search_resources` shows per passage (level 3). */
  readonly excerptLength: number
  /** Characters `read_resource` returns when the model gives no `length` (level 4). */
  readonly defaultReadLength: number
  /** Upper bound of `length`; also bounds the text of a rendered prompt. */
  readonly maxReadLength: number
  /** How long one read or prompt rendering may take. */
  readonly readTimeout: Duration.Input
}

/**
 * The defaults: 5 results (at most 20), 200-character snippets, 300-character excerpts, reads of
 * 4,000 characters (at most 20,000), 30 seconds per read.
 *
 * @since 0.2.0
 * @category models
 */
const defaults: Options = {
  defaultMaxResults: 5,
  maxResultsLimit: 20,
  snippetLength: 200,
  excerptLength: 300,
  defaultReadLength: 4_000,
  maxReadLength: 20_000,
  readTimeout: "30 seconds"
}

/**
 * The settings in context; defaults when none were provided.
 *
 * @since 0.2.0
 * @category services
 */
export const ResourceDisclosure = Context.Reference<Options>("@tool-search/core/ResourceDisclosure", {
  defaultValue: () => defaults
})

/**
 * Provides settings, each field defaulting as in `defaults`.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (options: Partial<Options>): Layer.Layer<never> =>
  Layer.succeed(ResourceDisclosure, { ...defaults, ...options })
