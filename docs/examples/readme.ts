// The README example: tool search on an existing effect/ai Toolkit in one step — one annotation per
// deferred tool, one layer — and a turn of the executor. Runs in docs/examples.test.ts (npm test).
import { Executor, ScriptedModel } from "@tool-search/agent"
import { CatalogTool, Disclosure, SearchToolkit } from "@tool-search/core"
import { Effect, Layer, Schema } from "effect"
import { Tool, Toolkit } from "effect/ai"

// Your toolkit, as effect/ai defines it; the tools the model should find, not always see, say so.
const ReadFile = Tool.make("read_file", {
  description: "Read a file",
  parameters: Schema.Struct({ path: Schema.String }),
  success: Schema.String
})
const SlackSend = Tool.make("slack_send", {
  description: "Send a Slack message",
  parameters: Schema.Struct({ text: Schema.String }),
  success: Schema.Boolean
}).annotate(CatalogTool.Deferred, true) // found through ToolSearch, not sent until then
const MyToolkit = Toolkit.make(ReadFile, SlackSend)
const Handlers = MyToolkit.toLayer({
  read_file: ({ path }) => Effect.succeed(`# ${path}`),
  slack_send: () => Effect.succeed(true)
})

// One layer: the catalog of the toolkit's tools, ranked by BM25F.
const Search = SearchToolkit.layerFromToolkit(MyToolkit).pipe(Layer.provide(Handlers))

// The executor over any effect/ai LanguageModel; here a scripted one, offline.
const Model = ScriptedModel.layer({
  policy: "capable",
  plan: () => ({ search: "slack message", tool: "slack_send", params: { text: "v2.3 is live" } })
})
const Agent = Executor.layerMemory().pipe(
  Layer.provideMerge(Model),
  Layer.provide(Search),
  // one deferred tool is below the default threshold (auto:10), under which every tool is sent
  Layer.provide(Disclosure.layer({ defer: "always" }))
)

export const program = Effect.gen(function*() {
  const executor = yield* Executor.Executor
  const result = yield* executor.run({ prompt: [{ role: "user", content: "announce the release on Slack" }] })
  const requests = yield* Effect.flatMap(ScriptedModel.ModelLog, (log) => log.requests)
  // the first request carries read_file and ToolSearch; slack_send joins once the search found it
  return { sent: requests.map((r) => r.tools), activated: result.activated, answer: result.text }
}).pipe(Effect.provide(Agent))
