import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { execFileSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { parseAst } from "rolldown/parseAst"
import { Declarations } from "../src/index.js"

const getSum: Declarations.Tool = {
  name: "get-sum",
  description: "Adds two numbers.",
  parameters: {
    type: "object",
    properties: { a: { type: "number", description: "The first number" }, b: { type: "number" } },
    required: ["a", "b"]
  }
}

const createIssue: Declarations.Tool = {
  name: "create_issue",
  description: "Create an issue.\nIt is filed at once.",
  parameters: {
    type: "object",
    properties: {
      title: { type: "string" },
      labels: { type: "array", items: { type: "string" } },
      priority: { enum: ["low", "high"], default: "low" },
      assignee: { type: ["string", "null"] },
      "x-custom": {
        anyOf: [{ type: "number" }, { type: "object", properties: { id: { type: "string" } }, required: ["id"] }]
      },
      meta: { type: "object", additionalProperties: { type: "integer" } },
      node: { $ref: "#/$defs/node" },
      pair: { type: "array", prefixItems: [{ type: "string" }, { type: "integer" }] },
      both: {
        allOf: [
          { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
          { type: "object", properties: { b: { type: "number" } } }
        ]
      },
      kind: { const: "issue" },
      note: { type: "string", nullable: true },
      either: { type: "array", items: { oneOf: [{ type: "string" }, { type: "boolean" }] }, nullable: true }
    },
    required: ["title"],
    $defs: {
      node: {
        type: "object",
        description: "A node of a list",
        properties: { value: { type: "string" }, next: { $ref: "#/$defs/node" } }
      }
    }
  }
}

describe("Declarations: JSON Schema to TypeScript", () => {
  it("a tool is a member of interface Tools, its description a doc comment", () => {
    assert.strictEqual(
      Declarations.make([getSum]),
      `interface Tools {
  /** Adds two numbers. */
  "get-sum"(args: {
    /** The first number */
    a: number
    b: number
  }): Promise<unknown>
}`
    )
  })

  it("objects, arrays, tuples, enums, unions, intersections, nullable, $ref, optional vs required", () => {
    assert.strictEqual(
      Declarations.member(createIssue),
      `/**
 * Create an issue.
 * It is filed at once.
 */
create_issue(args: {
  title: string
  labels?: Array<string>
  /** @default "low" */
  priority?: "low" | "high"
  assignee?: string | null
  "x-custom"?: number | { id: string }
  meta?: { [key: string]: number }
  /** A node of a list */
  node?: {
    value?: string
    /** A node of a list */
    next?: unknown
  }
  pair?: [string, number]
  both?: { a: string } & { b?: number }
  kind?: "issue"
  note?: string | null
  either?: Array<string | boolean> | null
}): Promise<unknown>`
    )
  })

  it("a tool without required arguments may be called without any; a result schema types the promise", () => {
    assert.strictEqual(
      Declarations.member({
        name: "list_users",
        description: "",
        parameters: { type: "object", properties: { limit: { type: "integer" } } },
        output: { type: "object", properties: { users: { type: "array", items: { type: "string" } } } }
      }),
      "list_users(args?: { limit?: number }): Promise<{ users?: Array<string> }>"
    )
  })

  it("parentheses keep unions and intersections apart", () => {
    const type = (schema: unknown) =>
      Declarations.member({ name: "t", description: "", parameters: { type: "object", properties: { x: schema } } })
    assert.include(type({ type: ["string", "number"], nullable: true }), "x?: (string | number) | null")
    assert.include(
      type({ allOf: [{ anyOf: [{ type: "string" }, { type: "number" }] }, { enum: ["a", 1] }] }),
      "x?: (string | number) & (\"a\" | 1)"
    )
    assert.include(type({ anyOf: [{ type: "string" }, {}] }), "x?: unknown")
  })

  it("the declarations and the preamble type-check, and reject calls the schemas forbid", () => {
    const dir = mkdtempSync(join(tmpdir(), "declarations-"))
    try {
      writeFileSync(
        join(dir, "program.ts"),
        `${Declarations.preamble}
${Declarations.make([getSum, createIssue])}
export async function program(): Promise<unknown> {
  const sum = await tools["get-sum"]({ a: 2, b: 3 })
  // @ts-expect-error a is a number
  await tools["get-sum"]({ a: "2", b: 3 })
  // @ts-expect-error b is required
  await tools["get-sum"]({ a: 2 })
  await tools.create_issue({ title: "t", labels: ["bug"], priority: "high", assignee: null, pair: ["a", 1] })
  await tools.create_issue({ title: "t", "x-custom": { id: "1" }, meta: { x: 1 }, node: { next: 1 }, both: { a: "" } })
  // @ts-expect-error priority is "low" or "high"
  await tools.create_issue({ title: "t", priority: "urgent" })
  // @ts-expect-error title is required
  await tools.create_issue({ labels: [] })
  // @ts-expect-error a tuple of a string and a number
  await tools.create_issue({ title: "t", pair: [1, "a"] })
  // @ts-expect-error kind is the constant "issue"
  await tools.create_issue({ title: "t", kind: "bug" })
  // @ts-expect-error there is no such tool
  await tools.delete_everything({})
  console.log("sum", sum)
  return sum
}
`
      )
      writeFileSync(
        join(dir, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: { strict: true, noEmit: true, target: "ES2022", lib: ["ES2022"], types: [] },
          files: ["program.ts"]
        })
      )
      const tsc = new URL("../../../node_modules/.bin/tsc", import.meta.url).pathname
      try {
        execFileSync(tsc, ["-p", dir], { encoding: "utf8" })
      } catch (error) {
        const output = error instanceof Error && "stdout" in error ? String(error.stdout) : String(error)
        assert.fail(`tsc rejected the declarations:\n${output}`)
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

// -----------------------------------------------------------------------------
// Hostile names, descriptions and schemas
// -----------------------------------------------------------------------------

/** The names of the members of `interface Tools`, parsed as TypeScript; fails when it does not parse as one interface. */
const declaredNames = (text: string): Array<unknown> => {
  const program = parseAst(text, { lang: "ts" })
  assert.deepStrictEqual(program.body.map((s) => s.type), ["TSInterfaceDeclaration"], text)
  const [declaration] = program.body
  if (declaration?.type !== "TSInterfaceDeclaration") return []
  return declaration.body.body.map((member) =>
    member.type !== "TSMethodSignature"
      ? member.type
      : member.key.type === "Identifier"
      ? member.key.name
      : member.key.type === "Literal"
      ? member.key.value
      : member.key.type
  )
}

const hostile = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary" }),
  fc.constantFrom(
    "*/",
    "*/ declare const pwned: 1 /*",
    "a\u2028b\u2029c",
    "\u0000\u001b[31m",
    "}\n{",
    "\"quoted\" and \\ backslash",
    "__proto__",
    "constructor",
    "/* nested */",
    "\ud800 lone surrogate"
  )
)

const { schema } = fc.letrec<{ schema: unknown }>((tie) => ({
  schema: fc.oneof(
    { depthSize: "small" },
    fc.boolean(),
    fc.jsonValue({ maxDepth: 2 }),
    fc.record({
      type: fc.oneof(
        fc.constantFrom("string", "number", "integer", "boolean", "null", "array", "object", "weird"),
        fc.array(fc.constantFrom("string", "null", "object"), { maxLength: 3 })
      ),
      description: hostile,
      default: fc.jsonValue({ maxDepth: 1 }),
      nullable: fc.boolean()
    }, { requiredKeys: ["type"] }),
    fc.record({
      type: fc.constant("object"),
      properties: fc.dictionary(hostile, tie("schema"), { maxKeys: 4 }),
      required: fc.array(hostile, { maxLength: 3 }),
      additionalProperties: fc.oneof(fc.boolean(), tie("schema")),
      description: hostile
    }, { requiredKeys: [] }),
    fc.record({
      type: fc.constant("array"),
      items: fc.oneof(tie("schema"), fc.array(tie("schema"), { maxLength: 2 }))
    }),
    fc.record({ prefixItems: fc.array(tie("schema"), { maxLength: 3 }) }),
    fc.record({ enum: fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 6 }) }),
    fc.record({ const: fc.jsonValue({ maxDepth: 1 }) }),
    fc.record({ anyOf: fc.array(tie("schema"), { maxLength: 3 }) }),
    fc.record({ oneOf: fc.array(tie("schema"), { maxLength: 3 }) }),
    fc.record({ allOf: fc.array(tie("schema"), { maxLength: 3 }) }),
    fc.record({
      $ref: fc.oneof(hostile, fc.constantFrom("#", "#/$defs/a", "#/$defs/b", "#/definitions/x", "#/properties"))
    })
  )
}))

const parameters = fc.oneof(
  fc.record({
    type: fc.constant("object"),
    properties: fc.dictionary(hostile, schema, { maxKeys: 5 }),
    required: fc.array(hostile, { maxLength: 3 }),
    $defs: fc.dictionary(fc.constantFrom("a", "b"), schema),
    definitions: fc.dictionary(fc.constant("x"), schema)
  }, { requiredKeys: ["type"] }),
  schema,
  fc.anything()
)

const tool = fc.record({
  name: hostile,
  description: hostile,
  parameters,
  output: fc.option(schema, { nil: undefined })
})

describe("Declarations: properties", () => {
  it("for any names, descriptions and schemas: valid TypeScript declaring exactly the tools given", () => {
    fc.assert(
      fc.property(fc.array(tool, { maxLength: 4 }), (tools) => {
        assert.deepStrictEqual(declaredNames(Declarations.make(tools)), tools.map((t) => t.name))
      }),
      { numRuns: 300 }
    )
  })

  it("every declaration fits its size bound, whatever the schema", () => {
    fc.assert(
      fc.property(tool, fc.integer({ min: 200, max: 2000 }), (t, maxSize) => {
        const text = Declarations.member(t, { maxSize, maxDescription: 100 })
        // the untyped fallback: the name (quoted) and a short description, past any bound on the schema
        assert.isAtMost(text.length, Math.max(maxSize, JSON.stringify(t.name).length + 120 + maxSize / 4))
      }),
      { numRuns: 300 }
    )
  })

  it("a description cannot end its comment early: every doc comment closes where it should", () => {
    fc.assert(
      fc.property(hostile, (description) => {
        const text = Declarations.make([{ name: "t", description, parameters: { type: "object" } }])
        const comments = text.match(/\/\*\*[\s\S]*?\*\//g) ?? []
        assert.isAtMost(comments.length, 1)
        for (const c of comments) assert.notInclude(c.slice(3, -2), "*/")
      }),
      { numRuns: 500 }
    )
  })
})

describe("Declarations: bounds against hostile schemas", () => {
  it("a $ref cycle is cut", () => {
    const text = Declarations.member({
      name: "t",
      description: "",
      parameters: { $ref: "#/$defs/a", $defs: { a: { type: "object", properties: { b: { $ref: "#/$defs/a" } } } } }
    })
    assert.strictEqual(text, "t(args?: { b?: unknown }): Promise<unknown>")
  })

  it("a $ref used twice at every level cannot blow up: the nodes visited are bounded", () => {
    const $defs: Record<string, unknown> = { l30: { type: "string" } }
    for (let i = 0; i < 30; i++) {
      $defs[`l${i}`] = {
        type: "object",
        properties: { x: { $ref: `#/$defs/l${i + 1}` }, y: { $ref: `#/$defs/l${i + 1}` } }
      }
    }
    const text = Declarations.member({ name: "t", description: "", parameters: { $ref: "#/$defs/l0", $defs } })
    assert.isAtMost(text.length, Declarations.defaults.maxSize)
    assert.doesNotThrow(() => declaredNames(`interface Tools {\n${text}\n}`))
  })

  it("nesting deeper than maxDepth is a record of unknowns", () => {
    let deep: unknown = { type: "string" }
    for (let i = 0; i < 100; i++) deep = { type: "object", properties: { d: deep }, required: ["d"] }
    const text = Declarations.member({ name: "t", description: "", parameters: deep }, { maxDepth: 3 })
    assert.strictEqual(text, "t(args: { d: { d: { d: Record<string, unknown> } } }): Promise<unknown>")
  })

  it("a huge schema falls back to a shallower declaration, down to an untyped one", () => {
    const wide = (n: number) =>
      Object.fromEntries(
        Array.from({ length: n }, (_, i) => [`p${i}`, { type: "string", description: "x".repeat(400) }])
      )
    const nested = { type: "object", properties: { inner: { type: "object", properties: wide(40) } } }
    const shallower = Declarations.member({ name: "t", description: "", parameters: nested }, { maxSize: 500 })
    assert.strictEqual(shallower, "t(args?: { inner?: Record<string, unknown> }): Promise<unknown>")
    const flat = Declarations.member(
      { name: "t", description: "A tool", parameters: { type: "object", properties: wide(40) } },
      { maxSize: 500 }
    )
    assert.strictEqual(flat, "/** A tool */\nt(args?: Record<string, unknown>): Promise<unknown>")
  })
})
