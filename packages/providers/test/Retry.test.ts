// Retries of transient failures, on the wire against a local server. The waits are read from the
// clock: every sleep the request makes is recorded, then the TestClock moves past it, so no test
// sleeps and none asserts a wall-clock duration.
import { assert, describe, it } from "@effect/vitest"
import { Clock, ConfigProvider, Duration, Effect, Fiber, Layer, Option, Queue, Redacted } from "effect"
import { EmbeddingModel, LanguageModel } from "effect/ai"
import { FetchHttpClient } from "effect/http"
import { TestClock } from "effect/testing"
import { AnthropicLanguageModel, OpenAiEmbeddingModel, OpenAiLanguageModel, Providers } from "../src/index.js"
import * as WireServer from "./WireServer.js"

/** The request timeout of these tests: its sleeps are not waits between attempts. */
const timeout = Duration.hours(1)

const openai = (url: string, options: Partial<OpenAiLanguageModel.Options> = {}) =>
  OpenAiLanguageModel.layer({
    model: "gpt-test",
    baseUrl: `${url}/v1`,
    apiKey: Redacted.make("sk"),
    timeout,
    ...options
  })
    .pipe(Layer.provide(FetchHttpClient.layer))

/**
 * A clock that records the waits the code under test asks for, over the TestClock: `nextWait`
 * is the next one (request timeouts skipped), taken once the wait is registered.
 */
const recordingClock = Effect.gen(function*() {
  const clock = yield* Clock.Clock
  const waits = yield* Queue.unbounded<Duration.Duration>()
  const recording: Clock.Clock = {
    currentTimeMillisUnsafe: () => clock.currentTimeMillisUnsafe(),
    currentTimeMillis: clock.currentTimeMillis,
    currentTimeNanosUnsafe: () => clock.currentTimeNanosUnsafe(),
    currentTimeNanos: clock.currentTimeNanos,
    monotonicTimeNanosUnsafe: () => clock.monotonicTimeNanosUnsafe(),
    monotonicTimeNanos: clock.monotonicTimeNanos,
    sleep: (duration) => Effect.andThen(Queue.offer(waits, duration), clock.sleep(duration))
  }
  const nextWait: Effect.Effect<Duration.Duration> = Effect.flatMap(
    Queue.take(waits),
    (d) => Duration.equals(d, timeout) ? nextWait : Effect.succeed(d)
  )
  return { clock: recording, nextWait }
})

/** Starts `effect` under the recording clock, in a fiber. */
const start = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const { clock, nextWait } = yield* recordingClock
    const fiber = yield* effect.pipe(Effect.provideService(Clock.Clock, clock), Effect.forkChild)
    return { fiber, nextWait }
  })

const generate = (layer: Layer.Layer<LanguageModel.LanguageModel>) =>
  LanguageModel.generateText({ prompt: "go" }).pipe(Effect.provide(layer))

const ok = { json: WireServer.chatCompletion("fine") }

const millis = (d: Duration.Duration) => Duration.toMillis(d)

