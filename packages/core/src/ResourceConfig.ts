/**
 * The resource settings, declared once as a table of `Setting`s like `ToolSearchConfig`: how many
 * results the resource tools return, how long snippets and excerpts are, how much `read_resource`
 * reads, and how long a read may take. `layerConfig` provides `ResourceDisclosure` from them.
 *
 * @since 0.2.0
 */
import { Config, Effect, Layer, Option } from "effect"
import * as ResourceDisclosure from "./ResourceDisclosure.js"
import * as Setting from "./Setting.js"

const d = ResourceDisclosure.ResourceDisclosure.defaultValue()

/**
 * Every resource setting: its variable, flag, values, default and description.
 *
 * @since 0.2.0
 * @category settings
 */
export const settings = {
  resourceMaxResults: Setting.make("resourceMaxResults", {
    schema: Setting.Int(1),
    default: d.defaultMaxResults,
    values: "integer, 1 to `TOOL_SEARCH_RESOURCE_MAX_RESULTS_LIMIT`",
    description: "resources or passages when the model gives no `max` (`sample_resources`, `search_resources`)"
  }),
  resourceMaxResultsLimit: Setting.make("resourceMaxResultsLimit", {
    schema: Setting.Int(1),
    default: d.maxResultsLimit,
    values: "integer ≥ 1",
    description: "larger `max` of the resource tools are clamped to it"
  }),
  resourceSnippetLength: Setting.make("resourceSnippetLength", {
    schema: Setting.Int(20),
    default: d.snippetLength,
    values: "integer ≥ 20",
    description: "characters of the snippet `sample_resources` shows per resource"
  }),
  resourceExcerptLength: Setting.make("resourceExcerptLength", {
    schema: Setting.Int(20),
    default: d.excerptLength,
    values: "integer ≥ 20",
    description: "characters of the excerpt `search_resources` shows per passage"
  }),
  resourceReadLength: Setting.make("resourceReadLength", {
    schema: Setting.Int(1),
    default: d.defaultReadLength,
    values: "integer, 1 to `TOOL_SEARCH_RESOURCE_MAX_READ_LENGTH`",
    description: "characters `read_resource` returns when the model gives no `length`"
  }),
  resourceMaxReadLength: Setting.make("resourceMaxReadLength", {
    schema: Setting.Int(1),
    default: d.maxReadLength,
    values: "integer ≥ 1",
    description: "larger `length` of `read_resource` are clamped to it; also bounds a rendered prompt"
  }),
  resourceReadTimeout: Setting.make("resourceReadTimeout", {
    schema: Setting.Int(1),
    default: 30,
    values: "seconds, integer ≥ 1",
    description: "how long one read or prompt rendering may take"
  })
}

/**
 * The resource settings from the `ConfigProvider` in context (the environment unless one was
 * provided), checked together: a default above its limit is an error naming both variables.
 */
const config: Config.Config<ResourceDisclosure.Options> = Setting.options(settings).pipe(
  Config.mapEffect((v) => {
    const or = <A>(o: Option.Option<A>, fallback: A): A => Option.getOrElse(o, () => fallback)
    const limit = or(v.resourceMaxResultsLimit, d.maxResultsLimit)
    const max = or(v.resourceMaxResults, Math.min(d.defaultMaxResults, limit))
    const maxRead = or(v.resourceMaxReadLength, d.maxReadLength)
    const read = or(v.resourceReadLength, Math.min(d.defaultReadLength, maxRead))
    if (max > limit) {
      return Effect.fail(Setting.invalid(
        settings.resourceMaxResults.env,
        `${max} exceeds ${settings.resourceMaxResultsLimit.env} (${limit})`
      ))
    }
    if (read > maxRead) {
      return Effect.fail(Setting.invalid(
        settings.resourceReadLength.env,
        `${read} exceeds ${settings.resourceMaxReadLength.env} (${maxRead})`
      ))
    }
    return Effect.succeed<ResourceDisclosure.Options>({
      defaultMaxResults: max,
      maxResultsLimit: limit,
      snippetLength: or(v.resourceSnippetLength, d.snippetLength),
      excerptLength: or(v.resourceExcerptLength, d.excerptLength),
      defaultReadLength: read,
      maxReadLength: maxRead,
      readTimeout: `${or(v.resourceReadTimeout, 30)} seconds`
    })
  })
)

/**
 * Provides `ResourceDisclosure` from the environment; fails with a `ConfigError` naming the first
 * invalid variable.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerConfig: Layer.Layer<never, Config.ConfigError> = Layer.unwrap(
  Effect.map(config, (options) => ResourceDisclosure.layer(options))
)
