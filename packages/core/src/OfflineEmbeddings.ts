/**
 * The offline default `EmbeddingModel` of the `semantic` and `hybrid` strategies: the Universal
 * Sentence Encoder lite (512 dimensions), which lives in the optional package
 * `@tool-search/embeddings-offline` so that installing the core does not pull its 30 MB of weights.
 *
 * The package is loaded at the first embedding, not when this module is imported or the layer is
 * built, and kept by the layer. When it is not installed, that embedding fails with an `AiError` naming the package to
 * install, which the semantic strategy reports as `SearchFailed`. Apps with an embedding service of
 * their own provide its `EmbeddingModel` layer instead and never need the package.
 *
 * @since 0.1.0
 */
import { Effect, Layer, Option, SynchronizedRef } from "effect"
import { EmbeddingModel } from "effect/ai"
import * as OfflineModel from "./internal/offlineModel.js"

/**
 * The offline model as an `EmbeddingModel` layer. The package is imported at the first embedding
 * and kept for the life of the layer once it loaded; a failed import is tried again by the next
 * embedding.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<EmbeddingModel.EmbeddingModel> = Layer.effect(
  EmbeddingModel.EmbeddingModel,
  Effect.gen(function*() {
    const loaded = yield* SynchronizedRef.make(Option.none<OfflineModel.OfflineModel>())
    const model = SynchronizedRef.modifyEffect(
      loaded,
      Option.match({
        onSome: (m) => Effect.succeed([m, Option.some(m)] as const),
        onNone: () =>
          Effect.map(
            OfflineModel.load(OfflineModel.packageName, OfflineModel.modelName),
            (m) => [m, Option.some(m)] as const
          )
      })
    )
    return yield* EmbeddingModel.make({
      embedMany: ({ inputs }) =>
        Effect.flatMap(model, (m) => m.embedMany(inputs)).pipe(
          Effect.map((results) => ({ results, usage: { inputTokens: undefined } }))
        )
    })
  })
)
