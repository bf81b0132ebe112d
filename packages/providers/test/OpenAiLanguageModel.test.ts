// The Chat Completions mapping, checked on the wire against a local server with hand-written
// answers: these tests check the wire format, not a model.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Redacted, Schema, Stream } from "effect"
import { AiError, IdGenerator, LanguageModel, type Prompt, Tool, Toolkit } from "effect/ai"
import { FetchHttpClient } from "effect/http"
import { TestClock } from "effect/testing"
import { OpenAiChatCompletions, OpenAiLanguageModel } from "../src/index.js"
import * as WireServer from "./WireServer.js"

const completion = (message: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1_700_000_000,
  model: "gpt-test",
  choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: "stop", logprobs: null }],
  usage: {
    prompt_tokens: 1200,
    completion_tokens: 30,
    total_tokens: 1230,
    prompt_tokens_details: { cached_tokens: 1024, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 10 }
  },
  system_fingerprint: "fp",
  ...extra
})

const { weather } = WireServer

const model = (url: string, options: Partial<OpenAiLanguageModel.Options> = {}) =>
  OpenAiLanguageModel.layer({
    model: "gpt-test",
    baseUrl: `${url}/v1`,
    apiKey: Redacted.make("sk-test"),
    ...options
  }).pipe(Layer.provide(FetchHttpClient.layer))

const conversation: Prompt.RawInput = [
  { role: "system", content: "You are terse." },
  { role: "user", content: "weather in Oslo?" },
  {
    role: "assistant",
    content: [
      { type: "text", text: "Checking." },
      { type: "tool-call", id: "call_1", name: "weather_forecast", params: { city: "Oslo" } }
    ]
  },
  {
    role: "tool",
    content: [{ type: "tool-result", id: "call_1", name: "weather_forecast", isFailure: false, result: { c: 3 } }]
  }
]

describe("OpenAI Chat Completions (checks the wire, not a model)", () => {
  it.effect("sends the prompt, tools and tool_choice in the Chat Completions format, with the key", () =>
    Effect.gen(function*() {
      const server = yield* WireServer.make(() => ({ json: completion({ content: "3 degrees" }) }))
      const response = yield* LanguageModel.generateText({
        prompt: conversation,
        toolkit: Toolkit.make(weather),
        toolChoice: { tool: "weather_forecast" },
        disableToolCallResolution: true
      }).pipe(Effect.provide(model(server.url, { maxOutputTokens: 256 })))
      const [request] = yield* server.requests
      assert.strictEqual(request?.path, "/v1/chat/completions")
      assert.strictEqual(request?.headers["authorization"], "Bearer sk-test")
      assert.deepStrictEqual(request?.body, {
        model: "gpt-test",
        messages: [
          { role: "system", content: "You are terse." },
          { role: "user", content: "weather in Oslo?" },
          {
            role: "assistant",
            content: "Checking.",
            tool_calls: [{
              id: "call_1",
              type: "function",
              function: { name: "weather_forecast", arguments: "{\"city\":\"Oslo\"}" }
            }]
          },
          { role: "tool", tool_call_id: "call_1", content: "{\"c\":3}" }
        ],
        tools: [{
          type: "function",
          function: {
            name: "weather_forecast",
            description: "Get the weather forecast for a city",
            parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
          }
        }],
        tool_choice: { type: "function", function: { name: "weather_forecast" } },
        max_completion_tokens: 256
      })
      assert.strictEqual(response.text, "3 degrees")
      assert.deepStrictEqual(
        { ...response.usage.inputTokens },
        { total: 1200, cacheRead: 1024, uncached: 176, cacheWrite: undefined }
      )
      assert.deepStrictEqual({ ...response.usage.outputTokens }, { total: 30, reasoning: 10, text: 20 })
      assert.strictEqual(response.finishReason, "stop")
    }))

  it.effect("decodes tool calls; arguments that are not JSON reach the caller as the raw string", () =>
    Effect.gen(function*() {
      const body = completion({
        content: null,
        reasoning_content: "need the forecast",
        tool_calls: [
          { id: "call_a", type: "function", function: { name: "weather_forecast", arguments: "{\"city\":\"Oslo\"}" } },
          { type: "function", function: { name: "not_loaded", arguments: "{oops" } }
        ]
      })
      const parts = yield* OpenAiChatCompletions.fromResponse(
        Schema.decodeUnknownSync(OpenAiChatCompletions.ChatCompletion)(body)
      ).pipe(Effect.provideService(IdGenerator.IdGenerator, { generateId: () => Effect.succeed("generated") }))
      assert.deepStrictEqual(parts.map((p) => p.type), [
        "response-metadata",
        "reasoning",
        "tool-call",
        "tool-call",
        "finish"
      ])
      assert.deepStrictEqual(
        parts.flatMap((p) => p.type === "tool-call" ? [[p.id, p.name, p.params]] : []),
        [["call_a", "weather_forecast", { city: "Oslo" }], ["generated", "not_loaded", "{oops"]]
      )
      // through the layer, a name outside the toolkit stays with the caller (deferred validation)
      const server = yield* WireServer.make(() => ({ json: body }))
      const response = yield* LanguageModel.generateText({
        prompt: "go",
        toolkit: Toolkit.make(weather),
        disableToolCallResolution: true,
        toolCallValidation: "deferred"
      }).pipe(Effect.provide(model(server.url)))
      assert.deepStrictEqual(response.toolCalls.map((c) => c.name), ["weather_forecast", "not_loaded"])
      assert.strictEqual(response.reasoningText, "need the forecast")
    }))

  it.effect("streamText replays one buffered request as stream parts", () =>
    Effect.gen(function*() {
      const server = yield* WireServer.make(() => ({
        json: completion({
          content: "3 degrees",
          tool_calls: [{ id: "call_s", type: "function", function: { name: "weather_forecast", arguments: "{}" } }]
        })
      }))
      const parts = yield* LanguageModel.streamText({
        prompt: "go",
        toolkit: Toolkit.make(weather),
        disableToolCallResolution: true
      }).pipe(Stream.runCollect, Effect.provide(model(server.url)))
      assert.deepStrictEqual(parts.map((p) => p.type), [
        "response-metadata",
        "text-start",
        "text-delta",
        "text-end",
        "tool-call",
        "finish"
      ])
      assert.strictEqual((yield* server.requests).length, 1)
    }))

  it("maps every toolChoice", () => {
    assert.strictEqual(OpenAiChatCompletions.toToolChoice("auto"), "auto")
    assert.strictEqual(OpenAiChatCompletions.toToolChoice("none"), "none")
    assert.strictEqual(OpenAiChatCompletions.toToolChoice("required"), "required")
    assert.deepStrictEqual(OpenAiChatCompletions.toToolChoice({ tool: "ToolSearch" }), {
      type: "function",
      function: { name: "ToolSearch" }
    })
    assert.strictEqual(OpenAiChatCompletions.toToolChoice({ oneOf: ["a"] }), "auto")
    assert.strictEqual(OpenAiChatCompletions.toToolChoice({ oneOf: ["a"], mode: "required" }), "required")
  })

  it.effect("a oneOf sends only those tools; no tools means no tools and no tool_choice", () =>
    Effect.gen(function*() {
      const server = yield* WireServer.make(() => ({ json: completion({ content: "ok" }) }))
      const other = Tool.dynamic("other_tool", { parameters: { type: "object", properties: {} } })
      yield* LanguageModel.generateText({
        prompt: "go",
        toolkit: Toolkit.make(weather, other),
        toolChoice: { oneOf: ["other_tool"], mode: "required" },
        disableToolCallResolution: true
      }).pipe(Effect.provide(model(server.url)))
      yield* LanguageModel.generateText({ prompt: "go" }).pipe(Effect.provide(model(server.url)))
      const [first, second] = (yield* server.requests).map((r) => r.body as Record<string, unknown>)
      assert.deepStrictEqual(
        (first?.["tools"] as Array<{ function: { name: string } }> | undefined ?? []).map((t) => t.function.name),
        [
          "other_tool"
        ]
      )
      assert.strictEqual(first?.["tool_choice"], "required")
      assert.deepStrictEqual(Object.keys(second ?? {}), ["model", "messages"])
    }))
})

