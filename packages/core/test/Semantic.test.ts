import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, Ref } from "effect"
import { AiError, EmbeddingModel } from "effect/ai"
import * as fc from "fast-check"
import { Analyzer, CatalogTool, Hybrid, Query, SearchDocument, Semantic, ToolCatalog } from "../src/index.js"
import * as HybridIndex from "../src/internal/hybridIndex.js"
import * as SemanticIndex from "../src/internal/semanticIndex.js"
import { byScore } from "../src/internal/TopK.js"
import * as VectorCaches from "../src/internal/vectorCaches.js"

/** The default analysis (what the strategies use unless told otherwise). */
const standard = Analyzer.make()

// A fake embedding model: words hashed into 64 dimensions, with a few synonyms sharing one, so
// "automobile" is close to "car" without sharing a word. It records every text it embeds.
const SYNONYMS: Record<string, string> = { automobil: "car", vehicl: "car", dispatch: "send", messag: "mail" }
const vectorOf = (text: string): Array<number> => {
  const v = new Array<number>(64).fill(0)
  for (const term of standard.terms(text)) {
    const word = SYNONYMS[term] ?? term
    let h = 7
    for (let i = 0; i < word.length; i++) h = (h * 31 + word.charCodeAt(i)) % 64
    v[h] = (v[h] as number) + 1
  }
  return v
}

interface Fake {
  readonly embedded: Ref.Ref<Array<string>>
  readonly failing: Ref.Ref<boolean>
}

const fake = Effect.gen(function*() {
  const embedded = yield* Ref.make<Array<string>>([])
  const failing = yield* Ref.make(false)
  const model = yield* EmbeddingModel.make({
    embedMany: ({ inputs }) =>
      Effect.gen(function*() {
        if (yield* Ref.get(failing)) {
          return yield* AiError.make({
            module: "Fake",
            method: "embedMany",
            reason: new AiError.UnknownError({ description: "the model cannot load" })
          })
        }
        yield* Ref.update(embedded, (xs) => [...xs, ...inputs])
        return { results: inputs.map(vectorOf), usage: { inputTokens: undefined } }
      })
  })
  return { model, fake: { embedded, failing } satisfies Fake }
})

const doc = (input: CatalogTool.Input) => SearchDocument.fromTool(CatalogTool.make(input))
const tools = [
  CatalogTool.make({ name: "rent_car", description: "Rent a car for a trip" }),
  CatalogTool.make({ name: "send_mail", description: "Send an email" }),
  CatalogTool.make({ name: "read_file", description: "Read a file from disk" })
]

/** A catalog over the semantic strategy with `model`, holding `tools`, alive for the test's scope. */
const semanticCatalog = (model: EmbeddingModel.EmbeddingModel) =>
  Effect.gen(function*() {
    const built = yield* Layer.build(
      ToolCatalog.layer.pipe(
        Layer.provide(Semantic.layer.pipe(Layer.provide(Layer.succeed(EmbeddingModel.EmbeddingModel, model))))
      )
    )
    const catalog = Context.get(built, ToolCatalog.ToolCatalog)
    yield* catalog.register(tools)
    return catalog
  })

