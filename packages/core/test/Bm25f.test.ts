import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import { Bm25f, CatalogTool, SearchDocument } from "../src/index.js"
import * as Bm25fIndex from "../src/internal/bm25fIndex.js"

const doc = (input: CatalogTool.Input) => SearchDocument.fromTool(CatalogTool.make(input))

// A corpus small enough to score by hand. Analyzed fields (stop words dropped, light stemming):
//   send_mail   name [send, mail]   description "Send an email"          → [send, email]
//   list_files  name [list, fil]    description "List files in a folder" → [list, fil, folder]
//   read_mail   name [read, mail]   description ""                       → []
const corpus = [
  doc({ name: "send_mail", description: "Send an email" }),
  doc({ name: "list_files", description: "List files in a folder" }),
  doc({ name: "read_mail" })
]

const search = (index: Bm25f.Index, text: string, limit = 10) => index.search({ text, limit, accept: () => true })

// Plain BM25F with round parameters, to score by hand.
const hand: Bm25f.Parameters = {
  ...Bm25fIndex.plain(Bm25f.defaults),
  k1: 1.5,
  b: 0.75,
  weights: { name: 3, aliases: 3, parameterNames: 2, category: 1, description: 1, parameterDescriptions: 1, queries: 1 }
}

describe("BM25F scoring", () => {
  it.effect("matches a hand computation (k1 = 1.5, b = 0.75, name 3, description 1)", () =>
    Effect.gen(function*() {
      const index = Bm25fIndex.make(hand)
      index.add(corpus)
      // N = 3; average lengths: name 2, description 5/3
      const idfSend = Math.log(1 + (3 - 1 + 0.5) / (1 + 0.5)) // df(send) = 1
      const idfMail = Math.log(1 + (3 - 2 + 0.5) / (2 + 0.5)) // df(mail) = 2
      // send_mail: `send` once in the name (length 2 = average: norm 1) and once in the
      // description (length 2 against 5/3: norm 1 - 0.75 + 0.75 * 2 / (5/3) = 1.15)
      const tfSend = 3 * 1 / 1 + 1 * 1 / 1.15
      const tfMail = 3 * 1 / 1
      const sendMail = idfSend * tfSend / (1.5 + tfSend) + idfMail * tfMail / (1.5 + tfMail)
      const readMail = idfMail * tfMail / (1.5 + tfMail)
      const hits = yield* search(index, "send mail")
      assert.deepStrictEqual(hits.map((h) => h.id), ["send_mail", "read_mail"])
      assert.closeTo(hits[0]?.score ?? 0, sendMail, 1e-6)
      assert.closeTo(hits[1]?.score ?? 0, readMail, 1e-6)
      assert.closeTo(index.score("send_mail", "send mail"), sendMail, 1e-6)
      assert.strictEqual(index.score("list_files", "send mail"), 0)
    }))

  it.effect("the default adds name coverage: λ times the share of the name's words found in the query", () =>
    Effect.gen(function*() {
      // without the fusion, whose normalization would rescale the sum
      const unfused = { ...Bm25f.defaults, fusion: undefined }
      const plain = Bm25fIndex.make({ ...unfused, nameCoverage: 0 })
      const index = Bm25fIndex.make(unfused)
      plain.add(corpus)
      index.add(corpus)
      const λ = Bm25f.defaults.nameCoverage
      // send_mail: both name words are in the query (+λ); read_mail: one of two (+λ/2)
      assert.closeTo(index.score("send_mail", "send mail"), plain.score("send_mail", "send mail") + λ, 1e-6)
      assert.closeTo(index.score("read_mail", "send mail"), plain.score("read_mail", "send mail") + λ / 2, 1e-6)
    }))

  it.effect("field weights: a word in the name outranks the same word in a description", () =>
    Effect.gen(function*() {
      const index = Bm25fIndex.make(hand)
      index.add([
        doc({ id: "a", name: "archive", description: "Stores old invoices" }),
        doc({ id: "b", name: "invoice", description: "Creates a document" }),
        doc({ id: "c", name: "other", description: "Nothing related" })
      ])
      assert.deepStrictEqual((yield* search(index, "invoice")).map((h) => h.id), ["b", "a"])
    }))

  it.effect("parameter names and descriptions, category and aliases are searched", () =>
    Effect.gen(function*() {
      const index = Bm25fIndex.make(Bm25f.defaults)
      index.add([
        doc({
          id: "rag",
          name: "rag_search",
          description: "Search documents",
          parameters: {
            type: "object",
            properties: { collection: { type: "string", description: "Name of the knowledge base" } }
          }
        }),
        doc({
          id: "news",
          name: "news_search",
          description: "Search the news",
          category: "journalism",
          aliases: ["뉴스"]
        })
      ])
      assert.deepStrictEqual((yield* search(index, "collection")).map((h) => h.id), ["rag"])
      assert.deepStrictEqual((yield* search(index, "knowledge base")).map((h) => h.id), ["rag"])
      assert.deepStrictEqual((yield* search(index, "journalism")).map((h) => h.id), ["news"])
      // a Korean query with a particle meets an alias
      assert.deepStrictEqual((yield* search(index, "뉴스를 검색")).map((h) => h.id), ["news"])
    }))

  it.effect("multi-request queries: the best tool of each clause ranks near the top", () =>
    Effect.gen(function*() {
      const tools = [
        doc({ id: "forecast", name: "weather_forecast", description: "Get the weather forecast for a city" }),
        doc({
          id: "hourly",
          name: "weather_hourly",
          description: "Hourly weather detail for a city with temperature units"
        }),
        doc({
          id: "units",
          name: "temperature_units",
          description: "Convert temperature units for weather data of a city"
        }),
        doc({ id: "alerts", name: "weather_alerts", description: "Weather alerts and hourly warnings for a city" }),
        doc({ id: "air", name: "air_quality", description: "Air quality of a city" }),
        doc({ id: "slack", name: "slack_post", description: "Post a message to a Slack channel" }),
        // unrelated tools, so the words above are rare, as in a real catalog
        ...Array.from({ length: 20 }, (_, i) =>
          doc({ id: `other${i}`, name: `other_tool_${i}`, description: `Manage item ${i}` }))
      ]
      const query =
        "Get the hourly weather forecast for Paris with temperature units and alerts for the city. Then post it to Slack."
      const plain = Bm25fIndex.make(Bm25fIndex.plain(Bm25f.defaults))
      plain.add(tools)
      const index = Bm25fIndex.make(Bm25f.defaults)
      index.add(tools)
      const plainRank = (yield* search(plain, query)).map((h) =>
        h.id
      ).indexOf("slack")
      const rank = (yield* search(index, query)).map((h) => h.id).indexOf("slack")
      assert.isAtLeast(plainRank, 4, "plain BM25F lets the long clause bury the short one")
      assert.isBelow(rank, plainRank, "ranking clauses separately lifts the Slack tool")
      assert.isAtMost(rank, 3, "above the tools that match the long clause less well")
    }))

  it.effect("quoted values count less than the words that describe the tool", () =>
    Effect.gen(function*() {
      const tools = [
        doc({ id: "translate", name: "translate_text", description: "Translate text into another language" }),
        doc({ id: "clock", name: "current_time", description: "Tell the current time in a city" }),
        ...Array.from({ length: 10 }, (_, i) =>
          doc({ id: `other${i}`, name: `other_tool_${i}`, description: `Manage item ${i}` }))
      ]
      const query = `How do I say "what is the current time in this city" in French? Translate it.`
      // the first ranker alone: the fused stock ranker counts quoted words in full, by design
      const unfused = { ...Bm25f.defaults, fusion: undefined }
      const plain = Bm25fIndex.make({ ...unfused, quotedWeight: 1 })
      plain.add(tools)
      const index = Bm25fIndex.make(unfused)
      index.add(tools)
      assert.strictEqual((yield* search(plain, query))[0]?.id, "clock", "unweighted, the quoted sentence wins")
      assert.strictEqual((yield* search(index, query))[0]?.id, "translate")
    }))

  it.effect("results respect limit and accept, and only positive scores are returned", () =>
    Effect.gen(function*() {
      const index = Bm25fIndex.make(Bm25f.defaults)
      index.add(corpus)
      assert.deepStrictEqual(
        (yield* index.search({ text: "mail", limit: 1, accept: (id) => id !== "read_mail" })).map((h) => h.id),
        ["send_mail"]
      )
      assert.deepStrictEqual(yield* search(index, "nothing matches this"), [])
      assert.deepStrictEqual(yield* search(index, "the of to"), [], "stop words alone match nothing")
    }))
})

