// The search guide's examples: BM25F on a live catalog, regex over names, and the semantic
// strategy over your own EmbeddingModel. Runs in docs/examples.test.ts (npm test).
import {
  Bm25f,
  CatalogTool,
  Disclosure,
  Query,
  Regex,
  SearchFeedback,
  Semantic,
  ToolCatalog,
  Unit
} from "@tool-search/core"
import { Effect, Layer } from "effect"
import { EmbeddingModel } from "effect/ai"

const tools = [
  CatalogTool.make({
    name: "slack_send_message",
    description: "Send a message to a Slack channel",
    aliases: ["슬랙 메시지"]
  }),
  CatalogTool.make({ name: "getHealthWorkforce", description: "Number of nurses and doctors in a country" }),
  CatalogTool.make({ name: "github_create_issue", description: "Create an issue in a GitHub repository" })
]

const names = (matches: ReadonlyArray<ToolCatalog.Match>) => matches.map((m) => m.tool.name)

// BM25F (the default): identifiers are split, words stemmed, Korean particles tolerated.
export const bm25f = Effect.gen(function*() {
  const catalog = yield* ToolCatalog.ToolCatalog
  yield* catalog.register(tools)
  const nurses = yield* catalog.search(Query.keywords("how many nurses work in Spain"), { limit: 3 })
  const korean = yield* catalog.search(Query.keywords("슬랙으로 메시지를 보내줘"), { limit: 3 })
  // the index is live: a tool registered now is found by the next search
  yield* catalog.register(CatalogTool.make({ name: "jira_create_ticket", description: "Open a Jira ticket" }))
  const jira = yield* catalog.search(Query.keywords("open a ticket"), { limit: 3 })
  return { nurses: names(nurses), korean: names(korean), jira: names(jira) }
}).pipe(Effect.provide(ToolCatalog.layer.pipe(Layer.provide(Bm25f.layer))))

// Regex over names: hostile patterns cannot hang (RE2), bad ones explain themselves.
export const regex = Effect.gen(function*() {
  const catalog = yield* ToolCatalog.ToolCatalog
  yield* catalog.register(tools)
  const found = yield* catalog.search(Query.keywords("^(slack|github)_"), { limit: 5 })
  const error = yield* Effect.flip(catalog.search(Query.keywords("slack_(send"), { limit: 5 }))
  return { found: names(found), error: error.message }
}).pipe(Effect.provide(ToolCatalog.layer.pipe(Layer.provide(Regex.layer))))

// Semantic search over any EmbeddingModel: here a toy one that counts a few concepts; in an app,
// a provider's layer (or OfflineEmbeddings.layer, the default that needs no network).
const CONCEPTS = ["message", "chat", "nurse", "doctor", "health", "issue", "bug"]
const Toy = Layer.effect(
  EmbeddingModel.EmbeddingModel,
  EmbeddingModel.make({
    embedMany: ({ inputs }) =>
      Effect.succeed({
        results: inputs.map((text) => {
          const lower = text.toLowerCase()
          // "bug" and "issue" are the same concept for this toy model
          return CONCEPTS.map((c) => (lower.includes(c) || (c === "issue" && lower.includes("bug")) ? 1 : 0))
        }),
        usage: { inputTokens: undefined }
      })
  })
)

export const semantic = Effect.gen(function*() {
  const catalog = yield* ToolCatalog.ToolCatalog
  yield* catalog.register(tools)
  return names(yield* catalog.search(Query.keywords("report a bug"), { limit: 1 }))
}).pipe(Effect.provide(ToolCatalog.layer.pipe(Layer.provide(Semantic.layer), Layer.provide(Toy))))

// Learning from use: a search whose hit is then called successfully in the same unit teaches the
// catalog that query (SearchFeedback; ToolSearchConfig.layerConfig provides the in-memory store unless
// TOOL_SEARCH_FEEDBACK=false). The evidence is recorded by the tool's own `run`.
const weather = [
  CatalogTool.make({ name: "weather_now", description: "Current weather conditions for a city" }),
  CatalogTool.make({
    name: "weather_week",
    description: "Seven day weather outlook for a city",
    handler: () => Effect.succeed({ isFailure: false, result: "sunny all week" })
  }),
  CatalogTool.make({ name: "air_quality", description: "Air quality index for a city" })
]

/** One execution unit: search, then call what the model chose. */
const turn = (query: string, call?: string) =>
  Unit.provide(Effect.gen(function*() {
    const found = yield* Unit.search(query)
    if (call !== undefined) yield* Effect.flatMap(Unit.resolve(call), (tool) => tool.run({}, { toolCallId: "1" }))
    return names(found.matches)
  }))

export const feedback = Effect.gen(function*() {
  const before = yield* turn("weather in Porto")
  // the model read the request as an outlook: it calls weather_week, which succeeds
  yield* turn("weather in Porto", "weather_week")
  // the next time anyone asks this, the tool that served it comes first
  const after = yield* turn("weather in Porto")
  return { before, after }
}).pipe(
  Effect.provide(ToolCatalog.layerWithTools(weather).pipe(Layer.provide(Bm25f.layer))),
  Effect.provide(SearchFeedback.layerMemory())
)

// "No good match": ToolSearch does not load hits that match the request weakly, and says so.
export const noGoodMatch = Unit.provide(Effect.gen(function*() {
  const answer = yield* Unit.answer("ToolSearch", {
    query: "forward the quarterly budget email to my manager and send a copy to finance"
  })
  return answer.result
})).pipe(
  Effect.provide(
    Layer.mergeAll(
      ToolCatalog.layerWithTools(tools).pipe(Layer.provide(Bm25f.layer)),
      // stricter than the default (TOOL_SEARCH_MIN_SCORE 0.07): in a three-tool catalog every word
      // is rare, so one shared word ("send") already weighs a good share of the request
      Disclosure.layer({ minScore: 0.2, defer: "always" })
    )
  )
)
