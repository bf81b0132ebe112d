import { assert, describe, it } from "@effect/vitest"
import { ToolCatalog } from "@tool-search/core"
import { Clock, Effect, Layer, Option, Stream } from "effect"
import { Prompt } from "effect/ai"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import { ActivationPolicy, Eviction, Executor, SessionStore } from "../src/index.js"
import { agent, agentWithoutStore, CatalogLive } from "./fixtures.js"

/** Runs a turn; returns what it carried over (from `turn-started`), what it found, and the result. */
const turn = (sessionId: string | undefined, prompt: Prompt.RawInput) =>
  Effect.gen(function*() {
    const executor = yield* Executor.Executor
    const events = yield* Stream.runCollect(
      executor.stream({ ...(sessionId === undefined ? {} : { sessionId }), prompt })
    )
    const started = events.find((e) => e._tag === "TurnStarted")
    const finished = events.find((e) => e._tag === "TurnFinished")
    const found = events.flatMap((e) => e._tag === "Search" ? e.found : [])
    return {
      carried: started?._tag === "TurnStarted" ? started.carried : [],
      found,
      activated: finished?._tag === "TurnFinished" ? finished.activated : []
    }
  })
const say = (sessionId: string, text: string) => turn(sessionId, [{ role: "user", content: text }])

describe("activation policies", () => {
  it.effect("turn (default): nothing carries over", () =>
    Effect.gen(function*() {
      const first = yield* say("s1", "tell #ops the deploy is done")
      assert.isAbove(first.activated.length, 0)
      assert.deepStrictEqual((yield* say("s1", "open a ticket for the outage")).carried, [])
    }).pipe(Effect.provide(agent("capable"))))

  it.effect("session: every earlier activation of the session carries over; other sessions stay clean", () =>
    Effect.gen(function*() {
      const t1 = yield* say("s1", "tell #ops the deploy is done")
      const t2 = yield* say("s1", "open a ticket for the outage")
      assert.deepStrictEqual(t2.carried, t1.activated)
      const t3 = yield* say("s1", "what is the weather in Oslo")
      assert.deepStrictEqual(t3.carried, [...new Set([...t1.activated, ...t2.activated])])
      assert.includeMembers([...t3.carried], ["chat_send_message", "tickets_create"])
      assert.deepStrictEqual((yield* say("s2", "what is the weather in Oslo")).carried, [])
    }).pipe(Effect.provide(agent("capable", { activationPolicy: "session" }))))

  it.effect("latest: only what the previous turn's searches returned", () =>
    Effect.gen(function*() {
      yield* say("s1", "tell #ops the deploy is done")
      const t2 = yield* say("s1", "open a ticket for the outage")
      const t3 = yield* say("s1", "what is the weather in Oslo")
      assert.deepStrictEqual(t3.carried, t2.found)
      assert.include(t3.carried, "tickets_create")
      assert.notInclude(t3.carried, "chat_send_message")
    }).pipe(Effect.provide(agent("capable", { activationPolicy: "latest" }))))

  it.effect("history: rebuilt from earlier search results in the messages, with no store", () =>
    Effect.gen(function*() {
      const executor = yield* Executor.Executor
      const first = yield* executor.run({ prompt: [{ role: "user", content: "tell #ops the deploy is done" }] })
      // no session id, no store: the next turn reads the earlier search results in the history
      const second = yield* turn(
        undefined,
        Prompt.concat(first.prompt, [{ role: "user", content: "open a ticket for the outage" }])
      )
      assert.deepStrictEqual(second.carried, first.activated)
      assert.include(second.carried, "chat_send_message")
    }).pipe(Effect.provide(agent("capable", { activationPolicy: "history" }))))

  it.effect("history: a search run through call_tool (result delivery) counts as the search", () =>
    Effect.gen(function*() {
      const catalog = yield* ToolCatalog.ToolCatalog
      const prompt = Prompt.make([
        { role: "user", content: "tell #ops" },
        {
          role: "assistant",
          content: [{
            type: "tool-call",
            id: "c1",
            name: "call_tool",
            params: { name: "ToolSearch", arguments: { query: "select:chat_send_message" } }
          }, {
            type: "tool-call",
            id: "c2",
            name: "call_tool",
            params: { name: "read_file", arguments: {} }
          }]
        },
        {
          role: "tool",
          content: [
            {
              type: "tool-result",
              id: "c1",
              name: "call_tool",
              isFailure: false,
              result: { functions: [{ name: "chat_send_message" }] }
            },
            // not a search: a result that looks like one loads nothing
            {
              type: "tool-result",
              id: "c2",
              name: "call_tool",
              isFailure: false,
              result: { functions: [{ name: "tickets_create" }] }
            }
          ]
        }
      ])
      const ids = ActivationPolicy.fromHistory(prompt, catalog)
      assert.deepStrictEqual(ids.map((id) => catalog.getUnsafe(id)?.modelName), ["chat_send_message"])
    }).pipe(Effect.provide(CatalogLive)))
})

