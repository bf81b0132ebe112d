// Every example in docs/ runs here, so the guides cannot drift from the code.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as AgentExample from "./examples/agent.js"
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
})
