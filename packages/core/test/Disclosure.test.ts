import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { CatalogTool, Disclosure, type ToolCatalog } from "../src/index.js"

const entry = (name: string): ToolCatalog.Entry => ({ ...CatalogTool.make({ name }), modelName: name })

describe("Disclosure.weakHits", () => {
  it("property: drops exactly the hits below the strength floor or the score ratio; hits without a strength are never weak", () => {
    const hit = fc.record({
      strength: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
      score: fc.double({ min: 0, max: 50, noNaN: true })
    })
    fc.assert(
      fc.property(
        fc.array(hit, { maxLength: 8 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (hits, minScore, minScoreRatio) => {
          const matches: Array<ToolCatalog.Match> = hits.map((h, i) => ({
            tool: entry(`t${i}`),
            score: h.score,
            ...(h.strength === undefined ? {} : { strength: h.strength })
          }))
          const weak = Disclosure.weakHits(matches, { minScore, minScoreRatio })
          const best = Math.max(0, ...matches.map((m) => m.score))
          for (const m of matches) {
            const below = m.strength !== undefined && (m.strength < minScore || m.score < minScoreRatio * best)
            assert.strictEqual(weak.includes(m), below)
          }
          if (minScore === 0 && minScoreRatio === 0) assert.deepStrictEqual(weak, [])
        }
      )
    )
  })
})
