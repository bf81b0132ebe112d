import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Prompt } from "effect/ai"
import * as fc from "fast-check"
import * as Prefix from "../src/internal/prefix.js"
import type { Service as TokenCounterService } from "../src/TokenCounter.js"

// Every chunk costs one token, so a request's prefix tokens are the number of chunks it shares.
const perChunk: TokenCounterService = {
  encoding: "one per chunk",
  count: () => 1,
  definition: () => 1,
  truncate: (text) => text
}

const definitions = ["a", "b", "c", "d"].map((name) => ({
  name,
  description: `tool ${name}`,
  parameters: { type: "object", properties: {} }
}))

interface Spec {
  readonly tools: ReadonlyArray<number>
  readonly system: string | null
  readonly messages: ReadonlyArray<string>
}

const spec: fc.Arbitrary<Spec> = fc.record({
  tools: fc.array(fc.nat({ max: 3 }), { maxLength: 4 }),
  system: fc.option(fc.constantFrom("be brief", "be kind"), { nil: null }),
  messages: fc.array(fc.constantFrom("hi", "yes", "no"), { maxLength: 5 })
})

// new message objects for every request, as a new turn builds them from text
const requestOf = (s: Spec): Prefix.Request => ({
  tools: s.tools.map((i) => definitions[i] ?? definitions[0]!),
  deferred: [],
  prompt: Prompt.make([
    ...(s.system === null ? [] : [{ role: "system" as const, content: s.system }]),
    ...s.messages.map((text) => ({ role: "user" as const, content: text }))
  ])
})

// the definition: the longest start, in chunks, shared with any earlier request
const chunksOf = (s: Spec) => [
  ...s.tools.map((i) => `tool:${i}`),
  ...(s.system === null ? [] : [`system:${s.system}`]),
  ...s.messages.map((m) => `user:${m}`)
]
const naivePrefix = (earlier: ReadonlyArray<Spec>, current: Spec): number => {
  const mine = chunksOf(current)
  let best = 0
  for (const other of earlier.map(chunksOf)) {
    let n = 0
    while (n < mine.length && n < other.length && mine[n] === other[n]) n++
    best = Math.max(best, n)
  }
  return best
}

describe("prefix-cache accounting", () => {
  it("each request's prefix is its longest start shared with an earlier request", () =>
    fc.assert(fc.property(fc.array(spec, { minLength: 1, maxLength: 12 }), (specs) => {
      const index = Prefix.make(perChunk)
      return specs.every((s, i) => {
        const measured = index.observe(requestOf(s))
        return measured.inputTokens === chunksOf(s).length &&
          measured.prefixTokens === naivePrefix(specs.slice(0, i), s)
      })
    })))

  it.effect("tools come first: a changed tool loses everything after it, a changed last message only itself", () =>
    Effect.gen(function*() {
      const index = Prefix.make(perChunk)
      const base: Spec = { tools: [0, 1, 2], system: "be brief", messages: ["hi", "yes"] }
      assert.strictEqual(index.observe(requestOf(base)).prefixTokens, 0)
      assert.strictEqual(index.observe(requestOf({ ...base, messages: ["hi", "no"] })).prefixTokens, 5)
      assert.strictEqual(index.observe(requestOf({ ...base, tools: [0, 3, 2] })).prefixTokens, 1)
    }))

  it.effect("a forgotten prefix only makes later figures smaller", () =>
    Effect.gen(function*() {
      const index = Prefix.make(perChunk, 3)
      const first: Spec = { tools: [0, 1, 2], system: null, messages: [] }
      index.observe(requestOf(first))
      index.observe(requestOf({ tools: [3, 3, 3], system: null, messages: [] }))
      // at most three keys are kept: the first request's are gone
      assert.strictEqual(index.observe(requestOf(first)).prefixTokens, 0)
    }))

  it.effect("files count by their name and are told apart by their data; part options count too", () =>
    Effect.gen(function*() {
      const index = Prefix.make(perChunk)
      const image = (data: Uint8Array) =>
        Prompt.make([{ role: "user", content: [{ type: "file", mediaType: "image/png", data }] }])
      index.observe({ tools: [], deferred: [], prompt: image(new Uint8Array([1, 2, 3])) })
      const same = index.observe({ tools: [], deferred: [], prompt: image(new Uint8Array([1, 2, 3])) })
      const other = index.observe({ tools: [], deferred: [], prompt: image(new Uint8Array([1, 2, 4])) })
      assert.deepStrictEqual([same.prefixTokens, other.prefixTokens], [1, 0])
      const result = (options: Prompt.ToolResultPartOptions) =>
        Prompt.make([{
          role: "tool",
          content: [{ type: "tool-result", id: "1", name: "ToolSearch", isFailure: false, result: "x", options }]
        }])
      index.observe({ tools: [], deferred: [], prompt: result({}) })
      const referenced = index.observe({ tools: [], deferred: [], prompt: result({ x: { y: 1 } }) })
      assert.strictEqual(referenced.prefixTokens, 0)
    }))

  it.effect("deferred definitions are in the prefix but cost no tokens", () =>
    Effect.gen(function*() {
      const index = Prefix.make(perChunk)
      const request = (deferred: ReadonlyArray<number>): Prefix.Request => ({
        tools: [definitions[0]!],
        deferred: deferred.map((i) => definitions[i]!),
        prompt: Prompt.make("hi")
      })
      const first = index.observe(request([1, 2]))
      assert.strictEqual(first.inputTokens, 2)
      assert.strictEqual(index.observe(request([1, 2])).prefixTokens, 2)
      // another deferred set: what follows it is another request
      assert.strictEqual(index.observe(request([1, 3])).prefixTokens, 1)
    }))
})
