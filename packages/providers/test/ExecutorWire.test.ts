// The executor against each provider's wire format: a local server answers with hand-written
// responses (a scripted conversation, not a model) and the tests assert what the executor sent —
// the tools of each request, the corrective result after a call to a tool that is not loaded, the
// forced tool_choice of discovery-first, and one system prompt (with the table of contents) for
// every request of the turn; under `result` delivery one tool list for the whole turn and the
// call_tool round trip; under `native` delivery (Anthropic) the defer_loading flags and the
// tool_reference blocks.
import { assert, describe, it } from "@effect/vitest"
import { Executor, SessionStore, TokenCounter } from "@tool-search/agent"
import { CatalogTool, ToolSearchConfig } from "@tool-search/core"
import { catalogOf } from "@tool-search/core/test-kit"
import { ConfigProvider, Effect, Exit, Layer, Stream } from "effect"
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

/** The agent the settings describe, failing as configuration does. */
const agentFailing = (env: Record<string, string>) => {
  const provider = ConfigProvider.layer(ConfigProvider.fromEnv({ env: { ...agentSettings, ...env } }))
  const settings = Layer.unwrap(Effect.map(ToolSearchConfig.config, ToolSearchConfig.layer))
  return Executor.layerConfig({ maxIterations: 8 }).pipe(
    Layer.provide(SessionStore.layerConfig),
    Layer.provide(Providers.languageModel),
    // a small catalog, below the default deferral threshold: defer anyway (these tests are about search)
    Layer.provide(catalogOf(tools)),
    Layer.provide(TokenCounter.layerApproximate),
    Layer.provide(settings),
    Layer.provide([provider, FetchHttpClient.layer])
  )
}

const agent = (env: Record<string, string>) => agentFailing(env).pipe(Layer.orDie)

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
  /** The result's text, or the names of the tools it references (Anthropic's tool_reference blocks). */
  readonly content: string | ReadonlyArray<string>
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
  /** The assistant's tool calls the request replays. */
  readonly calls: (body: unknown) => ReadonlyArray<Call>
}

const chat = (body: unknown) => body as OpenAiChatCompletions.ChatRequest
const messages = (body: unknown) => body as AnthropicMessages.MessagesRequest

const chatCompletions = (name: string, env: (url: string) => Record<string, string>): Dialect => ({
  name,
  env,
  reply: (answer) => WireServer.chatCompletion(answer),
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
    ),
  calls: (body) =>
    chat(body).messages.flatMap((m) =>
      m.role === "assistant"
        ? (m.tool_calls ?? []).map((c) => ({
          id: c.id,
          name: c.function.name,
          input: JSON.parse(c.function.arguments)
        }))
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
            b.type === "tool_result"
              ? [{
                id: b.tool_use_id,
                content: typeof b.content === "string" ? b.content : b.content.map((r) => r.tool_name),
                isError: b.is_error === true
              }]
              : []
          )
          : []
      ),
    calls: (body) =>
      messages(body).messages.flatMap((m) =>
        m.role === "assistant"
          ? m.content.flatMap((b) =>
            b.type === "tool_use" ? [{ id: b.id, name: b.name, input: b.input as Record<string, unknown> }] : []
          )
          : []
      )
  }
]

// -----------------------------------------------------------------------------
// The conversation
// -----------------------------------------------------------------------------

/** What the scripted server answers, request by request. */
/**
 * The turn "weather in Oslo?" of the agent of the settings and `env`, against a server of `dialect`
 * answering `answers` in order: the turn's events and the request bodies the server received.
 */
const weatherTurn = (
  dialect: Dialect,
  answers: ReadonlyArray<ReadonlyArray<Call> | string>,
  env: Record<string, string> = {}
) =>
  Effect.gen(function*() {
    const server = yield* WireServer.make((_, i) => ({ json: dialect.reply(answers[i] ?? "no more script") }))
    const events = yield* Effect.flatMap(
      Executor.Executor,
      (e) => Stream.runCollect(e.stream({ prompt: [{ role: "user", content: "weather in Oslo?" }] }))
    ).pipe(Effect.provide(agent({ ...dialect.env(`${server.url}/v1`), ...env })))
    return { events, bodies: (yield* server.requests).map((r) => r.body) }
  })

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
      const { bodies, events } = yield* weatherTurn(dialect, script)
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

// -----------------------------------------------------------------------------
// result delivery: one tool list, call_tool
// -----------------------------------------------------------------------------

const callTool = (id: string, name: string, args: Record<string, unknown>): Call => ({
  id,
  name: "call_tool",
  input: { name, arguments: args }
})

/** The conversation under result delivery: found tools are called through call_tool. */
const resultScript: ReadonlyArray<ReadonlyArray<Call> | string> = [
  [{ id: "c1", name: "search_tools", input: { query: "weather" } }],
  // through the dispatcher, before loading it: the same corrective result as a direct call
  [callTool("c2", "weather_forecast", { city: "Oslo" })],
  [{ id: "c3", name: "ToolSearch", input: { query: "select:weather_forecast" } }],
  // arguments that do not fit the tool's schema, checked against the schema ToolSearch returned
  [callTool("c4", "weather_forecast", { town: "Oslo" })],
  [callTool("c5", "weather_forecast", { city: "Oslo" })],
  "Oslo: 3 degrees."
]

