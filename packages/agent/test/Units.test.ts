import { assert, describe, it } from "@effect/vitest"
import { Disclosure, Keyword, Permission, ToolCatalog, Unit } from "@tool-search/core"
import { catalogOf, endlessWork } from "@tool-search/core/test-kit"
import { Deferred, Effect, Fiber, Layer, Ref, Stream } from "effect"
import type { LanguageModel, Response } from "effect/ai"
import { TestClock } from "effect/testing"
import { Executor, ScriptedModel, TurnEvent } from "../src/index.js"
import { CatalogLive, fakeModel, plans, tool, user } from "./fixtures.js"

// MCP-shaped tools: ids `mail/send_email`, names `send_email`
const mail = [
  tool("send_email", "Send an email message to someone", { id: "mail/send_email", source: "mail" }),
  tool("list_inbox", "List the messages of the mail inbox", { id: "mail/list_inbox", source: "mail" }),
  tool("archive_message", "Archive a message of the mailbox", { id: "mail/archive_message", source: "mail" })
]

/** A model that answers each request with the next of `responses` (the last repeats); records the tools sent. */
const modelOf = (responses: ReadonlyArray<ReadonlyArray<Response.PartEncoded>>, sent: Array<ReadonlyArray<string>>) =>
  fakeModel(
    Effect.map(Ref.make(0), (n) => (options: LanguageModel.ProviderOptions) =>
      Effect.map(
        Ref.getAndUpdate(n, (k) => k + 1),
        (k) => {
          sent.push(options.tools.map((t) => t.name))
          return [...(responses[Math.min(k, responses.length - 1)] ?? [])]
        }
      ))
  )

const call = (name: string, params: unknown, id = "1"): Response.PartEncoded => ({
  type: "tool-call",
  id,
  name,
  params
})
const text = (t: string): Response.PartEncoded => ({ type: "text", text: t })

describe("carry-over: what a turn reports is what the next accepts", () => {
  it.effect("turn 2 started with turn 1's `activated` sees mail/send_email", () =>
    Effect.gen(function*() {
      const sent: Array<ReadonlyArray<string>> = []
      const executor = yield* Executor.Executor.pipe(
        Effect.provide(
          Executor.layerMemory().pipe(
            Layer.provide(modelOf([[call("ToolSearch", { query: "select:send_email" })], [text("ok")]], sent)),
            Layer.provide(catalogOf(mail))
          )
        )
      )
      const first = yield* executor.run({ prompt: user("find the mail tool") })
      assert.deepStrictEqual(first.activated, ["mail/send_email"], "ids, not model names")
      const second = yield* executor.run({ prompt: user("send it"), activation: first.activated })
      assert.include(sent.at(-1) ?? [], "send_email", "turn 2's request carries the tool")
      assert.deepStrictEqual(second.activated, ["mail/send_email"])
    }))

  it.effect("an unknown id fails the turn with UnknownTools naming it, never a silent drop", () =>
    Effect.gen(function*() {
      const executor = yield* Executor.Executor
      const error = yield* Effect.flip(executor.run({ prompt: user("hi"), activation: ["send_email", "nope"] }))
      assert.strictEqual(error._tag, "UnknownTools")
      assert.include(error.message, "send_email, nope")
    }).pipe(Effect.provide(
      Executor.layerMemory().pipe(Layer.provide(modelOf([[text("ok")]], [])), Layer.provide(catalogOf(mail)))
    )))
})

describe("forks from the app", () => {
  const forkModel = ScriptedModel.layer({ policy: "capable", plan: (t) => plans[t] })
  const App = Executor.layerMemory().pipe(Layer.provideMerge(forkModel), Layer.provideMerge(CatalogLive))

  it.effect("inherit nothing: a fork starts empty and its activations stay its own", () =>
    Effect.gen(function*() {
      const executor = yield* Executor.Executor
      const parent = yield* executor.run({ prompt: user("open a ticket for the outage") })
      assert.include(parent.activated, "tickets_create")
      const fork = yield* executor.fork({ task: "what is the weather in Oslo", inherit: "nothing" })
      assert.include(fork.activated, "weather_forecast")
      assert.notInclude(fork.activated, "tickets_create", "fresh: not the parent's ticket tool")
      assert.strictEqual(fork.stopReason, "answered")
    }).pipe(Effect.provide(App)))

  it.effect("inherit a snapshot: a fork starts with a copy of the parent's activation", () =>
    Effect.gen(function*() {
      const executor = yield* Executor.Executor
      const parent = yield* executor.run({ prompt: user("open a ticket for the outage") })
      const fork = yield* executor.fork({ task: "what is the weather in Oslo", inherit: parent.activated })
      assert.deepStrictEqual(fork.activated.slice(0, parent.activated.length), parent.activated, "starts with the copy")
      assert.include(fork.activated, "weather_forecast")
      // the copy is independent: a turn seeded with the parent's snapshot does not see the fork's tool
      const again = yield* executor.run({ prompt: user("open a ticket for the outage"), activation: parent.activated })
      assert.notInclude(again.activated, "weather_forecast")
    }).pipe(Effect.provide(App)))
})

