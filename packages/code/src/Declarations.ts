/**
 * TypeScript declarations of tools, generated from their JSON Schemas: what a model reads in code
 * mode to write `await tools["get-sum"]({ a: 2, b: 3 })`. Each tool is one member of an
 * `interface Tools`; several answers' `interface Tools { ... }` blocks merge, as TypeScript merges
 * interfaces, and `preamble` declares `tools` and `console` once.
 *
 * ```ts
 * interface Tools {
 *   /** Adds two numbers. *\/
 *   "get-sum"(args: { a: number; b: number }): Promise<unknown>
 * }
 * ```
 *
 * Parameter types follow the schema: objects (required and optional properties, additional
 * properties as an index signature), arrays and tuples, enums and constants as literal unions,
 * `anyOf`/`oneOf` as unions, `allOf` as intersections, nullable types, local `$ref`s; descriptions
 * and defaults become doc comments. What a type cannot say is `unknown`.
 *
 * Schemas and names are hostile input: any name is written as a quoted key when it is not an
 * identifier, a description cannot end its comment early (`*\/` is escaped, control characters
 * dropped), a `$ref` cycle becomes `unknown`, and each declaration is bounded in depth, in the
 * schema nodes it visits (a `$ref` used many times cannot blow up) and in size — a declaration too
 * large is written again shallower, down to an untyped signature.
 *
 * @since 0.2.0
 */
import { Predicate } from "effect"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * A tool as the declarations need it: what a catalog tool or a model tool has, and optionally the
 * JSON Schema of its result (MCP's `outputSchema`).
 *
 * @since 0.2.0
 * @category models
 */
export interface Tool {
  readonly name: string
  readonly description: string
  /** A JSON Schema whose root is an object. */
  readonly parameters: unknown
  /** The JSON Schema of the result; the declaration returns `Promise<unknown>` without it. */
  readonly output?: unknown
}

/**
 * Bounds on one tool's declaration.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** Deepest nesting of object and array types below the arguments; deeper types are `unknown`. */
  readonly maxDepth: number
  /** Most characters of one tool's declaration: a larger one is written shallower. */
  readonly maxSize: number
  /** Most characters of one doc comment's text. */
  readonly maxDescription: number
  /** Most schema nodes one declaration visits; the rest are `unknown`. */
  readonly maxNodes: number
}

/**
 * The default bounds: 6 levels, 4,000 characters per tool, 500 per description, 2,000 nodes.
 *
 * @since 0.2.0
 * @category models
 */
export const defaults: Options = { maxDepth: 6, maxSize: 4000, maxDescription: 500, maxNodes: 2000 }

// -----------------------------------------------------------------------------
// Declarations
// -----------------------------------------------------------------------------

/**
 * What every program may use, declared once: `tools` (the `Tools` interface the tool declarations
 * extend) and `console`.
 *
 * @since 0.2.0
 * @category declarations
 */
export const preamble = `/** The tools this program may call; each returns a promise of its result. */
declare const tools: Tools
/** Captured: what the program logs is returned with its result. */
declare const console: { [Level in "log" | "info" | "warn" | "error" | "debug"]: (...values: unknown[]) => void }`

/**
 * The declarations of `tools`: an `interface Tools` block with one member per tool.
 *
 * @since 0.2.0
 * @category declarations
 */
export const make = (tools: ReadonlyArray<Tool>, options: Partial<Options> = {}): string => {
  if (tools.length === 0) return "interface Tools {}"
  const members = tools.map((tool) => indent(member(tool, options)))
  return `interface Tools {\n${members.join("\n")}\n}`
}

/**
 * The declaration of one tool: a member of `interface Tools`, with its doc comment.
 *
 * @since 0.2.0
 * @category declarations
 */
export const member = (tool: Tool, options: Partial<Options> = {}): string => {
  const bounds = { ...defaults, ...options }
  for (let depth = bounds.maxDepth; depth >= 0; depth--) {
    const text = render(tool, bounds, depth)
    if (text.length <= bounds.maxSize) return text
  }
  // nothing typed fits: the name, a short description and an untyped signature
  const short = { ...bounds, maxDescription: Math.min(bounds.maxDescription, Math.floor(bounds.maxSize / 4)) }
  return `${comment(tool.description, undefined, short)}${
    key(tool.name)
  }(args?: Record<string, unknown>): Promise<unknown>`
}

// -----------------------------------------------------------------------------
// Rendering
// -----------------------------------------------------------------------------

interface Context {
  readonly bounds: Options
  /** The schema `$ref`s resolve against. */
  readonly root: unknown
  readonly maxDepth: number
  /** `$ref`s being expanded, to cut cycles. */
  readonly expanding: ReadonlySet<string>
  readonly budget: { nodes: number }
}

