import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { TopK } from "../src/internal/TopK.js"
import { byScore } from "../src/internal/TopK.js"

describe("TopK", () => {
  it("property: keeps exactly the best `limit` positive hits, best first, ties by id", () => {
    const hit = fc.record({
      id: fc.constantFrom("a", "b", "c", "d", "e", "f"),
      score: fc.constantFrom(-1, 0, 0.5, 1, 2, 3)
    })
    fc.assert(
      fc.property(fc.array(hit, { maxLength: 20 }), fc.integer({ min: 0, max: 6 }), (offers, limit) => {
        // one offer per id, as strategies make them
        const unique = [...new Map(offers.map((h) => [h.id, h])).values()]
        const top = new TopK(limit)
        for (const h of unique) top.offer(h.id, h.score)
        const expected = unique.filter((h) => h.score > 0).sort(byScore).slice(0, limit)
        assert.deepStrictEqual(top.result(), expected)
      })
    )
  })
})
