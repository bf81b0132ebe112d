// Models built from the settings: what is refused and why, which key goes to which server, and
// semantic search over a configured embeddings server (a local one answering fixed vectors: these
// tests check the wire, not the quality of any model).
import { NodeFileSystem } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { CatalogTool, Setting, ToolCatalog, Unit, VectorCache } from "@tool-search/core"
import { ConfigProvider, Effect, Layer, Option, Redacted } from "effect"
import { LanguageModel } from "effect/ai"
import { FetchHttpClient } from "effect/http"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Providers } from "../src/index.js"
import * as WireServer from "./WireServer.js"

const withEnv = (env: Record<string, string>) => ConfigProvider.layer(ConfigProvider.fromEnv({ env }))

const choiceOf = (env: Record<string, string>) => Providers.languageModelChoice.parse(ConfigProvider.fromEnv({ env }))

const explain = (env: Record<string, string>) => Effect.map(Effect.flip(choiceOf(env)), Setting.explain)

describe("Providers.languageModel from the settings", () => {
  it.effect("without TOOL_SEARCH_MODEL it fails with ModelNotConfigured, saying how to configure one", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        Layer.build(Providers.languageModel).pipe(Effect.provide([withEnv({}), FetchHttpClient.layer]))
      )
      assert.strictEqual(error._tag, "ModelNotConfigured")
      assert.include(error.message, "TOOL_SEARCH_MODEL")
      assert.include(error.message, "openai-compatible:<model>")
      assert.include(error.message, "OPENAI_API_KEY")
    }))

  it.effect("names the missing variable: the key of the provider, the URL of a compatible server", () =>
    Effect.gen(function*() {
      assert.include(yield* explain({ TOOL_SEARCH_MODEL: "openai:gpt-4.1-mini" }), "OPENAI_API_KEY")
      assert.include(yield* explain({ TOOL_SEARCH_MODEL: "anthropic:claude-sonnet-4-5" }), "ANTHROPIC_API_KEY")
      assert.include(yield* explain({ TOOL_SEARCH_MODEL: "openai-compatible:qwen3" }), "TOOL_SEARCH_MODEL_URL")
      assert.include(yield* explain({ TOOL_SEARCH_MODEL: "gpt-4.1" }), "openai:<model>")
      assert.include(yield* explain({ TOOL_SEARCH_MODEL: "openai:" }), "a model name")
      assert.include(
        yield* explain({ TOOL_SEARCH_MODEL: "openai-compatible:m", TOOL_SEARCH_MODEL_URL: "ftp://x" }),
        "http(s) URL"
      )
    }))

  it.effect("model names keep their colons; keys stay redacted", () =>
    Effect.gen(function*() {
      const choice = Option.getOrThrow(
        yield* choiceOf({
          TOOL_SEARCH_MODEL: "openai-compatible:qwen3:8b",
          TOOL_SEARCH_MODEL_URL: "http://localhost:11434/v1/",
          TOOL_SEARCH_MODEL_KEY: "secret-key"
        })
      )
      assert.strictEqual(choice.options.model, "qwen3:8b")
      assert.strictEqual(choice.options.baseUrl, "http://localhost:11434/v1")
      assert.strictEqual(Providers.describe(choice), "openai-compatible:qwen3:8b at http://localhost:11434/v1")
      assert.notInclude(JSON.stringify(choice), "secret-key")
      assert.notInclude(String(choice.options.apiKey), "secret-key")
      assert.strictEqual(Redacted.value(choice.options.apiKey as Redacted.Redacted<string>), "secret-key")
    }))

  it.effect("the OpenAI key goes to OpenAI only: a compatible server gets its own key, or none", () =>
    Effect.gen(function*() {
      const server = yield* WireServer.make(() => ({
        json: { choices: [{ message: { content: "ok" }, finish_reason: "stop" }] }
      }))
      const ask = (env: Record<string, string>) =>
        LanguageModel.generateText({ prompt: "hi" }).pipe(
          Effect.provide(Providers.languageModel.pipe(Layer.provide([withEnv(env), FetchHttpClient.layer])))
        )
      const compatible = { TOOL_SEARCH_MODEL: "openai-compatible:m", TOOL_SEARCH_MODEL_URL: `${server.url}/v1` }
      yield* ask({ ...compatible, OPENAI_API_KEY: "sk-openai" })
      yield* ask({ ...compatible, OPENAI_API_KEY: "sk-openai", TOOL_SEARCH_MODEL_KEY: "or-key" })
      yield* ask({
        TOOL_SEARCH_MODEL: "openai:gpt-test",
        TOOL_SEARCH_MODEL_URL: `${server.url}/v1`,
        OPENAI_API_KEY: "sk-openai",
        TOOL_SEARCH_MAX_OUTPUT_TOKENS: "77"
      })
      const requests = yield* server.requests
      assert.deepStrictEqual(requests.map((r) => r.headers["authorization"]), [
        undefined,
        "Bearer or-key",
        "Bearer sk-openai"
      ])
      // OpenAI names the budget max_completion_tokens; compatible servers know max_tokens
      assert.strictEqual((requests[2]?.body as Record<string, unknown> | undefined)?.["max_completion_tokens"], 77)
    }))
})

// -----------------------------------------------------------------------------
// Embeddings
// -----------------------------------------------------------------------------

/** Fixed vectors: one axis per topic, so the nearest tool is known. */
const vectorOf = (text: string): Array<number> =>
  text.includes("weather") ? [1, 0, 0] : text.includes("chat") ? [0, 1, 0] : [0, 0, 1]

