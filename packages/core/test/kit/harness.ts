// A catalog shaped like seed 003's agent harness: a resource-bound retrieval tool, a connected
// news MCP server, and a large platform catalog of deferred tools from several sources.
import type { CatalogTool } from "../../src/index.js"
import { tool } from "./tools.js"

/** The retrieval tool bound to the documents attached to the agent. */
export const ragSearch = tool("rag_search", "Search the attached documents. Returns passages with scores.", {
  category: "retrieval",
  source: "attached-docs",
  parameters: {
    type: "object",
    properties: { collection: { type: "string", description: "The collection name, e.g. policy-handbook" } }
  }
})

/** Tools of the news MCP server the user connected to this agent. */
export const newsTools = [
  tool("news_search", "Search recent news articles by keyword.", { category: "news", source: "news-mcp" }),
  tool("news_headlines", "List today's top headlines.", { category: "news", source: "news-mcp" })
]

/** A platform tool the user never approved for this agent. */
export const dbLoad = tool("db_load_rows", "Load rows into a database table.", {
  category: "data",
  source: "platform-nodes"
})

const platformCategories = ["web", "files", "calendar", "crm", "devops", "finance"]

/** 66 tools of the platform's MCP session, as in the seed's local stack. */
export const platformTools: ReadonlyArray<CatalogTool.CatalogTool> = Array.from(
  { length: 66 },
  (_, i) =>
    tool(`mcp_tool_${i}`, `Platform operation number ${i} for ${platformCategories[i % 6]} work.`, {
      category: platformCategories[i % 6] as string,
      source: "mcp-session"
    })
)

/** The harness catalog: resource, connected, and platform tools, plus one eager platform tool. */
export const harnessTools = [
  ragSearch,
  ...newsTools,
  dbLoad,
  ...platformTools,
  tool("platform_status", "Show the platform status.", { loading: "eager", source: "platform-nodes" })
]
