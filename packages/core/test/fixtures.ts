import { Effect, Layer } from "effect"
import { Activation, CatalogTool, Keyword, ToolCatalog, ToolView } from "../src/index.js"

/** A tool whose handler echoes its name and parameters. */
export const tool = (name: string, description: string, extra: Partial<CatalogTool.Input> = {}) =>
  CatalogTool.make({
    name,
    description,
    parameters: {
      type: "object",
      properties: { path: { type: "string", description: "A file path" } }
    },
    handler: CatalogTool.handler(name, (params) => Effect.succeed({ tool: name, params })),
    ...extra
  })

/** A small mixed catalog: two eager, six deferred. */
export const tools = [
  tool("Read", "Read a file from disk", { loading: "eager" }),
  tool("Write", "Write a file to disk", { loading: "eager" }),
  tool("WebFetch", "Fetch a web page and return its text", { category: "web" }),
  tool("Grep", "Search file contents with a regular expression", { category: "files" }),
  tool("ScheduleTask", "Schedule a task to run later", { category: "tasks" }),
  tool("slack_send_message", "Send a message to a Slack channel", { category: "chat", source: "slack" }),
  tool("slack_list_channels", "List the channels of a Slack workspace", { category: "chat", source: "slack" }),
  tool("github_create_issue", "Create an issue in a GitHub repository", { category: "code", source: "github" })
]

/** A catalog (keyword strategy) with `tools` registered. */
export const CatalogLive = ToolCatalog.ToolCatalog.layerOf(tools).pipe(Layer.provide(Keyword.layer))

/** An empty catalog (keyword strategy). */
export const EmptyCatalog = ToolCatalog.ToolCatalog.layer.pipe(Layer.provide(Keyword.layer))

/** A view with a fresh activation over the catalog in context. */
export const ViewLive = ToolView.ToolView.layer.pipe(Layer.provide(Activation.Activation.layer))

/** Names of the tools a view sends to the model now. */
export const visibleNames = Effect.flatMap(ToolView.ToolView, (v) => v.visible).pipe(
  Effect.map((ts) => ts.map((t) => t.name))
)
