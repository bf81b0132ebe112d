// Every example in docs/ runs here, so the guides cannot drift from the code.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as AgentExample from "./examples/agent.js"
import * as McpGateway from "./examples/mcp-gateway.js"
import * as McpImport from "./examples/mcp-import.js"
import * as Quickstart from "./examples/quickstart.js"
import * as VisibilityExample from "./examples/visibility.js"

describe("docs examples", () => {
  it.effect("quickstart: a search activates the tool for this turn", () =>
    Effect.map(Quickstart.program, (visible) => assert.deepStrictEqual(visible, ["read_file", "ToolSearch", "slack_send"])))

  it.effect("agent: the found tool is in the request after the search", () =>
    Effect.map(AgentExample.program, (requests) =>
      assert.deepStrictEqual(requests, [
        ["read_file", "ToolSearch"],
        ["read_file", "ToolSearch", "chat_send"],
        ["read_file", "ToolSearch", "chat_send"]
      ])))

  it.effect("visibility: connected names listed, the platform folded, an unexplored source absent", () =>
    Effect.map(VisibilityExample.program, ({ found, systemPrompt, unknown, visible }) => {
      assert.include(systemPrompt, "[retrieval]\n- rag_search (load first) — Search the attached documents.")
      assert.include(systemPrompt, "[news]\n- news_search (load first) — Search recent news articles.")
      assert.include(systemPrompt, "[platform] (66 more tools, hidden)")
      assert.notInclude(systemPrompt, "db_load_rows")
      assert.deepStrictEqual(visible, ["search_tools", "ToolSearch"])
      assert.notInclude(found, "db_load_rows")
      assert.strictEqual(unknown, "UnknownTool")
    }))

  it.live("mcp-import: a real MCP server's tools join the catalog, a search loads one, a call runs it", () =>
    Effect.map(McpImport.program, ({ imported, result, status }) => {
      assert.include(imported, "create_entities")
      assert.include(imported, "read_graph")
      assert.match(JSON.stringify(result), /imports MCP servers/)
      assert.deepStrictEqual(status, ["memory: ready, 9 tools"])
    }), 30_000)

  it.live("mcp-gateway: a client sees the search tools, then what its search loaded", () =>
    Effect.map(McpGateway.program, (r) =>
      assert.deepStrictEqual(r, {
        first: ["ToolSearch", "call_tool"],
        after: ["ToolSearch", "call_tool", "read_graph"],
        graphIsError: false
      })), 30_000)
})
