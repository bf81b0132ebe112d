import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import type { JsonSchema } from "effect"
import * as fc from "fast-check"
import { ToolArguments } from "../src/index.js"
import * as Validators from "../src/internal/argumentValidators.js"

const schema: JsonSchema.JsonSchema = {
  type: "object",
  properties: {
    n: { type: "integer" },
    tags: { type: "array", items: { type: "string" } },
    mode: { enum: ["a", "b"] },
    nested: { type: "object", properties: { x: { type: "number", minimum: 0 } }, required: ["x"] }
  },
  required: ["n"],
  additionalProperties: false
}

const issuesOf = (args: unknown, parameters: JsonSchema.JsonSchema = schema, limits?: ToolArguments.Limits) => {
  const result = ToolArguments.check("t", parameters, args, limits)
  return Result.isFailure(result) ? result.failure.issues : []
}

describe("ToolArguments.check: what used to reach handlers", () => {
  it("malformed JSON, null, arrays, wrong types and unknown properties are refused, naming the path", () => {
    assert.deepStrictEqual(issuesOf("{bad json").map((i) => i.path), [""])
    assert.include(issuesOf(null)[0]?.message, "Expected an object, got null")
    assert.include(issuesOf([1, 2])[0]?.message, "got an array")
    const both = issuesOf({ n: "abc", extra: 1 })
    assert.deepStrictEqual(both.map((i) => i.path).sort(), ["extra", "n"])
    assert.include(both.find((i) => i.path === "n")?.message, `Expected number, got "abc"`)
    assert.deepStrictEqual(issuesOf({ n: 1, tags: ["a", 2] }).map((i) => i.path), ["tags[1]"])
    assert.deepStrictEqual(issuesOf({ n: 1, nested: {} }), [{ path: "nested.x", message: "Missing required property" }])
  })

  it("the message is written for the model: the tool, each path, what to do", () => {
    const result = ToolArguments.check("create_ticket", schema, { n: "abc" })
    assert.isTrue(Result.isFailure(result))
    if (Result.isSuccess(result)) return
    assert.strictEqual(result.failure._tag, "InvalidArguments")
    assert.include(result.failure.message, "Invalid arguments for 'create_ticket'")
    assert.include(result.failure.message, `- n: Expected number, got "abc"`)
    assert.include(result.failure.message, "call it again")
  })

  it("valid arguments pass unchanged; a string holding a JSON object is parsed", () => {
    const args = { n: 3, tags: ["x"], mode: "a", nested: { x: 0 } }
    const result = ToolArguments.check("t", schema, args)
    assert.isTrue(Result.isSuccess(result) && result.success === args)
    const parsed = ToolArguments.check("t", schema, JSON.stringify(args))
    assert.isTrue(Result.isSuccess(parsed) && parsed.success["n"] === 3)
  })

  it("size and depth are bounded before the schema is consulted", () => {
    let deep: unknown = {}
    for (let i = 0; i < 10_000; i++) deep = { a: deep }
    assert.include(issuesOf(deep, { type: "object" })[0]?.message, "nested deeper than 32 levels")
    const big = { a: "x".repeat(2_000) }
    assert.include(issuesOf(big, { type: "object" }, { maxSize: 1_000, maxDepth: 8 })[0]?.message, "larger than 1,000")
    assert.include(
      issuesOf("x".repeat(2_000), { type: "object" }, { maxSize: 1_000, maxDepth: 8 })[0]?.message,
      "larger"
    )
    assert.deepStrictEqual(issuesOf({ a: [[["ok"]]] }, { type: "object" }, { maxSize: 1_000, maxDepth: 4 }), [])
    assert.strictEqual(issuesOf({ a: [[[["no"]]]] }, { type: "object" }, { maxSize: 1_000, maxDepth: 4 }).length, 1)
  })

  it("a pattern is not applied (no catastrophic backtracking from an upstream schema)", () => {
    const evil = { type: "object", properties: { s: { type: "string", pattern: "^(a+)+$" } } }
    assert.deepStrictEqual(issuesOf({ s: `${"a".repeat(40)}!` }, evil), [])
  })

  it("a part Effect cannot translate is left unchecked; the rest still applies", () => {
    const partly = {
      type: "object",
      properties: { cond: { type: "array", contains: { type: "string" } }, n: { type: "integer" } },
      required: ["n"],
      additionalProperties: false
    }
    assert.deepStrictEqual(issuesOf({ n: 1, cond: [5] }, partly), [])
    assert.deepStrictEqual(issuesOf({ cond: [5], other: 1 }, partly).map((i) => i.path).sort(), ["n", "other"])
  })
})

