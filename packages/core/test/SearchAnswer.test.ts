import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { CatalogTool, type ToolCatalog } from "../src/index.js"
import * as SearchAnswer from "../src/internal/searchAnswer.js"

const entry = (name: string): ToolCatalog.Entry => ({ ...CatalogTool.make({ name }), modelName: name })

describe("SearchAnswer.weak", () => {
  it("property: drops exactly the hits below the floor; hits without a strength are never weak", () => {
    const hit = fc.record({ strength: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }) })
    fc.assert(
      fc.property(
        fc.array(hit, { maxLength: 8 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (hits, minScore, minScoreRatio) => {
          const matches: Array<ToolCatalog.Match> = hits.map((h, i) => ({
            tool: entry(`t${i}`),
            score: 1,
            ...(h.strength === undefined ? {} : { strength: h.strength })
          }))
          const weak = SearchAnswer.weak(matches, { minScore, minScoreRatio })
          const best = Math.max(0, ...matches.map((m) => m.strength ?? 0))
          for (const m of matches) {
            const below = m.strength !== undefined && (m.strength < minScore || m.strength < minScoreRatio * best)
            assert.strictEqual(weak.includes(m), below)
          }
          if (minScore === 0 && minScoreRatio === 0) assert.deepStrictEqual(weak, [])
        }
      )
    )
  })
})

describe("SearchAnswer.notLoaded", () => {
  it("names unknown, eager and over-the-limit names; loaded ones are not named", () => {
    const tools = new Map([
      ["a", entry("a")],
      ["b", entry("b")],
      ["e", { ...entry("e"), loading: "eager" as const }]
    ])
    const matches = [{ tool: tools.get("a") as ToolCatalog.Entry, score: 1 }]
    assert.deepStrictEqual(SearchAnswer.notLoaded(["a", "b", "e", "zz"], matches, (n) => tools.get(n)), [
      { name: "b", reason: "over-limit" },
      { name: "e", reason: "eager" },
      { name: "zz", reason: "unknown" }
    ])
  })
})