describe("OpenAI Chat Completions errors (checks the wire, not a model)", () => {
  const fail = (reply: WireServer.Reply, options: Partial<OpenAiLanguageModel.Options> = {}) =>
    Effect.gen(function*() {
      const server = yield* WireServer.make(() => reply)
      return yield* LanguageModel.generateText({ prompt: "go" }).pipe(
        Effect.provide(model(server.url, options)),
        Effect.flip
      )
    })

  it.effect("401 is an AuthenticationError carrying the provider's message", () =>
    Effect.gen(function*() {
      const error = yield* fail({
        status: 401,
        json: {
          error: { message: "Incorrect API key provided", type: "invalid_request_error", code: "invalid_api_key" }
        }
      })
      assert.strictEqual(error.module, "OpenAI")
      assert.strictEqual(error.reason._tag, "AuthenticationError")
      assert.include(error.message, "Incorrect API key provided")
    }))

  it.effect("429 is a RateLimitError with the server's Retry-After (retries off)", () =>
    Effect.gen(function*() {
      const error = yield* fail({
        status: 429,
        json: { error: { message: "slow down" } },
        headers: { "retry-after": "7" }
      }, { retries: 0 })
      assert.strictEqual(error.reason._tag, "RateLimitError")
      assert.include(error.message, "Retry after 7s")
    }))

  it.effect("a body larger than the bound is refused, not read", () =>
    Effect.gen(function*() {
      const error = yield* fail({ json: completion({ content: "x".repeat(5000) }) }, { maxResponseBytes: 1000 })
      assert.strictEqual(error.reason._tag, "InvalidResponseError")
      assert.include(error.message, "exceeds 1000 bytes")
    }))

  it.effect("a body that is not JSON, or not a completion, is an InvalidResponseError", () =>
    Effect.gen(function*() {
      const notJson = yield* fail({ text: "<html>gateway</html>" })
      assert.strictEqual(notJson.reason._tag, "InvalidResponseError")
      const wrongShape = yield* fail({ json: { choices: [{ message: { content: 42 } }] } })
      assert.strictEqual(wrongShape.reason._tag, "InvalidResponseError")
      assert.include(wrongShape.message, "unexpected shape")
    }))

  it.effect("a server that never answers fails after the timeout (TestClock)", () =>
    Effect.gen(function*() {
      const server = yield* WireServer.make(() => "hang")
      const fiber = yield* LanguageModel.generateText({ prompt: "go" }).pipe(
        Effect.provide(model(server.url, { timeout: "30 seconds", retries: 0 })),
        Effect.flip,
        Effect.forkChild
      )
      yield* server.received
      yield* TestClock.adjust("30 seconds")
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error.reason._tag, "NetworkError")
      assert.include(error.message, "no answer within 30s")
    }))

  it.effect("a server that is not there is a NetworkError naming the address", () =>
    Effect.gen(function*() {
      const error = yield* LanguageModel.generateText({ prompt: "go" }).pipe(
        Effect.provide(model("http://127.0.0.1:9", { retries: 0 })),
        Effect.flip
      )
      assert.isTrue(AiError.isAiError(error))
      assert.strictEqual(error.reason._tag, "NetworkError")
      assert.include(error.message, "127.0.0.1:9")
    }))
})
