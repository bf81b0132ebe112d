// The Messages mapping, checked on the wire against a local server with hand-written answers:
// these tests check the wire format, not a model.
import { assert, describe, it } from "@effect/vitest"
import { NativeDeferral } from "@tool-search/core"
import { Effect, Layer, Redacted } from "effect"
import { LanguageModel, type Prompt, Tool, Toolkit } from "effect/ai"
import { FetchHttpClient } from "effect/http"
import { AnthropicLanguageModel, AnthropicMessages } from "../src/index.js"
import * as WireServer from "./WireServer.js"

const message = (content: ReadonlyArray<unknown>, extra: Record<string, unknown> = {}) => ({
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: "claude-test",
  content,
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 40, cache_creation_input_tokens: 100, cache_read_input_tokens: 2000, output_tokens: 12 },
  ...extra
})

const { weather } = WireServer

const model = (url: string, options: Partial<AnthropicLanguageModel.Options> = {}) =>
  AnthropicLanguageModel.layer({
    model: "claude-test",
    apiKey: Redacted.make("sk-ant-test"),
    baseUrl: `${url}/v1`,
    ...options
  }).pipe(Layer.provide(FetchHttpClient.layer))

const conversation: Prompt.RawInput = [
  { role: "system", content: "You are terse." },
  { role: "user", content: "weather in Oslo and Bergen?" },
  {
    role: "assistant",
    content: [
      { type: "text", text: "" },
      { type: "tool-call", id: "toolu_1", name: "weather_forecast", params: { city: "Oslo" } },
      { type: "tool-call", id: "toolu_2", name: "not_loaded", params: {} }
    ]
  },
  {
    role: "tool",
    content: [
      { type: "tool-result", id: "toolu_1", name: "weather_forecast", isFailure: false, result: "3 degrees" },
      { type: "tool-result", id: "toolu_2", name: "not_loaded", isFailure: true, result: "not active: search first" }
    ]
  },
  { role: "user", content: "and tomorrow?" }
]

