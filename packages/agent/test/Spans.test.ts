import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Tracer } from "effect"
import { Executor } from "../src/index.js"
import { agent, user } from "./fixtures.js"

describe("spans", () => {
  it.effect("turn > iteration > effect/ai's generateText / tool-call > search", () =>
    Effect.gen(function*() {
      const base = yield* Tracer.Tracer
      const spans: Array<{ name: string; parent: string | undefined }> = []
      const recording = Tracer.make({
        span(options) {
          const parent = Option.getOrUndefined(options.parent)
          spans.push({ name: options.name, parent: parent?._tag === "Span" ? parent.name : undefined })
          return base.span(options)
        }
      })
      yield* Effect.flatMap(Executor.Executor, (e) => e.run({ prompt: user("tell #ops the deploy is done") })).pipe(
        Effect.provideService(Tracer.Tracer, recording)
      )
      const ours = spans.filter((s) => s.name.startsWith("tool-search."))
      const parents = (name: string) => [...new Set(ours.filter((s) => s.name === name).map((s) => s.parent))]
      assert.deepStrictEqual(ours.filter((s) => s.name === "tool-search.iteration").length, 3)
      assert.deepStrictEqual(parents("tool-search.iteration"), ["tool-search.turn"])
      const generate = spans.filter((s) => s.name === "LanguageModel.generateText").map((s) => s.parent)
      assert.deepStrictEqual([...new Set(generate)], ["tool-search.iteration"])
      assert.strictEqual(generate.length, 3)
      assert.deepStrictEqual(parents("tool-search.tool-call"), ["tool-search.iteration"])
      assert.deepStrictEqual(parents("tool-search.search"), ["tool-search.tool-call"])
    }).pipe(Effect.provide(agent("capable"))))
})
