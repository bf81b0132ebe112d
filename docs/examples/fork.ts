// Use 3 — sub-agents from the app: `Executor.fork` runs a sub-agent in a unit of its own, inheriting
// nothing or a snapshot of activated tool ids (a turn's `activated`). Two run at once; neither sees
// the other's tools, and what they activate never reaches the turn. Runs in docs/examples.test.ts.
import { Executor, ScriptedModel } from "@tool-search/agent"
import { CatalogTool, Disclosure, Keyword, ToolCatalog } from "@tool-search/core"
import { Effect, Layer } from "effect"

const echo = (name: string) => CatalogTool.handler(name, (params) => Effect.succeed({ ok: true, name, params }))
const tools = ["chat_send: Send a chat message", "tickets_open: Open a ticket", "weather_get: Get the weather"]
  .map((line) => line.split(": ") as [string, string])
  .map(([name, description]) => CatalogTool.make({ name, description, handler: echo(name) }))

const Model = ScriptedModel.layer({
  policy: "capable",
  plan: (task) =>
    task.includes("ticket")
      ? { search: "open ticket", tool: "tickets_open", params: { text: "outage" } }
      : { search: "weather", tool: "weather_get", params: { text: "Oslo" } }
})
const Agent = Executor.layerMemory().pipe(
  Layer.provideMerge(Model),
  Layer.provideMerge(ToolCatalog.layerWithTools(tools).pipe(Layer.provide(Keyword.layer), Layer.orDie)),
  Layer.provide(Disclosure.layer({ defer: "always" })) // three tools: below the default threshold
)

export const program = Effect.gen(function*() {
  const executor = yield* Executor.Executor
  const turn = yield* executor.run({ prompt: [{ role: "user", content: "open a ticket for the outage" }] })
  const [fresh, seeded] = yield* Effect.all([
    executor.fork({ task: "what is the weather in Oslo", inherit: "nothing" }),
    executor.fork({ task: "what is the weather in Oslo", inherit: turn.activated })
  ], { concurrency: 2 })
  return { turn: turn.activated, fresh: fresh.activated, seeded: seeded.activated }
}).pipe(Effect.provide(Agent))
