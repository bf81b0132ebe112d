import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import { Bm25f, CatalogTool, SearchDocument } from "../src/index.js"
import * as Expansion from "../src/internal/bm25f/Expansion.js"
import * as Bm25fIndex from "../src/internal/bm25fIndex.js"

const doc = (input: CatalogTool.Input) => SearchDocument.fromTool(CatalogTool.make(input))
const all = () => true

// a catalog given by its document frequencies and the terms its names hold
const catalogOf = (
  size: number,
  dfs: Record<string, number>,
  named: ReadonlyArray<string> = []
): Expansion.Catalog => ({
  size: () => size,
  df: (term) => dfs[term] ?? 0,
  named: (term) => named.includes(term)
})
const tableOf = (entries: Record<string, ReadonlyArray<readonly [string, number]>>): Bm25f.Associations => ({
  get: (term) => entries[term]
})
const gate = (terms: Bm25f.Selection["terms"], missing = 0, targetIdf = 0): Bm25f.Selection => ({
  terms,
  missing,
  targetIdf
})
const expanded = (
  asked: ReadonlyArray<string>,
  table: Bm25f.Associations,
  selection: Bm25f.Selection | undefined,
  catalog: Expansion.Catalog,
  weight = 0.5
) => {
  const out = Expansion.expand(asked, table, weight, selection, catalog)
  return Object.fromEntries(out.terms.map((t, i) => [t, out.weights[i] as number]))
}

describe("selective expansion by a term-association table", () => {
  const table = tableOf({
    weather: [["forecast", 1], ["climate", 0.5]],
    mysql: [["database", 1], ["server", 0.4]],
    mail: [["email", 1], ["message", 0.6]]
  })
  // `weather` is in no tool, `mysql` in tool names, `mail` only in descriptions (rarer than `email`)
  const catalog = catalogOf(100, { forecast: 3, database: 40, server: 60, mysql: 5, mail: 2, email: 10, message: 1 }, [
    "mysql",
    "database"
  ])

  it("unselective: every request term's associations, even toward words no tool holds", () => {
    assert.deepStrictEqual(expanded(["weather", "mysql"], table, undefined, catalog), {
      forecast: 0.5,
      climate: 0.25,
      database: 0.5,
      server: 0.2
    })
  })

  it("absent: only the terms no tool holds are expanded, and only toward terms some tool holds", () => {
    assert.deepStrictEqual(expanded(["weather", "mysql", "mail"], table, gate("absent"), catalog), { forecast: 0.5 })
  })

  it("unnamed: a term some tool's name holds matches well and is not expanded", () => {
    assert.deepStrictEqual(expanded(["weather", "mysql", "mail"], table, gate("unnamed"), catalog), {
      forecast: 0.5,
      email: 0.5,
      message: 0.3
    })
  })

  it("rarer: toward an associated term only when more tools hold it than the request's own", () => {
    // `message` (1 tool) is rarer than `mail` (2): the catalog does not say `mail` that way
    assert.deepStrictEqual(expanded(["weather", "mysql", "mail"], table, gate("rarer"), catalog), {
      forecast: 0.5,
      email: 0.5
    })
  })

  it("a request with too small a share of terms unknown to the catalog is not expanded", () => {
    assert.deepStrictEqual(expanded(["mysql", "mail", "weather"], table, gate("all", 0.5), catalog), {})
    assert.deepStrictEqual(expanded(["weather", "mail"], table, gate("absent", 0.5), catalog), { forecast: 0.5 })
  })

  it("targetIdf discounts an associated term by its idf relative to a term no tool holds", () => {
    const out = expanded(["mysql"], table, gate("all", 0, 1), catalog)
    const idf = (df: number) => Math.log(1 + (100 - df + 0.5) / (df + 0.5))
    assert.closeTo(out["database"] ?? 0, 0.5 * (idf(40) / idf(0)), 1e-12)
    assert.closeTo(out["server"] ?? 0, 0.5 * 0.4 * (idf(60) / idf(0)), 1e-12)
  })

  it("property: a narrower gate expands a subset of a wider one's terms, every one held by the catalog, none asked", () => {
    const words = ["a", "b", "c", "d", "e", "f", "g"]
    const arbitraryTable = fc.dictionary(
      fc.constantFrom(...words),
      fc.array(fc.tuple(fc.constantFrom(...words), fc.double({ min: 0.01, max: 1, noNaN: true })), { maxLength: 3 })
    )
    fc.assert(
      fc.property(
        arbitraryTable,
        fc.dictionary(fc.constantFrom(...words), fc.integer({ min: 0, max: 20 })),
        fc.subarray(words),
        fc.subarray(words, { minLength: 1 }),
        (entries, dfs, named, asked) => {
          const c = catalogOf(20, dfs, named)
          const t = tableOf(entries)
          const keys = (terms: Bm25f.Selection["terms"]) => Object.keys(expanded(asked, t, gate(terms), c, 1))
          const ladder = (["all", "unnamed", "rarer", "absent"] as const).map(keys)
          for (let i = 1; i < ladder.length; i++) {
            for (const term of ladder[i] as Array<string>) assert.include(ladder[i - 1] as Array<string>, term)
          }
          for (const term of ladder[0] as Array<string>) {
            assert.isAbove(dfs[term] ?? 0, 0)
            assert.notInclude(asked, term)
          }
        }
      )
    )
  })

  it("in the index: an unknown request word is expanded, one the catalog's names hold is not", () => {
    const tools = [
      doc({ name: "mysql_list", description: "List MySQL servers" }),
      doc({ name: "database_query", description: "Run a query on a database" }),
      doc({ name: "retrieve_forecast", description: "Forecast of the coming days" })
    ]
    const associations = tableOf({ weather: [["forecast", 1]], mysql: [["query", 1]] })
    const ids = (selection: Bm25f.Selection | undefined, text: string) => {
      const index = Bm25fIndex.make({
        ...Bm25f.defaults,
        associations: { table: associations, weight: 0.5, selection }
      })
      index.add(tools)
      return Effect.runSync(index.search({ text, limit: 5, accept: all })).map((h) => h.id)
    }
    assert.deepStrictEqual(ids(gate("absent"), "weather"), ["retrieve_forecast"])
    assert.deepStrictEqual(ids(undefined, "mysql"), ["mysql_list", "database_query"])
    assert.deepStrictEqual(ids(gate("unnamed"), "mysql"), ["mysql_list"])
  })
})
