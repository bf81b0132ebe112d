import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber } from "effect"
import * as fc from "fast-check"
import { CatalogFile } from "../src/index.js"
import { elementLines } from "../src/internal/jsonElements.js"

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

// -----------------------------------------------------------------------------
// Where each tool starts, the envelopes a catalog comes in, and what errors echo
// -----------------------------------------------------------------------------

/** JSON values with strings that look like JSON syntax, escapes and line separators. */
const trickyString = fc.oneof(
  fc.string(),
  fc.constantFrom("[", "]", "{", "}", ",", ":", "\"", "\\", "\\\"", "\n", "\r\n", "\u2028", "tools", "result")
)
const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    trickyString,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(trickyString, tie("value"), { maxKeys: 3 })
  )
})).value

/** Elements laid out with arbitrary indentation and blank lines; returns the text and each element's line. */
const layOut = (
  values: ReadonlyArray<unknown>,
  gaps: ReadonlyArray<number>,
  indent: number,
  wrap: (array: string) => string
): { readonly text: string; readonly lines: ReadonlyArray<number> } => {
  const marker = "\u0000ARRAY\u0000"
  const [before] = wrap(marker).split(marker) as [string, string]
  let text = ""
  const lines: Array<number> = []
  values.forEach((value, i) => {
    text += (i === 0 ? "[" : ",") + "\n".repeat(gaps[i % gaps.length] ?? 0) + " ".repeat(indent)
    lines.push((before + text).split("\n").length)
    text += JSON.stringify(value, null, indent)
  })
  text += "\n]"
  return { text: wrap(text), lines }
}

const wrappers: ReadonlyArray<readonly [ReadonlyArray<string>, (array: string) => string]> = [
  [[], (a) => a],
  [["tools"], (a) => `{"decoy":{"tools":[1,\n2]},\n"tools": ${a},\n"nextCursor":"x"}`],
  [["result", "tools"], (a) => `{"jsonrpc":"2.0",\n"id":7,\n"result":{"tools":${a}}}`]
]

describe("CatalogFile: element lines (one pass over the text)", () => {
  it("every element's start line is found, whatever earlier elements hold and whatever envelope wraps them", () => {
    fc.assert(
      fc.property(
        fc.array(jsonValue, { maxLength: 8 }),
        fc.array(fc.nat(3), { minLength: 1, maxLength: 4 }),
        fc.nat(4),
        fc.constantFrom(...wrappers),
        (values, gaps, indent, [path, wrap]) => {
          const { lines, text } = layOut(values, gaps, indent, wrap)
          assert.deepStrictEqual(elementLines(text, path), lines)
        }
      )
    )
  })

  it.effect("a tool is reported on its own line even when an earlier tool holds its name", () =>
    Effect.gen(function*() {
      const text = `[\n  {"name":"a","description":"see \\"b c\\"","x":"b c"},\n\n  {"name":"b c"}\n]`
      const error = yield* Effect.flip(CatalogFile.parse("a.json", text))
      assert.match(error.message, /^a\.json:4: Invalid tool 'b c'/)
    }))

  it("the line of a bad tool is where it starts, in a JSON array, an MCP list and a JSON-RPC reply", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9_]{0,10}$/), { minLength: 1, maxLength: 12 }),
        fc.nat(),
        fc.array(fc.nat(3), { minLength: 1, maxLength: 4 }),
        fc.nat(4),
        fc.constantFrom(...wrappers),
        (names, badSeed, gaps, indent, [, wrap]) =>
          Effect.runPromise(Effect.gen(function*() {
            const bad = badSeed % names.length
            const tools = names.map((name, i) => ({
              name: i === bad ? `${name} !` : name,
              description: `uses ${names.join(" ")}`,
              inputSchema: { type: "object", properties: { [name]: { type: "string" } } }
            }))
            const { lines, text } = layOut(tools, gaps, indent, wrap)
            const error = yield* Effect.flip(CatalogFile.parse("c.json", text))
            assert.strictEqual(error.line, lines[bad])
            const skipped = yield* CatalogFile.parseAll("c.json", text, { skipInvalid: true })
            assert.deepStrictEqual(skipped.tools.map((t) => t.name), names.filter((_, i) => i !== bad))
            assert.deepStrictEqual(skipped.skipped.map((e) => e.line), [lines[bad]])
          }))
      )
    )
  })
})