describe("SessionStore eviction (lazy, on access)", () => {
  const state = (id: string): SessionStore.State => ({ accumulated: [id], latest: [id] })
  const store = Effect.service(SessionStore.SessionStore)
  const withStore = (strategy: Eviction.Strategy) => Effect.provide(SessionStore.layerMemory(strategy))

  it.effect("lru: keeps the most recently used sessions (default 1,000)", () =>
    Effect.gen(function*() {
      const s = yield* store
      yield* s.put("a", state("a"))
      yield* s.put("b", state("b"))
      yield* s.get("a") // a is now more recent than b
      yield* s.put("c", state("c"))
      assert.deepStrictEqual(yield* s.sessions, ["a", "c"])
      assert.isTrue(Option.isNone(yield* s.get("b")))
      assert.deepStrictEqual(Eviction.defaultStrategy, Eviction.lru(1_000))
    }).pipe(withStore(Eviction.lru(2))))

  it.effect("ttl: drops sessions idle longer than the ttl (TestClock)", () =>
    Effect.gen(function*() {
      const s = yield* store
      yield* s.put("a", state("a"))
      yield* TestClock.adjust("20 minutes")
      yield* s.put("b", state("b"))
      yield* TestClock.adjust("20 minutes")
      assert.isTrue(Option.isSome(yield* s.get("b"))) // idle 20 min, and touched again
      assert.isTrue(Option.isNone(yield* s.get("a"))) // idle 40 min
      yield* TestClock.adjust("31 minutes")
      assert.isTrue(Option.isNone(yield* s.get("b")))
    }).pipe(withStore(Eviction.ttl("30 minutes"))))

  it.effect("never: keeps everything until evicted explicitly", () =>
    Effect.gen(function*() {
      const s = yield* store
      for (let i = 0; i < 50; i++) yield* s.put(`s${i}`, state(`s${i}`))
      yield* TestClock.adjust("365 days")
      assert.strictEqual((yield* s.sessions).length, 50)
      yield* s.evict("s7")
      assert.isTrue(Option.isNone(yield* s.get("s7")))
      assert.strictEqual((yield* s.sessions).length, 49)
    }).pipe(withStore(Eviction.never)))

  it.effect("always: a session is forgotten before every access", () =>
    Effect.gen(function*() {
      const s = yield* store
      yield* s.put("a", state("a"))
      assert.isTrue(Option.isNone(yield* s.get("a")))
    }).pipe(withStore(Eviction.always)))

  it.effect("composite: evicts when any strategy would", () =>
    Effect.gen(function*() {
      const s = yield* store
      yield* s.put("a", state("a"))
      yield* s.put("b", state("b"))
      yield* s.put("c", state("c"))
      assert.deepStrictEqual(yield* s.sessions, ["b", "c"]) // lru(2)
      yield* TestClock.adjust("2 hours")
      assert.isTrue(Option.isNone(yield* s.get("c"))) // ttl(1 hour)
      assert.deepStrictEqual(yield* s.sessions, [])
    }).pipe(withStore(Eviction.composite(Eviction.ttl("1 hour"), Eviction.lru(2)))))

  it.effect("the session policy with an always-evicting store starts every turn clean", () =>
    Effect.gen(function*() {
      yield* say("s1", "tell #ops the deploy is done")
      assert.deepStrictEqual((yield* say("s1", "open a ticket for the outage")).carried, [])
    }).pipe(
      Effect.provide(
        agentWithoutStore("capable", { activationPolicy: "session" }).pipe(
          Layer.provide(SessionStore.layerMemory(Eviction.always))
        )
      )
    ))

  it("describes strategies", () => {
    assert.strictEqual(
      Eviction.describe(Eviction.composite(Eviction.ttl("30 minutes"), Eviction.lru(200))),
      "composite(ttl(30m), lru(200))"
    )
  })
})

