import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, References, Tracer } from "effect"
import { Tracing } from "../src/index.js"

/** A tracer that records the names and attributes of the spans it is asked for. */
const recording = () => {
  const spans: Array<{ name: string; attributes: Record<string, unknown> }> = []
  const tracer = Tracer.make({
    span(options) {
      const span = Tracer.nativeTracer.span(options)
      const attributes: Record<string, unknown> = {}
      spans.push({ name: options.name, attributes })
      const attribute = span.attribute.bind(span)
      span.attribute = (key, value) => {
        attributes[key] = value
        attribute(key, value)
      }
      return span
    }
  })
  return { spans, tracer }
}

const currentName = Effect.map(Effect.option(Effect.currentSpan), Option.map((s) => s.name))

describe("Tracing", () => {
  it.effect("with Effect's built-in tracer, no span is made and the attributes are never computed", () =>
    Effect.gen(function*() {
      let computed = 0
      const attributes = () => {
        computed++
        return { tool: "x" }
      }
      const inside = yield* currentName.pipe(
        Effect.tap(() => Tracing.annotate(attributes)),
        Tracing.span("tool-search.test", { attributes })
      )
      assert.deepStrictEqual(inside, Option.none())
      assert.strictEqual(computed, 0)
    }))

  it.effect("with a tracer installed, the span is made, with its attributes and annotations", () =>
    Effect.gen(function*() {
      const { spans, tracer } = recording()
      const inside = yield* currentName.pipe(
        Effect.tap(() => Tracing.annotate(() => ({ failure: "none" }))),
        Tracing.span("tool-search.test", { attributes: () => ({ tool: "x" }) }),
        Effect.provideService(Tracer.Tracer, tracer)
      )
      assert.deepStrictEqual(inside, Option.some("tool-search.test"))
      assert.deepStrictEqual(spans, [{ name: "tool-search.test", attributes: { tool: "x", failure: "none" } }])
    }))

  it.effect("a tracer installed but tracing disabled: no span", () =>
    Effect.gen(function*() {
      const { spans, tracer } = recording()
      yield* Effect.void.pipe(
        Tracing.span("tool-search.test"),
        Effect.provideService(Tracer.Tracer, tracer),
        Effect.provideService(References.TracerEnabled, false)
      )
      assert.deepStrictEqual(spans, [])
    }))
})