describe("CatalogFile: envelopes", () => {
  it.effect("a JSON-RPC reply around tools/list loads; a JSON-RPC error reply says what it is", () =>
    Effect.gen(function*() {
      const reply = { jsonrpc: "2.0", id: 3, result: { tools: [{ name: "echo", inputSchema: { type: "object" } }] } }
      const tools = yield* CatalogFile.parse("reply.json", JSON.stringify(reply))
      assert.deepStrictEqual(tools.map((t) => t.name), ["echo"])
      const error = yield* Effect.flip(
        CatalogFile.parse("e.json", JSON.stringify({ jsonrpc: "2.0", id: 3, error: { code: -32601, message: "no" } }))
      )
      assert.match(error.message, /^e\.json:1: the file is a JSON-RPC error reply/)
    }))

  it.effect("with skipInvalid, bad lines, bad tools and duplicates are left out and listed with their lines", () =>
    Effect.gen(function*() {
      const text = [`{"name":"a"}`, `{"name":`, `[1]`, `{"name":"b c"}`, `{"name":"a"}`, `{"name":"b"}`].join("\n")
      const { skipped, tools } = yield* CatalogFile.parseAll("t.jsonl", text, { skipInvalid: true })
      assert.deepStrictEqual(tools.map((t) => t.name), ["a", "b"])
      assert.deepStrictEqual(skipped.map((e) => e.line), [2, 3, 4, 5])
      assert.match(skipped[3]?.reason ?? "", /duplicate tool id 'a' \(first on line 1\)/)
    }))
})

describe("CatalogFile: what errors echo", () => {
  it("printable: no control character or escape survives, long text is cut, plain text is kept", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 400 }), fc.integer({ min: 1, max: 200 }), (text, max) => {
        const shown = CatalogFile.printable(text, max)
        assert.notMatch(shown, /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/)
        if (text.length > max) assert.match(shown, /… \(\d+ more characters\)$/)
        if (/^[\x20-\x7e]*$/.test(text) && text.length <= max) assert.strictEqual(shown, text)
      })
    )
  })

  it("printable with lineBreaks: line feeds stay, every other control character is escaped, text is still cut", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 400 }), fc.integer({ min: 1, max: 200 }), (text, max) => {
        const shown = CatalogFile.printable(text, max, { lineBreaks: true })
        assert.notMatch(
          shown,
          /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/
        )
        if (text.length > max) assert.match(shown, /… \(\d+ more characters\)$/)
        // the same text as without lineBreaks, but for the line feeds
        assert.strictEqual(shown.replaceAll("\n", "\\u000a"), CatalogFile.printable(text, max))
      })
    )
  })

  it.effect("a tool that fails to decode: the decoder's message keeps its line break, not \\u000a", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(CatalogFile.parse("t.jsonl", JSON.stringify({ description: "no name" })))
      assert.strictEqual(error.message, "t.jsonl:1: Invalid tool '<unnamed>': Missing key\n  at [\"name\"]")
      const carriage = yield* Effect.flip(
        CatalogFile.parse("t.jsonl", JSON.stringify({ name: "a\r\u001b[2Kforged", description: 5 }))
      )
      assert.notMatch(carriage.message, /[\r\u001b]/)
    }))

  it.effect("a name with terminal escapes is escaped, a huge name is cut", () =>
    Effect.gen(function*() {
      const ansi = yield* Effect.flip(
        CatalogFile.parse("t.jsonl", JSON.stringify({ name: "\u001b[31mred\u001b[0m x" }))
      )
      assert.include(ansi.message, "\\u001b[31mred\\u001b[0m x")
      assert.notInclude(ansi.message, "\u001b")
      const huge = yield* Effect.flip(CatalogFile.parse("t.jsonl", JSON.stringify({ name: "x ".repeat(500_000) })))
      assert.isBelow(huge.message.length, 1000)
      assert.match(huge.message, /more characters\)/)
    }))
})

describe("CatalogFile: interrupting", () => {
  it.effect("a parse reports progress and stops when interrupted, before reaching the end", () =>
    Effect.gen(function*() {
      const text = Array.from({ length: 20_000 }, (_, i) => JSON.stringify({ name: `tool_${i}` })).join("\n")
      const started = yield* Deferred.make<void>()
      const seen: Array<number> = []
      const fiber = yield* Effect.forkChild(
        CatalogFile.parse("big.jsonl", text, {
          onProgress: (done) => {
            seen.push(done)
            if (done > 0) Deferred.doneUnsafe(started, Effect.void)
          }
        })
      )
      yield* Deferred.await(started)
      yield* Fiber.interrupt(fiber)
      const exit = yield* Fiber.await(fiber)
      assert.isTrue(Exit.hasInterrupts(exit))
      assert.isBelow(Math.max(...seen), 20_000)
    }))
})
