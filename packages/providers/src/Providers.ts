/**
 * Models built from the settings (`ProviderConfig`): the `LanguageModel` an agent talks to and
 * the `EmbeddingModel` semantic search uses, so an application, the `chat` and `run` commands or
 * `search --strategy semantic` get a real provider without writing a layer.
 *
 * | `TOOL_SEARCH_MODEL` | server | key |
 * |---|---|---|
 * | `openai:<model>` | OpenAI (or `TOOL_SEARCH_MODEL_URL`) | `OPENAI_API_KEY` |
 * | `anthropic:<model>` | Anthropic (or `TOOL_SEARCH_MODEL_URL`) | `ANTHROPIC_API_KEY` |
 * | `openai-compatible:<model>` | `TOOL_SEARCH_MODEL_URL` (Ollama, vLLM, LM Studio, OpenRouter) | `TOOL_SEARCH_MODEL_KEY`, if the server wants one |
 *
 * `TOOL_SEARCH_EMBEDDINGS` takes `openai:<model>` or `openai-compatible:<model>` the same way,
 * with `TOOL_SEARCH_EMBEDDINGS_URL` and `TOOL_SEARCH_EMBEDDINGS_KEY`. An OpenAI key is only ever
 * sent to the server of an `openai:` model; an `openai-compatible` server gets its own key.
 *
 * The layers need an `HttpClient` (`FetchHttpClient.layer` on Node 20). A missing model is
 * `ModelNotConfigured`, whose message says how to configure one; a missing key or URL is a
 * `ConfigError` naming the variable.
 *
 * @since 0.2.0
 */
import { Hybrid, OfflineEmbeddings, type SearchStrategy, Semantic, Setting, Strategies } from "@tool-search/core"
import { Config, Effect, Layer, Option, Schema } from "effect"
import type { EmbeddingModel, LanguageModel } from "effect/ai"
import type { HttpClient } from "effect/http"
import * as AnthropicLanguageModel from "./AnthropicLanguageModel.js"
import * as OpenAiEmbeddingModel from "./OpenAiEmbeddingModel.js"
import * as OpenAiLanguageModel from "./OpenAiLanguageModel.js"
import * as ProviderConfig from "./ProviderConfig.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * A language model the settings describe, with everything needed to call it.
 *
 * @since 0.2.0
 * @category models
 */
export type LanguageModelChoice =
  | {
    readonly provider: "openai" | "openai-compatible"
    readonly options: OpenAiLanguageModel.Options
  }
  | {
    readonly provider: "anthropic"
    readonly options: AnthropicLanguageModel.Options
  }

/**
 * An embedding model the settings describe.
 *
 * @since 0.2.0
 * @category models
 */
export interface EmbeddingModelChoice {
  readonly provider: ProviderConfig.EmbeddingProvider
  readonly options: OpenAiEmbeddingModel.Options
  /** The name its vectors are cached under. */
  readonly cacheName: string
}

// -----------------------------------------------------------------------------
// Errors
// -----------------------------------------------------------------------------

/**
 * How to configure a language model, for people.
 *
 * @since 0.2.0
 * @category errors
 */
export const howToConfigure = [
  "no language model is configured. Set TOOL_SEARCH_MODEL to one of:",
  "  openai:<model>              with OPENAI_API_KEY (e.g. openai:gpt-4.1-mini)",
  "  anthropic:<model>           with ANTHROPIC_API_KEY (e.g. anthropic:claude-sonnet-4-5)",
  "  openai-compatible:<model>   with TOOL_SEARCH_MODEL_URL (Ollama, vLLM, LM Studio, OpenRouter),",
  "                              e.g. openai-compatible:qwen3:8b and http://localhost:11434/v1",
  "See docs/providers.md."
].join("\n")

/**
 * `TOOL_SEARCH_MODEL` is not set.
 *
 * @since 0.2.0
 * @category errors
 */
export class ModelNotConfigured extends Schema.TaggedError<ModelNotConfigured>()("ModelNotConfigured", {}) {
  override get message(): string {
    return howToConfigure
  }
}

// -----------------------------------------------------------------------------
// Reading the settings
// -----------------------------------------------------------------------------

const { settings } = ProviderConfig

const required = <A>(value: A | undefined, name: string, reason: string): Effect.Effect<A, Config.ConfigError> =>
  value === undefined ? Effect.fail(Setting.invalid(name, reason)) : Effect.succeed(value)

/**
 * The language model the settings describe; `None` when `TOOL_SEARCH_MODEL` is unset. Fails
 * with a `ConfigError` naming the missing key or URL.
 *
 * @since 0.2.0
 * @category settings
 */
export const languageModelChoice: Config.Config<Option.Option<LanguageModelChoice>> = ProviderConfig.config.pipe(
  Config.mapEffect((s) =>
    Effect.gen(function*() {
      const spec = s.model
      if (spec === undefined) return Option.none()
      const common = {
        model: spec.model,
        maxOutputTokens: s.maxOutputTokens,
        timeout: `${s.modelTimeout} seconds`,
        retries: s.modelRetries
      } as const
      const named = `${spec.provider}:${spec.model}`
      switch (spec.provider) {
        case "openai":
          return Option.some<LanguageModelChoice>({
            provider: "openai",
            options: {
              ...common,
              baseUrl: s.modelUrl ?? OpenAiLanguageModel.defaultBaseUrl,
              apiKey: yield* required(s.openaiApiKey, settings.openaiApiKey.env, `is required for ${named}`),
              maxTokensField: "max_completion_tokens",
              module: "OpenAI"
            }
          })
        case "openai-compatible":
          return Option.some<LanguageModelChoice>({
            provider: "openai-compatible",
            options: {
              ...common,
              baseUrl: yield* required(
                s.modelUrl,
                settings.modelUrl.env,
                `is required for ${named}: the server's API root, e.g. http://localhost:11434/v1`
              ),
              apiKey: s.modelKey,
              maxTokensField: "max_tokens",
              module: "OpenAI-compatible"
            }
          })
        case "anthropic":
          return Option.some<LanguageModelChoice>({
            provider: "anthropic",
            options: {
              ...common,
              apiKey: yield* required(s.anthropicApiKey, settings.anthropicApiKey.env, `is required for ${named}`),
              promptCache: s.promptCache,
              ...(s.modelUrl === undefined ? {} : { baseUrl: s.modelUrl })
            }
          })
      }
    })
  )
)

