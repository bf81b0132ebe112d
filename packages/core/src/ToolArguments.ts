/**
 * The arguments of a tool call, checked before the handler runs. A model's arguments are hostile
 * input like any other: they may be malformed JSON, `null`, an array, huge, deeply nested, or miss
 * and mistype fields. `check` bounds their size and depth, then validates them against the tool's
 * own JSON Schema, so a handler only ever sees an object its schema accepts. A mismatch is an
 * `InvalidArguments` naming each path and what was expected — written for the model, which can fix
 * its call.
 *
 * The JSON Schema becomes an Effect `Schema` (`SchemaRepresentation.fromJsonSchemaDocument`),
 * compiled once per parameters object. Its verdict is the rule; for the common schema (an object of
 * properties of one primitive type each) a plain check accepts the arguments the Schema accepts
 * without running it (a Schema decode runs a fiber of its own), and hands every other value to the
 * Schema. Regular-expression `pattern`s are not applied (a schema
 * from an upstream server could carry a catastrophic one; the handler still checks its input), and
 * parts of a schema Effect cannot translate (`if`/`then`, `contains`, ...) are left unchecked
 * rather than rejecting every call: the rest of the schema still applies.
 *
 * The executor runs `check` on every call of a catalog tool; the MCP gateway's `call_tool` can use
 * the same function.
 *
 * @since 0.2.0
 */
import { type JsonSchema, Predicate, Result } from "effect"

import { InvalidArguments } from "./Errors.js"
import * as Validators from "./internal/argumentValidators.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * Bounds on one call's arguments, checked before the schema.
 *
 * @since 0.2.0
 * @category models
 */
export interface Limits {
  /** Largest size, in characters of their JSON text (strings, keys, numbers and punctuation). */
  readonly maxSize: number
  /** Deepest nesting of objects and arrays; the arguments object itself is level 1. */
  readonly maxDepth: number
}

/**
 * The default bounds: 1,000,000 characters, 32 levels.
 *
 * @since 0.2.0
 * @category constructors
 */
export const defaultLimits: Limits = { maxSize: 1_000_000, maxDepth: 32 }

/**
 * One problem with the arguments: where (`items[2].name`, empty for the arguments as a whole) and
 * what was expected.
 *
 * @since 0.2.0
 * @category models
 */
export interface Issue {
  readonly path: string
  readonly message: string
}

// -----------------------------------------------------------------------------
// Checking
// -----------------------------------------------------------------------------

/**
 * Checks the arguments of one call of `tool` against its `parameters` (a JSON Schema whose root is
 * an object): within `limits`, an object, valid for the schema. A string holding a JSON object
 * (some models encode the arguments twice) is parsed first. Succeeds with the arguments object.
 *
 * @since 0.2.0
 * @category checking
 */
export const check = (
  tool: string,
  parameters: JsonSchema.JsonSchema,
  args: unknown,
  limits: Limits = defaultLimits
): Result.Result<Record<string, unknown>, InvalidArguments> => {
  const fail = (issues: ReadonlyArray<Issue>) => Result.fail(new InvalidArguments({ tool, issues }))
  let value = args
  if (typeof value === "string") {
    if (value.length > limits.maxSize) return fail([tooLarge(limits)])
    const parsed = parseJson(value)
    if (parsed === undefined) return fail([{ path: "", message: "Expected a JSON object, got text that is not JSON" }])
    value = parsed.value
  }
  const bound = measure(value, limits)
  if (bound !== undefined) return fail([bound])
  if (!Predicate.isObject(value) || Array.isArray(value)) {
    return fail([{ path: "", message: `Expected an object, got ${describe(value)}` }])
  }
  const issues = validatorOf(parameters)(value)
  return issues.length === 0 ? Result.succeed(value as Record<string, unknown>) : fail(issues)
}

const tooLarge = (limits: Limits): Issue => ({
  path: "",
  message: `Arguments larger than ${limits.maxSize.toLocaleString("en-US")} characters are refused`
})

/** The first bound `value` exceeds, walking it once and stopping as soon as one is exceeded. */
const measure = (value: unknown, limits: Limits): Issue | undefined => {
  let size = 0
  const stack: Array<readonly [unknown, number]> = [[value, 1]]
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as readonly [unknown, number] // non-empty
    if (typeof node === "string") size += node.length + 2
    else if (Array.isArray(node) || Predicate.isObject(node)) {
      if (depth > limits.maxDepth) {
        return { path: "", message: `Arguments nested deeper than ${limits.maxDepth} levels are refused` }
      }
      size += 2
      if (Array.isArray(node)) { for (const item of node) stack.push([item, depth + 1]) }
      else {
        for (const [key, item] of Object.entries(node)) {
          size += key.length + 4
          stack.push([item, depth + 1])
        }
      }
    } else size += String(node).length + 1
    if (size > limits.maxSize) return tooLarge(limits)
  }
  return undefined
}

const parseJson = (text: string): { readonly value: unknown } | undefined => {
  try {
    return { value: JSON.parse(text) }
  } catch {
    return undefined
  }
}

const describe = (value: unknown): string =>
  value === null ? "null" : Array.isArray(value) ? "an array" : typeof value === "string" ? "a string" : typeof value

// -----------------------------------------------------------------------------
// Validators, compiled once per schema
// -----------------------------------------------------------------------------

const validators = new WeakMap<object, Validators.Validator>()

/** The validator of a parameters schema, compiled on first use. */
const validatorOf = (parameters: JsonSchema.JsonSchema): Validators.Validator => {
  const cached = validators.get(parameters)
  if (cached !== undefined) return cached
  const full = Validators.schemaValidator(parameters)
  const quick = Validators.quickAcceptor(parameters)
  const validator: Validators.Validator = quick === undefined ? full : (value) => quick(value) ? [] : full(value)
  validators.set(parameters, validator)
  return validator
}
