// Every example in docs/ runs here, so the guides cannot drift from the code.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as McpGateway from "./examples/mcp-gateway.js"
import * as McpImport from "./examples/mcp-import.js"
import * as Quickstart from "./examples/quickstart.js"

describe("docs examples", () => {
  it.effect("quickstart: a search activates the tool for this turn", () =>
    Effect.map(Quickstart.program, (visible) => assert.deepStrictEqual(visible, ["read_file", "ToolSearch", "slack_send"])))

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