/**
 * The embedding model the settings describe; `None` when `TOOL_SEARCH_EMBEDDINGS` is unset.
 *
 * @since 0.2.0
 * @category settings
 */
export const embeddingModelChoice: Config.Config<Option.Option<EmbeddingModelChoice>> = ProviderConfig.config.pipe(
  Config.mapEffect((s) =>
    Effect.gen(function*() {
      const spec = s.embeddings
      if (spec === undefined) return Option.none()
      const named = `${spec.provider}:${spec.model}`
      const options: OpenAiEmbeddingModel.Options = spec.provider === "openai"
        ? {
          model: spec.model,
          baseUrl: s.embeddingsUrl ?? OpenAiLanguageModel.defaultBaseUrl,
          apiKey: yield* required(s.openaiApiKey, settings.openaiApiKey.env, `is required for ${named}`),
          dimensions: s.embeddingsDimensions,
          retries: s.modelRetries,
          module: "OpenAI"
        }
        : {
          model: spec.model,
          baseUrl: yield* required(
            s.embeddingsUrl,
            settings.embeddingsUrl.env,
            `is required for ${named}: the server's API root, e.g. http://localhost:11434/v1`
          ),
          apiKey: s.embeddingsKey,
          dimensions: s.embeddingsDimensions,
          retries: s.modelRetries,
          module: "OpenAI-compatible"
        }
      return Option.some({
        provider: spec.provider,
        options,
        cacheName: OpenAiEmbeddingModel.cacheName(spec.provider, options)
      })
    })
  )
)

/**
 * A language model for people: `openai:gpt-4.1-mini at https://api.openai.com/v1`.
 *
 * @since 0.2.0
 * @category settings
 */
export const describe = (choice: LanguageModelChoice): string =>
  `${choice.provider}:${choice.options.model} at ${choice.options.baseUrl ?? AnthropicLanguageModel.defaultBaseUrl}`

// -----------------------------------------------------------------------------
// Layers
// -----------------------------------------------------------------------------

/**
 * The language model of a choice.
 *
 * @since 0.2.0
 * @category layers
 */
export const languageModelOf = (
  choice: LanguageModelChoice
): Layer.Layer<LanguageModel.LanguageModel, never, HttpClient.HttpClient> =>
  choice.provider === "anthropic"
    ? AnthropicLanguageModel.layer(choice.options)
    : OpenAiLanguageModel.layer(choice.options)

/**
 * The language model the settings describe (the `ConfigProvider` in context, the environment by
 * default).
 *
 * @since 0.2.0
 * @category layers
 */
export const languageModel: Layer.Layer<
  LanguageModel.LanguageModel,
  Config.ConfigError | ModelNotConfigured,
  HttpClient.HttpClient
> = Layer.unwrap(
  Effect.flatMap(
    languageModelChoice,
    Option.match({
      onNone: () => Effect.fail(new ModelNotConfigured()),
      onSome: (c) => Effect.succeed(languageModelOf(c))
    })
  )
)

/**
 * The embedding model the settings describe, or the offline model when none is configured.
 *
 * @since 0.2.0
 * @category layers
 */
export const embeddingModel: Layer.Layer<EmbeddingModel.EmbeddingModel, Config.ConfigError, HttpClient.HttpClient> =
  Layer.unwrap(
    Effect.map(
      embeddingModelChoice,
      Option.match({
        onNone: () => OfflineEmbeddings.layer,
        onSome: (c) => OpenAiEmbeddingModel.layer(c.options)
      })
    )
  )

/**
 * A built-in search strategy, with `semantic` and `hybrid` over the configured embedding model
 * (its vectors cached under its own name, in the `VectorCache.Store` in context) and the offline
 * model otherwise.
 *
 * @since 0.2.0
 * @category layers
 */
export const searchStrategy = (
  name: Strategies.Name,
  options: Strategies.Options = {}
): Layer.Layer<SearchStrategy.SearchStrategy, Config.ConfigError, HttpClient.HttpClient> => {
  if (name !== "semantic" && name !== "hybrid") return Strategies.layer(name, options)
  return Layer.unwrap(
    Effect.map(
      embeddingModelChoice,
      Option.match({
        onNone: () => Strategies.layer(name, options),
        onSome: (choice) => {
          const { cache: _none, ...defaults } = Semantic.defaults
          // no `cache`: the model's cache in the `VectorCache.Store` in context
          const semantic: Semantic.Options = {
            ...defaults,
            model: choice.cacheName,
            ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress })
          }
          const strategy = name === "semantic"
            ? Semantic.layerWith(semantic)
            : Hybrid.layerWith({ ...Hybrid.defaults, semantic })
          return strategy.pipe(Layer.provide(OpenAiEmbeddingModel.layer(choice.options)))
        }
      })
    )
  )
}
