/**
 * A `LanguageModel` over Anthropic's Messages API (`POST /v1/messages`); the mapping to and from
 * the wire is `AnthropicMessages`. Each request is bounded in time and response size by the
 * shared HTTP client, and every failure is the `AiError` `effect/ai` expects. `streamText` replays
 * one buffered request as stream parts: no incremental streaming. The layer declares
 * `NativeDeferral.Support`: Messages defers tools (`defer_loading`) and loads them from
 * `tool_reference` blocks, so the executor's `native` delivery runs on it.
 *
 * @since 0.2.0
 */
import { NativeDeferral } from "@tool-search/core"
import { Effect, Layer, type Redacted, type Schema, Stream } from "effect"
import { LanguageModel } from "effect/ai"
import { HttpClient } from "effect/http"
import * as AnthropicMessages from "./AnthropicMessages.js"
import * as HttpJson from "./internal/httpJson.js"
import { toStreamParts } from "./internal/parts.js"

// -----------------------------------------------------------------------------
// Options
// -----------------------------------------------------------------------------

/**
 * Where and how to call the Messages API. Limits default to 120 seconds per request, 8 MiB per
 * response body and 2 retries.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options extends AnthropicMessages.RequestSettings, HttpJson.Limits {
  /** Sent as `x-api-key`. */
  readonly apiKey: Redacted.Redacted<string>
  /** The API root (default `https://api.anthropic.com/v1`). */
  readonly baseUrl?: string
  /** `anthropic-beta` features to enable. */
  readonly betas?: ReadonlyArray<string>
}

/**
 * Anthropic's API root.
 *
 * @since 0.2.0
 * @category constants
 */
export const defaultBaseUrl = "https://api.anthropic.com/v1"

// -----------------------------------------------------------------------------
// Layer
// -----------------------------------------------------------------------------

/**
 * The language model, over the `HttpClient` in context.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<LanguageModel.LanguageModel, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const endpoint: HttpJson.Endpoint = {
      module: "Anthropic",
      baseUrl: (options.baseUrl ?? defaultBaseUrl).replace(/\/+$/, ""),
      headers: {
        "x-api-key": options.apiKey,
        "anthropic-version": AnthropicMessages.apiVersion,
        ...(options.betas === undefined || options.betas.length === 0
          ? {}
          : { "anthropic-beta": options.betas.join(",") })
      },
      ...HttpJson.limitsOf(options, { timeout: "120 seconds", maxResponseBytes: 8 * 1024 * 1024 })
    }
    const generateText = (providerOptions: LanguageModel.ProviderOptions) =>
      AnthropicMessages.toRequest(providerOptions, options).pipe(
        Effect.flatMap((body) =>
          HttpJson.post(client, endpoint, {
            method: "generateText",
            path: "/messages",
            body,
            schema: AnthropicMessages.MessagesResponse as Schema.Codec<AnthropicMessages.MessagesResponse, unknown>
          })
        ),
        Effect.map(AnthropicMessages.fromResponse)
      )
    return yield* LanguageModel.make({
      generateText,
      streamText: (providerOptions) =>
        Stream.fromIterableEffect(Effect.map(generateText(providerOptions), toStreamParts)),
      // Messages has no system role in the conversation: system messages join the top-level prompt
      supportsSystemMessagesInHistory: Effect.succeed(false)
    })
  })

/**
 * What Messages can do with deferred tools: defer them and load them from references.
 *
 * @since 0.2.0
 * @category constructors
 */
export const support = (options: Pick<Options, "model">): NativeDeferral.Capability => ({
  provider: `anthropic:${options.model}`,
  deferredTools: true
})

/**
 * The language model as a layer, with its `NativeDeferral.Support`.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<LanguageModel.LanguageModel, never, HttpClient.HttpClient> =>
  Layer.merge(
    Layer.effect(LanguageModel.LanguageModel, make(options)),
    Layer.succeed(NativeDeferral.Support, support(options))
  )
