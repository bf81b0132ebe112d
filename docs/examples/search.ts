// The search guide's examples: BM25F on a live catalog, regex over names, and the semantic
// strategy over your own EmbeddingModel. Runs in docs/examples.test.ts (npm test).
import { Bm25f, CatalogTool, Query, Regex, Semantic, ToolCatalog } from "@tool-search/core"
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
}).pipe(Effect.provide(ToolCatalog.ToolCatalog.layer.pipe(Layer.provide(Bm25f.layer))))

// Regex over names: hostile patterns cannot hang (RE2), bad ones explain themselves.
export const regex = Effect.gen(function*() {
  const catalog = yield* ToolCatalog.ToolCatalog
  yield* catalog.register(tools)
  const found = yield* catalog.search(Query.keywords("^(slack|github)_"), { limit: 5 })
  const error = yield* Effect.flip(catalog.search(Query.keywords("slack_(send"), { limit: 5 }))
  return { found: names(found), error: error.message }
}).pipe(Effect.provide(ToolCatalog.ToolCatalog.layer.pipe(Layer.provide(Regex.layer))))

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
}).pipe(Effect.provide(ToolCatalog.ToolCatalog.layer.pipe(Layer.provide(Semantic.layer), Layer.provide(Toy))))