describe("SessionStore.layerMemory: O(1) per operation, the same decisions as evaluating every session", () => {
  type Op =
    | { readonly op: "put" | "get" | "evict"; readonly id: string }
    | { readonly op: "wait"; readonly minutes: number }

  /** The reference: `Eviction.select` over every session on every access (what the store did before). */
  const reference = (strategy: Eviction.Strategy) => {
    let map = new Map<string, { state: SessionStore.State; lastAccess: number }>()
    const evictWith = (now: number, accessing: string | undefined) => {
      const entries = [...map].map(([sessionId, h]) => ({ sessionId, lastAccess: h.lastAccess }))
      const drop = Eviction.select(strategy, entries, now, accessing)
      map = new Map([...map].filter(([id]) => !drop.has(id)))
    }
    const touch = (id: string, state: SessionStore.State, now: number) => {
      map.delete(id)
      map.set(id, { state, lastAccess: now })
    }
    return {
      get: (id: string, now: number) => {
        evictWith(now, id)
        const h = map.get(id)
        if (h !== undefined) touch(id, h.state, now)
        return h?.state
      },
      put: (id: string, state: SessionStore.State, now: number) => {
        evictWith(now, undefined)
        touch(id, state, now)
        evictWith(now, undefined)
      },
      evict: (id: string) => void map.delete(id),
      sessions: () => [...map.keys()]
    }
  }

  const strategies = fc.oneof(
    fc.integer({ min: 1, max: 6 }).map((n) => Eviction.lru(n)),
    fc.integer({ min: 1, max: 30 }).map((m) => Eviction.ttl(`${m} minutes`)),
    fc.constant(Eviction.never),
    fc.constant(Eviction.always),
    fc.tuple(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 30 })).map(([n, m]) =>
      Eviction.composite(Eviction.lru(n), Eviction.ttl(`${m} minutes`))
    )
  )
  const id = fc.constantFrom("a", "b", "c", "d", "e", "f", "g", "h")
  const ops = fc.array(
    fc.oneof(
      fc.record({ op: fc.constantFrom("put" as const, "get" as const, "evict" as const), id }),
      fc.record({ op: fc.constant("wait" as const), minutes: fc.integer({ min: 0, max: 20 }) })
    ),
    { maxLength: 60 }
  )

  const state = (id: string): SessionStore.State => ({ accumulated: [id], latest: [id] })

  const agrees = (strategy: Eviction.Strategy, sequence: ReadonlyArray<Op>) =>
    Effect.gen(function*() {
      const store = yield* SessionStore.makeMemory(strategy)
      const model = reference(strategy)
      for (const step of sequence) {
        const now = yield* Clock.currentTimeMillis
        if (step.op === "wait") yield* TestClock.adjust(`${step.minutes} minutes`)
        else if (step.op === "put") {
          yield* store.put(step.id, state(step.id))
          model.put(step.id, state(step.id), now)
        } else if (step.op === "evict") {
          yield* store.evict(step.id)
          model.evict(step.id)
        } else {
          const got = Option.getOrUndefined(yield* store.get(step.id))
          if (JSON.stringify(got) !== JSON.stringify(model.get(step.id, now))) return false
        }
        if (JSON.stringify(yield* store.sessions) !== JSON.stringify(model.sessions())) return false
      }
      return true
    }).pipe(Effect.provide(TestClock.layer()))

  it("every operation sequence, every strategy", () =>
    fc.assert(
      fc.asyncProperty(strategies, ops, (strategy, sequence) => Effect.runPromise(agrees(strategy, sequence)))
    ))
})
