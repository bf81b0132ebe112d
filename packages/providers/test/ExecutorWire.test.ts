// The executor against each provider's wire format: a local server answers with hand-written
// responses (a scripted conversation, not a model) and the tests assert what the executor sent —
// the tools of each request, the corrective result after a call to a tool that is not loaded, the
// forced tool_choice of discovery-first, and one system prompt (with the table of contents) for
// every request of the turn.
import { assert, describe, it } from "@effect/vitest"
import { Executor, SessionStore, TokenCounter } from "@tool-search/agent"
import { CatalogTool, Keyword, ToolCatalog, ToolSearchConfig } from "@tool-search/core"
import { ConfigProvider, Effect, Layer, Stream } from "effect"
import { FetchHttpClient } from "effect/http"
import { type AnthropicMessages, type OpenAiChatCompletions, Providers } from "../src/index.js"
import * as WireServer from "./WireServer.js"

// -----------------------------------------------------------------------------
// The agent
// -----------------------------------------------------------------------------

const echo = (name: string) => CatalogTool.handler(name, (params) => Effect.succeed({ tool: name, params }))
const cityParameters = { type: "object", properties: { city: { type: "string" } }, required: ["city"] }

const tools = [
  CatalogTool.make({ name: "read_file", description: "Read a file", loading: "eager", handler: echo("read_file") }),
  CatalogTool.make({
    name: "weather_forecast",
    description: "Get the weather forecast for a city",
    parameters: cityParameters,
    source: "weather",
    handler: echo("weather_forecast")
  }),
  CatalogTool.make({
    name: "chat_send",
    description: "Send a chat message",
    source: "chat",
    handler: echo("chat_send")
  })
]

/** Staged disclosure, discovery first, the weather source connected (listed in the table of contents). */
const agentSettings = {
  TOOL_SEARCH_MODE: "staged",
  TOOL_SEARCH_DISCOVERY_FIRST: "true",
  TOOL_SEARCH_CONNECTED: "weather",
  TOOL_SEARCH_STRICT: "false"
}

const agent = (env: Record<string, string>) => {
  const provider = ConfigProvider.layer(ConfigProvider.fromEnv({ env: { ...agentSettings, ...env } }))
  const settings = Layer.unwrap(Effect.map(ToolSearchConfig.config, ToolSearchConfig.layerFrom))
  return Executor.Executor.layerConfig({ maxIterations: 8 }).pipe(
    Layer.provide(SessionStore.SessionStore.layerConfig),
    Layer.provide(Providers.languageModel),
    Layer.provide(ToolCatalog.ToolCatalog.layerOf(tools).pipe(Layer.provide(Keyword.layer))),
    Layer.provide(TokenCounter.TokenCounter.approximate),
    Layer.provide(settings),
    Layer.provide([provider, FetchHttpClient.layer]),
    Layer.orDie
  )
}

// -----------------------------------------------------------------------------
// Each provider's dialect
// -----------------------------------------------------------------------------

interface Call {
  readonly id: string
  readonly name: string
  readonly input: Record<string, unknown>
}

interface ToolResult {
  readonly id: string
  readonly content: string
  readonly isError: boolean
}

interface Dialect {
  readonly name: string
  readonly env: (url: string) => Record<string, string>
  /** An answer: tool calls, or text. */
  readonly reply: (answer: ReadonlyArray<Call> | string) => unknown
  /** Reads a recorded request body (typed by the provider module's own request type). */
  readonly tools: (body: unknown) => ReadonlyArray<string>
  readonly toolChoice: (body: unknown) => unknown
  readonly forced: (name: string) => unknown
  readonly auto: unknown
  readonly system: (body: unknown) => ReadonlyArray<string>
  readonly results: (body: unknown) => ReadonlyArray<ToolResult>
}

const chat = (body: unknown) => body as OpenAiChatCompletions.ChatRequest
const messages = (body: unknown) => body as AnthropicMessages.MessagesRequest

const chatCompletions = (name: string, env: (url: string) => Record<string, string>): Dialect => ({
  name,
  env,
  reply: (answer) => ({
    id: "chatcmpl",
    object: "chat.completion",
    choices: [{
      index: 0,
      message: typeof answer === "string"
        ? { role: "assistant", content: answer }
        : {
          role: "assistant",
          content: null,
          tool_calls: answer.map((c) => ({
            id: c.id,
            type: "function",
            function: { name: c.name, arguments: JSON.stringify(c.input) }
          }))
        },
      finish_reason: typeof answer === "string" ? "stop" : "tool_calls"
    }],
    usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 }
  }),
  tools: (body) => (chat(body).tools ?? []).map((t) => t.function.name),
  toolChoice: (body) => chat(body).tool_choice,
  forced: (tool) => ({ type: "function", function: { name: tool } }),
  auto: "auto",
  system: (body) => chat(body).messages.flatMap((m) => m.role === "system" ? [m.content] : []),
  results: (body) =>
    chat(body).messages.flatMap((m) =>
      m.role === "tool"
        ? [{ id: m.tool_call_id, content: m.content, isError: false }] // no error flag: the text says it
        : []
    )
})

