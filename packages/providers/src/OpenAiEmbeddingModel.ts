/**
 * An `EmbeddingModel` over the OpenAI embeddings API (`POST /embeddings`), which OpenAI serves and
 * OpenAI-compatible servers speak: Ollama, vLLM, LM Studio, Hugging Face TEI. It shares the
 * HTTP client (timeouts, bounded responses, `AiError`s) with `OpenAiLanguageModel`.
 *
 * Inputs go in batches of `maxBatchSize` per request. An answer is checked before it is used:
 * one vector per input, each index once, every vector of one length and made of finite numbers —
 * a server that answers otherwise fails the call with an `InvalidResponseError` rather than
 * putting a wrong vector next to a tool.
 *
 * The model does not cache: the semantic strategy keeps vectors in its `VectorCache`, keyed by the
 * name `cacheName` gives (provider, model, server and dimensions), so vectors of one model are
 * never served for another.
 *
 * @since 0.2.0
 */
import { Effect, Layer, type Redacted, Schema } from "effect"
import { AiError, EmbeddingModel } from "effect/ai"
import { HttpClient } from "effect/http"
import * as HttpJson from "./internal/httpJson.js"

// -----------------------------------------------------------------------------
// Options
// -----------------------------------------------------------------------------

/**
 * Where and how to call an embeddings endpoint. Limits default to 60 seconds per request, 32 MiB
 * per response body and 2 retries.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options extends HttpJson.Limits {
  /** The model name the server knows (`text-embedding-3-small`, `nomic-embed-text`). */
  readonly model: string
  /** The API root (`https://api.openai.com/v1`, `http://localhost:11434/v1`). */
  readonly baseUrl: string
  /** Sent as `Authorization: Bearer`; local servers need none. */
  readonly apiKey?: Redacted.Redacted<string> | undefined
  /** Ask for vectors of this length (models that support it, e.g. `text-embedding-3-*`). */
  readonly dimensions?: number | undefined
  /** Inputs per request (default 128). */
  readonly maxBatchSize?: number
  /** Names the provider in errors (default `OpenAI`). */
  readonly module?: string
}

// -----------------------------------------------------------------------------
// Wire
// -----------------------------------------------------------------------------

/**
 * The request body.
 *
 * @since 0.2.0
 * @category wire
 */
export interface EmbeddingsRequest {
  readonly model: string
  readonly input: ReadonlyArray<string>
  readonly encoding_format: "float"
  readonly dimensions?: number
}

/**
 * The response body, as far as this model reads it.
 *
 * @since 0.2.0
 * @category wire
 */
export const EmbeddingsResponse = Schema.Struct({
  data: Schema.Array(Schema.Struct({
    index: Schema.Int,
    embedding: Schema.Array(Schema.Finite)
  })),
  usage: Schema.optional(Schema.NullOr(Schema.Struct({
    prompt_tokens: Schema.optional(Schema.NullOr(Schema.Int))
  })))
})

/**
 * The decoded response body.
 *
 * @since 0.2.0
 * @category wire
 */
export type EmbeddingsResponse = typeof EmbeddingsResponse.Type

// -----------------------------------------------------------------------------
// Mapping
// -----------------------------------------------------------------------------

/**
 * The vectors of a response in input order, or why the response does not fit the inputs.
 *
 * @since 0.2.0
 * @category mapping
 */
export const vectorsOf = (
  response: EmbeddingsResponse,
  inputs: number
): { readonly vectors: Array<Array<number>> } | { readonly problem: string } => {
  if (response.data.length !== inputs) {
    return { problem: `${response.data.length} vectors for ${inputs} inputs` }
  }
  const vectors = new Array<Array<number> | undefined>(inputs)
  const length = response.data[0]?.embedding.length ?? 0
  for (const item of response.data) {
    if (item.index < 0 || item.index >= inputs) return { problem: `index ${item.index} outside 0..${inputs - 1}` }
    if (vectors[item.index] !== undefined) return { problem: `index ${item.index} twice` }
    if (item.embedding.length === 0 || item.embedding.length !== length) {
      return { problem: `vectors of different lengths (${length} and ${item.embedding.length})` }
    }
    vectors[item.index] = [...item.embedding]
  }
  return { vectors: vectors as Array<Array<number>> }
}

/**
 * The name vectors of this model are cached under: provider, model, server and dimensions, so a
 * different model, server or size never reads another's vectors.
 *
 * @since 0.2.0
 * @category mapping
 */
export const cacheName = (provider: string, options: Pick<Options, "model" | "baseUrl" | "dimensions">): string => {
  const host = hostOf(options.baseUrl)
  return `${provider}:${options.model}@${host}${options.dimensions === undefined ? "" : `/d${options.dimensions}`}`
}

const hostOf = (url: string): string => {
  try {
    const parsed = new URL(url)
    return `${parsed.host}${parsed.pathname.replace(/\/+$/, "")}`
  } catch {
    return url
  }
}

// -----------------------------------------------------------------------------
// Layer
// -----------------------------------------------------------------------------

/**
 * The embedding model, over the `HttpClient` in context.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<EmbeddingModel.EmbeddingModel, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const module = options.module ?? "OpenAI"
    const batch = Math.max(1, options.maxBatchSize ?? 128)
    const endpoint = HttpJson.bearerEndpoint({
      module,
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      ...HttpJson.limitsOf(options, { timeout: "60 seconds", maxResponseBytes: 32 * 1024 * 1024 })
    })
    const embedBatch = (inputs: ReadonlyArray<string>) =>
      HttpJson.post(client, endpoint, {
        method: "embedMany",
        path: "/embeddings",
        body: {
          model: options.model,
          input: inputs,
          encoding_format: "float",
          ...(options.dimensions === undefined ? {} : { dimensions: options.dimensions })
        } satisfies EmbeddingsRequest,
        schema: EmbeddingsResponse as Schema.Codec<EmbeddingsResponse, unknown>
      }).pipe(
        Effect.flatMap((response) => {
          const result = vectorsOf(response, inputs.length)
          return "problem" in result
            ? Effect.fail(
              AiError.make({
                module,
                method: "embedMany",
                reason: new AiError.InvalidResponseError({ description: `embeddings: ${result.problem}` })
              })
            )
            : Effect.succeed({ vectors: result.vectors, tokens: response.usage?.prompt_tokens ?? undefined })
        })
      )
    return yield* EmbeddingModel.make({
      embedMany: ({ inputs }) =>
        Effect.map(
          Effect.forEach(chunks(inputs, batch), embedBatch),
          (answers) => ({
            results: answers.flatMap((a) => a.vectors),
            usage: {
              inputTokens: answers.every((a) => a.tokens !== undefined)
                ? answers.reduce((sum, a) => sum + (a.tokens ?? 0), 0)
                : undefined
            }
          })
        )
    })
  })

const chunks = <A>(items: ReadonlyArray<A>, size: number): Array<ReadonlyArray<A>> => {
  const out: Array<ReadonlyArray<A>> = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}

/**
 * The embedding model as a layer.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<EmbeddingModel.EmbeddingModel, never, HttpClient.HttpClient> =>
  Layer.effect(EmbeddingModel.EmbeddingModel, make(options))
