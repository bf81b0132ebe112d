import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Evaluation } from "../src/index.js"

const q = (relevant: ReadonlyArray<string>, groups?: ReadonlyArray<ReadonlyArray<string>>): Evaluation.QuerySpec => ({
  id: "q",
  query: "x",
  relevant,
  ...(groups === undefined ? {} : { relevant_groups: groups })
})

describe("Evaluation metrics", () => {
  it("nDCG, Recall and MRR for one relevant tool", () => {
    const m = Evaluation.quality(q(["b"]), ["a", "b", "c"], 10)
    assert.closeTo(m.ndcg, 1 / Math.log2(3), 1e-12)
    assert.strictEqual(m.recall1, 0)
    assert.strictEqual(m.recall5, 1)
    assert.strictEqual(m.recallK, 1)
    assert.strictEqual(m.mrr, 0.5)
  })

  it("several relevant tools: ideal DCG over their count, recall as a share", () => {
    const m = Evaluation.quality(q(["a", "c", "z"]), ["a", "b", "c"], 10)
    const ideal = 1 + 1 / Math.log2(3) + 1 / Math.log2(4)
    assert.closeTo(m.ndcg, (1 + 1 / Math.log2(4)) / ideal, 1e-12)
    assert.closeTo(m.recall1, 1 / 3, 1e-12)
    assert.closeTo(m.recallK, 2 / 3, 1e-12)
    assert.strictEqual(m.mrr, 1)
  })

  it("relevant_groups: any member finds its group, once", () => {
    const m = Evaluation.quality(q(["a1", "a2", "b1"], [["a1", "a2"], ["b1"]]), ["a2", "a1", "b1"], 10)
    // a2 finds group A at rank 1, a1 adds nothing, b1 finds group B at rank 3
    const ideal = 1 + 1 / Math.log2(3)
    assert.closeTo(m.ndcg, (1 + 1 / Math.log2(4)) / ideal, 1e-12)
    assert.strictEqual(m.recall1, 0.5)
    assert.strictEqual(m.recallK, 1)
  })

  it("the cutoff k bounds what counts", () => {
    const m = Evaluation.quality(q(["c"]), ["a", "b", "c"], 2)
    assert.deepStrictEqual(m, { ndcg: 0, recall1: 0, recall5: 0, recallK: 0, mrr: 0 })
  })

  it("percentiles use the nearest rank", () => {
    const xs = Array.from({ length: 100 }, (_, i) => i + 1)
    assert.strictEqual(Evaluation.percentile(xs, 50), 50)
    assert.strictEqual(Evaluation.percentile(xs, 99), 99)
    assert.strictEqual(Evaluation.percentile([7], 99), 7)
  })

  it.effect("query files: a bad line names the file and line", () =>
    Effect.gen(function*() {
      const ok = yield* Evaluation.parseQueries("q.jsonl", `{"id":"1","query":"x","relevant":["a"]}\n\n`)
      assert.strictEqual(ok.length, 1)
      const bad = yield* Effect.flip(
        Evaluation.parseQueries("q.jsonl", `{"id":"1","query":"x","relevant":["a"]}\n{"id":2}`)
      )
      assert.match(bad, /^q\.jsonl:2: /)
    }))
})
