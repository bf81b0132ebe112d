// Every example in docs/ runs here, so the guides cannot drift from the code.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Quickstart from "./examples/quickstart.js"
import * as Search from "./examples/search.js"

describe("docs examples", () => {
  it.effect("quickstart: a search activates the tool for this turn", () =>
    Effect.map(Quickstart.program, (visible) => assert.deepStrictEqual(visible, ["read_file", "ToolSearch", "slack_send"])))

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
})
