// How found tools reach the model. The same turn under `list` delivery (what a search finds joins
// the tool list of the next request) and `result` delivery (one tool list for the whole turn; the
// model calls what it found through `call_tool`), with the tokens of each request that repeat the
// start of an earlier one — what a provider's prompt cache could serve.
// Runs in docs/examples.test.ts (npm test).
import { Executor, ScriptedModel, TurnEvent } from "@tool-search/agent"
import { CatalogTool, Disclosure, Keyword, ToolCatalog } from "@tool-search/core"
import { Effect, Layer, Stream } from "effect"

const tools = [
  CatalogTool.make({ name: "read_file", description: "Read a file", loading: "eager" }),
  CatalogTool.make({
    name: "slack_send",
    description: "Send a Slack message to a channel",
    parameters: { type: "object", properties: { channel: { type: "string" }, text: { type: "string" } } },
    handler: CatalogTool.handler("slack_send", () => Effect.succeed(true))
  })
]

const agent = (delivery: Executor.Delivery) =>
  Executor.layerMemory({ delivery, systemPrompt: "You are the release assistant." }).pipe(
    Layer.provideMerge(ScriptedModel.layer({
      policy: "capable",
      plan: () => ({ search: "send a slack message", tool: "slack_send", params: { channel: "#rel", text: "v2" } })
    })),
    Layer.provide(ToolCatalog.layerWithTools(tools).pipe(Layer.provide(Keyword.layer), Layer.orDie)),
    Layer.provide(Disclosure.layer({ defer: "always" })) // one deferred tool: below the default threshold
  )

/** One turn: the tools of each request, the calls made, and each request's cacheable prefix. */
export const turn = (delivery: Executor.Delivery) =>
  Effect.gen(function*() {
    const executor = yield* Executor.Executor
    const events = yield* Stream.runCollect(executor.stream({ prompt: [{ role: "user", content: "announce v2" }] }))
    const requests = events.filter(TurnEvent.$is("ModelRequest"))
    return {
      sent: requests.map((r) => r.tools),
      calls: events.filter(TurnEvent.$is("ToolCall")).map((c) => c.via === undefined ? c.name : `${c.via} → ${c.name}`),
      // does each request start with the whole previous one?
      prefixKept: requests.slice(1).map((r, i) => r.prefixTokens === requests[i]?.inputTokens)
    }
  }).pipe(Effect.provide(agent(delivery)))
