import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fc from "fast-check"
import { Bm25f, CatalogTool, SearchFeedback, ToolCatalog, Unit } from "../src/index.js"
import { tool } from "./kit/tools.js"

const record = (service: SearchFeedback.Service, query: string, toolId: string, catalog = "c") =>
  service.record({ catalog, query, toolId })

describe("SearchFeedback.makeMemory", () => {
  it.effect("keeps the most recent distinct queries per tool, cut to the length bound", () =>
    Effect.gen(function*() {
      const store = yield* SearchFeedback.makeMemory({ perTool: 3, maxQueryLength: 10 })
      for (const q of ["a", "b", "a", "c", "d"]) yield* record(store, q, "t")
      yield* record(store, "  a very long query indeed  ", "u")
      yield* record(store, "   ", "u")
      const snapshot = yield* store.read("c")
      assert.deepStrictEqual(snapshot.queries.get("t"), ["a", "c", "d"], "b left first; a moved to the end")
      assert.deepStrictEqual(snapshot.queries.get("u"), ["a very lon"], "cut, trimmed; a blank query is no evidence")
      assert.strictEqual((yield* store.read("other")).queries.size, 0, "catalogs are separate")
    }))

  it.effect("versions change with every write and only then; forget drops a tool's evidence", () =>
    Effect.gen(function*() {
      const store = yield* SearchFeedback.makeMemory()
      const v0 = (yield* store.read("c")).version
      yield* record(store, "send mail", "t")
      const v1 = (yield* store.read("c")).version
      yield* record(store, "send mail", "t") // the same latest query: nothing to write
      assert.strictEqual((yield* store.read("c")).version, v1)
      yield* store.forget("c", ["unknown"])
      assert.strictEqual((yield* store.read("c")).version, v1)
      yield* store.forget("c", ["t"])
      const after = yield* store.read("c")
      assert.isTrue(v0 !== v1 && after.version !== v1)
      assert.isFalse(after.queries.has("t"))
    }))

  it.effect("property: a tool never holds more than perTool queries, all distinct and bounded", () =>
    Effect.gen(function*() {
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(
            fc.array(fc.record({ q: fc.string({ maxLength: 40 }), t: fc.constantFrom("x", "y") }), { maxLength: 60 }),
            fc.integer({ min: 1, max: 5 }),
            async (writes, perTool) => {
              const snapshot = await Effect.runPromise(Effect.gen(function*() {
                const store = yield* SearchFeedback.makeMemory({ perTool, maxQueryLength: 12 })
                for (const w of writes) yield* record(store, w.q, w.t)
                return yield* store.read("c")
              }))
              for (const queries of snapshot.queries.values()) {
                assert.isAtMost(queries.length, perTool)
                assert.strictEqual(new Set(queries).size, queries.length)
                for (const q of queries) assert.isTrue(q.length > 0 && q.length <= 12)
              }
            }
          )
        )
      )
    }))
})

// Two tools the query "check the forecast" does not tell apart by their text alone.
const weather = [
  tool("weather_now", "Current conditions for a city"),
  tool("weather_week", "Seven day outlook for a city"),
  ...Array.from({ length: 8 }, (_, i) => tool(`other_${i}`, `Manage item ${i}`))
]

const Feedback = SearchFeedback.layerMemory()
const catalogLayer = (tools: ReadonlyArray<CatalogTool.CatalogTool>) =>
  ToolCatalog.layerWithTools(tools).pipe(Layer.provide(Bm25f.layer))

/** One unit: search, then call the `nth` hit (or nothing). */
const searchThenCall = (query: string, call?: string) =>
  Unit.provide(Effect.gen(function*() {
    const found = yield* Unit.search(query, { maxResults: 5 })
    if (call !== undefined) {
      const resolved = yield* Effect.orDie(Unit.resolve(call))
      yield* Effect.orDie(resolved.run({}, { toolCallId: "c" }))
    }
    return found.matches.map((m) => m.tool.name)
  }))