describe("Semantic strategy", () => {
  it.effect("ranks by cosine similarity, finding tools described in other words", () =>
    Effect.gen(function*() {
      const { model } = yield* fake
      const index = yield* SemanticIndex.make(model, Semantic.defaults)
      index.add(tools.map(SearchDocument.fromTool))
      const hits = yield* index.search({ text: "automobile", limit: 3, accept: () => true })
      assert.strictEqual(hits[0]?.id, "rent_car")
      assert.isAbove(hits[0]?.score ?? 0, 0)
      assert.deepStrictEqual(
        yield* index.search({ text: "automobile", limit: 3, accept: (id) => id !== "rent_car" }),
        []
      )
    }))

  it.effect("embeds lazily: add only queues, the next search embeds, a cache avoids embedding again", () =>
    Effect.gen(function*() {
      const { fake: f, model } = yield* fake
      const cache = VectorCaches.memory()
      const first = yield* SemanticIndex.make(model, { ...Semantic.defaults, cache })
      first.add(tools.map(SearchDocument.fromTool))
      assert.deepStrictEqual(yield* Ref.get(f.embedded), [], "add does not call the model")
      yield* first.search({ text: "car", limit: 1, accept: () => true })
      assert.strictEqual((yield* Ref.get(f.embedded)).length, tools.length + 1, "every tool and the query")
      yield* Ref.set(f.embedded, [])
      const second = yield* SemanticIndex.make(model, { ...Semantic.defaults, cache })
      second.add(tools.map(SearchDocument.fromTool))
      yield* second.search({ text: "car", limit: 1, accept: () => true })
      assert.deepStrictEqual(yield* Ref.get(f.embedded), ["car"], "tool vectors came from the cache")
      // a changed description misses the cache
      second.add([doc({ name: "rent_car", description: "Rent a vehicle" })])
      yield* second.search({ text: "car", limit: 1, accept: () => true })
      assert.deepStrictEqual(yield* Ref.get(f.embedded), [
        "car",
        SemanticIndex.documentText(doc({ name: "rent_car", description: "Rent a vehicle" })),
        "car"
      ])
    }))

  it.effect("a document whose embedded text is unchanged (only past queries changed) is not embedded again", () =>
    Effect.gen(function*() {
      const { fake: f, model } = yield* fake
      const index = yield* SemanticIndex.make(model, Semantic.defaults) // no cache
      index.add(tools.map(SearchDocument.fromTool))
      yield* index.search({ text: "car", limit: 1, accept: () => true })
      yield* Ref.set(f.embedded, [])
      index.add([
        { ...SearchDocument.fromTool(tools[0] as CatalogTool.CatalogTool), queries: ["hire a car"] }
      ])
      yield* index.search({ text: "car", limit: 1, accept: () => true })
      assert.deepStrictEqual(yield* Ref.get(f.embedded), ["car"], "only the query")
    }))

  it.effect("a failing model is SearchFailed, never an empty result, and the next search retries", () =>
    Effect.gen(function*() {
      const { fake: f, model } = yield* fake
      const catalog = yield* semanticCatalog(model)
      yield* Ref.set(f.failing, true)
      const error = yield* Effect.flip(catalog.search(Query.keywords("automobile"), { limit: 3 }))
      assert.strictEqual(error._tag, "SearchFailed")
      assert.match(error.message, /Search backend 'semantic' failed: the embedding model failed: .*cannot load/)
      yield* Ref.set(f.failing, false)
      const hits = yield* catalog.search(Query.keywords("automobile"), { limit: 3 })
      assert.strictEqual(hits[0]?.tool.name, "rent_car")
    }))

  it.effect("live index: a tool registered after the first search is found by the next", () =>
    Effect.gen(function*() {
      const { model } = yield* fake
      const catalog = yield* semanticCatalog(model)
      const before = yield* catalog.search(Query.keywords("dispatch a message on slack"), { limit: 1 })
      assert.strictEqual(before[0]?.tool.name, "send_mail")
      yield* catalog.register(CatalogTool.make({ name: "slack_dispatch", description: "Dispatch a message to Slack" }))
      const after = yield* catalog.search(Query.keywords("dispatch a message on slack"), { limit: 1 })
      assert.strictEqual(after[0]?.tool.name, "slack_dispatch")
      yield* catalog.unregister("slack_dispatch")
      assert.strictEqual(
        (yield* catalog.search(Query.keywords("dispatch a message on slack"), { limit: 1 }))[0]?.tool.name,
        "send_mail"
      )
    }))
})

