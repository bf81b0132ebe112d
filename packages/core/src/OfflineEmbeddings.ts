/**
 * The offline default `EmbeddingModel` of the `semantic` and `hybrid` strategies: the Universal
 * Sentence Encoder lite (512 dimensions), which lives in the optional package
 * `@tool-search/embeddings-offline` so that installing the core does not pull its 30 MB of weights.
 *
 * The package is loaded at the first embedding, not when this module is imported or the layer is
 * built. When it is not installed, that embedding fails with an `AiError` naming the package to
 * install, which the semantic strategy reports as `SearchFailed`. Apps with an embedding service of
 * their own provide its `EmbeddingModel` layer instead and never need the package.
 *
 * @since 0.1.0
 */
import { Effect, Layer } from "effect"
import { type AiError, EmbeddingModel } from "effect/ai"
import * as OfflineModel from "./internal/offlineModel.js"

/**
 * The npm package that holds the model.
 *
 * @since 0.2.0
 * @category constants
 */
export const packageName = "@tool-search/embeddings-offline"

/** The model's name in vector cache keys. */
export const modelName = "use-lite-512@energetic-ai-0.2.0"

/** Vector size. */
export const dimensions = 512

/** Embeds with the offline model, loading its package on first use. */
export const embedMany = (inputs: ReadonlyArray<string>): Effect.Effect<Array<Array<number>>, AiError.AiError> =>
  Effect.flatMap(OfflineModel.load(packageName, modelName), (model) => model.embedMany(inputs))

/** The offline model as an `EmbeddingModel` layer. */
export const layer: Layer.Layer<EmbeddingModel.EmbeddingModel> = Layer.effect(
  EmbeddingModel.EmbeddingModel,
  EmbeddingModel.make({
    embedMany: ({ inputs }) =>
      Effect.map(embedMany(inputs), (results) => ({ results, usage: { inputTokens: undefined } }))
  })
)