describe("learning from use", () => {
  it.effect("a search whose hit is then called successfully teaches the catalog that query", () =>
    Effect.gen(function*() {
      const before = yield* searchThenCall("city weather outlook for the week ahead")
      assert.strictEqual(before[0], "weather_week")
      // the user's words for the other tool: "forecast" appears in no tool
      const first = yield* searchThenCall("weather forecast right now", "weather_now")
      const store = yield* SearchFeedback.SearchFeedback
      assert.deepStrictEqual((yield* store.read("default")).queries.get("weather_now"), ["weather forecast right now"])
      const after = yield* searchThenCall("forecast right now")
      assert.include(first, "weather_now")
      assert.strictEqual(after[0], "weather_now", "the past query is a field of the tool now")
    }).pipe(Effect.provide(catalogLayer(weather)), Effect.provide(Feedback)))

  it.effect("no evidence from a failed call, from select:, or from a tool this unit's search did not return", () =>
    Effect.gen(function*() {
      const failing = CatalogTool.make({
        name: "weather_alerts",
        description: "Weather alerts for a city",
        handler: () => Effect.succeed({ isFailure: true, result: "upstream down" })
      })
      yield* Effect.provide(
        Effect.gen(function*() {
          yield* searchThenCall("weather alerts", "weather_alerts")
          yield* searchThenCall("select:weather_now", "weather_now")
          yield* Unit.provide(Effect.gen(function*() {
            yield* Unit.search("select:weather_week")
            yield* Unit.recordSuccessfulCall("weather_week")
          }))
        }),
        catalogLayer([...weather, failing])
      )
      const store = yield* SearchFeedback.SearchFeedback
      assert.strictEqual((yield* store.read("default")).queries.size, 0)
    }).pipe(Effect.provide(Feedback)))

  it.effect("a removed tool takes its evidence with it", () =>
    Effect.gen(function*() {
      yield* searchThenCall("weather forecast right now", "weather_now")
      const store = yield* SearchFeedback.SearchFeedback
      assert.isTrue((yield* store.read("default")).queries.has("weather_now"))
      const catalog = yield* ToolCatalog.ToolCatalog
      yield* catalog.unregister("weather_now")
      assert.isFalse((yield* store.read("default")).queries.has("weather_now"))
    }).pipe(Effect.provide(catalogLayer(weather)), Effect.provide(Feedback)))

  it.effect("feedback never outranks a full name match", () =>
    Effect.gen(function*() {
      // much evidence that "ping" means the network check, weighted far above the name
      const store = yield* SearchFeedback.SearchFeedback
      for (let i = 0; i < 16; i++) yield* record(store, `ping host ${i}`, "network_check", "default")
      const loose = yield* searchThenCall("ping the host")
      assert.strictEqual(loose[0], "network_check", "a query that is not a name follows the evidence")
      const exact = yield* searchThenCall("ping")
      assert.strictEqual(exact[0], "ping", "a query that is a tool's name finds that tool first")
    }).pipe(
      Effect.provide(
        ToolCatalog.layerWithTools([
          tool("ping", "Send an ICMP echo request"),
          tool("network_check", "Check connectivity"),
          ...weather
        ]).pipe(
          // one ranker (no fusion with the stock ranker, whose evidence weight stays low)
          Layer.provide(
            Bm25f.layerWith({
              ...Bm25f.defaults,
              fusion: undefined,
              weights: { ...Bm25f.defaults.weights, queries: 10 }
            })
          )
        )
      ),
      Effect.provide(Feedback)
    ))

  it.effect("without a feedback layer nothing is recorded and ranking is unchanged", () =>
    Effect.gen(function*() {
      yield* searchThenCall("weather forecast right now", "weather_now")
      const store = yield* SearchFeedback.SearchFeedback
      assert.strictEqual(store, SearchFeedback.none)
    }).pipe(Effect.provide(catalogLayer(weather))))
})
