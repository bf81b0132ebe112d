/**
 * The validators behind `ToolArguments.check`: the Schema validator of a parameters schema (its
 * verdict and issues are the rule), and the quick acceptor of the common schema shape, which accepts
 * a subset of what the Schema accepts without running it.
 *
 * @internal
 */
import { JsonSchema, Predicate, Result, Schema, SchemaIssue, SchemaRepresentation } from "effect"
import type { Issue } from "../ToolArguments.js"

/** At most this many issues are reported; the model fixes the first ones first. */
const MAX_ISSUES = 10
/** Each issue message is cut to this many characters (it may quote the offending value). */
const MAX_MESSAGE = 200

/** What a compiled check answers for one value: its issues, none when valid. */
export type Validator = (value: object) => ReadonlyArray<Issue>

// -----------------------------------------------------------------------------
// The common case, accepted without running the Schema
// -----------------------------------------------------------------------------

/** The property types `quickAcceptor` checks itself, and how. */
const QUICK_TYPES: Record<string, (value: unknown) => boolean> = {
  string: (v) => typeof v === "string",
  boolean: (v) => typeof v === "boolean",
  number: (v) => typeof v === "number" && Number.isFinite(v),
  integer: (v) => Number.isSafeInteger(v)
}

/** Keys of a schema that do not change what it accepts (annotations). */
const ANNOTATIONS: ReadonlySet<string> = new Set(["description", "title"])

/** A value the Schema accepts as JSON wherever any JSON value may be: a string, a boolean, null, a finite number. */
const isJsonPrimitive = (v: unknown): boolean =>
  typeof v === "string" || typeof v === "boolean" || v === null || (typeof v === "number" && Number.isFinite(v))

/**
 * For the common parameters schema — an object whose properties each have one primitive type
 * (`string`, `number`, `integer`, `boolean`), optionally required, with `additionalProperties`
 * absent, `true` or `false` — a check that says `true` only for values the Schema validator accepts:
 * a plain object, each property present of its type, every other key holding a JSON primitive.
 * Anything else (a failure, a nested value, an explicit `undefined`, an unusual object) answers
 * `false` and goes to the Schema validator, which decides and says what is wrong. Running the Schema
 * costs a fiber per call (`Effect.runSyncExit`); the executor checks every call. Undefined for any
 * other schema. A property test holds it to the Schema validator's verdict
 * (`test/ToolArguments.test.ts`).
 */
export const quickAcceptor = (parameters: JsonSchema.JsonSchema): ((value: object) => boolean) | undefined => {
  const known = new Set(["type", "properties", "required", "additionalProperties", ...ANNOTATIONS])
  if (parameters["type"] !== "object" || Object.keys(parameters).some((k) => !known.has(k))) return undefined
  const properties = parameters["properties"] ?? {}
  if (!Predicate.isObject(properties) || Array.isArray(properties)) return undefined
  const fields: Array<readonly [string, (value: unknown) => boolean, boolean]> = []
  const required = parameters["required"] ?? []
  if (!Array.isArray(required) || !required.every((k) => typeof k === "string" && Object.hasOwn(properties, k))) {
    return undefined
  }
  for (const [key, schema] of Object.entries(properties)) {
    if (!Predicate.isObject(schema) || key === "__proto__") return undefined
    const type = schema["type"]
    const test = typeof type === "string" && Object.hasOwn(QUICK_TYPES, type) ? QUICK_TYPES[type] : undefined
    if (test === undefined || Object.keys(schema).some((k) => k !== "type" && !ANNOTATIONS.has(k))) return undefined
    fields.push([key, test, required.includes(key)])
  }
  const additional = parameters["additionalProperties"]
  if (additional !== undefined && typeof additional !== "boolean") return undefined
  const declared: ReadonlySet<string> = new Set(fields.map(([key]) => key))
  return (value) => {
    if (Object.getPrototypeOf(value) !== Object.prototype) return false
    const record = value as Record<string, unknown>
    for (const [key, test, isRequired] of fields) {
      const v = record[key]
      if (v === undefined) {
        if (isRequired || Object.hasOwn(record, key)) return false
      } else if (!test(v)) return false
    }
    for (const key of Reflect.ownKeys(record)) {
      if (typeof key !== "string") return false
      if (declared.has(key)) continue
      if (additional === false || key === "__proto__" || !isJsonPrimitive(record[key])) return false
    }
    return true
  }
}