describe("BM25F live index", () => {
  it.effect("add, replace and remove take effect at once", () =>
    Effect.gen(function*() {
      const index = Bm25fIndex.make(Bm25f.defaults)
      index.add(corpus)
      assert.deepStrictEqual((yield* search(index, "folder")).map((h) => h.id), ["list_files"])
      index.add([doc({ name: "list_files", description: "List the entries of a directory" })]) // same id: replaced
      assert.deepStrictEqual(yield* search(index, "folder"), [])
      assert.deepStrictEqual((yield* search(index, "directory")).map((h) => h.id), ["list_files"])
      index.remove(["list_files", "unknown"])
      assert.deepStrictEqual(yield* search(index, "directory"), [])
      assert.strictEqual(index.size(), 2)
      index.add([doc({ name: "make_folder", description: "Create a folder" })]) // reuses the freed slot
      assert.deepStrictEqual((yield* search(index, "folder")).map((h) => h.id), ["make_folder"])
    }))

  it("property: after any adds and removes, scores equal those of an index built from the survivors", () => {
    const words = ["send", "mail", "list", "file", "read", "folder", "slack", "channel", "user", "create"]
    const text = fc.array(fc.constantFrom(...words), { minLength: 0, maxLength: 6 }).map((ws) => ws.join(" "))
    const op = fc.oneof(
      fc.record({
        kind: fc.constant("add" as const),
        id: fc.integer({ min: 0, max: 7 }),
        name: fc.constantFrom(...words),
        description: text
      }),
      fc.record({ kind: fc.constant("remove" as const), id: fc.integer({ min: 0, max: 7 }) })
    )
    fc.assert(
      fc.property(fc.array(op, { maxLength: 25 }), text, (ops, query) => {
        const live = Bm25fIndex.make(Bm25f.defaults)
        const survivors = new Map<string, SearchDocument.SearchDocument>()
        for (const o of ops) {
          const id = `t${o.id}`
          if (o.kind === "add") {
            const d = doc({ id, name: o.name, description: o.description })
            live.add([d])
            survivors.set(id, d)
          } else {
            live.remove([id])
            survivors.delete(id)
          }
        }
        const fresh = Bm25fIndex.make(Bm25f.defaults)
        fresh.add([...survivors.values()])
        assert.strictEqual(live.size(), survivors.size)
        for (const id of survivors.keys()) assert.closeTo(live.score(id, query), fresh.score(id, query), 1e-5)
        // and search returns the best three by that score, ties by id
        const expected = [...survivors.keys()].map((id) => ({ id, score: live.score(id, query) }))
          .filter((h) => h.score > 0).sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1)).slice(0, 3)
        const hits = Effect.runSync(live.search({ text: query, limit: 3, accept: () => true }))
        assert.deepStrictEqual(hits.map((h) => h.id), expected.map((h) => h.id))
      })
    )
  })
})
