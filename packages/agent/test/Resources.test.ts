// The executor offers resources (`Executor.withResources`): each turn and each fork has its own
// revealed set, so what one unit revealed another cannot read — the next turn, or a fork running
// while its parent holds the reveal.
import { assert, describe, it } from "@effect/vitest"
import { Keyword, Resource, ResourceCatalog, Visibility } from "@tool-search/core"
import { Effect, Layer, Stream } from "effect"
import { LanguageModel, type Prompt, type Response } from "effect/ai"
import { Executor, TokenCounter, TurnEvent } from "../src/index.js"
import { CatalogLive } from "./fixtures.js"

const URI = "policy://acme/returns"
const POLICY = "# Returns\n\nOpened laptops can be returned within 14 days, with a 15% restocking fee."

const Resources = ResourceCatalog.layerWithResources([
  Resource.text({ uri: URI, name: "Returns policy", kind: "policy", source: "policies", text: POLICY })
]).pipe(Layer.provide(Keyword.layer), Layer.orDie)

interface Result {
  readonly name: string
  readonly isFailure: boolean
  readonly result: unknown
}

const userText = (prompt: Prompt.Prompt): string => {
  const users = prompt.content.filter((m) => m.role === "user")
  const last = users[users.length - 1]
  return last?.role === "user" ? last.content.flatMap((p) => p.type === "text" ? [p.text] : []).join("") : ""
}

/** The tool results since the last user message, in order. */
const resultsOf = (prompt: Prompt.Prompt): ReadonlyArray<Result> => {
  const at = prompt.content.map((m) => m.role).lastIndexOf("user")
  return prompt.content.slice(at + 1).flatMap((m) =>
    m.role === "tool"
      ? m.content.flatMap((p) =>
        p.type === "tool-result" ? [{ name: p.name, isFailure: p.isFailure, result: p.result }] : []
      )
      : []
  )
}

const call = (id: string, name: string, params: unknown): Array<Response.PartEncoded> => [
  { type: "tool-call", id, name, params }
]
const say = (text: string): Array<Response.PartEncoded> => [{ type: "text", text }]
const outcome = (r: Result | undefined) =>
  r === undefined ? "none" : `${r.isFailure ? "refused" : "read"}: ${JSON.stringify(r.result)}`

/**
 * A model driven by the user message: "reveal and read" samples the policy then reads it; "read"
 * reads without revealing; "reveal then delegate" samples, hands "read" to a fork while the reveal
 * is live, then reads itself. Each answer reports what the last read came to.
 */
const model = Layer.effect(
  LanguageModel.LanguageModel,
  LanguageModel.make({
    generateText: (options) =>
      Effect.sync(() => {
        const text = userText(options.prompt)
        const results = resultsOf(options.prompt)
        const last = results[results.length - 1]
        const n = results.length
        switch (text) {
          case "reveal and read":
            return n === 0
              ? call("s", "sample_resources", { uri: URI })
              : n === 1
              ? call("r", "read_resource", { uri: URI })
              : say(outcome(last))
          case "read":
            return n === 0 ? call("r", "read_resource", { uri: URI }) : say(outcome(last))
          case "reveal then delegate":
            return n === 0
              ? call("s", "sample_resources", { uri: URI })
              : n === 1
              ? call("d", "delegate_task", { task: "read" })
              : n === 2
              ? call("r", "read_resource", { uri: URI })
              : say(`fork: ${JSON.stringify(results[1]?.result)} | parent: ${outcome(last)}`)
          default:
            return say("?")
        }
      }),
    streamText: () => Stream.empty
  })
)

const agent = Executor.layerMemory({ forks: { maxIterations: 4, inheritActivation: false } }).pipe(
  Executor.withResources,
  Layer.provideMerge(model),
  Layer.provideMerge(CatalogLive),
  Layer.provide(Resources),
  Layer.provide(TokenCounter.layerApproximate),
  // the policies are attached to this agent: the table of contents names them
  Layer.provide(Visibility.layer({ strict: false, resources: ["policies"] }))
)

const turn = (text: string) =>
  Effect.flatMap(Executor.Executor, (e) => e.run({ prompt: [{ role: "user", content: text }] }))

/** The events of a turn the user opens with `text`. */
const turnEvents = (text: string) =>
  Effect.flatMap(Executor.Executor, (e) => Stream.runCollect(e.stream({ prompt: [{ role: "user", content: text }] })))

describe("Executor with resources", () => {
  it.effect("a turn reveals and reads; the resource tools are offered and L1 is in the system prompt", () =>
    Effect.gen(function*() {
      const events = yield* turnEvents("reveal and read")
      const finished = events.find(TurnEvent.$is("TurnFinished"))
      assert.include(finished?.text, "read:")
      assert.include(finished?.text, "15% restocking fee")
      const first = events.find(TurnEvent.$is("ModelRequest"))
      assert.includeMembers([...(first?.tools ?? [])], ["sample_resources", "search_resources", "read_resource"])
      const result = yield* turn("reveal and read")
      const system = result.prompt.content.find((m) => m.role === "system")
      assert.include(system?.role === "system" ? system.content : "", `<${URI}>`)
    }).pipe(Effect.provide(agent)))

  it.effect("the next turn cannot read what the previous turn revealed", () =>
    Effect.gen(function*() {
      const first = yield* turn("reveal and read")
      assert.include(first.text, "read:")
      const next = yield* turn("read")
      assert.include(next.text, "refused:")
      assert.include(next.text, "is not revealed yet")
    }).pipe(Effect.provide(agent)))

  it.effect("a fork running while its parent holds the reveal cannot read it; the parent can", () =>
    Effect.gen(function*() {
      const result = yield* turn("reveal then delegate")
      const [fork, parent] = result.text.split(" | ")
      assert.include(fork, "refused:")
      assert.include(fork, "is not revealed yet")
      assert.include(parent, "read:")
      assert.include(parent, "15% restocking fee")
    }).pipe(Effect.provide(agent)))

  it.effect("without withResources no resource tool is offered", () =>
    Effect.gen(function*() {
      const events = yield* turnEvents("read")
      const first = events.find(TurnEvent.$is("ModelRequest"))
      assert.notInclude([...(first?.tools ?? [])], "read_resource")
      const refused = events.find(TurnEvent.$is("ToolResult"))
      assert.strictEqual(refused?.failure, "unknown")
    }).pipe(
      Effect.provide(
        Executor.layerMemory().pipe(
          Layer.provideMerge(model),
          Layer.provideMerge(CatalogLive),
          Layer.provide(TokenCounter.layerApproximate)
        )
      )
    ))
})
