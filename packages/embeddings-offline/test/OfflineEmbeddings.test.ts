import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { EmbeddingModel } from "effect/ai"
import { OfflineEmbeddings } from "../src/index.js"

const cosine = (a: ReadonlyArray<number>, b: ReadonlyArray<number>): number => {
  let dot = 0
  let na = 0
  let nb = 0
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!
    na += a[i]! ** 2
    nb += b[i]! ** 2
  }
  return dot / Math.sqrt(na * nb)
}

describe("OfflineEmbeddings", () => {
  it.effect(
    "embeds offline through the EmbeddingModel layer: one vector of `dimensions` per input",
    () =>
      Effect.gen(function*() {
        const model = yield* EmbeddingModel.EmbeddingModel
        const { embeddings } = yield* model.embedMany(["send an email", "write an e-mail message", "weather in Paris"])
        const vectors = embeddings.map((e) => e.vector)
        assert.lengthOf(vectors, 3)
        for (const vector of vectors) assert.lengthOf(vector, OfflineEmbeddings.dimensions)
        const [mail, email, weather] = vectors as [ReadonlyArray<number>, ReadonlyArray<number>, ReadonlyArray<number>]
        assert.isAbove(cosine(mail, email), cosine(mail, weather))
      }).pipe(Effect.provide(OfflineEmbeddings.layer)),
    60_000
  )
})
