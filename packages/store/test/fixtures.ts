// A small agent for the store's tests: a catalog of deferred tools, the scripted model, the executor.
import { Executor, ScriptedModel, type SessionStore, TokenCounter } from "@tool-search/agent"
import { CatalogTool, Keyword, ToolCatalog } from "@tool-search/core"
import { Effect, Layer } from "effect"
import type { LanguageModel } from "effect/ai"

const tool = (name: string, description: string, extra: Partial<CatalogTool.Input> = {}) =>
  CatalogTool.make({
    name,
    description,
    parameters: { type: "object", properties: { text: { type: "string", description: "Free text" } } },
    handler: CatalogTool.handler(name, (params) => Effect.succeed({ tool: name, params })),
    ...extra
  })

export const tools = [
  tool("read_file", "Read a file from the workspace", { loading: "eager" }),
  tool("chat_send_message", "Send a message to a chat channel", { source: "chat" }),
  tool("tickets_create", "Create a ticket in the issue tracker", { source: "tickets" }),
  tool("weather_forecast", "Get the weather forecast for a city", { source: "weather" }),
  tool("echo_back", "Echo the text back unchanged", {
    source: "echo",
    handler: CatalogTool.handler("echo_back", (params) => Effect.succeed({ echoed: params }))
  }),
  tool("broken_tool", "A tool that always fails", {
    source: "broken",
    handler: CatalogTool.handler("broken_tool", () => Effect.fail("the backend is down"))
  })
]

export const plans: Record<string, ScriptedModel.Plan> = {
  "tell #ops the deploy is done": {
    search: "send chat message",
    tool: "chat_send_message",
    params: { text: "deploy done" }
  },
  "open a ticket for the outage": { search: "create ticket", tool: "tickets_create", params: { text: "outage" } },
  "what is the weather in Oslo": { search: "weather forecast", tool: "weather_forecast", params: { text: "Oslo" } },
  "run the broken tool": { search: "fails", tool: "broken_tool" },
  "echo a big secret": { search: "echo text", tool: "echo_back", params: { text: `secret-${"x".repeat(20_000)}` } },
  "echo a NUL": { search: "echo\0 text", tool: "echo_back", params: { text: "a\u0000b" } },
  "ask a helper": { search: "send chat message", delegate: "tell #ops the deploy is done" }
}

export const CatalogLive = ToolCatalog.ToolCatalog.layerWithTools(tools).pipe(Layer.provide(Keyword.layer), Layer.orDie)

const withModel = <E, R>(executor: Layer.Layer<Executor.Executor, E, R>) =>
  executor.pipe(
    Layer.provideMerge(ScriptedModel.layer({ policy: "capable", plan: (text) => plans[text] })),
    Layer.provideMerge(CatalogLive),
    Layer.provide(TokenCounter.TokenCounter.approximate)
  )

const forks = { forks: { maxIterations: 4, inheritActivation: false } }

/** Executor + scripted model + catalog; the session store comes from the caller. */
export const agent = (
  options: Partial<Executor.Options> = {}
): Layer.Layer<
  Executor.Executor | LanguageModel.LanguageModel | ScriptedModel.ModelLog | ToolCatalog.ToolCatalog,
  never,
  SessionStore.SessionStore
> => withModel(Executor.Executor.layer({ ...forks, ...options }))

/** Executor + scripted model + catalog, with an in-memory session store. */
export const agentInMemory = (options: Partial<Executor.Options> = {}) =>
  withModel(Executor.Executor.layerMemory({ ...forks, ...options }))

export const user = (text: string) => [{ role: "user" as const, content: text }]