const embeddingsServer = WireServer.make((request) => {
  const input = (request.body as { input: ReadonlyArray<string> }).input
  return {
    json: {
      object: "list",
      data: input.map((text, index) => ({ object: "embedding", index, embedding: vectorOf(text) })).reverse(),
      model: "fixed",
      usage: { prompt_tokens: input.length, total_tokens: input.length }
    }
  }
})

const tools = [
  CatalogTool.make({ name: "weather_forecast", description: "Get the weather forecast for a city" }),
  CatalogTool.make({ name: "chat_send", description: "Send a chat message" }),
  CatalogTool.make({ name: "tickets_open", description: "Open a ticket" })
]

const search = (env: Record<string, string>, directory: string, query: string) =>
  Effect.gen(function*() {
    const catalog = yield* ToolCatalog.ToolCatalog
    yield* catalog.register(tools)
    const found = yield* Unit.provide(Unit.browse(query))
    return found.map((m) => m.tool.modelName)
  }).pipe(
    Effect.provide(
      ToolCatalog.layer.pipe(
        Layer.provide(Providers.searchStrategy("semantic")),
        Layer.provide([withEnv(env), FetchHttpClient.layer])
      )
    ),
    Effect.provide(VectorCache.layerFileAt(directory).pipe(Layer.provide(NodeFileSystem.layer)))
  )

const tempDirectory = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "tool-search-embeddings-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

describe("embeddings over HTTP (checks the wire, not quality)", () => {
  it.effect("semantic search embeds through the configured server and caches tool vectors per model", () =>
    Effect.gen(function*() {
      const server = yield* embeddingsServer
      const directory = yield* tempDirectory
      const env = {
        TOOL_SEARCH_EMBEDDINGS: "openai-compatible:fixed-embed",
        TOOL_SEARCH_EMBEDDINGS_URL: `${server.url}/v1`,
        TOOL_SEARCH_EMBEDDINGS_KEY: "tei-key",
        OPENAI_API_KEY: "sk-never-sent"
      }
      const first = yield* search(env, directory, "what is the weather")
      assert.strictEqual(first[0], "weather_forecast")
      const afterFirst = yield* server.requests
      assert.strictEqual(afterFirst[0]?.path, "/v1/embeddings")
      assert.strictEqual(afterFirst[0]?.headers["authorization"], "Bearer tei-key")
      assert.deepStrictEqual(
        { ...(afterFirst[0]?.body as Record<string, unknown>), input: undefined },
        { model: "fixed-embed", encoding_format: "float", input: undefined }
      )
      const embedded = afterFirst.flatMap((r) => (r.body as { input: ReadonlyArray<string> }).input)
      assert.strictEqual(embedded.length, tools.length + 1) // the three tools, then the query

      // a new process (a new strategy) with the same cache directory embeds only the query
      const second = yield* search(env, directory, "send a chat message")
      assert.strictEqual(second[0], "chat_send")
      const secondInputs = (yield* server.requests).slice(afterFirst.length).flatMap((r) =>
        (r.body as { input: ReadonlyArray<string> }).input
      )
      assert.deepStrictEqual(secondInputs, ["send a chat message"])

      // another model never reads those vectors: its tools are embedded again
      const before = (yield* server.requests).length
      yield* search({ ...env, TOOL_SEARCH_EMBEDDINGS: "openai-compatible:other-embed" }, directory, "weather")
      const thirdInputs = (yield* server.requests).slice(before).flatMap((r) =>
        (r.body as { input: ReadonlyArray<string> }).input
      )
      assert.strictEqual(thirdInputs.length, tools.length + 1)
    }))

  it.effect("a server answering the wrong number of vectors fails the search; it never ranks on them", () =>
    Effect.gen(function*() {
      const server = yield* WireServer.make(() => ({ json: { data: [{ index: 0, embedding: [1, 0] }] } }))
      const directory = yield* tempDirectory
      const error = yield* Effect.flip(
        search(
          { TOOL_SEARCH_EMBEDDINGS: "openai-compatible:m", TOOL_SEARCH_EMBEDDINGS_URL: server.url },
          directory,
          "x"
        )
      )
      assert.strictEqual(error._tag, "SearchFailed")
      assert.include(error.message, "1 vectors for 3 inputs")
    }))

  it.effect("openai embeddings need OPENAI_API_KEY; without TOOL_SEARCH_EMBEDDINGS nothing is asked", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Providers.embeddingModelChoice.parse(
        ConfigProvider.fromEnv({ env: { TOOL_SEARCH_EMBEDDINGS: "openai:text-embedding-3-small" } })
      ))
      assert.include(Setting.explain(error), "OPENAI_API_KEY")
      const none = yield* Providers.embeddingModelChoice.parse(ConfigProvider.fromEnv({ env: {} }))
      assert.isTrue(Option.isNone(none))
      const openai = Option.getOrThrow(
        yield* Providers.embeddingModelChoice.parse(ConfigProvider.fromEnv({
          env: {
            TOOL_SEARCH_EMBEDDINGS: "openai:text-embedding-3-small",
            OPENAI_API_KEY: "sk",
            TOOL_SEARCH_EMBEDDINGS_DIMENSIONS: "256"
          }
        }))
      )
      assert.strictEqual(openai.cacheName, "openai:text-embedding-3-small@api.openai.com/v1/d256")
    }))
})
