import { CatalogTool, ToolCatalog } from "@tool-search/core"
import { catalogOf, textTool } from "@tool-search/core/test-kit"
import { Effect, Layer, Stream } from "effect"
import { LanguageModel, type Response } from "effect/ai"
import { Executor, ScriptedModel, SessionStore, TokenCounter } from "../src/index.js"

/** A tool whose handler echoes its name and parameters (a `text` parameter). */
export const tool = textTool

export const tools = [
  tool("read_file", "Read a file from the workspace", { loading: "eager" }),
  tool("chat_send_message", "Send a message to a chat channel", { source: "chat" }),
  tool("chat_list_channels", "List the channels of the chat workspace", { source: "chat" }),
  tool("tickets_create", "Create a ticket in the issue tracker", { source: "tickets" }),
  tool("weather_forecast", "Get the weather forecast for a city", { source: "weather" }),
  tool("calendar_create_event", "Create an event in the calendar", { source: "calendar" }),
  tool("broken_tool", "A tool that always fails", {
    handler: CatalogTool.handler("broken_tool", () => Effect.fail("the backend is down"))
  }),
  tool("crashing_tool", "A tool that crashes", {
    handler: () => Effect.die(new Error("null pointer in handler"))
  })
]

/** An eager `create_ticket` whose parameters are checked: `title` required, `priority` an integer, nothing else. */
export const typedTool = (extra: Partial<CatalogTool.Input> = {}) =>
  tool("create_ticket", "Create a ticket", {
    loading: "eager",
    parameters: {
      type: "object",
      properties: { title: { type: "string" }, priority: { type: "integer" } },
      required: ["title"],
      additionalProperties: false
    },
    ...extra
  })

/** A catalog with `tools`, keyword strategy, deferring whatever its size (the kit's `catalogOf`). */
export const CatalogLive = catalogOf(tools)

/** Plans by user message. */
export const plans: Record<string, ScriptedModel.Plan> = {
  "tell #ops the deploy is done": {
    search: "send chat message",
    tool: "chat_send_message",
    params: { text: "deploy done" }
  },
  "open a ticket for the outage": { search: "create ticket", tool: "tickets_create", params: { text: "outage" } },
  "what is the weather in Oslo": { search: "weather forecast", tool: "weather_forecast", params: { text: "Oslo" } },
  "run the broken tool": { search: "fails", tool: "broken_tool" },
  "run the crashing tool": { search: "crashes", tool: "crashing_tool" }
}

/** `executor` with a scripted model (`policy`, following `script`), `catalog` and the approximate token counter. */
export const withScriptedModel = <E, R, E2, R2>(
  executor: Layer.Layer<Executor.Executor, E, R>,
  policy: ScriptedModel.Policy,
  script: Record<string, ScriptedModel.Plan>,
  catalog: Layer.Layer<ToolCatalog.ToolCatalog, E2, R2>
) =>
  executor.pipe(
    Layer.provideMerge(ScriptedModel.layer({ policy, plan: (text) => script[text] })),
    Layer.provideMerge(catalog),
    Layer.provide(TokenCounter.layerApproximate)
  )

/** Executor + scripted model + catalog, with the session store left to the caller. */
export const agentWithoutStore = (policy: ScriptedModel.Policy, options: Partial<Executor.Options> = {}) =>
  withScriptedModel(Executor.layer(options), policy, plans, CatalogLive)

/** Executor + scripted model + catalog + an in-memory session store. */
export const agent = (policy: ScriptedModel.Policy, options: Partial<Executor.Options> = {}) =>
  agentWithoutStore(policy, options).pipe(Layer.provide(SessionStore.layerMemory()))

/**
 * A model layer (no streaming) answering with the `generateText` that `make` builds once per layer
 * build, so it may keep state across the requests of a test.
 */
export const fakeModel = <E, R>(make: Effect.Effect<Parameters<typeof LanguageModel.make>[0]["generateText"], E, R>) =>
  Layer.effect(
    LanguageModel.LanguageModel,
    Effect.flatMap(make, (generateText) => LanguageModel.make({ generateText, streamText: () => Stream.empty }))
  )

/**
 * A model answering its `n`th request with `responses[n]` (the last repeats); `seen` records every
 * request it was sent.
 */
export const recordingModel = (responses: ReadonlyArray<ReadonlyArray<Response.PartEncoded>>) => {
  const seen: Array<LanguageModel.ProviderOptions> = []
  const layer = fakeModel(
    Effect.succeed((options: LanguageModel.ProviderOptions) =>
      Effect.sync(() => [...(responses[Math.min(seen.push(options) - 1, responses.length - 1)] ?? [])])
    )
  )
  return { seen, layer }
}

/** A user message. */
export const user = (text: string) => [{ role: "user" as const, content: text }]

/** An agent whose model answers `responses` in order (the last one repeats), with `extra` tools registered. */
export const scripted = (
  responses: ReadonlyArray<ReadonlyArray<Response.PartEncoded>>,
  options: Partial<Executor.Options> = {},
  extra: ReadonlyArray<CatalogTool.CatalogTool> = []
) => {
  const model = recordingModel(responses).layer
  const catalog = Layer.effectDiscard(Effect.flatMap(ToolCatalog.ToolCatalog, (c) => c.register(extra))).pipe(
    Layer.provideMerge(CatalogLive)
  )
  return Executor.layerMemory(options).pipe(
    Layer.provideMerge(model),
    Layer.provideMerge(Layer.orDie(catalog)),
    Layer.provide(TokenCounter.layerApproximate)
  )
}
