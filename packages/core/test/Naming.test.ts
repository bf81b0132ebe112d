// Names the model sees: rewriting names providers reject, and resolving collisions so that a name
// declared as is keeps it and a rewritten one takes the suffix.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as fc from "fast-check"
import { CatalogFile, CatalogTool, ToolCatalog } from "../src/index.js"
import { EmptyCatalog, tool } from "./kit/tools.js"

const catalog = Effect.service(ToolCatalog.ToolCatalog)
const modelNames = Effect.map(
  Effect.flatMap(catalog, (c) => c.all),
  (all) => Object.fromEntries(all.map((e) => [e.id, e.modelName]))
)

/** Any string, with a good share of names providers reject and of other scripts. */
const anyName = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.stringMatching(/^[A-Za-z0-9_.\- ]{1,70}$/),
  fc.constantFrom("읽기", "쓰기", "検索", "чтение", "café", "a.b", "get PM2.5", "", " ", "ツール")
)

describe("sanitizeName", () => {
  it("property: always a valid name, the same for the same input", () => {
    fc.assert(fc.property(anyName, fc.string({ maxLength: 40 }), (name, stem) => {
      const once = CatalogTool.sanitizeName(name, { stem })
      assert.isTrue(CatalogTool.isValidName(once), `${JSON.stringify(name)} -> ${once}`)
      assert.strictEqual(CatalogTool.sanitizeName(name, { stem }), once)
    }))
  })

  it("property: a valid name is kept as is", () => {
    fc.assert(fc.property(fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/), (name) => {
      assert.strictEqual(CatalogTool.sanitizeName(name), name)
    }))
  })

  it("property: Hangul names are romanized, readable, without a hash", () => {
    const syllable = fc.integer({ min: 0xac00, max: 0xd7a3 }).map((c) => String.fromCodePoint(c))
    fc.assert(fc.property(fc.array(syllable, { minLength: 1, maxLength: 8 }), (syllables) => {
      assert.match(CatalogTool.sanitizeName(syllables.join("")), /^[a-z]+$/)
    }))
  })

  it("property: names with letters that have no ASCII form stay distinct", () => {
    const ideographs = fc.string({ unit: fc.integer({ min: 0x4e00, max: 0x9fff }).map(String.fromCodePoint) })
    fc.assert(fc.property(ideographs, ideographs, (a, b) => {
      fc.pre(a !== b && a !== "" && b !== "")
      assert.notStrictEqual(CatalogTool.sanitizeName(a), CatalogTool.sanitizeName(b))
    }))
  })

  it("keeps names recognisable", () => {
    assert.strictEqual(CatalogTool.sanitizeName("읽기"), "ilggi")
    assert.strictEqual(CatalogTool.sanitizeName("쓰기"), "sseugi")
    assert.strictEqual(CatalogTool.sanitizeName("파일 읽기"), "pail_ilggi")
    assert.strictEqual(CatalogTool.sanitizeName("чтение"), "chtenie")
    assert.strictEqual(CatalogTool.sanitizeName("café.menu"), "cafe_menu")
    assert.strictEqual(CatalogTool.sanitizeName("getPM2.5Level"), "getPM2_5Level")
    // nothing readable: a stem from the description, and a hash of the name
    assert.match(CatalogTool.sanitizeName("検索", { stem: "Search the web for pages" }), /^search_the_web_[0-9a-f]{6}$/)
    assert.match(CatalogTool.sanitizeName("検索"), /^tool_[0-9a-f]{6}$/)
    // a readable part is kept, the lost letters leave a hash
    assert.match(CatalogTool.sanitizeName("get検索"), /^get_[0-9a-f]{6}$/)
  })
})

describe("collisions", () => {
  it.effect("a rewritten name takes the suffix; the tool that declared the name as is keeps it", () =>
    Effect.gen(function*() {
      const tools = yield* CatalogFile.parse(
        "tools.jsonl",
        [{ name: "a.b", description: "dotted" }, { name: "a_b", description: "genuine" }].map((t) => JSON.stringify(t))
          .join("\n"),
        { names: "sanitize" }
      )
      const c = yield* catalog
      yield* c.register(tools)
      const names = yield* modelNames
      assert.strictEqual(names["a_b"], "a_b")
      assert.match(names["a.b"] ?? "", /^a_b_[0-9a-f]{6}$/)
      // the original spelling still finds the rewritten tool
      assert.strictEqual(Option.getOrThrow(yield* c.findByName(names["a.b"] ?? "")).id, "a.b")
      const found = yield* c.search({ _tag: "Keywords", text: "a.b" }, { limit: 5 })
      assert.include(found.map((m) => m.tool.id), "a.b")
    }).pipe(Effect.provide(EmptyCatalog)))

  it.effect("the order of registration does not decide who keeps the name", () =>
    Effect.gen(function*() {
      const c = yield* catalog
      yield* c.register(tool("a_b", "rewritten", { id: "x/a.b", source: "x", originalName: "a.b" }))
      yield* c.register(tool("a_b", "genuine", { id: "y/a_b", source: "y" }))
      const names = yield* modelNames
      assert.strictEqual(names["y/a_b"], "a_b")
      assert.match(names["x/a.b"] ?? "", /^a_b_[0-9a-f]{6}$/)
    }).pipe(Effect.provide(EmptyCatalog)))

  it.effect("Korean names keep a readable name and stay searchable in Korean", () =>
    Effect.gen(function*() {
      const tools = yield* CatalogFile.parse(
        "tools.jsonl",
        [{ name: "읽기", description: "파일을 읽습니다" }, { name: "쓰기", description: "파일을 씁니다" }].map((t) =>
          JSON.stringify(t)
        ).join("\n"),
        { names: "sanitize" }
      )
      const c = yield* catalog
      yield* c.register(tools)
      assert.deepStrictEqual(yield* modelNames, { 읽기: "ilggi", 쓰기: "sseugi" })
      const found = yield* c.search({ _tag: "Keywords", text: "읽기" }, { limit: 1 })
      assert.deepStrictEqual(found.map((m) => m.tool.modelName), ["ilggi"])
    }).pipe(Effect.provide(EmptyCatalog)))

  it("property: model names are unique and valid; a name declared as is by one tool only is kept", () => {
    const entry = fc.record({ name: anyName.filter((n) => n.trim() !== ""), source: fc.constantFrom("s1", "s2") })
    fc.assert(
      fc.property(fc.uniqueArray(entry, { maxLength: 12, selector: (e) => `${e.source}/${e.name}` }), (entries) => {
        const tools = entries.map((e) => {
          const name = CatalogTool.sanitizeName(e.name)
          return tool(name, e.name, {
            id: `${e.source}/${e.name}`,
            source: e.source,
            ...(name === e.name ? {} : { originalName: e.name })
          })
        })
        const names = Effect.runSync(
          Effect.gen(function*() {
            const c = yield* catalog
            yield* c.register(tools)
            return yield* c.all
          }).pipe(Effect.provide(EmptyCatalog))
        )
        const all = names.map((e) => e.modelName)
        assert.strictEqual(new Set(all).size, all.length)
        for (const e of names) {
          assert.isTrue(CatalogTool.isValidName(e.modelName))
          const asIs = names.filter((o) => o.name === e.name && o.originalName === undefined)
          if (e.originalName === undefined && asIs.length === 1) assert.strictEqual(e.modelName, e.name)
        }
      })
    )
  })
})