// -----------------------------------------------------------------------------
// Properties: schemas and values generated together
// -----------------------------------------------------------------------------

interface Case {
  readonly schema: JsonSchema.JsonSchema
  readonly valid: fc.Arbitrary<unknown>
  /** A value of another JSON type than the schema accepts. */
  readonly invalid: unknown
}

const leaf: fc.Arbitrary<Case> = fc.constantFrom<Case>(
  { schema: { type: "string" }, valid: fc.string({ maxLength: 8 }), invalid: 7 },
  { schema: { type: "integer" }, valid: fc.integer(), invalid: "7" },
  { schema: { type: "number" }, valid: fc.double({ noNaN: true, noDefaultInfinity: true }), invalid: true },
  { schema: { type: "boolean" }, valid: fc.boolean(), invalid: "yes" },
  { schema: { enum: ["red", "green"] }, valid: fc.constantFrom("red", "green"), invalid: "blue" }
)

const caseOf = (depth: number): fc.Arbitrary<Case> =>
  depth === 0 ? leaf : fc.oneof(
    leaf,
    caseOf(depth - 1).map((item): Case => ({
      schema: { type: "array", items: item.schema },
      valid: fc.array(item.valid, { maxLength: 3 }),
      invalid: { not: "an array" }
    })),
    objectCase(depth - 1)
  )

const objectCase = (depth: number): fc.Arbitrary<Case> =>
  fc.uniqueArray(fc.tuple(fc.stringMatching(/^[a-z]{1,6}$/), caseOf(depth)), {
    minLength: 1,
    maxLength: 4,
    selector: ([key]) => key
  }).map((props): Case => ({
    schema: {
      type: "object",
      properties: Object.fromEntries(props.map(([key, c]) => [key, c.schema])),
      required: props.map(([key]) => key),
      additionalProperties: false
    },
    valid: fc.tuple(...props.map(([, c]) => c.valid)).map((values) =>
      Object.fromEntries(props.map(([key], i) => [key, values[i]]))
    ),
    invalid: "not an object"
  }))

/** A tool schema (an object at the root), a valid value, and the key and value that break it. */
const toolCase = objectCase(2).chain((root) =>
  fc.tuple(fc.constant(root), root.valid, fc.nat()).map(([c, value, pick]) => {
    const properties = c.schema["properties"] as Record<string, JsonSchema.JsonSchema>
    const keys = Object.keys(properties)
    const key = keys[pick % keys.length] as string
    return { schema: c.schema, value: value as Record<string, unknown>, key }
  })
)

const invalidFor = (schema: JsonSchema.JsonSchema): unknown =>
  schema["type"] === "string"
    ? 7
    : schema["type"] === "array" || schema["type"] === "object"
    ? "neither"
    : schema["enum"] !== undefined
    ? "blue"
    : "7"

describe("ToolArguments.check: properties", () => {
  it("a value built from the schema is accepted", () =>
    fc.assert(fc.property(toolCase, ({ schema: s, value }) => Result.isSuccess(ToolArguments.check("t", s, value)))))

  it("a property of the wrong type is refused, and the issue names its path", () =>
    fc.assert(fc.property(toolCase, ({ key, schema: s, value }) => {
      const property = (s["properties"] as Record<string, JsonSchema.JsonSchema>)[key] as JsonSchema.JsonSchema
      const issues = issuesOf({ ...value, [key]: invalidFor(property) }, s)
      return issues.some((i) => i.path === key)
    })))

  it("a missing required property and an unknown one are both named", () =>
    fc.assert(fc.property(toolCase, ({ key, schema: s, value }) => {
      const { [key]: _removed, ...rest } = value
      const paths = issuesOf({ ...rest, zz_unknown: 1 }, s).map((i) => i.path)
      return paths.includes(key) && paths.includes("zz_unknown")
    })))

  it("never throws, whatever the arguments: a result, with at most ten issues of bounded length", () =>
    fc.assert(fc.property(fc.oneof(fc.jsonValue(), fc.json(), fc.anything()), (args) => {
      const result = ToolArguments.check("t", schema, args)
      if (Result.isSuccess(result)) return typeof result.success === "object"
      const issues = result.failure.issues
      return issues.length >= 1 && issues.length <= 10 && issues.every((i) => i.message.length <= 200)
    })))
})

