/**
 * Matching concrete URIs against RFC 6570 URI templates, for resource families: `{var}` is one
 * path segment, `{+var}` and `{#var}` any text, `{/var}` path segments, `{.var}` dot labels, and
 * `{?var}`, `{&var}`, `{;var}` a query or parameters. The template is compiled to an RE2 pattern
 * (linear time whatever the template or the URI), anchored at both ends; literals match exactly.
 *
 * @internal
 */
import { RE2JS } from "re2js"

/** Most expressions a template may hold. */
export const MAX_EXPRESSIONS = 16

/** A compiled template. */
export interface Matcher {
  readonly matches: (uri: string) => boolean
}

const SEGMENT = "[^/?#]*"
const EXPANSIONS: Readonly<Record<string, string>> = {
  "": SEGMENT,
  "+": "[^#]*",
  "#": "(?:#.*)?",
  "/": "(?:/[^/?#]*)*",
  ".": "(?:\\.[^/?#.]*)*",
  ";": "(?:;[^/?#]*)*",
  "?": "(?:\\?[^#]*)?",
  "&": "(?:&[^#]*)?"
}
const VARIABLE = /^[A-Za-z0-9_%.]+(?::[1-9][0-9]{0,3}|\*)?$/

/** Whether `uri` contains a template expression. */
export const isTemplate = (uri: string): boolean => /\{[^}]*\}/.test(uri)

/** Compiles `template`, or says why it is not a valid template. */
export const compile = (template: string): Matcher | string => {
  let pattern = ""
  let count = 0
  let at = 0
  while (at < template.length) {
    const open = template.indexOf("{", at)
    const close = template.indexOf("}", at)
    if (close >= 0 && (open < 0 || close < open)) return "a '}' without its '{'"
    if (open < 0) {
      pattern += RE2JS.quote(template.slice(at))
      break
    }
    pattern += RE2JS.quote(template.slice(at, open))
    const end = template.indexOf("}", open)
    if (end < 0) return "a '{' without its '}'"
    const body = template.slice(open + 1, end)
    const operator = body.length > 0 && "+#/.;?&".includes(body[0] as string) ? (body[0] as string) : ""
    const variables = body.slice(operator.length).split(",")
    if (variables.some((v) => !VARIABLE.test(v))) return `'{${body.slice(0, 40)}}' is not a template expression`
    if (++count > MAX_EXPRESSIONS) return `more than ${MAX_EXPRESSIONS} expressions`
    pattern += EXPANSIONS[operator] ?? SEGMENT
    at = end + 1
  }
  if (count === 0) return "no '{...}' expression"
  try {
    const compiled = RE2JS.compile(pattern)
    return { matches: (uri) => compiled.matches(uri) }
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
}
