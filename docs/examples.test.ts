// Every example in docs/ runs here, so the guides cannot drift from the code.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import * as AgentExample from "./examples/agent.js"
import * as McpGateway from "./examples/mcp-gateway.js"
import * as McpImport from "./examples/mcp-import.js"
import * as Quickstart from "./examples/quickstart.js"
import * as Search from "./examples/search.js"
import * as VisibilityExample from "./examples/visibility.js"
import * as Settings from "./settings.js"

describe("docs examples", () => {
  it.effect("quickstart: a search activates the tool for this turn", () =>
    Effect.map(
      Quickstart.program,
      (visible) => assert.deepStrictEqual(visible, ["read_file", "ToolSearch", "slack_send"])
    ))

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

  it.live(
    "mcp-import: a real MCP server's tools join the catalog, a search loads one, a call runs it",
    () =>
      Effect.map(McpImport.program, ({ imported, result, status }) => {
        assert.include(imported, "create_entities")
        assert.include(imported, "read_graph")
        assert.match(JSON.stringify(result), /imports MCP servers/)
        assert.deepStrictEqual(status, ["memory: ready, 9 tools"])
      }),
    30_000
  )

  it.live(
    "mcp-gateway: a client sees the search tools, then what its search loaded",
    () =>
      Effect.map(McpGateway.program, (r) =>
        assert.deepStrictEqual(r, {
          first: ["ToolSearch", "call_tool"],
          after: ["ToolSearch", "call_tool", "read_graph"],
          graphIsError: false
        })),
    30_000
  )

  it.effect("search: BM25F splits identifiers, tolerates Korean particles, and is live", () =>
    Effect.map(Search.bm25f, (r) =>
      assert.deepStrictEqual(r, {
        nurses: ["getHealthWorkforce"],
        korean: ["slack_send_message"],
        jira: ["jira_create_ticket"]
      })))

  it.effect("search: regex over names, with errors the model can act on", () =>
    Effect.map(Search.regex, (r) => {
      assert.deepStrictEqual(r.found, ["github_create_issue", "slack_send_message"]) // larger matched share first
      assert.match(r.error, /Invalid regular expression 'slack_\(send': missing closing \)/)
    }))

  it.effect("search: semantic over a custom EmbeddingModel", () =>
    Effect.map(Search.semantic, (r) => assert.deepStrictEqual(r, ["github_create_issue"])))

  it.effect("search: a query that led to a successful call finds that tool first next time", () =>
    Effect.map(Search.feedback, ({ after, before }) => {
      assert.strictEqual(before[0], "weather_now")
      assert.strictEqual(after[0], "weather_week")
    }))

  it.effect("search: no good match loads nothing and says so", () =>
    Effect.map(Search.noGoodMatch, (answer) => {
      const { functions, note } = answer as { functions: ReadonlyArray<unknown>; note?: string }
      assert.deepStrictEqual(functions, [])
      assert.match(note ?? "", /^No good match: the closest tools \(.+\) match these words weakly/)
    }))
})

describe("docs/configuration.md", () => {
  it("lists every setting of every package, exactly as the tables declare them", () => {
    const text = readFileSync(new URL("configuration.md", import.meta.url), "utf8")
    assert.strictEqual(Settings.current(text), Settings.section(), "run npm run docs:settings")
  })
})
