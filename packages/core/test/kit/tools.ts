// The test kit's tools: a small mixed catalog, catalogs and units over any tools, and what the
// model's answers hold. Other packages' tests import it as `@tool-search/core/test-kit`, an export
// whose files are not published (`files` holds `dist/src` and `src` only).
import { Deferred, Effect, Layer, Ref } from "effect"
import { createServer } from "node:net"
import { CatalogTool, Disclosure, Keyword, SearchStrategy, ToolCatalog, Unit } from "../../src/index.js"

/** A tool of `parameters` (one string property) whose handler echoes its name and parameters. */
const echoTool =
  (property: string, about: string) => (name: string, description: string, extra: Partial<CatalogTool.Input> = {}) =>
    CatalogTool.make({
      name,
      description,
      parameters: { type: "object", properties: { [property]: { type: "string", description: about } } },
      handler: CatalogTool.handler(name, (params) => Effect.succeed({ tool: name, params })),
      ...extra
    })

/** A tool (a `path` parameter) whose handler echoes its name and parameters. */
export const tool = echoTool("path", "A file path")

/** A tool (a `text` parameter) whose handler echoes its name and parameters. */
export const textTool = echoTool("text", "Free text")

/**
 * Deferral whatever the catalog's size: the kit's catalogs are small, below the default threshold
 * under which every tool is sent (tests of the threshold set it themselves).
 */
export const deferAlways = Disclosure.layer({ defer: "always" })

/** A catalog (keyword strategy) holding `tools`, deferring whatever its size. */
export const catalogOf = (tools: ReadonlyArray<CatalogTool.CatalogTool>) =>
  ToolCatalog.layerWithTools(tools).pipe(Layer.provide(Keyword.layer), Layer.merge(deferAlways))

/**
 * Work that never ends once started: `started` completes when it runs, `finalized` turns true when
 * its finalizer runs. What a test of interruption runs, awaits, then checks was cleaned up.
 */
export const endlessWork = Effect.gen(function*() {
  const started = yield* Deferred.make<void>()
  const finalized = yield* Ref.make(false)
  const work = Effect.andThen(Deferred.succeed(started, undefined), Effect.never).pipe(
    Effect.ensuring(Ref.set(finalized, true))
  )
  return { started, finalized, work }
})

/** Runs `effect` as one unit over a catalog of `tools`. */
export const unitOver = <A, E>(
  tools: ReadonlyArray<CatalogTool.CatalogTool>,
  effect: Effect.Effect<A, E, Unit.Unit | ToolCatalog.ToolCatalog>
) => Unit.provide(effect).pipe(Effect.provide(catalogOf(tools)))

/** Calls a tool by name in the current unit, as the executor would. */
export const call = (name: string, params: unknown) =>
  Effect.flatMap(Unit.resolve(name), (t) => t.run(params, { toolCallId: "c" }))

/** Runs `ToolSearch` in the current unit, as the model would call it. */
export const toolSearch = (query: string, max?: number) =>
  Unit.answer("ToolSearch", max === undefined ? { query } : { query, max_results: max })

/** Names in a `ToolSearch` answer. */
export const functionsOf = (result: unknown): ReadonlyArray<string> =>
  (result as { functions: ReadonlyArray<{ name: string }> }).functions.map((f) => f.name)

/** Names in a `search_tools` answer. */
export const candidatesOf = (result: unknown): ReadonlyArray<string> =>
  (result as { tools: ReadonlyArray<{ name: string }> }).tools.map((t) => t.name)

/** A small mixed catalog: two eager, six deferred. */
export const tools = [
  tool("Read", "Read a file from disk", { loading: "eager" }),
  tool("Write", "Write a file to disk", { loading: "eager" }),
  tool("WebFetch", "Fetch a web page and return its text", { category: "web" }),
  tool("Grep", "Search file contents with a regular expression", { category: "files" }),
  tool("ScheduleTask", "Schedule a task to run later", { category: "tasks" }),
  tool("slack_send_message", "Send a message to a Slack channel", { category: "chat", source: "slack" }),
  tool("slack_list_channels", "List the channels of a Slack workspace", { category: "chat", source: "slack" }),
  tool("github_create_issue", "Create an issue in a GitHub repository", { category: "code", source: "github" })
]

/** A catalog (keyword strategy) with `tools` registered. */
export const CatalogLive = catalogOf(tools)

/** An empty catalog (keyword strategy). */
export const EmptyCatalog = ToolCatalog.layer.pipe(Layer.provide(Keyword.layer), Layer.merge(deferAlways))

/** Names of the tools the unit sends to the model now. */
export const visibleNames = Effect.map(Unit.tools, (ts) => ts.map((t) => t.name))

/**
 * A TCP port free on 127.0.0.1 a moment ago (the system picks it), for a server a test starts: never
 * a fixed port on a machine other tests share.
 */
export const freePort = (): Promise<number> =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      probe.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

/** A new, empty index of the strategy `layer` provides: how a catalog gets one. */
export const indexOf = <E, R>(
  layer: Layer.Layer<SearchStrategy.SearchStrategy, E, R>
): Effect.Effect<SearchStrategy.SearchIndex, E, R> =>
  Effect.gen(function*() {
    const strategy = yield* SearchStrategy.SearchStrategy
    return yield* strategy.makeIndex
  }).pipe(Effect.provide(layer))