describe.each(dialects.filter((d) => d.name !== "openai-compatible"))(
  "result delivery on the $name wire (checks the wire, not a model)",
  (dialect) => {
    it.effect("one tool list for the turn, the call_tool round trip, corrective results through the dispatcher", () =>
      Effect.gen(function*() {
        const { bodies, events } = yield* weatherTurn(dialect, resultScript, { TOOL_SEARCH_DELIVERY: "result" })
        assert.strictEqual(bodies.length, resultScript.length)

        // the same tools in every request: what ToolSearch loaded never joins the list
        const tools = ["read_file", "search_tools", "ToolSearch", "call_tool"]
        assert.deepStrictEqual(bodies.map(dialect.tools), bodies.map(() => tools))
        assert.deepStrictEqual(bodies.map(dialect.toolChoice)[0], dialect.forced("search_tools"))

        const last = bodies[bodies.length - 1]
        const result = (id: string) => dialect.results(last).find((r) => r.id === id)
        // the call through call_tool before loading got the corrective result of a direct call
        assert.include(result("c2")?.content, `Call ToolSearch with {"query": "select:weather_forecast"}`)
        // arguments checked against the found tool's own schema
        assert.include(result("c4")?.content, "Invalid arguments for 'weather_forecast'")
        assert.include(result("c4")?.content, "city: Missing required property")
        if (dialect.name === "anthropic") {
          assert.deepStrictEqual([result("c2")?.isError, result("c4")?.isError], [true, true])
        }
        // the round trip: the model's call_tool call is replayed, and answered by the tool's result
        assert.deepStrictEqual(
          dialect.calls(last).find((c) => c.id === "c5"),
          callTool("c5", "weather_forecast", { city: "Oslo" })
        )
        assert.include(result("c5")?.content, `"tool":"weather_forecast","params":{"city":"Oslo"}`)

        // the prefix an earlier request shared grows with every request: nothing before it changed
        const requests = events.filter((e) => e._tag === "ModelRequest")
        for (const [i, r] of requests.entries()) {
          if (i > 0 && r._tag === "ModelRequest") {
            const before = requests[i - 1]
            assert.strictEqual(r.prefixTokens, before?._tag === "ModelRequest" ? before.inputTokens : -1)
          }
        }
        const systems = bodies.map((b) => dialect.system(b).join("\n"))
        assert.deepStrictEqual(new Set(systems).size, 1)
      }))
  }
)

// -----------------------------------------------------------------------------
// native delivery: Anthropic's deferred tools
// -----------------------------------------------------------------------------

const anthropic = dialects.find((d) => d.name === "anthropic") as Dialect

const nativeScript: ReadonlyArray<ReadonlyArray<Call> | string> = [
  [{ id: "c1", name: "search_tools", input: { query: "weather" } }],
  [{ id: "c2", name: "ToolSearch", input: { query: "select:weather_forecast" } }],
  [{ id: "c3", name: "weather_forecast", input: { city: "Oslo" } }],
  "Oslo: 3 degrees."
]

describe("native delivery on the anthropic wire (checks the wire, not a model)", () => {
  it.effect("deferred tools carry defer_loading in every request; the search result references what it loaded", () =>
    Effect.gen(function*() {
      const server = yield* WireServer.make((_, i) => ({ json: anthropic.reply(nativeScript[i] ?? "no more script") }))
      yield* Effect.flatMap(
        Executor.Executor,
        (e) => e.run({ prompt: [{ role: "user", content: "weather in Oslo?" }] })
      ).pipe(Effect.provide(agent({ ...anthropic.env(`${server.url}/v1`), TOOL_SEARCH_DELIVERY: "native" })))
      const bodies = (yield* server.requests).map((r) => messages(r.body))
      assert.strictEqual(bodies.length, nativeScript.length)
      for (const body of bodies) {
        assert.deepStrictEqual(body.tools?.map((t) => [t.name, t.defer_loading ?? false]), [
          ["read_file", false],
          ["search_tools", false],
          ["ToolSearch", false],
          ["weather_forecast", true],
          ["chat_send", true]
        ])
      }
      const results = anthropic.results(bodies[3])
      // browsing loads nothing: its text; ToolSearch loads weather_forecast: a reference
      assert.isString(results.find((r) => r.id === "c1")?.content)
      assert.deepStrictEqual(results.find((r) => r.id === "c2")?.content, ["weather_forecast"])
      assert.include(results.find((r) => r.id === "c3")?.content, "\"city\":\"Oslo\"")
    }))

  it.effect("on Chat Completions it is refused at configuration, naming the provider", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Layer.build(agentFailing({
        TOOL_SEARCH_MODEL: "openai:gpt-test",
        TOOL_SEARCH_MODEL_URL: "http://127.0.0.1:9/v1",
        OPENAI_API_KEY: "sk-test",
        TOOL_SEARCH_DELIVERY: "native"
      })))
      assert.isTrue(Exit.isFailure(exit))
      const text = String(Exit.isFailure(exit) ? exit.cause : "")
      assert.include(text, "TOOL_SEARCH_DELIVERY")
      assert.include(text, "openai:gpt-test cannot")
      assert.include(text, "Responses API")
    }))
})