const render = (tool: Tool, bounds: Options, maxDepth: number): string => {
  const budget = { nodes: bounds.maxNodes }
  const context = (root: unknown): Context => ({ bounds, root, maxDepth, expanding: new Set(), budget })
  const parameters = context(tool.parameters)
  const args = typeOf(tool.parameters, parameters, 0)
  const optional = !hasRequired(tool.parameters) ? "?" : ""
  const result = tool.output === undefined ? "unknown" : typeOf(tool.output, context(tool.output), 0)
  return `${comment(tool.description, undefined, bounds)}${
    key(tool.name)
  }(args${optional}: ${args}): Promise<${result}>`
}

const hasRequired = (schema: unknown): boolean =>
  Predicate.isObject(schema) && Array.isArray(schema["required"]) &&
  schema["required"].some((r) => typeof r === "string")

/** The TypeScript type of `schema`, at nesting `depth`. */
const typeOf = (schema: unknown, context: Context, depth: number): string => {
  if (schema === true) return "unknown"
  if (schema === false) return "never"
  if (!Predicate.isObject(schema) || Array.isArray(schema)) return "unknown"
  if (context.budget.nodes <= 0) return "unknown"
  context.budget.nodes--
  const nullable = schema["nullable"] === true
  const type = baseType(schema, context, depth)
  return nullable && type !== "unknown" && type !== "null" ? `${group(type)} | null` : type
}

const LIMIT_MEMBERS = 50

const baseType = (schema: Record<string, unknown>, context: Context, depth: number): string => {
  const ref = schema["$ref"]
  if (typeof ref === "string") return refType(ref, context, depth)
  if ("const" in schema) return literal(schema["const"])
  const choices = schema["enum"]
  if (Array.isArray(choices)) {
    if (choices.length === 0) return "never"
    if (choices.length <= LIMIT_MEMBERS) return union(choices.map(literal))
  }
  for (const combinator of ["anyOf", "oneOf"]) {
    const options = schema[combinator]
    if (Array.isArray(options) && options.length > 0) {
      return union(options.slice(0, LIMIT_MEMBERS).map((o) => typeOf(o, context, depth)))
    }
  }
  const all = schema["allOf"]
  if (Array.isArray(all) && all.length > 0) {
    const parts = all.slice(0, LIMIT_MEMBERS).map((o) => typeOf(o, context, depth)).filter((t) => t !== "unknown")
    return parts.length === 0 ? "unknown" : [...new Set(parts)].map(group).join(" & ")
  }
  const type = schema["type"]
  const types = typeof type === "string"
    ? [type]
    : Array.isArray(type)
    ? type.filter((t): t is string => typeof t === "string")
    : impliedTypes(schema)
  if (types.length === 0) return "unknown"
  return union(types.map((t) => typeNamed(t, schema, context, depth)))
}

/** The type a schema without `type` implies by its keywords. */
const impliedTypes = (schema: Record<string, unknown>): Array<string> =>
  "properties" in schema || "additionalProperties" in schema
    ? ["object"]
    : "items" in schema || "prefixItems" in schema
    ? ["array"]
    : []

const typeNamed = (type: string, schema: Record<string, unknown>, context: Context, depth: number): string => {
  switch (type) {
    case "string":
      return "string"
    case "number":
    case "integer":
      return "number"
    case "boolean":
      return "boolean"
    case "null":
      return "null"
    case "array":
      return arrayType(schema, context, depth)
    case "object":
      return objectType(schema, context, depth)
    default:
      return "unknown"
  }
}

const arrayType = (schema: Record<string, unknown>, context: Context, depth: number): string => {
  if (depth >= context.maxDepth) return "Array<unknown>"
  const prefix = Array.isArray(schema["prefixItems"])
    ? schema["prefixItems"]
    : Array.isArray(schema["items"])
    ? schema["items"] // draft-07 tuples
    : undefined
  if (prefix !== undefined) {
    return `[${prefix.slice(0, LIMIT_MEMBERS).map((item) => typeOf(item, context, depth + 1)).join(", ")}]`
  }
  const items = schema["items"]
  return items === undefined ? "Array<unknown>" : `Array<${typeOf(items, context, depth + 1)}>`
}

const objectType = (schema: Record<string, unknown>, context: Context, depth: number): string => {
  if (depth >= context.maxDepth) return "Record<string, unknown>"
  const properties = Predicate.isObject(schema["properties"]) && !Array.isArray(schema["properties"])
    ? Object.entries(schema["properties"]).slice(0, LIMIT_MEMBERS)
    : []
  const required = new Set(
    Array.isArray(schema["required"]) ? schema["required"].filter((r): r is string => typeof r === "string") : []
  )
  const additional = schema["additionalProperties"]
  const fields = properties.map(([name, property]) => ({
    doc: comment(descriptionOf(property, context.root), defaultOf(property), context.bounds),
    text: `${key(name)}${required.has(name) ? "" : "?"}: ${typeOf(property, context, depth + 1)}`
  }))
  if (Predicate.isObject(additional) && !Array.isArray(additional)) {
    fields.push({ doc: "", text: `[key: string]: ${typeOf(additional, context, depth + 1)}` })
  } else if (fields.length === 0) {
    return additional === false ? "{}" : "Record<string, unknown>"
  }
  const oneLine = `{ ${fields.map((f) => f.text).join("; ")} }`
  if (fields.every((f) => f.doc === "") && oneLine.length <= 80) return oneLine
  return `{\n${fields.map((f) => indent(f.doc + f.text)).join("\n")}\n}`
}