describe("supervision: a unit's end interrupts what still runs", () => {
  it.effect("a turn out of time interrupts its running call, runs the call's finalizer and says so (TestClock)", () =>
    Effect.gen(function*() {
      const { finalized, started, work } = yield* endlessWork
      const slow = tool("slow_export", "Export everything, slowly", { loading: "eager", handler: () => work })
      const layer = Executor.layerMemory({ turnTimeout: "30 seconds", toolTimeout: "1 hour" }).pipe(
        Layer.provide(modelOf([[call("slow_export", {}, "c1")], [text("done")]], [])),
        Layer.provide(catalogOf([slow]))
      )
      const events = yield* Effect.gen(function*() {
        const executor = yield* Executor.Executor
        const fiber = yield* Effect.forkChild(Stream.runCollect(executor.stream({ prompt: user("export") })))
        yield* Deferred.await(started)
        assert.isFalse(yield* Ref.get(finalized))
        yield* TestClock.adjust("30 seconds")
        return yield* Fiber.join(fiber)
      }).pipe(Effect.provide(layer))
      assert.isTrue(yield* Ref.get(finalized), "the call's finalizer ran")
      const interrupted = events.filter(TurnEvent.$is("ToolInterrupted"))
      assert.deepStrictEqual(interrupted.map((e) => [e.id, e.name]), [["c1", "slow_export"]])
      const finished = events.filter(TurnEvent.$is("TurnFinished"))[0]
      assert.strictEqual(finished?.stopReason, "timeout")
      assert.strictEqual(events[events.length - 1]?._tag, "TurnFinished")
    }))
})

describe("policies are read per unit", () => {
  it.effect("a permission provided around one run applies to that run only", () =>
    Effect.gen(function*() {
      const executor = yield* Executor.Executor
      const open = yield* executor.run({ prompt: user("open a ticket for the outage") })
      assert.strictEqual(open.text.includes("not permitted"), false)
      const denied = yield* executor.stream({ prompt: user("open a ticket for the outage") }).pipe(
        Stream.runCollect,
        Effect.provide(Permission.allowOnly(["ToolSearch", "read_file"]))
      )
      const results = denied.filter(TurnEvent.$is("ToolResult")).filter((r) => r.name === "tickets_create")
      assert.strictEqual(results[0]?.failure, "not-permitted")
      // and the next run, without it, is allowed again
      const again = yield* executor.stream({ prompt: user("open a ticket for the outage") }).pipe(Stream.runCollect)
      const ok = again.filter(TurnEvent.$is("ToolResult")).filter((r) => r.name === "tickets_create")
      assert.strictEqual(ok[0]?.failure, null)
    }).pipe(Effect.provide(
      Executor.layerMemory().pipe(
        Layer.provideMerge(ScriptedModel.layer({ policy: "capable", plan: (t) => plans[t] })),
        Layer.provideMerge(CatalogLive)
      )
    )))
})

describe("no traps on the main paths", () => {
  it.effect("one turn needs no token counter layer: the approximate one is the default", () =>
    Effect.gen(function*() {
      const result = yield* Effect.flatMap(Executor.Executor, (e) =>
        e.run({ prompt: user("open a ticket for the outage") }))
      assert.strictEqual(result.stopReason, "answered")
      assert.isAbove(result.inputTokens, 0)
    }).pipe(Effect.provide(
      Executor.layerMemory().pipe(
        Layer.provide(ScriptedModel.layer({
          policy: "capable",
          plan: (t) =>
            plans[t]
        })),
        Layer.provide(CatalogLive)
      )
    )))

  it.effect("below the deferral threshold the tools are sent directly, and the turn says so", () =>
    Effect.gen(function*() {
      const sent: Array<ReadonlyArray<string>> = []
      const events = yield* Effect.flatMap(
        Executor.Executor,
        (e) => Stream.runCollect(e.stream({ prompt: user("hi") }))
      )
        .pipe(Effect.provide(
          Executor.layerMemory().pipe(
            Layer.provide(modelOf([[text("hello")]], sent)),
            Layer.provide(ToolCatalog.layerWithTools(mail).pipe(Layer.provide(Keyword.layer)))
          )
        ))
      assert.deepStrictEqual(sent[0], ["send_email", "list_inbox", "archive_message"])
      assert.isFalse(events.filter(TurnEvent.$is("TurnStarted"))[0]?.deferring)
      // the same catalog with deferral forced: only the search tool
      const forced: Array<ReadonlyArray<string>> = []
      yield* Effect.flatMap(Executor.Executor, (e) => e.run({ prompt: user("hi") })).pipe(
        Effect.provide(
          Executor.layerMemory().pipe(
            Layer.provide(modelOf([[text("hello")]], forced)),
            Layer.provide(ToolCatalog.layerWithTools(mail).pipe(Layer.provide(Keyword.layer)))
          )
        ),
        Effect.provide(Disclosure.layer({ defer: "always" }))
      )
      assert.deepStrictEqual(forced[0], ["ToolSearch"])
    }))

  it.effect("the catalog's deferred tools are found by the one ToolSearch of the unit", () =>
    Effect.gen(function*() {
      const names = yield* Unit.provide(
        Effect.map(Unit.search("select:send_email,list_inbox"), (r) => r.matches.map((m) => m.tool.id))
      )
      assert.deepStrictEqual(names, ["mail/send_email", "mail/list_inbox"])
    }).pipe(Effect.provide(catalogOf(mail))))
})