describe("retries of transient failures (checks the wire, not a model)", () => {
  it.effect("429 with Retry-After: nothing is sent again before the wait, then the answer", () =>
    Effect.gen(function*() {
      const server = yield* WireServer.make((_, i) =>
        i === 0 ? { status: 429, json: { error: { message: "slow down" } }, headers: { "retry-after": "7" } } : ok
      )
      const { fiber, nextWait } = yield* start(generate(openai(server.url)))
      assert.strictEqual(millis(yield* nextWait), 7000)
      yield* TestClock.adjust("6999 millis")
      assert.strictEqual((yield* server.requests).length, 1)
      yield* TestClock.adjust("1 millis")
      const response = yield* Fiber.join(fiber)
      assert.strictEqual(response.text, "fine")
      assert.strictEqual((yield* server.requests).length, 2)
    }))

  it.effect("retry-after-ms and an HTTP-date Retry-After are honoured; a long one is capped at 60 s", () =>
    Effect.gen(function*() {
      const hints: ReadonlyArray<Record<string, string>> = [
        { "retry-after-ms": "1500", "retry-after": "9" },
        { "retry-after": new Date(5_000).toUTCString() }, // the TestClock starts at 0
        { "retry-after": "3600" }
      ]
      const server = yield* WireServer.make((_, i) => {
        const headers = hints[i]
        return headers === undefined ? ok : { status: 503, json: {}, headers }
      })
      const { fiber, nextWait } = yield* start(generate(openai(server.url, { retries: 3 })))
      const waits: Array<number> = []
      for (let i = 0; i < hints.length; i++) {
        const wait = yield* nextWait
        waits.push(millis(wait))
        yield* TestClock.adjust(wait)
      }
      assert.deepStrictEqual(waits, [1500, 5000 - 1500, 60_000])
      assert.strictEqual((yield* Fiber.join(fiber)).text, "fine")
    }))

  it.effect("500 twice, then 200: succeeds after backoffs of 0.5 s and 1 s (±20% jitter)", () =>
    Effect.gen(function*() {
      const server = yield* WireServer.make((_, i) => i < 2 ? { status: 500, json: { error: "boom" } } : ok)
      const { fiber, nextWait } = yield* start(generate(openai(server.url)))
      const first = yield* nextWait
      assert.isTrue(millis(first) >= 400 && millis(first) <= 600, `${millis(first)}`)
      yield* TestClock.adjust(first)
      const second = yield* nextWait
      assert.isTrue(millis(second) >= 800 && millis(second) <= 1200, `${millis(second)}`)
      yield* TestClock.adjust(second)
      assert.strictEqual((yield* Fiber.join(fiber)).text, "fine")
      assert.strictEqual((yield* server.requests).length, 3)
    }))

  it.effect("400 is not retried: one request, the provider's message", () =>
    Effect.gen(function*() {
      const server = yield* WireServer.make(() => ({ status: 400, json: { error: { message: "bad field" } } }))
      const error = yield* Effect.flip(generate(openai(server.url)))
      assert.strictEqual(error.reason._tag, "InvalidRequestError")
      assert.include(error.message, "bad field")
      assert.notInclude(error.message, "attempts")
      assert.strictEqual((yield* server.requests).length, 1)
    }))

  it.effect("retries exhausted: the last error, naming the provider, the status and the attempts", () =>
    Effect.gen(function*() {
      const server = yield* WireServer.make(() => ({
        status: 529,
        json: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }
      }))
      const layer = AnthropicLanguageModel.layer({
        model: "claude-test",
        apiKey: Redacted.make("k"),
        baseUrl: `${server.url}/v1`,
        timeout
      }).pipe(Layer.provide(FetchHttpClient.layer))
      const { fiber, nextWait } = yield* start(Effect.flip(generate(layer)))
      yield* TestClock.adjust(yield* nextWait)
      yield* TestClock.adjust(yield* nextWait)
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error._tag, "AiError")
      assert.strictEqual(error.reason._tag, "InternalProviderError")
      assert.include(error.message, "Anthropic.generateText")
      assert.include(error.message, "Overloaded")
      assert.include(error.message, "HTTP 529, gave up after 3 attempts")
      assert.strictEqual((yield* server.requests).length, 3)
    }))

  it.effect("a transport failure is retried: a server that is not there fails after the attempts", () =>
    Effect.gen(function*() {
      const { fiber, nextWait } = yield* start(Effect.flip(generate(openai("http://127.0.0.1:9", { retries: 1 }))))
      yield* TestClock.adjust(yield* nextWait)
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error.reason._tag, "NetworkError")
      assert.include(error.message, "127.0.0.1:9")
      assert.include(error.message, "gave up after 2 attempts")
    }))

  it.effect("retries 0 disables them: one request, the error at once", () =>
    Effect.gen(function*() {
      const server = yield* WireServer.make(() => ({ status: 503, json: { error: { message: "later" } } }))
      const error = yield* Effect.flip(generate(openai(server.url, { retries: 0 })))
      assert.strictEqual(error.reason._tag, "InternalProviderError")
      assert.notInclude(error.message, "attempts")
      assert.strictEqual((yield* server.requests).length, 1)
    }))

  it.effect("the embeddings model retries the same way", () =>
    Effect.gen(function*() {
      const server = yield* WireServer.make((_, i) =>
        i === 0
          ? { status: 429, json: {}, headers: { "retry-after": "2" } }
          : { json: { data: [{ index: 0, embedding: [1, 0] }] } }
      )
      const layer = OpenAiEmbeddingModel.layer({ model: "embed-test", baseUrl: `${server.url}/v1`, timeout }).pipe(
        Layer.provide(FetchHttpClient.layer)
      )
      const { fiber, nextWait } = yield* start(
        Effect.flatMap(EmbeddingModel.EmbeddingModel, (m) => m.embed("hello")).pipe(Effect.provide(layer))
      )
      assert.strictEqual(millis(yield* nextWait), 2000)
      yield* TestClock.adjust("2 seconds")
      assert.deepStrictEqual((yield* Fiber.join(fiber)).vector, [1, 0])
      assert.strictEqual((yield* server.requests).length, 2)
    }))

  it.effect("TOOL_SEARCH_MODEL_RETRIES sets the retries of both models (default 2)", () =>
    Effect.gen(function*() {
      const env = (extra: Record<string, string>) =>
        ConfigProvider.fromEnv({
          env: {
            TOOL_SEARCH_MODEL: "openai-compatible:m",
            TOOL_SEARCH_MODEL_URL: "http://localhost:1/v1",
            TOOL_SEARCH_EMBEDDINGS: "openai-compatible:e",
            TOOL_SEARCH_EMBEDDINGS_URL: "http://localhost:1/v1",
            ...extra
          }
        })
      const retriesOf = (provider: ConfigProvider.ConfigProvider) =>
        Effect.gen(function*() {
          const model = Option.getOrThrow(yield* Providers.languageModelChoice.parse(provider))
          const embeddings = Option.getOrThrow(yield* Providers.embeddingModelChoice.parse(provider))
          return [model.options.retries, embeddings.options.retries]
        })
      assert.deepStrictEqual(yield* retriesOf(env({})), [2, 2])
      assert.deepStrictEqual(yield* retriesOf(env({ TOOL_SEARCH_MODEL_RETRIES: "0" })), [0, 0])
      const error = yield* Effect.flip(retriesOf(env({ TOOL_SEARCH_MODEL_RETRIES: "-1" })))
      assert.include(String(error), "TOOL_SEARCH_MODEL_RETRIES")
    }))
})
