// The long form: a catalog composed by hand (one eager and two deferred tools), one turn that searches.
// Runs in docs/examples.test.ts (npm test).
import { Bm25f, CatalogTool, ToolCatalog, ToolView } from "@tool-search/core"
import { Console, Effect, Layer } from "effect"

const echo = (name: string) => CatalogTool.handler(name, (params) => Effect.succeed({ name, params }))

export const program = Effect.gen(function*() {
  const catalog = yield* ToolCatalog.ToolCatalog
  yield* catalog.register([
    CatalogTool.make({ name: "read_file", description: "Read a file", loading: "eager", handler: echo("read_file") }),
    CatalogTool.make({ name: "slack_send", description: "Send a Slack message", handler: echo("slack_send") }),
    CatalogTool.make({ name: "jira_create", description: "Create a Jira ticket", handler: echo("jira_create") })
  ])
  // One turn: a fresh activation, gone when the turn ends.
  return yield* ToolView.withUnit(Effect.gen(function*() {
    const view = yield* ToolView.ToolView
    const before = (yield* view.visible).map((t) => t.name) // read_file, ToolSearch
    yield* view.searchAndActivate("slack message")
    const after = (yield* view.visible).map((t) => t.name) // + slack_send
    yield* Console.log(before, after)
    return after
  }))
}).pipe(Effect.provide(ToolCatalog.ToolCatalog.layer.pipe(Layer.provide(Bm25f.layer))))
