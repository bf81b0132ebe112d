import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import * as fc from "fast-check"
import { ToolSpec } from "../src/index.js"

const hint = fc.option(fc.boolean(), { nil: undefined })
const wire = fc.record({
  title: fc.option(fc.string(), { nil: undefined }),
  readOnlyHint: hint,
  destructiveHint: hint,
  idempotentHint: hint,
  openWorldHint: hint
}).map((a) => Object.fromEntries(Object.entries(a).filter(([, v]) => v !== undefined)) as ToolSpec.McpAnnotations)

describe("ToolSpec: MCP annotations", () => {
  it("decode renames MCP's hints, encode writes them back", () => {
    const decoded = Schema.decodeUnknownSync(ToolSpec.AnnotationsFromMcp)({ title: "Read", readOnlyHint: true })
    assert.deepStrictEqual(decoded, { title: "Read", readOnly: true })
    assert.deepStrictEqual(Schema.encodeSync(ToolSpec.AnnotationsFromMcp)({ destructive: false, openWorld: true }), {
      destructiveHint: false,
      openWorldHint: true
    })
  })

  it("property: encoding what was decoded gives the wire form back, hint for hint", () => {
    fc.assert(fc.property(wire, (a) => {
      const decoded = Schema.decodeUnknownSync(ToolSpec.AnnotationsFromMcp)(a)
      assert.deepStrictEqual(Schema.encodeSync(ToolSpec.AnnotationsFromMcp)(decoded), a)
    }))
  })

  it.effect("a tool's annotations decode with the tool; a hint of the wrong type names the tool", () =>
    Effect.gen(function*() {
      const tool = yield* ToolSpec.decode({ name: "rm", annotations: { destructiveHint: true, idempotentHint: false } })
      assert.deepStrictEqual(tool.annotations, { destructive: true, idempotent: false })
      const bad = yield* Effect.flip(ToolSpec.decode({ name: "rm", annotations: { readOnlyHint: "yes" } }))
      assert.include(bad.message, "Invalid tool 'rm'")
      assert.include(bad.message, "readOnlyHint")
    }))
})
