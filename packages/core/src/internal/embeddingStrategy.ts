/**
 * The layer of a strategy that embeds (`semantic`, `hybrid`): it takes the `EmbeddingModel` and
 * the `VectorCache.Store` of the layer's context, so every index it makes embeds with that model
 * and caches in that store, wherever the index is made.
 *
 * @internal
 */
import { Effect, Layer } from "effect"
import { EmbeddingModel } from "effect/ai"
import { type SearchIndex, SearchStrategy } from "../SearchStrategy.js"
import * as VectorCache from "../VectorCache.js"

/** A strategy named `name` whose indexes `makeIndex` builds over the model in context. */
export const layer = (
  name: string,
  makeIndex: (model: EmbeddingModel.EmbeddingModel) => Effect.Effect<SearchIndex>
): Layer.Layer<SearchStrategy, never, EmbeddingModel.EmbeddingModel> =>
  Layer.effect(
    SearchStrategy,
    Effect.gen(function*() {
      const model = yield* EmbeddingModel.EmbeddingModel
      const store = yield* VectorCache.Store
      return { name, makeIndex: Effect.provideService(makeIndex(model), VectorCache.Store, store) }
    })
  )
