import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import { Bm25f, CatalogTool, SearchDocument } from "../src/index.js"
import * as Bm25fIndex from "../src/internal/bm25fIndex.js"

const doc = (input: CatalogTool.Input) => SearchDocument.fromTool(CatalogTool.make(input))
const all = () => true
const ranked = (index: Bm25f.Index, text: string, limit = 10) =>
  Effect.runSync(index.search({ text, limit, accept: all })).map((h) => `${h.id} ${h.score.toFixed(9)}`)

const tools = [
  doc({ name: "send_mail", description: "Send an email to a contact" }),
  doc({ name: "read_mail", description: "Read the messages of an inbox" }),
  doc({ name: "list_files", description: "List the files in a folder" }),
  doc({ name: "weather_now", description: "Current weather in a city" }),
  doc({ name: "retrieve_forecast", description: "Forecast of the coming days" }),
  doc({ name: "upload_file", description: "Upload a file to storage" })
]

describe("BM25F: fusion, feedback, associations", () => {
  it("BM25+: a term matched in a long field adds lowerBound · idf more", () => {
    const long = doc({ name: "archive", description: `${"word ".repeat(300)}forecast` })
    const plain = { ...Bm25fIndex.plain(Bm25f.defaults), b: 1 }
    const score = (p: Bm25f.Parameters) => {
      const index = Bm25fIndex.make(p)
      index.add([...tools, long])
      return index.score("archive", "forecast")
    }
    const idf = Math.log(1 + (tools.length + 1 - 2 + 0.5) / (2 + 0.5)) // two tools say "forecast"
    const without = score(plain)
    // length normalization makes the match in 301 words count little; BM25+ adds exactly δ · idf
    assert.isBelow(without, 0.2 * idf)
    assert.closeTo(score({ ...plain, lowerBound: 0.1 }) - without, 0.1 * idf, 1e-5)
  })

  it("a fusion of weight 0 is no fusion", () => {
    const unfused = Bm25fIndex.make({ ...Bm25f.defaults, fusion: undefined, associations: undefined })
    const zero = Bm25fIndex.make({
      ...Bm25f.defaults,
      fusion: { ...Bm25fIndex.stockRanker, weight: 0 },
      associations: undefined
    })
    unfused.add(tools)
    zero.add(tools)
    for (const q of ["send an email", "weather forecast. Then upload the file", "files"]) {
      assert.deepStrictEqual(ranked(zero, q), ranked(unfused, q))
    }
  })

  it("fused scores are max-normalized: the best hit of a fused ranking scores at most 1", () => {
    const index = Bm25fIndex.make({ ...Bm25f.defaults, associations: undefined })
    index.add(tools)
    const hits = Effect.runSync(index.search({ text: "send an email", limit: 5, accept: all }))
    assert.strictEqual(hits[0]?.id, "send_mail")
    assert.isAtMost(hits[0]?.score ?? 2, 1 + 1e-12)
  })

  it("an association expands the query: `weather` finds the forecast tool through `forecast`", () => {
    const table = new Map([["weather", [["forecast", 1]] as const]])
    const index = Bm25fIndex.make({ ...Bm25f.defaults, associations: { table, weight: 0.5 } })
    const without = Bm25fIndex.make({ ...Bm25f.defaults, associations: undefined })
    index.add(tools)
    without.add(tools)
    const ids = (i: Bm25f.Index) =>
      Effect.runSync(i.search({ text: "weather", limit: 5, accept: all })).map((h) => h.id)
    assert.notInclude(ids(without), "retrieve_forecast")
    assert.deepStrictEqual(ids(index).slice(0, 2), ["weather_now", "retrieve_forecast"])
  })

  it("an expansion term that touches a tool first does not read clause scores left by an earlier request", () => {
    // the earlier request fills clause scores for `retrieve_forecast`; the later one reaches it only
    // through an association, which must start it from a clean clause mask
    const table = new Map([["mail", [["forecast", 1]] as const]])
    const parameters = { ...Bm25f.defaults, associations: { table, weight: 0.5 } }
    const used = Bm25fIndex.make(parameters)
    used.add(tools)
    ranked(used, "Forecast the coming days. Then retrieve the weather")
    const fresh = Bm25fIndex.make(parameters)
    fresh.add(tools)
    const request = "Send the mail. Then list the files"
    assert.deepStrictEqual(ranked(used, request), ranked(fresh, request))
  })

  it("pseudo-relevance feedback adds the best hit's words: a tool sharing them is found", () => {
    const index = Bm25fIndex.make({
      ...Bm25f.defaults,
      associations: undefined,
      feedback: { docs: 1, terms: 5, weight: 0.5 }
    })
    index.add([
      doc({ name: "ticket_create", description: "Open a support ticket for the helpdesk queue" }),
      doc({ name: "queue_status", description: "Helpdesk queue status" }),
      doc({ name: "unrelated", description: "Nothing here" })
    ])
    const ids = Effect.runSync(index.search({ text: "open a ticket", limit: 5, accept: all })).map((h) => h.id)
    assert.deepStrictEqual(ids, ["ticket_create", "queue_status"])
  })

  it("adds and removes in any order rank exactly as a fresh index of the survivors (forward index, compaction)", () => {
    const words = ["alpha", "beta", "gamma", "delta", "mail", "file", "send", "list", "read", "storage"]
    const tool = fc.record({
      id: fc.integer({ min: 0, max: 30 }),
      name: fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 3 }),
      description: fc.array(fc.constantFrom(...words), { maxLength: 12 })
    })
    const op = fc.oneof(
      fc.record({ add: tool }),
      fc.record({ remove: fc.integer({ min: 0, max: 30 }) })
    )
    const parameters = { ...Bm25f.defaults, associations: undefined, feedback: { docs: 2, terms: 3, weight: 0.3 } }
    fc.assert(
      fc.property(
        fc.array(op, { maxLength: 120 }),
        fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 4 }),
        (ops, query) => {
          const live = Bm25fIndex.make(parameters)
          const survivors = new Map<string, SearchDocument.SearchDocument>()
          for (const o of ops) {
            if ("add" in o) {
              const d = doc({
                id: `t${o.add.id}`,
                name: o.add.name.join("_"),
                description: o.add.description.join(" ")
              })
              live.add([d])
              survivors.set(d.id, d)
            } else {
              live.remove([`t${o.remove}`])
              survivors.delete(`t${o.remove}`)
            }
          }
          const fresh = Bm25fIndex.make(parameters)
          fresh.add([...survivors.values()])
          const text = query.join(" ")
          const a = Effect.runSync(live.search({ text, limit: 5, accept: all }))
          const b = Effect.runSync(fresh.search({ text, limit: 5, accept: all }))
          assert.deepStrictEqual(a.map((h) => h.id).sort(), b.map((h) => h.id).sort())
          a.forEach((h, i) => assert.closeTo(h.score, b[i]?.score ?? -1, 1e-5))
        }
      ),
      { numRuns: 200 }
    )
  })
})
