import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import { Disclosure, TableOfContents, type ToolCatalog, Unit, Visibility } from "../src/index.js"
import * as ToolContents from "../src/internal/toolContents.js"
import { tool, unitOver } from "./kit/tools.js"

const entry = (name: string, source?: string, id = name): ToolCatalog.Entry => ({
  ...tool(name, `${name} tool`, source === undefined ? { id } : { id, source }),
  modelName: name
})

describe("Visibility.make", () => {
  it("classifies by source: resource over connected over platform; no source is platform", () => {
    const policy = Visibility.make({ connected: ["a", "both"], resources: ["r", "both"] })
    assert.strictEqual(policy.kindOf(entry("t1", "a")), "connected")
    assert.strictEqual(policy.kindOf(entry("t2", "r")), "resource")
    assert.strictEqual(policy.kindOf(entry("t3", "both")), "resource")
    assert.strictEqual(policy.kindOf(entry("t4", "p")), "platform")
    assert.strictEqual(policy.kindOf(entry("t5")), "platform")
  })

  it("strict by default: only the selection exists", () => {
    const policy = Visibility.make({ select: ["named_by_name", "id-7"], connected: ["c"] })
    assert.isTrue(policy.options.strict)
    assert.isTrue(policy.includes(entry("named_by_name", "p")))
    assert.isTrue(policy.includes(entry("named_by_id", "p", "id-7")))
    assert.isTrue(policy.includes(entry("connected_tool", "c")))
    assert.isFalse(policy.includes(entry("platform_tool", "p")))
    assert.isFalse(policy.includes(entry("sourceless")))
  })

  it("exploration admits the allowed platform sources; '*' admits every one, sourceless tools included", () => {
    const some = Visibility.make({ explore: true, allow: ["p1"] })
    assert.isTrue(some.includes(entry("x", "p1")))
    assert.isFalse(some.includes(entry("y", "p2")))
    assert.isFalse(some.includes(entry("z")))
    const all = Visibility.make({ explore: true })
    assert.isTrue(all.includes(entry("y", "p2")))
    assert.isTrue(all.includes(entry("z")))
    const off = Visibility.make({ explore: false, allow: ["p1"] })
    assert.isFalse(off.includes(entry("x", "p1")))
  })

  it("an empty allow-list admits no platform source and keeps every connected and resource tool", () => {
    const policy = Visibility.make({ explore: true, allow: [], connected: ["c"], resources: ["r"] })
    assert.isFalse(policy.includes(entry("p", "platform")))
    assert.isTrue(policy.includes(entry("c1", "c")))
    assert.isTrue(policy.includes(entry("r1", "r")))
  })

  it("non-strict: everything exists, and the selection is still known", () => {
    const policy = Visibility.make({ strict: false, connected: ["c"] })
    assert.isTrue(policy.includes(entry("p", "platform")))
    assert.isFalse(policy.selects(entry("p", "platform")))
    assert.isTrue(policy.selects(entry("c1", "c")))
  })

  it("the default policy in context is everything", () => {
    assert.isTrue(Visibility.everything.includes(entry("anything", "anywhere")))
    assert.isFalse(Visibility.everything.options.strict)
  })
})

// -----------------------------------------------------------------------------
// The strict-mode invariant
// -----------------------------------------------------------------------------

const SOURCES = ["s0", "s1", "s2", "s3"] as const
const WORDS = ["read", "send", "file", "message", "list", "create", "report", "sync"] as const

const scenario = fc.record({
  tools: fc.uniqueArray(
    fc.record({
      name: fc.stringMatching(/^[a-z][a-z0-9_]{0,11}$/),
      source: fc.option(fc.constantFrom(...SOURCES), { nil: undefined }),
      eager: fc.boolean(),
      words: fc.subarray([...WORDS], { minLength: 1, maxLength: 3 }),
      category: fc.option(fc.constantFrom("alpha", "beta"), { nil: undefined })
    }),
    { selector: (t) => t.name, minLength: 1, maxLength: 25 }
  ),
  selectRatio: fc.double({ min: 0, max: 1, noNaN: true }),
  strangers: fc.array(fc.stringMatching(/^[a-z]{1,6}$/), { maxLength: 3 }),
  connected: fc.subarray([...SOURCES]),
  resources: fc.subarray([...SOURCES]),
  explore: fc.boolean(),
  allow: fc.oneof(fc.constant("*" as const), fc.subarray([...SOURCES])),
  mode: fc.constantFrom<Disclosure.Mode>("search", "catalog", "staged"),
  queries: fc.array(fc.subarray([...WORDS], { minLength: 1, maxLength: 2 }), { minLength: 1, maxLength: 4 })
})