describe("Anthropic Messages (checks the wire, not a model)", () => {
  it.effect("sends system, alternating messages, tools, tool_choice, cache breakpoints and the key", () =>
    Effect.gen(function*() {
      const server = yield* WireServer.make(() => ({ json: message([{ type: "text", text: "Sunny." }]) }))
      const response = yield* LanguageModel.generateText({
        prompt: conversation,
        toolkit: Toolkit.make(weather),
        toolChoice: "required",
        disableToolCallResolution: true
      }).pipe(Effect.provide(model(server.url)))
      const [request] = yield* server.requests
      assert.strictEqual(request?.path, "/v1/messages")
      assert.strictEqual(request?.headers["x-api-key"], "sk-ant-test")
      assert.strictEqual(request?.headers["anthropic-version"], "2023-06-01")
      assert.isUndefined(request?.headers["anthropic-beta"])
      assert.deepStrictEqual(request?.body, {
        model: "claude-test",
        max_tokens: 4096,
        system: [{ type: "text", text: "You are terse.", cache_control: { type: "ephemeral" } }],
        messages: [
          { role: "user", content: [{ type: "text", text: "weather in Oslo and Bergen?" }] },
          {
            role: "assistant",
            content: [
              { type: "tool_use", id: "toolu_1", name: "weather_forecast", input: { city: "Oslo" } },
              { type: "tool_use", id: "toolu_2", name: "not_loaded", input: {} }
            ]
          },
          {
            // the tool results and the next user message merge into one user message
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: "toolu_1", content: "3 degrees" },
              { type: "tool_result", tool_use_id: "toolu_2", content: "not active: search first", is_error: true },
              { type: "text", text: "and tomorrow?", cache_control: { type: "ephemeral" } }
            ]
          }
        ],
        tools: [{
          name: "weather_forecast",
          description: "Get the weather forecast for a city",
          input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
        }],
        tool_choice: { type: "any" }
      })
      assert.strictEqual(response.text, "Sunny.")
      assert.deepStrictEqual(
        { ...response.usage.inputTokens },
        { uncached: 40, cacheRead: 2000, cacheWrite: 100, total: 2140 }
      )
      assert.strictEqual(response.usage.outputTokens.total, 12)
      assert.strictEqual(response.finishReason, "stop")
    }))

  it.effect("without promptCache no breakpoints; betas go in anthropic-beta; maxOutputTokens is max_tokens", () =>
    Effect.gen(function*() {
      const server = yield* WireServer.make(() => ({ json: message([{ type: "text", text: "ok" }]) }))
      yield* LanguageModel.generateText({ prompt: conversation }).pipe(
        Effect.provide(model(server.url, { promptCache: false, betas: ["a-1", "b-2"], maxOutputTokens: 99 }))
      )
      const [request] = yield* server.requests
      assert.notInclude(JSON.stringify(request?.body), "cache_control")
      assert.strictEqual(request?.headers["anthropic-beta"], "a-1,b-2")
      assert.strictEqual((request?.body as { max_tokens: number } | undefined)?.max_tokens, 99)
    }))

  it("maps every toolChoice", () => {
    assert.deepStrictEqual(AnthropicMessages.toToolChoice("auto"), { type: "auto" })
    assert.deepStrictEqual(AnthropicMessages.toToolChoice("none"), { type: "none" })
    assert.deepStrictEqual(AnthropicMessages.toToolChoice("required"), { type: "any" })
    assert.deepStrictEqual(AnthropicMessages.toToolChoice({ tool: "ToolSearch" }), {
      type: "tool",
      name: "ToolSearch"
    })
    assert.deepStrictEqual(AnthropicMessages.toToolChoice({ oneOf: ["a"] }), { type: "auto" })
    assert.deepStrictEqual(AnthropicMessages.toToolChoice({ oneOf: ["a"], mode: "required" }), { type: "any" })
  })

  it.effect("decodes text, tool_use and thinking; skips server-tool blocks; maps stop_reason", () =>
    Effect.gen(function*() {
      const server = yield* WireServer.make(() => ({
        json: message([
          { type: "thinking", thinking: "forecast needed", signature: "sig" },
          { type: "server_tool_use", id: "srvtoolu_1", name: "tool_search_tool_regex", input: { query: "weather" } },
          {
            type: "tool_search_tool_result",
            tool_use_id: "srvtoolu_1",
            content: { type: "tool_search_tool_search_result" }
          },
          { type: "text", text: "Looking." },
          { type: "tool_use", id: "toolu_9", name: "not_loaded", input: { city: "Oslo" } }
        ], { stop_reason: "tool_use" })
      }))
      const response = yield* LanguageModel.generateText({
        prompt: "go",
        toolkit: Toolkit.make(weather),
        disableToolCallResolution: true,
        toolCallValidation: "deferred"
      }).pipe(Effect.provide(model(server.url)))
      assert.strictEqual(response.reasoningText, "forecast needed")
      assert.strictEqual(response.text, "Looking.")
      assert.deepStrictEqual(response.toolCalls.map((c) => [c.id, c.name, c.params]), [
        ["toolu_9", "not_loaded", { city: "Oslo" }]
      ])
      assert.strictEqual(response.finishReason, "tool-calls")
    }))

  it.effect("a known block with the wrong shape is an InvalidResponseError, not skipped", () =>
    Effect.gen(function*() {
      const server = yield* WireServer.make(() => ({ json: message([{ type: "tool_use", name: "x" }]) }))
      const error = yield* LanguageModel.generateText({ prompt: "go" }).pipe(
        Effect.provide(model(server.url)),
        Effect.flip
      )
      assert.strictEqual(error.module, "Anthropic")
      assert.strictEqual(error.reason._tag, "InvalidResponseError")
    }))

  it.effect("overloaded (529) is an InternalProviderError with Anthropic's message (retries off)", () =>
    Effect.gen(function*() {
      const server = yield* WireServer.make(() => ({
        status: 529,
        json: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }
      }))
      const error = yield* LanguageModel.generateText({ prompt: "go" }).pipe(
        Effect.provide(model(server.url, { retries: 0 })),
        Effect.flip
      )
      assert.strictEqual(error.reason._tag, "InternalProviderError")
      assert.include(error.message, "Overloaded (overloaded_error)")
    }))

  it.effect("a redirect is an error, never followed: the key does not reach the other host", () =>
    Effect.gen(function*() {
      const elsewhere = yield* WireServer.make(() => ({ json: message([{ type: "text", text: "stolen" }]) }))
      const server = yield* WireServer.make(() => ({
        status: 307,
        headers: { location: `${elsewhere.url}/v1/messages` }
      }))
      const error = yield* LanguageModel.generateText({ prompt: "go" }).pipe(
        Effect.provide(model(server.url)),
        Effect.flip
      )
      assert.strictEqual(error.module, "Anthropic")
      assert.include(error.message, "307")
      assert.deepStrictEqual(yield* elsewhere.requests, [])
    }))

  it.effect("a tool result JSON cannot hold is sent as its text; parameters it cannot hold are an error", () =>
    Effect.gen(function*() {
      const server = yield* WireServer.make(() => ({ json: message([{ type: "text", text: "ok" }]) }))
      const cyclic: Record<string, unknown> = {}
      cyclic["self"] = cyclic
      yield* LanguageModel.generateText({
        prompt: [
          { role: "user", content: "go" },
          { role: "assistant", content: [{ type: "tool-call", id: "t1", name: "x", params: {} }] },
          { role: "tool", content: [{ type: "tool-result", id: "t1", name: "x", isFailure: false, result: 10n }] }
        ]
      }).pipe(Effect.provide(model(server.url)))
      const [request] = yield* server.requests
      assert.include(JSON.stringify(request?.body), "\"content\":\"10\"")
      const error = yield* LanguageModel.generateText({
        prompt: [{ role: "assistant", content: [{ type: "tool-call", id: "t2", name: "x", params: cyclic }] }]
      }).pipe(Effect.provide(model(server.url)), Effect.flip)
      assert.strictEqual(error.reason._tag, "NetworkError")
      assert.include(error.message, "cannot be written as JSON")
    }))

  it.effect("deferred tools: defer_loading on annotated tools only; a referencing result is tool_reference blocks", () =>
    Effect.gen(function*() {
      const server = yield* WireServer.make(() => ({ json: message([{ type: "text", text: "ok" }]) }))
      const search = Tool.dynamic("ToolSearch", { parameters: { type: "object", properties: {} } })
      yield* LanguageModel.generateText({
        prompt: [
          { role: "user", content: "weather?" },
          {
            role: "assistant",
            content: [
              { type: "tool-call", id: "t1", name: "ToolSearch", params: { query: "weather" } },
              { type: "tool-call", id: "t2", name: "ToolSearch", params: { query: "bad" } }
            ]
          },
          {
            role: "tool",
            content: [
              {
                type: "tool-result",
                id: "t1",
                name: "ToolSearch",
                isFailure: false,
                result: { functions: [{ name: "weather_forecast" }] },
                options: NativeDeferral.references(["weather_forecast"])
              },
              // a failed result keeps its text, whatever its options say
              {
                type: "tool-result",
                id: "t2",
                name: "ToolSearch",
                isFailure: true,
                result: "Query cannot be empty",
                options: NativeDeferral.references(["weather_forecast"])
              }
            ]
          }
        ],
        toolkit: Toolkit.make(search, weather.annotate(NativeDeferral.DeferLoading, true)),
        disableToolCallResolution: true
      }).pipe(Effect.provide(model(server.url, { promptCache: false })))
      const body = (yield* server.requests)[0]?.body as AnthropicMessages.MessagesRequest
      assert.deepStrictEqual(body.tools?.map((t) => [t.name, t.defer_loading]), [
        ["ToolSearch", undefined],
        ["weather_forecast", true]
      ])
      assert.deepStrictEqual(body.messages[2], {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "t1",
            content: [{ type: "tool_reference", tool_name: "weather_forecast" }]
          },
          { type: "tool_result", tool_use_id: "t2", content: "Query cannot be empty", is_error: true }
        ]
      })
    }))

  it.effect("the layer declares that Messages can defer tools", () =>
    Effect.gen(function*() {
      const support = yield* NativeDeferral.Support
      assert.deepStrictEqual(support, { provider: "anthropic:claude-test", deferredTools: true })
    }).pipe(Effect.provide(model("http://127.0.0.1:9"))))
})
