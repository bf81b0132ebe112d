/**
 * The first issue of a failed decoding of a config file's value, in one line that names where it
 * is and what it held: `mcpServers.memory.args[1]: Expected string, got 2`.
 *
 * @internal
 */
import { Predicate, SchemaIssue } from "effect"

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/** The first issue of decoding `raw`, as `path: message, got <value>` (without the value when it may be a secret). */
export const firstIssue = (prefix: string, raw: unknown, issue: SchemaIssue.Issue, showValue = true): string => {
  const first = formatter(issue).issues[0]
  if (first === undefined) return prefix
  const keys = (first.path ?? []).map((p) => typeof p === "object" && p !== null && "key" in p ? p.key : p)
  const path = keys.map((p) => typeof p === "number" ? `[${p}]` : `.${String(p)}`).join("")
  let value: unknown = raw
  for (const key of keys) {
    value = Predicate.isObject(value) || Array.isArray(value)
      ? (value as never)[key as never]
      : undefined
  }
  const got = value === undefined || !showValue ? "" : `, got ${JSON.stringify(value)?.slice(0, 60)}`
  return `${prefix}${path}: ${first.message}${got}`
}
