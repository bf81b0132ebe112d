// Invariants of the parsers and mappings, for any input: the `<provider>:<model>` setting, the
// Messages alternation, tool-call arguments through the Chat Completions wire, and the order of
// embedding vectors.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Result, Schema } from "effect"
import { IdGenerator, type LanguageModel, Prompt } from "effect/ai"
import * as fc from "fast-check"
import { AnthropicMessages, OpenAiChatCompletions, OpenAiEmbeddingModel, ProviderConfig } from "../src/index.js"

/** Provider options carrying only what the mappings read. */
const optionsOf = (prompt: Prompt.Prompt): LanguageModel.ProviderOptions => ({
  prompt,
  tools: [],
  toolChoice: "auto",
  responseFormat: { type: "text" },
  span: undefined as never,
  previousResponseId: undefined,
  incrementalPrompt: undefined
})

const run = <A, E>(effect: Effect.Effect<A, E, IdGenerator.IdGenerator>) =>
  Effect.runSync(effect.pipe(Effect.provideService(IdGenerator.IdGenerator, IdGenerator.defaultIdGenerator)))

describe("ProviderConfig.SpecFromString", () => {
  const decode = Schema.decodeUnknownResult(ProviderConfig.SpecFromString(ProviderConfig.modelProviders))
  const encode = Schema.encodeSync(ProviderConfig.SpecFromString(ProviderConfig.modelProviders))

  it("reads back what it writes, colons in the model name included", () =>
    fc.assert(fc.property(
      fc.constantFrom(...ProviderConfig.modelProviders),
      fc.string({ minLength: 1 }).filter((m) => m.trim() === m && m !== ""),
      (provider, model) => {
        const spec = { provider, model }
        const back = decode(encode(spec))
        assert.isTrue(Result.isSuccess(back))
        assert.deepStrictEqual(Result.getOrThrow(back), spec)
      }
    )))

  it("any text is a spec or a refusal naming the expected forms, never a crash", () =>
    fc.assert(fc.property(fc.string(), (text) => {
      const result = decode(text)
      if (Result.isFailure(result)) assert.match(result.failure.message, /Expected/)
      else assert.include(ProviderConfig.modelProviders, Result.getOrThrow(result).provider)
    })))
})

// -----------------------------------------------------------------------------
// Messages alternate
// -----------------------------------------------------------------------------

const text = fc.string({ maxLength: 8 })
const callId = fc.stringMatching(/^[a-z0-9]{1,6}$/)
const message: fc.Arbitrary<Prompt.MessageEncoded> = fc.oneof(
  fc.record({ role: fc.constant("system" as const), content: text }),
  fc.record({ role: fc.constant("user" as const), content: text }),
  fc.record({
    role: fc.constant("assistant" as const),
    content: fc.array(
      fc.oneof(
        fc.record({ type: fc.constant("text" as const), text }),
        fc.record({
          type: fc.constant("tool-call" as const),
          id: callId,
          name: fc.constant("t"),
          params: fc.jsonValue()
        })
      ),
      { maxLength: 3 }
    )
  }),
  fc.record({
    role: fc.constant("tool" as const),
    content: fc.array(
      fc.record({
        type: fc.constant("tool-result" as const),
        id: callId,
        name: fc.constant("t"),
        isFailure: fc.boolean(),
        result: fc.jsonValue()
      }),
      { maxLength: 3 }
    )
  })
)

describe("AnthropicMessages.toRequest", () => {
  it("for any conversation: roles alternate, no message is empty, system text goes to `system`", () =>
    fc.assert(fc.property(fc.array(message, { maxLength: 12 }), fc.boolean(), (messages, promptCache) => {
      const prompt = Prompt.make(messages)
      const request = run(AnthropicMessages.toRequest(optionsOf(prompt), { model: "m", promptCache }))
      for (let i = 1; i < request.messages.length; i++) {
        assert.notStrictEqual(request.messages[i]?.role, request.messages[i - 1]?.role)
      }
      for (const m of request.messages) assert.isAbove(m.content.length, 0)
      const systems = messages.filter((m) => m.role === "system").length
      assert.strictEqual(request.system?.length ?? 0, systems)
      // at most two breakpoints, and none without promptCache
      const breakpoints = JSON.stringify(request).split("cache_control").length - 1
      assert.isAtMost(breakpoints, promptCache ? 2 : 0)
    })))
})

// -----------------------------------------------------------------------------
// Tool-call arguments survive the Chat Completions wire
// -----------------------------------------------------------------------------

describe("OpenAiChatCompletions", () => {
  it("tool-call parameters sent as arguments strings read back as the same values", () =>
    fc.assert(fc.property(
      fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 3 })),
      (params) => {
        const prompt = Prompt.make([{
          role: "assistant",
          content: [{ type: "tool-call", id: "c", name: "t", params }]
        }])
        const request = run(OpenAiChatCompletions.toRequest(optionsOf(prompt), { model: "m" }))
        const sent = request.messages[0]
        assert.strictEqual(sent?.role, "assistant")
        const call = sent?.role === "assistant" ? sent.tool_calls?.[0] : undefined
        // what a server would echo back as a call is decoded to the same parameters
        const body = Schema.decodeUnknownSync(OpenAiChatCompletions.ChatCompletion)({
          choices: [{ message: { content: null, tool_calls: [call] }, finish_reason: "tool_calls" }]
        })
        const parts = run(OpenAiChatCompletions.fromResponse(body))
        const back = parts.find((p) => p.type === "tool-call")
        assert.deepStrictEqual(back?.type === "tool-call" ? back.params : undefined, JSON.parse(JSON.stringify(params)))
      }
    )))
})

// -----------------------------------------------------------------------------
// Embedding vectors come back in input order, or not at all
// -----------------------------------------------------------------------------

describe("OpenAiEmbeddingModel.vectorsOf", () => {
  it("any permutation of indices gives the vectors in input order", () =>
    fc.assert(fc.property(
      fc.integer({ min: 1, max: 20 }).chain((n) =>
        fc.tuple(fc.constant(n), fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }))
      ),
      ([n, order]) => {
        const response = { data: order.map((index) => ({ index, embedding: [index, 1] })) }
        const result = OpenAiEmbeddingModel.vectorsOf(response, n)
        assert.isTrue("vectors" in result)
        if ("vectors" in result) assert.deepStrictEqual(result.vectors.map((v) => v[0]), [...Array(n).keys()])
      }
    )))

  it("a missing, repeated or out-of-range index, or vectors of two lengths, is refused", () =>
    fc.assert(fc.property(
      fc.array(
        fc.record({ index: fc.integer({ min: -2, max: 6 }), embedding: fc.array(fc.double(), { maxLength: 3 }) }),
        {
          maxLength: 6
        }
      ),
      fc.integer({ min: 0, max: 6 }),
      (data, n) => {
        const result = OpenAiEmbeddingModel.vectorsOf({ data }, n)
        const indices = data.map((d) => d.index).sort((a, b) => a - b)
        const lengths = new Set(data.map((d) => d.embedding.length))
        const valid = data.length === n && indices.every((x, i) => x === i) &&
          (n === 0 || (lengths.size === 1 && !lengths.has(0)))
        assert.strictEqual("vectors" in result, valid)
      }
    )))
})
