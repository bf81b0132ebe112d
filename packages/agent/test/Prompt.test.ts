import { assert, describe, it } from "@effect/vitest"
import { Prompt } from "effect/ai"
import * as fc from "fast-check"
import * as Prompts from "../src/internal/prompt.js"

/** Every own property, string and symbol keys, of a prompt's messages and parts. */
const shape = (prompt: Prompt.Prompt): unknown => JSON.parse(JSON.stringify(prompt.content))

const textMessage = fc.record({
  role: fc.constantFrom("system", "user", "assistant"),
  content: fc.string({ maxLength: 20 })
})
/** Messages the fast path must leave to `Prompt.make`: parts, options, a tool message. */
const otherMessage = fc.oneof(
  fc.record({ role: fc.constant("user"), content: fc.constant([{ type: "text", text: "hi" }]) }),
  fc.record({ role: fc.constant("user"), content: fc.string(), options: fc.constant({ x: { y: 1 } }) }),
  fc.constant({
    role: "tool",
    content: [{ type: "tool-result", id: "1", name: "t", isFailure: false, result: { ok: true } }]
  })
)

describe("a turn's prompt", () => {
  it("text messages are built into what Prompt.make decodes them to", () =>
    fc.assert(fc.property(fc.array(textMessage, { maxLength: 6 }), (messages) => {
      const built = Prompts.make(messages as Prompt.RawInput)
      const decoded = Prompt.make(messages as Prompt.RawInput)
      assert.deepStrictEqual(shape(built), shape(decoded))
      built.content.forEach((m, i) => {
        assert.isTrue(Prompt.isMessage(m))
        assert.deepStrictEqual(Object.keys(m).sort(), Object.keys(decoded.content[i] ?? {}).sort())
      })
    })))

  it("any other message is decoded, and a bad one fails as Prompt.make fails", () => {
    fc.assert(fc.property(fc.array(fc.oneof(textMessage, otherMessage), { minLength: 1, maxLength: 5 }), (messages) => {
      assert.deepStrictEqual(
        shape(Prompts.make(messages as Prompt.RawInput)),
        shape(Prompt.make(messages as Prompt.RawInput))
      )
    }))
    const bad = [{ role: "user", content: "hi" }, { role: "nobody", content: "x" }] as unknown as Prompt.RawInput
    assert.throws(() => Prompts.make(bad))
  })
})
