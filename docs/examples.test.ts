// Every example in docs/ runs here, so the guides cannot drift from the code.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as AgentExample from "./examples/agent.js"
import * as Quickstart from "./examples/quickstart.js"

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
})
