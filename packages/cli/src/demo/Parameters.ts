/**
 * Checks a demo tool call's parameters against the tool's JSON Schema with Effect's `Schema`
 * (the JSON Schema turned into a codec), and words the first problem for the model: an unknown
 * parameter, then a missing required one, then a bad value, in the order the call gives them.
 *
 * @since 0.2.0
 */
import { JsonSchema, Predicate, type Result, Schema, type SchemaAST, SchemaIssue, SchemaRepresentation } from "effect"
import type { Params } from "./Stable.js"

/**
 * The object schema of a tool's parameters.
 *
 * @since 0.2.0
 * @category models
 */
export interface ObjectSchema {
  readonly properties: Readonly<Record<string, JsonSchema.JsonSchema>>
  readonly required?: ReadonlyArray<string>
}

const MISSING = "\u0000missing"
const UNEXPECTED = "\u0000unexpected"

// Key problems are marked so they can be told apart; every other leaf keeps Effect's message.
const format = SchemaIssue.makeFormatterStandardSchemaV1({
  leafHook: (issue) =>
    issue._tag === "MissingKey"
      ? MISSING
      : issue._tag === "UnexpectedKey"
      ? UNEXPECTED
      : SchemaIssue.defaultLeafHook(issue)
})

/** `Expected a value less than or equal to 14` -> `must be at most 14`, in the model's terms. */
const reword = (message: string, schema: JsonSchema.JsonSchema | undefined): string => {
  const type = typeof schema?.["type"] === "string" ? schema["type"] : undefined
  const values = schema?.["enum"]
  let m: RegExpExecArray | null
  if ((m = /^Expected a value less than or equal to (.+)$/.exec(message)) !== null) return `must be at most ${m[1]}`
  if ((m = /^Expected a value greater than or equal to (.+)$/.exec(message)) !== null) return `must be at least ${m[1]}`
  if (Array.isArray(values) && message.startsWith("Expected \"")) {
    return `must be one of: ${values.map(String).join(", ")}`
  }
  if (
    type !== undefined && /^Expected (string|number|boolean|object|array|an integer|a finite number)\b/.test(message)
  ) {
    return `must be of type ${type}`
  }
  return `is invalid: ${message}`
}

const pathText = (path: ReadonlyArray<PropertyKey>): string =>
  path.map((p, i) => typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`).join("")

/**
 * A checker for one tool: `undefined` when the parameters are valid, else what is wrong, written
 * for the model.
 *
 * @since 0.2.0
 * @category validation
 */
export const checker = (schema: ObjectSchema): (params: Params) => string | undefined => {
  // built at the first call: the demo has hundreds of tools and calls a few
  let decode:
    | ((input: unknown, options: SchemaAST.ParseOptions) => Result.Result<unknown, Schema.SchemaError>)
    | undefined
  const decoder = () => {
    if (decode !== undefined) return decode
    const document = JsonSchema.fromSchemaDraft2020_12({
      type: "object",
      properties: schema.properties,
      ...(schema.required === undefined || schema.required.length === 0 ? {} : { required: schema.required }),
      additionalProperties: false
    })
    const codec = Schema.make<Schema.Codec<unknown>>(SchemaRepresentation.fromJsonSchemaDocument(document).ast)
    return (decode = Schema.decodeUnknownResult(codec))
  }
  const names = Object.keys(schema.properties)
  const required = schema.required ?? []
  return (params) => {
    const result = decoder()(params, { errors: "all", onExcessProperty: "error" })
    if (result._tag === "Success") return undefined
    const problems = format(result.failure.issue).issues.map((issue) => ({
      message: issue.message,
      path: (issue.path ?? []).map((segment): PropertyKey =>
        typeof segment === "object" && segment !== null ? segment.key : segment
      )
    }))
    const at = (key: string) => problems.find((p) => p.path[0] === key)
    for (const key of Object.keys(params)) {
      // an undeclared key: `UnexpectedKey`, or `never` when the tool declares no parameter at all
      if (at(key) !== undefined && (at(key)?.message === UNEXPECTED || !Object.hasOwn(schema.properties, key))) {
        return names.length === 0
          ? `unknown parameter '${key}': this tool takes no parameters`
          : `unknown parameter '${key}' (expected: ${names.join(", ")})`
      }
    }
    for (const key of required) {
      if (at(key)?.message === MISSING) return `missing required parameter '${key}'`
    }
    for (const key of Object.keys(params)) {
      const problem = at(key)
      if (problem === undefined) continue
      const nested = problem.path.length > 1
      const property = schema.properties[key]
      return `parameter '${pathText(problem.path)}' ${
        nested
          ? `is invalid: ${problem.message}`
          : reword(problem.message, Predicate.isObject(property) ? property : undefined)
      }`
    }
    const [first] = problems
    return first === undefined
      ? "invalid parameters"
      : `parameter '${pathText(first.path)}' is invalid: ${first.message}`
  }
}
