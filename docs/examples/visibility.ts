// docs/visibility.md: an agent with attached documents, one connected MCP server and a large
// platform catalog, configured from environment variables. Runs in docs/examples.test.ts.
import { CatalogTool, ToolCatalog, ToolSearchConfig, Unit } from "@tool-search/core"
import { ConfigProvider, Effect, Layer } from "effect"

const echo = (name: string) => CatalogTool.handler(name, (params) => Effect.succeed({ name, params }))
const tool = (name: string, description: string, category: string, source: string) =>
  CatalogTool.make({ name, description, category, source, handler: echo(name) })

const tools = [
  tool("rag_search", "Search the attached documents. Returns passages.", "retrieval", "attached-docs"),
  tool("news_search", "Search recent news articles.", "news", "news-mcp"),
  tool("db_load_rows", "Load rows into a database table.", "data", "platform-nodes"),
  ...Array.from({ length: 66 }, (_, i) => tool(`mcp_tool_${i}`, `Platform operation ${i}.`, "platform", "mcp-session"))
]

// What a deployment would put in the environment; `ConfigProvider.fromEnv()` reads process.env.
const env = ConfigProvider.fromEnv({
  env: {
    TOOL_SEARCH_MODE: "staged",
    TOOL_SEARCH_RESOURCES: "attached-docs",
    TOOL_SEARCH_CONNECTED: "news-mcp",
    TOOL_SEARCH_PLATFORM_SOURCES: "mcp-session" // explore this platform source, and no other
  }
})

export const program = Effect.gen(function*() {
  const catalog = yield* ToolCatalog.ToolCatalog
  yield* catalog.register(tools)
  return yield* Effect.gen(function*() {
    const systemPrompt = yield* Unit.contents // append to the agent's system prompt
    const visible = (yield* Unit.tools).map((t) => t.name) // the tools of the first request
    // db_load_rows comes from a platform source the agent may not explore: it does not exist
    const found = yield* Unit.search("load rows into a database")
    const unknown = yield* Effect.flip(Unit.resolve("db_load_rows"))
    return { systemPrompt, visible, found: found.matches.map((m) => m.tool.name), unknown: unknown.reason }
  }).pipe(Unit.provide)
}).pipe(
  Effect.provide(ToolCatalog.layer.pipe(Layer.provideMerge(ToolSearchConfig.layerConfig))),
  Effect.provideService(ConfigProvider.ConfigProvider, env)
)
