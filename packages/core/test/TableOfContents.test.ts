import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Disclosure, TableOfContents, Unit, Visibility } from "../src/index.js"
import * as ToolContents from "../src/internal/toolContents.js"
import { call, tool, unitOver } from "./kit/tools.js"

const staged = Disclosure.layer({ defer: "always", mode: "staged" })
const prompt = Unit.contents

const connectedServer = Array.from(
  { length: 15 },
  (_, i) =>
    tool(`crm_op_${String(i).padStart(2, "0")}`, `CRM operation ${i}. More text.`, {
      category: "crm",
      source: "crm-mcp"
    })
)

describe("TableOfContents", () => {
  it.effect("caps the names per connected source and counts the rest in the category", () =>
    unitOver(
      connectedServer,
      Effect.gen(function*() {
        const text = yield* prompt
        assert.include(text, "[crm]\n- crm_op_00 (load first) — CRM operation 0.")
        assert.include(text, "- crm_op_09 (load first)")
        assert.notInclude(text, "crm_op_10")
        assert.include(text, "- crm_op_09 (load first) — CRM operation 9.\n- (5 more tools, hidden)")
      })
    ).pipe(Effect.provide(staged), Effect.provide(Visibility.layer({ connected: ["crm-mcp"] }))))

  it.effect("the cap is a setting, and explicitly named tools are never folded", () =>
    unitOver(
      connectedServer,
      Effect.gen(function*() {
        const contents = ToolContents.build(
          yield* Unit.searchable,
          (yield* Unit.policies).visibility,
          { ...TableOfContents.TableOfContents.defaultValue(), namesPerSource: 2 }
        )
        const crm = contents.groups[0]
        assert.deepStrictEqual(crm?.named.map((n) => n.name), ["crm_op_00", "crm_op_01", "crm_op_14"])
        assert.strictEqual(crm?.hidden, 12)
      })
    ).pipe(Effect.provide(staged), Effect.provide(Visibility.layer({ connected: ["crm-mcp"], select: ["crm_op_14"] }))))

  it.effect("named groups come first in catalog order; count-only groups follow, largest first", () =>
    unitOver(
      [
        tool("w1", "Web one.", { category: "web", source: "p" }),
        tool("f1", "File one.", { category: "files", source: "p" }),
        tool("f2", "File two.", { category: "files", source: "p" }),
        tool("n1", "News one.", { category: "news", source: "c" }),
        tool("u1", "Uncategorized one.", { source: "c" })
      ],
      Effect.gen(function*() {
        assert.strictEqual(
          ToolContents.render(
            ToolContents.build(
              yield* Unit.searchable,
              Visibility.make({ connected: ["c"], explore: true }),
              TableOfContents.TableOfContents.defaultValue()
            )
          ),
          [
            "[news]",
            "- n1 (load first) — News one.",
            "[other]",
            "- u1 (load first) — Uncategorized one.",
            "[files] (2 more tools, hidden)",
            "[web] (1 more tool, hidden)"
          ].join("\n")
        )
      })
    ).pipe(Effect.provide(Visibility.layer({ connected: ["c"], explore: true }))))

  it("folds count-only categories beyond the limit into one line", () => {
    const entries = Array.from({ length: 5 }, (_, i) => ({
      ...tool(`t${i}`, "x", { category: `cat${i}`, source: "p" }),
      modelName: `t${i}`
    }))
    const contents = ToolContents.build(entries, Visibility.make({ explore: true }), {
      ...TableOfContents.TableOfContents.defaultValue(),
      maxFoldedCategories: 2
    })
    assert.deepStrictEqual(contents.overflow, { categories: 3, tools: 3 })
    assert.include(ToolContents.render(contents), "(3 more tools in 3 other categories, hidden)")
  })

  it("detail: none lists names only, full the whole description on one line", () => {
    const entries = [{ ...tool("a", "First. Second\nline.", { source: "c" }), modelName: "a" }]
    const policy = Visibility.make({ connected: ["c"] })
    const with_ = (detail: Disclosure.DescriptionDetail) =>
      ToolContents.render(
        ToolContents.build(entries, policy, { ...TableOfContents.TableOfContents.defaultValue(), detail })
      )
    assert.strictEqual(with_("none"), "[other]\n- a (load first)")
    assert.strictEqual(with_("first-sentence"), "[other]\n- a (load first) — First.")
    assert.strictEqual(with_("full"), "[other]\n- a (load first) — First. Second line.")
  })

  it.effect("the prompt is empty outside staged mode and when nothing is deferred", () =>
    Effect.gen(function*() {
      const policy = Visibility.layer({ connected: ["crm-mcp"] })
      assert.strictEqual(yield* unitOver(connectedServer, prompt).pipe(Effect.provide(policy)), "")
      assert.strictEqual(
        yield* unitOver(connectedServer, prompt).pipe(
          Effect.provide(policy),
          Effect.provide(Disclosure.layer({ defer: "always", mode: "catalog" }))
        ),
        ""
      )
      const eagerOnly = [tool("only", "Eager.", { loading: "eager", source: "crm-mcp" })]
      assert.strictEqual(yield* unitOver(eagerOnly, prompt).pipe(Effect.provide(policy), Effect.provide(staged)), "")
    }))

  it.effect("the template is overridable, and the default one explains only the tools sent", () =>
    Effect.gen(function*() {
      const policy = Visibility.layer({ connected: ["crm-mcp"] })
      const custom = yield* unitOver(connectedServer, prompt).pipe(
        Effect.provide(policy),
        Effect.provide(staged),
        Effect.provide(TableOfContents.layer({ template: TableOfContents.fromText("<tools>\n{toc}\n</tools>") }))
      )
      assert.match(custom, /^<tools>\n\[crm\]\n- crm_op_00/)
      assert.match(custom, /hidden\)\n<\/tools>$/)
      // 15 searchable tools: search_tools is offered (auto, threshold 12) and explained
      const withBrowse = yield* unitOver(connectedServer, prompt).pipe(Effect.provide(policy), Effect.provide(staged))
      assert.include(withBrowse, "search_tools lists candidate tools")
      const without = yield* unitOver(connectedServer, prompt).pipe(
        Effect.provide(policy),
        Effect.provide(Disclosure.layer({ defer: "always", mode: "staged", searchTools: false }))
      )
      assert.notInclude(without, "search_tools")
      assert.include(without, "ToolSearch finds and loads tools")
    }))

  it.effect("the prompt does not change when tools are activated during the turn", () =>
    unitOver(
      connectedServer,
      Effect.gen(function*() {
        const before = yield* prompt
        yield* call("ToolSearch", { query: "select:crm_op_00,crm_op_12" })
        assert.strictEqual(yield* prompt, before)
      })
    ).pipe(Effect.provide(staged), Effect.provide(Visibility.layer({ connected: ["crm-mcp"] }))))

  it("a category is one line however it is written", () => {
    const entries = [{ ...tool("a", "A.", { source: "c", category: "  two\nlines " }), modelName: "a" }]
    assert.strictEqual(
      ToolContents.render(
        ToolContents.build(
          entries,
          Visibility.make({ connected: ["c"] }),
          TableOfContents.TableOfContents.defaultValue()
        )
      ),
      "[two lines]\n- a (load first) — A."
    )
  })
})