const dialects: ReadonlyArray<Dialect> = [
  chatCompletions("openai", (url) => ({
    TOOL_SEARCH_MODEL: "openai:gpt-test",
    TOOL_SEARCH_MODEL_URL: url,
    OPENAI_API_KEY: "sk-test"
  })),
  chatCompletions("openai-compatible", (url) => ({
    TOOL_SEARCH_MODEL: "openai-compatible:qwen3:8b",
    TOOL_SEARCH_MODEL_URL: url
  })),
  {
    name: "anthropic",
    env: (url) => ({ TOOL_SEARCH_MODEL: "anthropic:claude-test", TOOL_SEARCH_MODEL_URL: url, ANTHROPIC_API_KEY: "k" }),
    reply: (answer) => ({
      id: "msg",
      type: "message",
      role: "assistant",
      model: "claude-test",
      content: typeof answer === "string"
        ? [{ type: "text", text: answer }]
        : answer.map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: c.input })),
      stop_reason: typeof answer === "string" ? "end_turn" : "tool_use",
      usage: { input_tokens: 100, output_tokens: 10 }
    }),
    tools: (body) => (messages(body).tools ?? []).map((t) => t.name),
    toolChoice: (body) => messages(body).tool_choice,
    forced: (tool) => ({ type: "tool", name: tool }),
    auto: { type: "auto" },
    system: (body) => (messages(body).system ?? []).map((b) => b.text),
    results: (body) =>
      messages(body).messages.flatMap((m) =>
        m.role === "user"
          ? m.content.flatMap((b) =>
            b.type === "tool_result" ? [{ id: b.tool_use_id, content: b.content, isError: b.is_error === true }] : []
          )
          : []
      )
  }
]

// -----------------------------------------------------------------------------
// The conversation
// -----------------------------------------------------------------------------

/** What the scripted server answers, request by request. */
const script: ReadonlyArray<ReadonlyArray<Call> | string> = [
  // forced to search_tools (discovery first): browse
  [{ id: "c1", name: "search_tools", input: { query: "weather" } }],
  // call the tool it saw, before loading it: the executor answers with a corrective result
  [{ id: "c2", name: "weather_forecast", input: { city: "Oslo" } }],
  // load it the way the corrective result says
  [{ id: "c3", name: "ToolSearch", input: { query: "select:weather_forecast" } }],
  // now it is in the request: call it
  [{ id: "c4", name: "weather_forecast", input: { city: "Oslo" } }],
  "Oslo: 3 degrees."
]

describe.each(dialects)("the executor on the $name wire (checks the wire, not a model)", (dialect) => {
  it.effect("tools per request, discovery-first forcing, the corrective result, one system prompt", () =>
    Effect.gen(function*() {
      const server = yield* WireServer.make((_, i) => ({ json: dialect.reply(script[i] ?? "no more script") }))
      const events = yield* Effect.flatMap(
        Executor.Executor,
        (e) => Stream.runCollect(e.stream({ prompt: [{ role: "user", content: "weather in Oslo?" }] }))
      ).pipe(Effect.provide(agent(dialect.env(`${server.url}/v1`))))
      const bodies = (yield* server.requests).map((r) => r.body)
      assert.strictEqual(bodies.length, script.length)

      // the tools of each request: what ToolSearch loaded joins from the next request on
      const base = ["read_file", "search_tools", "ToolSearch"]
      assert.deepStrictEqual(bodies.map(dialect.tools), [
        base,
        base,
        base,
        [...base, "weather_forecast"],
        [...base, "weather_forecast"]
      ])

      // discovery first: only the first request is forced, to the search tool
      assert.deepStrictEqual(bodies.map(dialect.toolChoice), [
        dialect.forced("search_tools"),
        dialect.auto,
        dialect.auto,
        dialect.auto,
        dialect.auto
      ])

      // the call to a tool that was not loaded got a corrective result naming the call that loads it
      const corrective = dialect.results(bodies[2]).find((r) => r.id === "c2")
      assert.isDefined(corrective)
      assert.include(corrective?.content, "select:weather_forecast")
      if (dialect.name === "anthropic") assert.isTrue(corrective?.isError)
      // and the loaded tool ran
      const ran = dialect.results(bodies[4]).find((r) => r.id === "c4")
      assert.include(ran?.content, "\"city\":\"Oslo\"")

      // one system prompt, with the table of contents, identical in every request of the turn
      const systems = bodies.map((b) => dialect.system(b).join("\n"))
      assert.include(systems[0], "weather_forecast (load first)")
      assert.deepStrictEqual(new Set(systems).size, 1)

      const finished = events.find((e) => e._tag === "TurnFinished")
      assert.strictEqual(finished?._tag === "TurnFinished" ? finished.text : "", "Oslo: 3 degrees.")
      const usage = events.flatMap((e) => e._tag === "ModelResponse" ? [e.inputTokens] : [])
      assert.deepStrictEqual(usage, [100, 100, 100, 100, 100])
    }))
})
