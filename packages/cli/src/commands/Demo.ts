/**
 * `tool-search demo`: a short, offline walk through progressive disclosure on the core alone —
 * what the model sees, what a search loads, what a call to an unloaded tool answers, and that a
 * new turn starts clean.
 *
 * @since 0.1.0
 */
import { CatalogTool, Keyword, ToolCatalog, ToolView } from "@tool-search/core"
import { Console, Effect, Layer } from "effect"
import { Command } from "effect/cli"

const tool = (name: string, description: string, loading: CatalogTool.Loading = "deferred") =>
  CatalogTool.make({
    name,
    description,
    loading,
    handler: CatalogTool.handler(name, (params) => Effect.succeed({ ok: true, tool: name, params }))
  })

const demoTools = [
  tool("read_file", "Read a file from the workspace.", "eager"),
  tool("write_file", "Write a file to the workspace.", "eager"),
  tool("slack_send_message", "Send a message to a Slack channel."),
  tool("slack_list_channels", "List the channels of the Slack workspace."),
  tool("github_create_issue", "Open an issue in a GitHub repository."),
  tool("github_list_pull_requests", "List the open pull requests of a repository."),
  tool("calendar_create_event", "Create an event in the team calendar."),
  tool("jira_create_ticket", "Create a Jira ticket in a project."),
  tool("weather_forecast", "Get the weather forecast for a city."),
  tool("web_fetch", "Fetch a web page and return its text.")
]

const show = (label: string) =>
  Effect.flatMap(ToolView.ToolView, (view) => view.visible).pipe(
    Effect.flatMap((tools) => Console.log(`${label}: ${tools.map((t) => t.name).join(", ")}`))
  )

const call = (name: string, params: unknown) =>
  Effect.gen(function*() {
    const view = yield* ToolView.ToolView
    const outcome = yield* view.resolve(name).pipe(
      Effect.flatMap((t) => t.run(params, { toolCallId: "demo" })),
      Effect.map((o) => JSON.stringify(o.result)),
      Effect.catch((e) => Effect.succeed(`error: ${e.message}`))
    )
    yield* Console.log(`  ${name}(${JSON.stringify(params)}) -> ${outcome}`)
  })

const program = Effect.gen(function*() {
  const catalog = yield* ToolCatalog.ToolCatalog
  yield* catalog.register(demoTools).pipe(Effect.orDie) // static data: a failure is a bug
  yield* Console.log(`catalog: ${demoTools.length} tools, ${(yield* catalog.eager).length} eager\n`)
  yield* Console.log("turn 1")
  yield* ToolView.withUnit(Effect.gen(function*() {
    yield* show("  the model sees")
    yield* call("slack_send_message", { channel: "#ops", text: "deploy done" })
    yield* call("ToolSearch", { query: "slack send message", max_results: 2 })
    yield* show("  the model sees")
    yield* call("slack_send_message", { channel: "#ops", text: "deploy done" })
    yield* call("slack_sendmessage", {})
  }))
  yield* Console.log("\nturn 2 (a new scope: nothing carried over)")
  yield* ToolView.withUnit(show("  the model sees"))
}).pipe(Effect.provide(ToolCatalog.ToolCatalog.layer.pipe(Layer.provide(Keyword.layer))))

/** The `demo` command. */
export const command = Command.make("demo", {}, () => program).pipe(
  Command.withDescription("an offline walk through progressive tool disclosure")
)
