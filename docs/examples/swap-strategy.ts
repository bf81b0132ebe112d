// Use 2 — swap the search strategy in a test: the program under test is the same; only the strategy
// layer under the catalog changes (here BM25F, then a regex over names). Runs in docs/examples.test.ts.
import { Bm25f, CatalogTool, Disclosure, Regex, type SearchStrategy, ToolCatalog, Unit } from "@tool-search/core"
import { Effect, Layer } from "effect"

const tools = ["slack_send: Send a Slack message", "slack_list: List Slack channels", "jira_create: Open a ticket"]
  .map((line) => line.split(": ") as [string, string])
  .map(([name, description]) => CatalogTool.make({ name, description }))

/** The program under test: one turn that searches. */
const found = (query: string) => Unit.provide(Effect.map(Unit.search(query), (r) => r.matches.map((m) => m.tool.name)))

/** The catalog over a strategy of the test's choosing. */
const catalogOver = (strategy: Layer.Layer<SearchStrategy.SearchStrategy>) =>
  ToolCatalog.layerWithTools(tools).pipe(
    Layer.provide(strategy),
    Layer.orDie,
    Layer.merge(Disclosure.layer({ defer: "always" }))
  )

export const program = Effect.all({
  bm25f: found("open a ticket").pipe(Effect.provide(catalogOver(Bm25f.layer))),
  regex: found("^slack_").pipe(Effect.provide(catalogOver(Regex.layer)))
})
