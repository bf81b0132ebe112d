import { assert, describe, it } from "@effect/vitest"
import { CatalogTool, type ToolCatalog } from "../src/index.js"
import * as SearchAnswer from "../src/internal/unit/messages.js"

const entry = (name: string): ToolCatalog.Entry => ({ ...CatalogTool.make({ name }), modelName: name })

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
