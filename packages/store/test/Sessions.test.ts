import { assert, layer } from "@effect/vitest"
import { Eviction, SessionStore } from "@tool-search/agent"
import { Effect, Option } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import { Sessions } from "../src/index.js"
import { describeEngines, driveUntil, freshDatabase, itLosesDatabase } from "./engines.js"

let namespaces = 0
/** A store in its own namespace: each test sees an empty store on the shared database. */
const store = (eviction: Eviction.Strategy, namespace = `ns${namespaces++}`) =>
  Effect.map(Sessions.make({ eviction, namespace }), (s) => s)

const state = (accumulated: ReadonlyArray<string>, latest: ReadonlyArray<string> = accumulated) => ({
  accumulated,
  latest
})

describeEngines("Sessions", (engine) => {
  layer(freshDatabase(engine), { timeout: 60_000 })((it) => {
    it.effect("a written session is read back by another store on the same database", () =>
      Effect.gen(function*() {
        const a = yield* store(Eviction.never, "shared-1")
        const b = yield* store(Eviction.never, "shared-1")
        yield* a.put("s1", state(["chat_send", "tickets_create"], ["tickets_create"]))
        assert.deepStrictEqual(
          yield* b.get("s1"),
          Option.some(state(["chat_send", "tickets_create"], ["tickets_create"]))
        )
        assert.isTrue(Option.isNone(yield* b.get("s2")))
        // namespaces are apart
        assert.isTrue(Option.isNone(yield* (yield* store(Eviction.never, "shared-2")).get("s1")))
      }))

    it.effect("a write merges: activations accumulate in order, latest is the last writer's", () =>
      Effect.gen(function*() {
        const s = yield* store(Eviction.never)
        yield* s.put("s", state(["a", "b"], ["b"]))
        yield* s.put("s", state(["c", "a"], ["c"]))
        assert.deepStrictEqual(yield* s.get("s"), Option.some(state(["a", "b", "c"], ["c"])))
      }))

    it.effect("two instances ending turns of one session at once keep both activations", () =>
      Effect.gen(function*() {
        const namespace = `race${namespaces++}`
        const one = yield* store(Eviction.never, namespace)
        const two = yield* store(Eviction.never, namespace)
        yield* one.put("s", state(["base"]))
        // both read the same state, then both write what their turn added
        const before = yield* one.get("s")
        yield* two.get("s")
        const base = Option.getOrThrow(before).accumulated
        yield* Effect.all([
          one.put("s", state([...base, "from_one"])),
          two.put("s", state([...base, "from_two"]))
        ], { concurrency: "unbounded" })
        const after = Option.getOrThrow(yield* one.get("s"))
        assert.sameMembers([...after.accumulated], ["base", "from_one", "from_two"])
      }))

    it.effect("property: concurrent writers of one session lose no activation", () =>
      Effect.gen(function*() {
        const tool = fc.constantFrom("t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7")
        const writes = fc.array(fc.array(fc.array(tool, { maxLength: 4 }), { maxLength: 4 }), {
          minLength: 2,
          maxLength: 4
        })
        const samples = fc.sample(writes, { numRuns: 15, seed: 14 })
        for (const writers of samples) {
          const namespace = `prop${namespaces++}`
          const stores = yield* Effect.forEach(writers, () => store(Eviction.never, namespace))
          yield* Effect.forEach(
            writers,
            (turns, i) => Effect.forEach(turns, (ids) => stores[i]!.put("s", state(ids)), { discard: true }),
            { concurrency: "unbounded", discard: true }
          )
          const expected = new Set(writers.flat(2))
          const stored = Option.match(yield* stores[0]!.get("s"), {
            onNone: () => [],
            onSome: (s) => s.accumulated
          })
          assert.sameMembers([...stored], [...expected])
          assert.strictEqual(stored.length, expected.size) // each once
        }
      }))

    it.effect("lru: keeps the most recently used sessions, as the in-memory store does", () =>
      Effect.gen(function*() {
        const s = yield* store(Eviction.lru(2))
        yield* s.put("a", state(["a"]))
        yield* s.put("b", state(["b"]))
        yield* s.get("a") // a is now more recent than b
        yield* s.put("c", state(["c"]))
        assert.deepStrictEqual(yield* s.sessions, ["a", "c"])
        assert.isTrue(Option.isNone(yield* s.get("b")))
      }))

    it.effect("ttl: drops sessions idle longer than the ttl (TestClock)", () =>
      Effect.gen(function*() {
        const s = yield* store(Eviction.ttl("30 minutes"))
        yield* s.put("a", state(["a"]))
        yield* TestClock.adjust("20 minutes")
        yield* s.put("b", state(["b"]))
        yield* TestClock.adjust("20 minutes")
        assert.isTrue(Option.isSome(yield* s.get("b")))
        assert.isTrue(Option.isNone(yield* s.get("a")))
        yield* TestClock.adjust("31 minutes")
        assert.isTrue(Option.isNone(yield* s.get("b")))
      }))

    it.effect("never, always, and evict", () =>
      Effect.gen(function*() {
        const keep = yield* store(Eviction.never)
        for (let i = 0; i < 20; i++) yield* keep.put(`s${i}`, state([`t${i}`]))
        yield* TestClock.adjust("2 days")
        yield* keep.evict("s7")
        assert.isTrue(Option.isNone(yield* keep.get("s7")))
        assert.strictEqual((yield* keep.sessions).length, 19)
        const forget = yield* store(Eviction.always)
        yield* forget.put("a", state(["a"]))
        assert.isTrue(Option.isNone(yield* forget.get("a")))
      }))

    it.effect(
      "property: eviction agrees with the in-memory store on any sequence of accesses",
      () =>
        Effect.gen(function*() {
          const op = fc.oneof(
            fc.record({ op: fc.constant("put" as const), id: fc.constantFrom("a", "b", "c", "d") }),
            fc.record({ op: fc.constant("get" as const), id: fc.constantFrom("a", "b", "c", "d") }),
            fc.record({ op: fc.constant("evict" as const), id: fc.constantFrom("a", "b", "c", "d") }),
            fc.record({ op: fc.constant("wait" as const), minutes: fc.integer({ min: 1, max: 20 }) })
          )
          const strategies = [
            Eviction.lru(2),
            Eviction.ttl("30 minutes"),
            Eviction.composite(Eviction.lru(3), Eviction.ttl("15 minutes"))
          ]
          for (const strategy of strategies) {
            for (const ops of fc.sample(fc.array(op, { minLength: 10, maxLength: 40 }), { numRuns: 15, seed: 7 })) {
              const db = yield* store(strategy)
              const memory = yield* SessionStore.makeMemory(strategy)
              const seen: Array<string> = []
              for (const o of ops) {
                if (o.op === "wait") yield* TestClock.adjust(`${o.minutes} minutes`)
                else if (o.op === "put") {
                  yield* db.put(o.id, state([o.id]))
                  yield* memory.put(o.id, state([o.id]))
                } else if (o.op === "evict") {
                  yield* db.evict(o.id)
                  yield* memory.evict(o.id)
                } else {
                  const [x, y] = [yield* db.get(o.id), yield* memory.get(o.id)]
                  seen.push(`${o.id}:${Option.isSome(x)}/${Option.isSome(y)}`)
                  assert.strictEqual(Option.isSome(x), Option.isSome(y), `${Eviction.describe(strategy)}: ${seen}`)
                }
              }
              assert.deepStrictEqual(yield* db.sessions, yield* memory.sessions, Eviction.describe(strategy))
            }
          }
        }),
      60_000
    )

    it.effect("session ids that cannot be stored are refused, not truncated into another session", () =>
      Effect.gen(function*() {
        const s = yield* store(Eviction.never)
        const long = "x".repeat(Sessions.MAX_SESSION_ID + 1)
        yield* s.put(long, state(["a"]))
        yield* s.put("nul\0id", state(["a"]))
        yield* s.put("ok", state(["fine", "bad\0id"]))
        assert.isTrue(Option.isNone(yield* s.get(long)))
        assert.isTrue(Option.isNone(yield* s.get("nul\0id")))
        assert.deepStrictEqual(yield* s.get("ok"), Option.some(state(["fine"])))
        assert.deepStrictEqual(yield* s.sessions, ["ok"])
      }))
  })

  itLosesDatabase(
    engine,
    "the database lost mid-run: turns go on, writes are held and written back, nothing else is carried",
    (plug) =>
      Effect.gen(function*() {
        const s = yield* Sessions.make({ eviction: Eviction.never })
        const other = yield* Sessions.make({ eviction: Eviction.never })
        yield* s.put("s1", state(["before"]))
        yield* other.put("s2", state(["elsewhere"]))

        plug.unplug()
        // a turn starts: the database cannot be read; this instance has no held write of s1 yet
        assert.isTrue(Option.isNone(yield* s.get("s1")))
        // the turn ends: its write is held
        yield* s.put("s1", state(["during"], ["during"]))
        assert.deepStrictEqual(yield* s.pending, ["s1"])
        // the next turn on this instance starts with its own held write, and nothing of s2
        assert.deepStrictEqual(yield* s.get("s1"), Option.some(state(["during"], ["during"])))
        assert.isTrue(Option.isNone(yield* s.get("s2")))

        plug.replug()
        // the write-back fiber retries with backoff: drive the clock until it has written
        yield* driveUntil(Effect.map(s.pending, (p) => p.length === 0))
        yield* s.flush
        assert.deepStrictEqual(yield* s.pending, [])
        // what was there before and what was held are both there, for any instance
        assert.deepStrictEqual(yield* other.get("s1"), Option.some(state(["before", "during"], ["during"])))

        // an eviction held through an outage is not undone by a later write: the old tools stay gone
        plug.unplug()
        yield* s.evict("s1")
        yield* s.put("s1", state(["after"]))
        plug.replug()
        yield* s.flush
        assert.deepStrictEqual(yield* other.get("s1"), Option.some(state(["after"])))
      })
  )
})