describe("Hybrid strategy", () => {
  it("fuse: lexical scores over the best, cosine min-max over the pool, weighted", () => {
    const lexical = [{ id: "a", score: 4 }, { id: "b", score: 2 }]
    const sims = new Map([["a", 0.2], ["b", 0.6], ["c", 1.0], ["d", 0.0]])
    const hits = HybridIndex.fuse(lexical, sims, { lexicalWeight: 0.4, pool: 3 }, 10)
    // lexical: a 4/4 = 1, b 2/4 = 0.5; pool = c (1.0), b (0.6), a (0.2): min 0.2, span 0.8 →
    // semantic a 0, b 0.5, c 1; d is outside the pool
    assert.deepStrictEqual(hits.map((h) => h.id), ["c", "b", "a"])
    assert.closeTo(hits[0]?.score ?? 0, 0.6 * 1, 1e-12)
    assert.closeTo(hits[1]?.score ?? 0, 0.4 * 0.5 + 0.6 * 0.5, 1e-12)
    assert.closeTo(hits[2]?.score ?? 0, 0.4 * 1, 1e-12)
    assert.deepStrictEqual(HybridIndex.fuse(lexical, sims, { lexicalWeight: 1, pool: 3 }, 10).map((h) => h.id), [
      "a",
      "b"
    ])
  })

  it("fuse with keepAbove: the lexical head keeps its order on top, the fusion orders the rest", () => {
    const lexical = [{ id: "a", score: 10 }, { id: "b", score: 8 }, { id: "c", score: 3 }]
    const sims = new Map([["a", 0.1], ["b", 0.2], ["c", 0.9], ["d", 1.0], ["e", 0.0]])
    // fused alone, c and d (strong semantically) pass a and b: c 0.3 · 0.3 + 0.7 · 0.89, d 0.7, b 0.32, a 0.3
    assert.deepStrictEqual(
      HybridIndex.fuse(lexical, sims, { lexicalWeight: 0.3, pool: 4 }, 10).map((h) => h.id).slice(0, 2),
      ["c", "d"]
    )
    // a and b score at least 0.7 of the best: they stay first, in lexical order
    const hits = HybridIndex.fuse(lexical, sims, { lexicalWeight: 0.3, pool: 4, keepAbove: 0.7 }, 10)
    assert.deepStrictEqual(hits.map((h) => h.id), ["a", "b", "c", "d"])
    assert.deepStrictEqual(
      HybridIndex.fuse(lexical, sims, { lexicalWeight: 0.3, pool: 4, keepAbove: 0.7 }, 1).map((h) => h.id),
      ["a"]
    )
  })

  it("fuse with keepAbove: every head hit comes first in lexical order, scores never rise, no hit twice", () =>
    fc.assert(
      fc.property(
        fc.uniqueArray(
          fc.record({
            id: fc.constantFrom("a", "b", "c", "d", "e", "f"),
            score: fc.double({ min: 0.01, max: 50, noNaN: true })
          }),
          {
            selector: (h) => h.id
          }
        ),
        fc.dictionary(fc.constantFrom("a", "b", "c", "d", "g", "h"), fc.double({ min: -1, max: 1, noNaN: true })),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0.05, max: 1, noNaN: true }),
        fc.integer({ min: 1, max: 8 }),
        (unsorted, sims, lexicalWeight, keepAbove, limit) => {
          // in the order the lexical ranker gives them: by score, equal scores by id
          const lexical = [...unsorted].sort(byScore)
          const hits = HybridIndex.fuse(
            lexical,
            new Map(Object.entries(sims)),
            { lexicalWeight, pool: 4, keepAbove },
            limit
          )
          const best = lexical[0]?.score ?? 0
          const head = lexical.filter((h) => h.score >= keepAbove * best).map((h) => h.id).slice(0, limit)
          assert.deepStrictEqual(hits.slice(0, head.length).map((h) => h.id), head)
          assert.isAtMost(hits.length, limit)
          assert.strictEqual(new Set(hits.map((h) => h.id)).size, hits.length)
          for (let i = 1; i < hits.length; i++) {
            // the head's scores stay above what follows it
            if (i <= head.length) assert.isAbove(hits[i - 1]?.score ?? 0, hits[i]?.score ?? 0)
            else assert.isAtLeast(hits[i - 1]?.score ?? 0, hits[i]?.score ?? 0)
          }
        }
      ),
      { numRuns: 200 }
    ))

  it.effect("finds exact names lexically and paraphrases semantically, on one live index", () =>
    Effect.gen(function*() {
      const { model } = yield* fake
      const index = yield* HybridIndex.make(model, Hybrid.defaults)
      index.add(tools.map(SearchDocument.fromTool))
      assert.strictEqual((yield* index.search({ text: "read_file", limit: 3, accept: () => true }))[0]?.id, "read_file")
      assert.strictEqual((yield* index.search({ text: "automobile", limit: 3, accept: () => true }))[0]?.id, "rent_car")
      index.remove(["rent_car"])
      assert.notInclude(
        (yield* index.search({ text: "automobile", limit: 3, accept: () => true })).map((h) => h.id),
        "rent_car"
      )
    }))
})

describe("Hybrid confidence", () => {
  it("a clear lexical winner is confident; a close second or no hit is not", () => {
    assert.isTrue(HybridIndex.confident([{ score: 10 }, { score: 5 }], 0.3))
    assert.isFalse(HybridIndex.confident([{ score: 10 }, { score: 8 }], 0.3))
    assert.isTrue(HybridIndex.confident([{ score: 1 }], 0.99))
    assert.isFalse(HybridIndex.confident([], 0))
    assert.isFalse(HybridIndex.confident([{ score: 10 }, { score: 1 }], undefined))
  })

  it.effect("a confident lexical ranking is answered without embedding the query (a failing model is never asked)", () =>
    Effect.gen(function*() {
      const { fake: state, model } = yield* fake
      const index = yield* HybridIndex.make(model, { ...Hybrid.defaults, confidentMargin: 0.2 })
      index.add(tools.map(SearchDocument.fromTool))
      yield* Ref.set(state.failing, true)
      const hits = yield* index.search({ text: "read_file", limit: 3, accept: () => true })
      assert.strictEqual(hits[0]?.id, "read_file")
      // an unclear one needs the model, whose failure is the search's
      const failed = yield* Effect.flip(index.search({ text: "automobile", limit: 3, accept: () => true }))
      assert.strictEqual(failed._tag, "SearchFailed")
    }))
})