// -----------------------------------------------------------------------------
// The Schema validator, the rule
// -----------------------------------------------------------------------------

const accept: Validator = () => []

/**
 * The Schema validator of a parameters schema. Compiles the whole schema; when Effect cannot
 * translate it, compiles each property on its own and leaves the untranslatable ones unchecked
 * (required properties are still required).
 */
export const schemaValidator = (parameters: JsonSchema.JsonSchema): Validator => {
  const whole = importSchema(parameters)
  if (whole !== undefined) return validatorFrom(whole)
  const properties = Predicate.isObject(parameters["properties"]) ? parameters["properties"] : {}
  const shallow: Record<string, unknown> = {}
  for (const [key, schema] of Object.entries(properties)) {
    const alone = Predicate.isObject(schema) ? importSchema({ ...definitionsOf(parameters), ...schema }) : undefined
    shallow[key] = alone === undefined ? {} : schema
  }
  const additional = parameters["additionalProperties"]
  const reduced = importSchema({
    ...definitionsOf(parameters),
    type: "object",
    properties: shallow,
    ...(Array.isArray(parameters["required"]) ? { required: parameters["required"] } : {}),
    ...(typeof additional === "boolean" ? { additionalProperties: additional } : {})
  })
  return reduced === undefined ? accept : validatorFrom(reduced)
}

const definitionsOf = (schema: JsonSchema.JsonSchema): Record<string, unknown> => ({
  ...(schema["$defs"] === undefined ? {} : { $defs: schema["$defs"] }),
  ...(schema["definitions"] === undefined ? {} : { definitions: schema["definitions"] }),
  ...(schema["$schema"] === undefined ? {} : { $schema: schema["$schema"] })
})

/** The Effect schema of a JSON Schema (draft 2020-12, or draft-07 when it says so), or undefined. */
const importSchema = (schema: JsonSchema.JsonSchema): Schema.Codec<unknown> | undefined => {
  try {
    const declared = typeof schema["$schema"] === "string" ? schema["$schema"] : ""
    const document = declared.includes("draft-07") || declared.includes("draft-04") || "definitions" in schema
      ? JsonSchema.fromSchemaDraft07(schema)
      : JsonSchema.fromSchemaDraft2020_12(schema)
    const imported = SchemaRepresentation.fromJsonSchemaDocument(document, { patterns: "ignore" })
    return Schema.make<Schema.Codec<unknown>>(imported.ast)
  } catch {
    return undefined
  }
}

/** Effect's messages, with the two that speak of "keys" said in the words of tool parameters. */
const formatter = SchemaIssue.makeFormatterStandardSchemaV1({
  leafHook: (issue) =>
    issue._tag === "MissingKey"
      ? "Missing required property"
      : issue._tag === "UnexpectedKey"
      ? "Unknown property (the tool's parameters do not have it)"
      : SchemaIssue.defaultLeafHook(issue)
})

const validatorFrom = (schema: Schema.Codec<unknown>): Validator => {
  const decode = Schema.decodeUnknownResult(schema)
  return (value) => {
    const result = decode(value, { errors: "all", onExcessProperty: "error", reportInput: true })
    if (Result.isSuccess(result)) return []
    return formatter(result.failure.issue).issues.slice(0, MAX_ISSUES).map((issue) => ({
      path: formatPath(issue.path ?? []),
      message: cut(issue.message)
    }))
  }
}

type PathSegment = PropertyKey | { readonly key: PropertyKey }

/** `items[2].name`: property names joined by dots, array indices in brackets. */
const formatPath = (path: ReadonlyArray<PathSegment>): string =>
  path.map((segment) => typeof segment === "object" ? segment.key : segment).reduce<string>(
    (text, key) =>
      typeof key === "number"
        ? `${text}[${key}]`
        : /^[A-Za-z_$][\w$]*$/.test(String(key))
        ? text === "" ? String(key) : `${text}.${String(key)}`
        : `${text}[${JSON.stringify(String(key))}]`,
    ""
  )

const cut = (text: string): string => text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE - 1)}…` : text
