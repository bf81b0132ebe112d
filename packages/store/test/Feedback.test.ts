import { assert, layer } from "@effect/vitest"
import { SearchFeedback } from "@tool-search/core"
import { Effect } from "effect"
import * as fc from "fast-check"
import { Feedback, WriteBehind } from "../src/index.js"
import { describeEngines, driveUntil, freshDatabase, itLosesDatabase } from "./engines.js"

let catalogs = 0
const newCatalog = () => `catalog-${catalogs++}`

/** Writes what the store holds (feedback is written behind). */
const flush = Effect.flatMap(Effect.service(WriteBehind.WriteBehind), (w) => w.flush)

const asObject = (snapshot: SearchFeedback.Snapshot) =>
  Object.fromEntries([...snapshot.queries].sort(([a], [b]) => a.localeCompare(b)))

describeEngines("Feedback", (engine) => {
  layer(freshDatabase(engine), { timeout: 60_000 })((it) => {
    it.effect("property: the same evidence as core's in-memory store for any sequence of records and forgets", () =>
      Effect.gen(function*() {
        const op = fc.oneof(
          {
            weight: 4,
            arbitrary: fc.record({
              op: fc.constant("record" as const),
              tool: fc.constantFrom("a", "b", "c"),
              query: fc.constantFrom("send mail", "  send mail ", "mail", "x".repeat(40), "", "ticket")
            })
          },
          {
            weight: 1,
            arbitrary: fc.record({ op: fc.constant("forget" as const), tools: fc.subarray(["a", "b", "c"]) })
          }
        )
        for (const ops of fc.sample(fc.array(op, { minLength: 5, maxLength: 30 }), { numRuns: 12, seed: 3 })) {
          const catalog = newCatalog()
          const options = { perTool: 3, maxQueryLength: 20 }
          const db = yield* Feedback.make({ ...options, refresh: 0 })
          const memory = yield* SearchFeedback.makeMemory(options)
          for (const o of ops) {
            if (o.op === "record") {
              const evidence = { catalog, query: o.query, toolId: o.tool }
              yield* db.record(evidence)
              yield* memory.record(evidence)
            } else {
              yield* db.forget(catalog, o.tools)
              yield* memory.forget(catalog, o.tools)
            }
          }
          yield* flush
          assert.deepStrictEqual(asObject(yield* db.read(catalog)), asObject(yield* memory.read(catalog)))
        }
      }))

    it.effect("another instance on the same database reads what one recorded; versions move only on change", () =>
      Effect.gen(function*() {
        const catalog = newCatalog()
        const one = yield* Feedback.make({ refresh: 0 })
        const two = yield* Feedback.make({ refresh: 0 })
        assert.deepStrictEqual(yield* two.read(catalog), SearchFeedback.empty)
        yield* one.record({ catalog, query: "send a message to slack", toolId: "slack_send" })
        yield* flush
        const first = yield* two.read(catalog)
        assert.deepStrictEqual(asObject(first), { slack_send: ["send a message to slack"] })
        assert.strictEqual(yield* two.read(catalog), first) // unchanged: the snapshot it had
        yield* one.record({ catalog, query: "send a message to slack", toolId: "slack_send" }) // the same again
        yield* flush
        assert.strictEqual((yield* two.read(catalog)).version, first.version)
        yield* one.record({ catalog, query: "post to #ops", toolId: "slack_send" })
        yield* flush
        assert.notStrictEqual((yield* two.read(catalog)).version, first.version)
        yield* two.forget(catalog, ["slack_send"])
        yield* flush
        assert.deepStrictEqual(asObject(yield* one.read(catalog)), {})
        // catalogs are apart
        assert.deepStrictEqual(asObject(yield* one.read(newCatalog())), {})
      }))
  })

  itLosesDatabase(
    engine,
    "the database lost: reads keep the last snapshot, writes are held and written when it is back",
    (plug) =>
      Effect.gen(function*() {
        const catalog = newCatalog()
        const feedback = yield* Feedback.make({ refresh: 0 })
        yield* feedback.record({ catalog, query: "weather in Oslo", toolId: "weather" })
        yield* flush
        const before = yield* feedback.read(catalog)
        plug.unplug()
        yield* feedback.record({ catalog, query: "forecast", toolId: "weather" })
        assert.strictEqual(yield* feedback.read(catalog), before)
        plug.replug()
        // the background writer retries (at most every second): drive the clock until it has written
        const writeBehind = yield* WriteBehind.WriteBehind
        yield* driveUntil(Effect.map(writeBehind.held, (h) => h.entries === 0))
        yield* flush
        assert.deepStrictEqual(asObject(yield* feedback.read(catalog)), { weather: ["weather in Oslo", "forecast"] })
      })
  )
})
