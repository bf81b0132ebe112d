import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as fc from "fast-check"
import { Query } from "../src/index.js"

const ok = (text: string) => {
  const r = Query.parse(text)
  if (Result.isFailure(r)) throw new Error(`expected ${JSON.stringify(text)} to parse: ${r.failure.message}`)
  return r.success
}
const error = (text: string) => {
  const r = Query.parse(text)
  if (Result.isSuccess(r)) throw new Error(`expected ${JSON.stringify(text)} to fail`)
  return r.failure
}

describe("Query.parse", () => {
  it("keywords", () => {
    assert.deepStrictEqual(ok("  read file "), { _tag: "Keywords", text: "read file" })
  })

  it("select: exact names, trimmed, deduplicated, case-insensitive prefix", () => {
    assert.deepStrictEqual(ok("select:Read,Edit"), { _tag: "Select", names: ["Read", "Edit"] })
    assert.deepStrictEqual(ok("SELECT: Read , Edit,,Read"), { _tag: "Select", names: ["Read", "Edit"] })
  })

  it("+required name terms, anywhere, lower-cased; the rest ranks", () => {
    assert.deepStrictEqual(ok("+slack send"), { _tag: "Required", required: ["slack"], text: "send" })
    assert.deepStrictEqual(ok("send +Slack +msg"), { _tag: "Required", required: ["slack", "msg"], text: "send" })
    assert.deepStrictEqual(ok("+slack"), { _tag: "Required", required: ["slack"], text: "" })
  })

  it("a bare '+' requires nothing: alone it is invalid, with words they rank", () => {
    for (const bare of ["+", "+ + +", " +\t+ "]) assert.include(error(bare).message, "A bare '+' requires nothing")
    assert.deepStrictEqual(ok("+ slack send"), { _tag: "Keywords", text: "slack send" })
    assert.deepStrictEqual(ok("++slack send"), { _tag: "Required", required: ["slack"], text: "send" })
  })

  it("property: a parsed requirement is never empty, so it can never match every name", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("+", " ", "a", "B", "_", "\t"), maxLength: 30 }), (s) => {
        const r = Query.parse(s)
        if (Result.isSuccess(r) && r.success._tag === "Required") {
          assert.isAbove(r.success.required.length, 0)
          for (const term of r.success.required) {
            assert.isAbove(term.length, 0)
            assert.notMatch(term, /^\+|\s/, "no leading '+' and no spaces in a term")
            assert.strictEqual(term, term.toLowerCase())
          }
        }
        if (Result.isFailure(r)) assert.isTrue(s.trim() === "" || /^[+\s]+$/.test(s), `only blank or bare '+': ${s}`)
      }),
      { numRuns: 2_000 }
    )
  })

  it("property: the mode is decided by the prefix alone", () => {
    const word = fc.stringMatching(/^[a-z]{1,8}$/)
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 5 }), fc.array(word, { maxLength: 3 }), (words, req) => {
        const text = [...words, ...req.map((w) => `+${w}`)].join(" ")
        const parsed = ok(text)
        assert.strictEqual(parsed._tag, req.length > 0 ? "Required" : "Keywords")
        assert.strictEqual(ok(`select:${text}`)._tag, "Select")
        assert.strictEqual(parsed._tag === "Select" ? undefined : parsed.text, words.join(" "))
      })
    )
  })

  it("errors are typed and written for the model", () => {
    assert.strictEqual(error("").message, "Query cannot be empty")
    assert.strictEqual(error(" \n\t ").message, "Query cannot be empty")
    assert.include(error("select:").message, "select: needs at least one tool name")
    assert.include(error("select: , ,").message, "select: needs at least one tool name")
    assert.include(error("x".repeat(2_001)).message, "too long")
  })

  it("property: arbitrary strings never crash the parser", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string({ unit: "grapheme" }),
          fc.string({ unit: fc.constantFrom("+", ":", ",", " ", "select", "a") })
        ),
        (s) => {
          const r = Query.parse(s)
          assert.isTrue(Result.isSuccess(r) || r.failure._tag === "InvalidQuery")
        }
      ),
      { numRuns: 2_000 }
    )
  })

  it("property: a select of valid names parses back to exactly those names", () => {
    const name = fc.stringMatching(/^[A-Za-z0-9_-]{1,20}$/)
    fc.assert(
      fc.property(fc.uniqueArray(name, { minLength: 1, maxLength: 8 }), (names) => {
        assert.deepStrictEqual(ok(`select:${names.join(",")}`), { _tag: "Select", names })
      })
    )
  })

  it("property: parsing is idempotent on the keyword text", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), (s) => {
        const r = Query.parse(s)
        if (Result.isSuccess(r) && r.success._tag === "Keywords") {
          assert.deepStrictEqual(ok(r.success.text), r.success)
        }
      })
    )
  })
})
