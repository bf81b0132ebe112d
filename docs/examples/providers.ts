// Models from the settings: an agent on the model TOOL_SEARCH_MODEL names, and semantic search on
// the embeddings server TOOL_SEARCH_EMBEDDINGS names. Runs in docs/examples.test.ts (npm test)
// against a local server answering in the OpenAI wire format; pass your own environment (a key,
// a real server) to run it against a real provider.
import { NodeFileSystem } from "@effect/platform-node"
import { Executor, TokenCounter } from "@tool-search/agent"
import { CatalogTool, Disclosure, Keyword, ToolCatalog, Unit, VectorCache } from "@tool-search/core"
import { Providers } from "@tool-search/providers"
import { ConfigProvider, Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"

const echo = (name: string) => CatalogTool.handler(name, (params) => Effect.succeed({ ok: true, name, params }))
const tools = [
  CatalogTool.make({ name: "read_file", description: "Read a file", loading: "eager", handler: echo("read_file") }),
  CatalogTool.make({ name: "chat_send", description: "Send a chat message to a channel", handler: echo("chat_send") }),
  CatalogTool.make({ name: "tickets_open", description: "Open a ticket in the tracker", handler: echo("tickets_open") })
]

/**
 * One agent turn on the configured model, e.g. `{ TOOL_SEARCH_MODEL: "openai:gpt-4.1-mini",
 * OPENAI_API_KEY: "sk-..." }` or `{ TOOL_SEARCH_MODEL: "openai-compatible:qwen3:8b",
 * TOOL_SEARCH_MODEL_URL: "http://localhost:11434/v1" }` (Ollama). Without an `env` the process
 * environment is read.
 */
export const agent = (task: string, env?: Record<string, string>) =>
  Effect.gen(function*() {
    const executor = yield* Executor.Executor
    const result = yield* executor.run({ prompt: [{ role: "user", content: task }] })
    return { answer: result.text, activated: result.activated, requests: result.requests }
  }).pipe(
    Effect.provide(
      Executor.layerMemory({ maxIterations: 8 }).pipe(
        Layer.provide(Providers.languageModel), // fails with ModelNotConfigured when TOOL_SEARCH_MODEL is unset
        Layer.provide(ToolCatalog.layerWithTools(tools).pipe(Layer.provide(Keyword.layer))),
        Layer.provide(TokenCounter.o200k),
        Layer.provide(FetchHttpClient.layer), // Node 20: fetch, not undici
        // two deferred tools are below the default threshold (auto:10): defer them anyway, to show search
        Layer.provide(Disclosure.layer({ defer: "always" }))
      )
    ),
    Effect.provide(env === undefined ? Layer.empty : ConfigProvider.layer(ConfigProvider.fromEnv({ env })))
  )

/**
 * Semantic search over the configured embeddings, e.g. `{ TOOL_SEARCH_EMBEDDINGS:
 * "openai-compatible:nomic-embed-text", TOOL_SEARCH_EMBEDDINGS_URL: "http://localhost:11434/v1" }`.
 * Tool vectors are cached under `cacheDirectory`, per model and server.
 */
export const semanticSearch = (query: string, cacheDirectory: string, env?: Record<string, string>) =>
  Effect.gen(function*() {
    const catalog = yield* ToolCatalog.ToolCatalog
    yield* catalog.register(tools)
    const found = yield* Unit.provide(Unit.browse(query))
    return found.map((m) => m.tool.modelName)
  }).pipe(
    Effect.provide(
      ToolCatalog.layer.pipe(
        Layer.provide(Providers.searchStrategy("semantic")),
        Layer.provide(FetchHttpClient.layer)
      )
    ),
    // the vectors in files under `cacheDirectory` (`VectorCache.layerFile`: the configured directory)
    Effect.provide(VectorCache.layerFileAt(cacheDirectory).pipe(Layer.provide(NodeFileSystem.layer))),
    Effect.provide(env === undefined ? Layer.empty : ConfigProvider.layer(ConfigProvider.fromEnv({ env })))
  )
