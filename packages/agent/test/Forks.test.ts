import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Ref, Stream } from "effect"
import type { LanguageModel, Prompt, Response } from "effect/ai"
import { Executor, ScriptedModel, TokenCounter, type TurnEvent } from "../src/index.js"
import { CatalogLive, fakeModel, plans } from "./fixtures.js"

const PARENT = "do both jobs"

const userText = (prompt: Prompt.Prompt): string => {
  const users = prompt.content.filter((m) => m.role === "user")
  const last = users[users.length - 1]
  return last?.role === "user" ? last.content.flatMap((p) => p.type === "text" ? [p.text] : []).join("") : ""
}

// The parent activates the chat tool, then starts two forks at once; forks behave as a capable model.
const model = fakeModel(
  Effect.map(Ref.make(0), (parentCalls) => (options: LanguageModel.ProviderOptions) =>
    Effect.gen(function*() {
      if (userText(options.prompt) !== PARENT) {
        return ScriptedModel.respond(
          { policy: "capable", plan: (t) => plans[t] },
          options.prompt,
          options.tools.map((t) => t.name),
          "auto"
        )
      }
      const n = yield* Ref.getAndUpdate(parentCalls, (k) => k + 1)
      const steps: ReadonlyArray<ReadonlyArray<Response.PartEncoded>> = [
        [{ type: "tool-call", id: "p1", name: "ToolSearch", params: { query: "select:chat_send_message" } }],
        [
          { type: "tool-call", id: "p2", name: "delegate_task", params: { task: "open a ticket for the outage" } },
          { type: "tool-call", id: "p3", name: "delegate_task", params: { task: "what is the weather in Oslo" } }
        ],
        [{ type: "text", text: "both done" }]
      ]
      return [...(steps[Math.min(n, steps.length - 1)] ?? [])]
    }))
)

const forkAgent = (inheritActivation: boolean) =>
  Executor.layerMemory({ forks: { maxIterations: 6, inheritActivation } }).pipe(
    Layer.provideMerge(model),
    Layer.provideMerge(CatalogLive),
    Layer.provide(TokenCounter.layerApproximate)
  )

const run = Effect.flatMap(
  Executor.Executor,
  (e) => Stream.runCollect(e.stream({ prompt: [{ role: "user", content: PARENT }] }))
)

const requestsOf = (events: ReadonlyArray<TurnEvent.TurnEvent>, path: string) =>
  events.flatMap((e) => e._tag === "ModelRequest" && e.path.join("/") === path ? [e.tools] : [])

describe("forks", () => {
  it.effect("concurrent forks get fresh activations, never see each other's or the parent's, and report back", () =>
    Effect.gen(function*() {
      const events = yield* run
      const forkPaths = [...new Set(events.flatMap((e) => e.path.length === 1 ? [e.path[0] as string] : []))].sort()
      assert.deepStrictEqual(forkPaths, ["fork-1", "fork-2"])
      const activatedIn = (path: string) =>
        events.flatMap((e) => e._tag === "Activation" && e.path.join("/") === path ? e.tools : [])
      const ticketFork = forkPaths.find((p) => activatedIn(p).includes("tickets_create")) ?? ""
      const weatherFork = forkPaths.find((p) => activatedIn(p).includes("weather_forecast")) ?? ""
      assert.notStrictEqual(ticketFork, weatherFork)
      for (const tools of requestsOf(events, ticketFork)) {
        assert.notInclude(tools, "weather_forecast")
        assert.notInclude(tools, "chat_send_message") // the parent's activation is not inherited
      }
      for (const tools of requestsOf(events, weatherFork)) {
        assert.notInclude(tools, "tickets_create")
        assert.notInclude(tools, "chat_send_message")
      }
      // the parent never sees what its forks activated
      for (const tools of requestsOf(events, "")) {
        assert.notInclude(tools, "tickets_create")
        assert.notInclude(tools, "weather_forecast")
      }
      const results = events.flatMap((e) =>
        e._tag === "ToolResult" && e.path.length === 0 && e.name === "delegate_task" ? [e] : []
      )
      assert.strictEqual(results.length, 2)
      for (const r of results) assert.include(JSON.stringify(r.result), "\"stopReason\":\"answered\"")
      const finished = events.filter((e) => e._tag === "TurnFinished")
      assert.strictEqual(finished.length, 3)
      assert.strictEqual(finished[finished.length - 1]?.path.length, 0)
    }).pipe(Effect.provide(forkAgent(false))))

  it.effect("with the explicit option, a fork starts from a snapshot copy of its parent's activation", () =>
    Effect.gen(function*() {
      const events = yield* run
      const forks = [...new Set(events.flatMap((e) => e.path.length === 1 ? [e.path[0] as string] : []))]
      for (const fork of forks) {
        const first = requestsOf(events, fork)[0] ?? []
        assert.include(first, "chat_send_message")
      }
      // the copy is independent: the parent still does not see the forks' tools
      for (const tools of requestsOf(events, "")) assert.notInclude(tools, "tickets_create")
    }).pipe(Effect.provide(forkAgent(true))))
})