// -----------------------------------------------------------------------------
// The quick acceptor against the Schema validator
// -----------------------------------------------------------------------------

const KEYS = ["id", "note", "n", "flag", "x", "__proto__", "constructor"] as const
const QUICK_TYPES = ["string", "number", "integer", "boolean"] as const

/** Schemas of the shape the quick acceptor takes: primitive properties, some required, extra keys allowed or not. */
const quickSchema: fc.Arbitrary<JsonSchema.JsonSchema> = fc.record({
  properties: fc.uniqueArray(
    fc.tuple(fc.constantFrom(...KEYS.slice(0, 5)), fc.constantFrom(...QUICK_TYPES), fc.boolean(), fc.boolean()),
    { maxLength: 4, selector: ([key]) => key }
  ),
  additional: fc.constantFrom(undefined, true, false),
  described: fc.boolean()
}).map(({ additional, described, properties }) => ({
  type: "object",
  ...(described ? { description: "a tool" } : {}),
  properties: Object.fromEntries(
    properties.map(([key, type, , hasDescription]) => [key, { type, ...(hasDescription ? { description: key } : {}) }])
  ),
  required: properties.filter(([, , required]) => required).map(([key]) => key),
  ...(additional === undefined ? {} : { additionalProperties: additional })
}))

/** Any value a property may hold, the troublesome ones included. */
const anyValue = fc.oneof(
  fc.string({ maxLength: 4 }),
  fc.integer(),
  fc.double(),
  fc.constantFrom(NaN, Infinity, -0, 2 ** 60, 1.5, undefined, null, true, false),
  fc.jsonValue({ maxDepth: 2 }),
  fc.anything({ maxDepth: 2 })
)

/** A value of the type a quick schema's property declares. */
const ofType = (type: unknown): fc.Arbitrary<unknown> =>
  type === "string"
    ? fc.string({ maxLength: 4 })
    : type === "boolean"
    ? fc.boolean()
    : type === "integer"
    ? fc.integer()
    : fc.double({ noNaN: true, noDefaultInfinity: true })

describe("ToolArguments: the quick acceptor", () => {
  it("accepts only what the Schema validator accepts (any object, against any schema of its shape)", () =>
    fc.assert(
      fc.property(
        quickSchema,
        fc.array(fc.tuple(fc.constantFrom(...KEYS), anyValue), { maxLength: 5 }),
        (s, entries) => {
          const quick = Validators.quickAcceptor(s)
          assert.isDefined(quick)
          const value: object = Object.fromEntries(entries)
          return !quick(value) || Validators.schemaValidator(s)(value).length === 0
        }
      ),
      { numRuns: 2000 }
    ))

  it("accepts a value built from the schema's types, as the Schema validator does (the fast path is taken)", () =>
    fc.assert(fc.property(
      quickSchema.chain((s) => {
        const properties = Object.entries(s["properties"] as Record<string, JsonSchema.JsonSchema>)
        const required = s["required"] as ReadonlyArray<string>
        return fc.tuple(
          fc.constant(s),
          fc.tuple(
            ...properties.map(([key, p]) =>
              required.includes(key) ? ofType(p["type"]).map((v) => [key, v] as const) : fc.option(
                ofType(p["type"]).map((v) => [key, v] as const),
                { nil: undefined }
              )
            )
          )
        )
      }),
      ([s, entries]) => {
        const value = Object.fromEntries(entries.filter((e) => e !== undefined))
        return Validators.quickAcceptor(s)?.(value) === true && Validators.schemaValidator(s)(value).length === 0
      }
    )))

  it("leaves schemas of any other shape to the Schema validator", () => {
    for (
      const s of [
        { type: "object", properties: { e: { enum: ["a"] } } },
        { type: "object", properties: { s: { type: "string", minLength: 2 } } },
        { type: "object", properties: { o: { type: "object" } } },
        { type: "object", properties: { t: { type: ["string", "null"] } } },
        { type: "object", required: ["absent"] },
        { type: "object", additionalProperties: { type: "string" } },
        { $schema: "http://json-schema.org/draft-07/schema#", type: "object" },
        { type: "array" }
      ]
    ) assert.isUndefined(Validators.quickAcceptor(s), JSON.stringify(s))
  })
})
