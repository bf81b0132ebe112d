// An agent turn with the scripted model: the executor re-reads the visible tools every iteration.
// Runs in docs/examples.test.ts (npm test).
import { Executor, ScriptedModel, TokenCounter } from "@tool-search/agent"
import { CatalogTool, Disclosure, Keyword, ToolCatalog } from "@tool-search/core"
import { Effect, Layer, Stream } from "effect"

const echo = (name: string) => CatalogTool.handler(name, (params) => Effect.succeed({ ok: true, name, params }))
const tools = [
  CatalogTool.make({ name: "read_file", description: "Read a file", loading: "eager", handler: echo("read_file") }),
  CatalogTool.make({ name: "chat_send", description: "Send a chat message to a channel", handler: echo("chat_send") }),
  CatalogTool.make({ name: "tickets_open", description: "Open a ticket in the tracker", handler: echo("tickets_open") })
]

const Catalog = ToolCatalog.layerWithTools(tools).pipe(
  Layer.provide(Keyword.layer),
  Layer.orDie,
  Layer.merge(Disclosure.layer({ defer: "always" })) // two deferred tools: below the default threshold
)

// A real app provides an effect/ai LanguageModel (OpenAI, Anthropic, ...) instead of the script.
const Model = ScriptedModel.layer({
  policy: "capable",
  plan: () => ({ search: "send chat message", tool: "chat_send", params: { text: "v2.3 is live" } })
})

const Agent = Executor.layerMemory({ maxIterations: 8 }).pipe(
  Layer.provideMerge(Model),
  Layer.provideMerge(Catalog),
  Layer.provide(TokenCounter.o200k)
)

export const program = Effect.gen(function*() {
  const executor = yield* Executor.Executor
  const events = yield* Stream.runCollect(
    executor.stream({ prompt: [{ role: "user", content: "announce the release" }] })
  )
  // which tools each request carried: the search tool first, the found tool from the next request on
  return events.flatMap((e) => e._tag === "ModelRequest" ? [e.tools] : [])
}).pipe(Effect.provide(Agent))
