// A small agent for the store's tests: a catalog of deferred tools, the scripted model, the executor.
import { Executor, type ScriptedModel, type SessionStore } from "@tool-search/agent"
import { plans as agentPlans, tool, user, withScriptedModel } from "@tool-search/agent/test-kit"
import { CatalogTool, type ToolCatalog } from "@tool-search/core"
import { catalogOf } from "@tool-search/core/test-kit"
import { Effect, Layer } from "effect"
import type { LanguageModel } from "effect/ai"

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

/** The agent's plans, and the store's own. */
export const plans: Record<string, ScriptedModel.Plan> = {
  ...agentPlans,
  "echo a big secret": { search: "echo text", tool: "echo_back", params: { text: `secret-${"x".repeat(20_000)}` } },
  "echo a NUL": { search: "echo\0 text", tool: "echo_back", params: { text: "a\u0000b" } },
  "ask a helper": { search: "send chat message", delegate: "tell #ops the deploy is done" }
}

/** The catalog (keyword strategy), deferring whatever its size (the kit's `catalogOf`). */
export const CatalogLive = catalogOf(tools).pipe(Layer.orDie)

const withModel = <E, R>(executor: Layer.Layer<Executor.Executor, E, R>) =>
  withScriptedModel(executor, "capable", plans, CatalogLive)

const forks = { forks: { maxIterations: 4, inheritActivation: false } }

/** Executor + scripted model + catalog; the session store comes from the caller. */
export const agent = (
  options: Partial<Executor.Options> = {}
): Layer.Layer<
  Executor.Executor | LanguageModel.LanguageModel | ScriptedModel.ModelLog | ToolCatalog.ToolCatalog,
  never,
  SessionStore.SessionStore
> => withModel(Executor.layer({ ...forks, ...options }))

/** Executor + scripted model + catalog, with an in-memory session store. */
export const agentInMemory = (options: Partial<Executor.Options> = {}) =>
  withModel(Executor.layerMemory({ ...forks, ...options }))

export { user }