/** The type a local `$ref` (`#/$defs/X`, `#/definitions/X`, any JSON pointer into the root) points to. */
const refType = (ref: string, context: Context, depth: number): string => {
  if (context.expanding.has(ref)) return "unknown" // a cycle
  const target = resolve(ref, context.root)
  if (target === undefined) return "unknown"
  const expanding = new Set(context.expanding).add(ref)
  return typeOf(target, { ...context, expanding }, depth)
}

const resolve = (ref: string, root: unknown): unknown => {
  if (ref === "#") return root
  if (!ref.startsWith("#/")) return undefined
  let node: unknown = root
  for (const raw of ref.slice(2).split("/")) {
    let segment: string
    try {
      segment = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~")
    } catch {
      return undefined
    }
    if (!Predicate.isObject(node) || !Object.hasOwn(node, segment)) return undefined
    node = node[segment]
  }
  return node
}

// -----------------------------------------------------------------------------
// Text
// -----------------------------------------------------------------------------

/** A literal type for a JSON value; objects and arrays are `unknown`. */
const literal = (value: unknown): string =>
  typeof value === "string" || typeof value === "boolean" || value === null
    ? JSON.stringify(value)
    : typeof value === "number" && Number.isFinite(value)
    ? String(value)
    : "unknown"

/** Members of a union, de-duplicated, parenthesized where needed; `unknown` absorbs the rest. */
const union = (members: ReadonlyArray<string>): string => {
  const unique = [...new Set(members)]
  if (unique.includes("unknown")) return "unknown"
  return unique.length === 0 ? "never" : unique.map(group).join(" | ")
}

/** Parenthesizes a union or intersection, as a member of another one or before `| null`. */
const group = (type: string): string => /[|&]/.test(topLevel(type)) ? `(${type})` : type

/**
 * The characters of `type` outside braces, brackets, angle brackets, parentheses, string literals
 * and comments (which never hold `*\/`: `clean` escapes it).
 */
const topLevel = (type: string): string => {
  let depth = 0
  let out = ""
  for (let i = 0; i < type.length; i++) {
    const c = type[i]
    if (c === "\"") {
      for (i++; i < type.length && type[i] !== "\""; i++) if (type[i] === "\\") i++
    } else if (c === "/" && type[i + 1] === "*") {
      const end = type.indexOf("*/", i + 2)
      i = end < 0 ? type.length : end + 1
    } else if (c === "{" || c === "[" || c === "<" || c === "(") depth++
    else if (c === "}" || c === "]" || c === ">" || c === ")") depth--
    else if (depth === 0) out += c
  }
  return out
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/

/** A property key: as is when it is an identifier, else a string literal. */
const key = (name: string): string => IDENTIFIER.test(name) ? name : JSON.stringify(name)

/** A schema's description, or the description of what its `$ref` points to. */
const descriptionOf = (schema: unknown, root: unknown): string => {
  if (!Predicate.isObject(schema)) return ""
  if (typeof schema["description"] === "string") return schema["description"]
  const target = typeof schema["$ref"] === "string" ? resolve(schema["$ref"], root) : undefined
  return Predicate.isObject(target) && typeof target["description"] === "string" ? target["description"] : ""
}

const defaultOf = (schema: unknown): string | undefined => {
  if (!Predicate.isObject(schema) || !("default" in schema)) return undefined
  try {
    return JSON.stringify(schema["default"])
  } catch {
    return undefined
  }
}

/**
 * A doc comment (with a trailing newline), or nothing: the text cut to `maxDescription`, control
 * characters dropped, `*\/` escaped so the comment cannot end early.
 */
const comment = (description: string, defaultValue: string | undefined, bounds: Options): string => {
  const text = clean(description, bounds.maxDescription)
  const lines = text === "" ? [] : text.split("\n")
  if (defaultValue !== undefined) lines.push(`@default ${clean(defaultValue, 100)}`)
  if (lines.length === 0) return ""
  if (lines.length === 1) return `/** ${lines[0]} */\n`
  return `/**\n${lines.map((l) => l === "" ? " *" : ` * ${l}`).join("\n")}\n */\n`
}

const clean = (text: string, max: number): string => {
  const normalized = text
    .replace(/\r\n?|[\u2028\u2029]/g, "\n")
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, "")
    .replace(/\t/g, " ")
    .split("\n").map((l) => l.trimEnd()).join("\n")
    .trim()
  const cut = normalized.length > max ? `${normalized.slice(0, max - 1)}…` : normalized
  return cut.replaceAll("*/", "*\\/")
}

const indent = (text: string): string => text.split("\n").map((line) => line === "" ? line : `  ${line}`).join("\n")
