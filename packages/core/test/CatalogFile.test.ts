import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { CatalogFile } from "../src/index.js"

describe("CatalogFile.parse", () => {
  it.effect("reads JSON Lines; a tool without loading is deferred", () =>
    Effect.gen(function*() {
      const text = [
        `{"id":"t1","name":"read_file","description":"Read","parameters":{"type":"object","properties":{}}}`,
        ``,
        `{"name":"write_file","loading":"eager","category":"fs","source":"local","aliases":["save"]}`
      ].join("\n")
      const tools = yield* CatalogFile.parse("tools.jsonl", text)
      assert.deepStrictEqual(tools.map((t) => [t.id, t.loading, t.category, t.source, t.aliases]), [
        ["t1", "deferred", undefined, undefined, []],
        ["write_file", "eager", "fs", "local", ["save"]]
      ])
    }))

  it.effect("reads a JSON array and an MCP tools/list result", () =>
    Effect.gen(function*() {
      const array = yield* CatalogFile.parse("a.json", `[{"name":"a"},{"name":"b"}]`)
      assert.deepStrictEqual(array.map((t) => t.name), ["a", "b"])
      const mcp = yield* CatalogFile.parse(
        "list.json",
        JSON.stringify({
          tools: [{
            name: "echo",
            description: "Echo",
            inputSchema: { type: "object", properties: { text: { type: "string" } } },
            annotations: { readOnlyHint: true }
          }]
        })
      )
      assert.deepStrictEqual(mcp[0]?.parameters, { type: "object", properties: { text: { type: "string" } } })
      assert.deepStrictEqual(mcp[0]?.annotations, { readOnly: true })
    }))

  it.effect("a malformed line is one error naming the file and line", () =>
    Effect.gen(function*() {
      const bad = yield* Effect.flip(CatalogFile.parse("t.jsonl", `{"name":"ok"}\n{"name": "x",\n`))
      assert.match(bad.message, /^t\.jsonl:2: invalid JSON/)
      const badName = yield* Effect.flip(CatalogFile.parse("t.jsonl", `{"name":"ok"}\n\n{"name":"bad name"}`))
      assert.match(badName.message, /^t\.jsonl:3: Invalid tool 'bad name': name must match/)
      const dup = yield* Effect.flip(CatalogFile.parse("t.jsonl", `{"name":"a"}\n{"name":"a"}`))
      assert.strictEqual(dup.message, "t.jsonl:2: duplicate tool id 'a' (first on line 1)")
      const notObject = yield* Effect.flip(CatalogFile.parse("t.jsonl", `[1]`))
      assert.match(notObject.message, /^t\.jsonl:1: Invalid tool '<unnamed>'/)
      const empty = yield* Effect.flip(CatalogFile.parse("t.jsonl", "  \n"))
      assert.strictEqual(empty.message, "t.jsonl:1: the file is empty")
      const arrayElement = yield* Effect.flip(CatalogFile.parse("a.json", `[\n  {"name":"a"},\n  {"name":"b c"}\n]`))
      assert.match(arrayElement.message, /^a\.json:3: /)
    }))

  it.effect("sanitizes names on request, keeping the original as id", () =>
    Effect.gen(function*() {
      const tools = yield* CatalogFile.parse("t.jsonl", `{"name":"requestFirst Aid Assistance"}`, { names: "sanitize" })
      assert.deepStrictEqual([tools[0]?.id, tools[0]?.name], [
        "requestFirst Aid Assistance",
        "requestFirst_Aid_Assistance"
      ])
    }))
})
