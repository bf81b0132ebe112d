import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import * as Analyzer from "../src/Analyzer.js"
import { Bm25f, CatalogTool, SearchDocument } from "../src/index.js"
import * as Scorer from "../src/internal/bm25f/Scorer.js"
import * as Store from "../src/internal/bm25f/Store.js"

// A small vocabulary with a few very common words, so that long posting lists come last and
// pruning has something to skip; clause separators and quotes appear in queries.
const RARE = ["slack", "jira", "invoice", "forecast", "kubernetes", "ledger", "spotify", "ticket", "calendar", "vault"]
const COMMON = ["get", "list", "data", "item", "status", "details", "value", "name"]
const word = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...COMMON) }, {
  weight: 1,
  arbitrary: fc.constantFrom(...RARE)
})
const phrase = (max: number) => fc.array(word, { minLength: 1, maxLength: max }).map((ws) => ws.join(" "))
const tool = fc.record({ name: fc.array(word, { minLength: 1, maxLength: 3 }), description: phrase(12) })
const query = fc.tuple(phrase(4), fc.constantFrom("", ". ", " and ", ", then ", " \""), fc.option(phrase(3)))
  .map(([a, sep, b]) => (b === null ? a : `${a}${sep}${b}${sep === " \"" ? "\"" : ""}`))

const catalog = (tools: ReadonlyArray<{ readonly name: ReadonlyArray<string>; readonly description: string }>) =>
  tools.map((t, i) =>
    SearchDocument.fromTool(CatalogTool.make({ id: `t${i}`, name: t.name.join("_"), description: t.description }))
  )

const search = (index: Bm25f.Index, text: string, limit: number, accept: (id: string) => boolean) =>
  Effect.runSync(index.search({ text, limit, accept }))

// An exhaustive ranking: every tool scored by `score`, which runs the query unpruned.
const exhaustive = (
  index: Bm25f.Index,
  ids: ReadonlyArray<string>,
  text: string,
  limit: number,
  accept: (id: string) => boolean
) =>
  ids.map((id) => ({ id, score: index.score(id, text) }))
    .filter((h) => h.score > 0 && accept(h.id))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
    .slice(0, limit)

// A term-association table: each rare word expands to two common ones.
const table: Bm25f.Associations = {
  get: (term) => {
    const i = RARE.indexOf(term)
    return i < 0
      ? undefined
      : [[COMMON[i % COMMON.length] as string, 0.6], [COMMON[(i + 3) % COMMON.length] as string, 0.3]]
  }
}

describe("BM25F pruning", () => {
  it("property: the best `limit` hits are exactly those of an unpruned ranking (ids, scores, strengths), with any accept filter, for every variant of the ranking", () => {
    const variants = [
      Bm25f.defaults,
      Bm25f.plain,
      { ...Bm25f.defaults, fusion: undefined },
      { ...Bm25f.defaults, feedback: { docs: 3, terms: 5, weight: 0.2 } },
      { ...Bm25f.defaults, associations: { table, weight: 0.4 } }
    ]
    fc.assert(
      fc.property(
        fc.array(tool, { minLength: 20, maxLength: 120 }),
        fc.array(query, { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 0, max: 4 }),
        fc.integer({ min: 0, max: 3 }),
        (tools, queries, limit, variant, filter) => {
          const index = Bm25f.makeIndexWith(variants[variant] as Bm25f.Parameters)
          const docs = catalog(tools)
          index.add(docs)
          // a removal leaves a free slot and swapped postings behind
          index.remove(["t3"])
          const accept = (id: string) => filter === 0 || id.length % (filter + 1) !== 0
          for (const q of queries) {
            const pruned = search(index, q, limit, accept)
            const unpruned = search(index, q, docs.length + 1, accept).slice(0, limit)
            assert.deepStrictEqual(pruned, unpruned)
            assert.deepStrictEqual(
              pruned.map((h) => ({ id: h.id, score: h.score })),
              exhaustive(index, docs.map((d) => d.id), q, limit, accept)
            )
          }
        }
      ),
      { numRuns: 300 }
    )
  })

  it("a request whose rare word decides leaves only a few slots to score in full", () => {
    // 300 tools share the common words; only two have the rare one
    const analyzer = Analyzer.make()
    const store = Store.make(analyzer, Bm25f.FIELDS.length, {
      k1: 1.5,
      b: 0.75,
      weights: Float64Array.from(Bm25f.FIELDS, (f) => Bm25f.defaults.weights[f])
    })
    for (let i = 0; i < 300; i++) {
      const description = i < 2 ? "kubernetes get list details data" : `get list details data ${COMMON[i % 8]}`
      store.add(`t${i}`, ["tool", "", "", "", description, "", ""])
    }
    store.commit()
    const scorer = Scorer.make(store, analyzer, {
      nameCoverage: 0,
      clauseWeight: 0,
      quotedWeight: 1,
      fusionWeight: 0,
      feedback: { docs: 0, terms: 0, weight: 0 },
      associations: undefined,
      associationWeight: 0
    })
    const all = scorer.run("kubernetes get list details data")
    const left = scorer.run("kubernetes get list details data", 2, () => true)
    assert.strictEqual(all, 300)
    assert.isAtMost(left, 2)
    assert.deepStrictEqual(scorer.select(left, 2, () => true).map((h) => h.id).sort(), ["t0", "t1"])
  })
})
