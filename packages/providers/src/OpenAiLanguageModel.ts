/**
 * A `LanguageModel` over OpenAI's Chat Completions API, which OpenAI serves and which every
 * OpenAI-compatible server speaks: Ollama, vLLM, LM Studio, OpenRouter, llama.cpp, TGI. One wire
 * format, one mapping (`OpenAiChatCompletions`), for all of them — the reason this provider uses
 * Chat Completions rather than OpenAI's newer Responses API, which only OpenAI serves.
 *
 * Each request is bounded in time and response size by the shared HTTP client, and every failure
 * is the `AiError` `effect/ai` expects. `streamText` replays one buffered request as stream parts:
 * no incremental streaming.
 *
 * @since 0.2.0
 */
import { NativeDeferral } from "@tool-search/core"
import { Effect, Layer, type Redacted, type Schema, Stream } from "effect"
import { LanguageModel } from "effect/ai"
import { HttpClient } from "effect/http"
import * as HttpJson from "./internal/httpJson.js"
import { toStreamParts } from "./internal/parts.js"
import * as OpenAiChatCompletions from "./OpenAiChatCompletions.js"

// -----------------------------------------------------------------------------
// Options
// -----------------------------------------------------------------------------

/**
 * Where and how to call a Chat Completions endpoint. Limits default to 120 seconds per request,
 * 8 MiB per response body and 2 retries.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options extends OpenAiChatCompletions.RequestSettings, HttpJson.Limits {
  /** The API root (`https://api.openai.com/v1`, `http://localhost:11434/v1`). */
  readonly baseUrl: string
  /** Sent as `Authorization: Bearer`; local servers need none. */
  readonly apiKey?: Redacted.Redacted<string> | undefined
}

/**
 * OpenAI's API root.
 *
 * @since 0.2.0
 * @category constants
 */
export const defaultBaseUrl = "https://api.openai.com/v1"

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
    const module = options.module ?? "OpenAI"
    const endpoint = HttpJson.bearerEndpoint({
      module,
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      ...HttpJson.limitsOf(options, { timeout: "120 seconds", maxResponseBytes: 8 * 1024 * 1024 })
    })
    const generateText = (providerOptions: LanguageModel.ProviderOptions) =>
      OpenAiChatCompletions.toRequest(providerOptions, { ...options, module }).pipe(
        Effect.flatMap((body) =>
          HttpJson.post(client, endpoint, {
            method: "generateText",
            path: "/chat/completions",
            body,
            schema: OpenAiChatCompletions.ChatCompletion as Schema.Codec<OpenAiChatCompletions.ChatCompletion, unknown>
          })
        ),
        Effect.flatMap(OpenAiChatCompletions.fromResponse)
      )
    return yield* LanguageModel.make({
      generateText,
      streamText: (providerOptions) =>
        Stream.fromIterableEffect(Effect.map(generateText(providerOptions), toStreamParts))
    })
  })

/**
 * What Chat Completions can do with deferred tools: nothing. OpenAI's tool search (`defer_loading`
 * with a `tool_search` tool) exists in the Responses API only, which this provider does not speak;
 * OpenAI-compatible servers have no standard for it.
 *
 * @since 0.2.0
 * @category constructors
 */
export const support = (options: Pick<Options, "model" | "module">): NativeDeferral.Capability => {
  const compatible = options.module !== undefined && options.module !== "OpenAI"
  return {
    provider: `${compatible ? "openai-compatible" : "openai"}:${options.model}`,
    deferredTools: false,
    reason: compatible
      ? "OpenAI-compatible servers have no standard for deferred tools"
      : "Chat Completions cannot express deferred tools (OpenAI's tool search is in the Responses API only)"
  }
}

/**
 * The language model as a layer, with its `NativeDeferral.Support` (none).
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<LanguageModel.LanguageModel, never, HttpClient.HttpClient> =>
  Layer.merge(
    Layer.effect(LanguageModel.LanguageModel, make(options)),
    Layer.succeed(NativeDeferral.Support, support(options))
  )
