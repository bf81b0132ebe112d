// Use 1 — compose layers: a catalog composed by hand (one eager and two deferred tools), one turn
// that searches. The turn is a unit (`Unit.provide`): what it activates is gone when it ends.
// Runs in docs/examples.test.ts (npm test).
import { Bm25f, CatalogTool, Disclosure, ToolCatalog, Unit } from "@tool-search/core"
import { Effect, Layer } from "effect"

const echo = (name: string) => CatalogTool.handler(name, (params) => Effect.succeed({ name, params }))

export const program = Effect.gen(function*() {
  const catalog = yield* ToolCatalog.ToolCatalog
  yield* catalog.register([
    CatalogTool.make({ name: "read_file", description: "Read a file", loading: "eager", handler: echo("read_file") }),
    CatalogTool.make({ name: "slack_send", description: "Send a Slack message", handler: echo("slack_send") }),
    CatalogTool.make({ name: "jira_create", description: "Create a Jira ticket", handler: echo("jira_create") })
  ])
  // One turn: a fresh activation, gone when the turn ends.
  return yield* Effect.gen(function*() {
    const before = (yield* Unit.tools).map((t) => t.name) // read_file, ToolSearch
    yield* Unit.search("slack message")
    const after = (yield* Unit.tools).map((t) => t.name) // + slack_send
    return { before, after }
  }).pipe(Unit.provide)
}).pipe(
  Effect.provide(ToolCatalog.layer.pipe(Layer.provide(Bm25f.layer))),
  // two deferred tools are below the default threshold (auto:10), under which every tool is sent
  Effect.provide(Disclosure.layer({ defer: "always" }))
)
