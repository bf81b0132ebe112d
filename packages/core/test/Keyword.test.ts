import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { CatalogTool, Keyword, SearchDocument } from "../src/index.js"
import { indexOf } from "./kit/tools.js"

const doc = (input: CatalogTool.Input) => SearchDocument.fromTool(CatalogTool.make(input))

const search = (docs: ReadonlyArray<SearchDocument.SearchDocument>, text: string) =>
  Effect.gen(function*() {
    const index = yield* indexOf(Keyword.layer)
    index.add(docs)
    return yield* index.search({ text, limit: 10, accept: () => true })
  })

describe("Keyword strategy", () => {
  it.effect("weights name 0.5, description 0.35, parameters 0.15, averaged over keywords", () =>
    Effect.gen(function*() {
      const hits = yield* search([
        doc({ name: "send_mail", description: "Deliver an email" }),
        doc({ name: "notify", description: "Send a notification" }),
        doc({
          name: "post",
          description: "Post data",
          parameters: { type: "object", properties: { send: { type: "boolean" } } }
        })
      ], "send")
      assert.deepStrictEqual(hits.map((h) => [h.id, h.score]), [["send_mail", 0.5], ["notify", 0.35], ["post", 0.15]])
      const two = yield* search([doc({ name: "send_mail", description: "Deliver an email" })], "send email")
      assert.closeTo(two[0]?.score ?? 0, (0.5 + 0.35) / 2, 1e-9)
    }))

  it.effect("lower-cases and reads _ and - as spaces", () =>
    Effect.gen(function*() {
      const hits = yield* search([doc({ name: "Read-File_Now", description: "" })], "READ_file")
      assert.strictEqual(hits[0]?.score, 0.5)
    }))

  it.effect("a malformed schema scores 0 for parameters instead of failing", () =>
    Effect.gen(function*() {
      for (
        const parameters of [{ type: "object", properties: "oops" }, { type: "object", properties: [1, 2] }, {
          type: "object"
        }]
      ) {
        const hits = yield* search([doc({ name: "t", description: "does things", parameters })], "things")
        assert.deepStrictEqual(hits.map((h) => h.score), [0.35])
      }
    }))

  it.effect("only scores above zero are returned, respecting accept and limit", () =>
    Effect.gen(function*() {
      const index = yield* indexOf(Keyword.layer)
      index.add([doc({ name: "a_tool" }), doc({ name: "b_tool" }), doc({ name: "c_other" })])
      const hits = yield* index.search({ text: "tool", limit: 1, accept: (id) => id !== "a_tool" })
      assert.deepStrictEqual(hits.map((h) => h.id), ["b_tool"])
      index.remove(["b_tool"])
      assert.deepStrictEqual((yield* index.search({ text: "tool", limit: 5, accept: () => true })).map((h) => h.id), [
        "a_tool"
      ])
    }))
})