describe("strict mode invariant", () => {
  const property = (s: typeof scenario extends fc.Arbitrary<infer A> ? A : never) => {
    const tools = s.tools.map((t) =>
      tool(t.name, `${t.words.join(" ")} tool`, {
        loading: t.eager ? "eager" : "deferred",
        ...(t.source === undefined ? {} : { source: t.source }),
        ...(t.category === undefined ? {} : { category: t.category })
      })
    )
    const selected = s.tools.filter((_, i) => i < Math.floor(s.tools.length * s.selectRatio)).map((t) => t.name)
    const select = [...selected, ...s.strangers]
    // the expectation, computed from the definition rather than from the policy under test
    const allowed = new Set(
      s.tools.filter((t) =>
        select.includes(t.name) ||
        (t.source !== undefined && (s.connected.includes(t.source) || s.resources.includes(t.source))) ||
        (s.explore && (s.allow === "*" || (t.source !== undefined && s.allow.includes(t.source))))
      ).map((t) => t.name)
    )
    const meta = new Set<string>(Object.values(Disclosure.toolNames))
    const outside = (names: Iterable<string>) => [...names].filter((n) => !allowed.has(n) && !meta.has(n))

    const check = Effect.gen(function*() {
      assert.deepStrictEqual(outside((yield* Unit.tools).map((t) => t.name)), [], "visible")
      assert.deepStrictEqual(outside((yield* Unit.searchable).map((t) => t.modelName)), [], "searchable")
      const contents = ToolContents.build(
        yield* Unit.searchable,
        (yield* Unit.policies).visibility,
        TableOfContents.TableOfContents.defaultValue()
      )
      const listed = contents.groups.flatMap((g) => g.named.map((n) => n.name))
      assert.deepStrictEqual(outside(listed), [], "table of contents")
      const counted = contents.groups.reduce((n, g) => n + g.named.length + g.hidden, 0) + contents.overflow.tools
      assert.strictEqual(counted, s.tools.filter((t) => !t.eager && allowed.has(t.name)).length, "table counts")
      for (const words of s.queries) {
        const query = words.join(" ")
        assert.deepStrictEqual(
          outside((yield* Unit.browse(query, { maxResults: 20 })).map((m) => m.tool.modelName)),
          []
        )
        assert.deepStrictEqual(
          outside((yield* Unit.search(query, { maxResults: 20 })).matches.map((m) => m.tool.modelName)),
          []
        )
      }
      const everyName = s.tools.map((t) => t.name)
      if (s.mode === "catalog") {
        const discovered = (yield* Unit.answer("discover_tools", { toolNames: everyName })).result as {
          tools: ReadonlyArray<{ name: string }>
        }
        assert.deepStrictEqual(outside(discovered.tools.map((t) => t.name)), [], "discover")
      }
      for (let i = 0; i < everyName.length; i += 20) {
        yield* Unit.search(`select:${everyName.slice(i, i + 20).join(",")}`, { maxResults: 20 })
      }
      // everything in the selection is now executable, and nothing else is
      for (const name of everyName) {
        const resolved = yield* Effect.result(Unit.resolve(name))
        assert.strictEqual(resolved._tag === "Success", allowed.has(name), `resolve ${name}`)
        if (resolved._tag === "Failure") assert.strictEqual(resolved.failure.reason, "unknown")
      }
      assert.deepStrictEqual(outside((yield* Unit.tools).map((t) => t.name)), [], "visible after activation")
    })
    return unitOver(tools, check).pipe(
      Effect.provide(Disclosure.layer({ defer: "always", mode: s.mode, searchTools: true })),
      Effect.provide(Visibility.layer({
        select,
        connected: s.connected,
        resources: s.resources,
        explore: s.explore,
        allow: s.allow
      })),
      Effect.orDie
    )
  }

  it("no listing, search result, table entry or executable tool lies outside selection ∪ meta ∪ connected", () =>
    fc.assert(fc.asyncProperty(scenario, (s) => Effect.runPromise(property(s))), { numRuns: 150 }))
})
