/**
 * Who a bearer token belongs to, and what that principal may do through the HTTP gateway: the
 * tokens file (`authTokenFile`) maps each token to a principal with its own policy.
 *
 * The file is either one token per line (each token its own principal, `token-1`, `token-2`, …,
 * with the gateway's defaults), or a JSON object of principals by name:
 *
 * ```json
 * {
 *   "principals": {
 *     "ci": { "tokens": ["…"], "servers": ["github"], "deny": ["delete_*"], "maxSessions": 5, "maxCalls": 4 },
 *     "alice": { "tokens": ["…", "…"], "allow": ["read_*", "search_*"], "shareFeedback": true }
 *   }
 * }
 * ```
 *
 * - `servers`: the upstream servers whose tools, resources and prompts the principal sees and may
 *   use (default: all); the others do not exist for its sessions — not listed, not found, not
 *   callable, exactly as strict mode hides a tool.
 * - `allow` / `deny`: tool names or patterns with `*` (the name the client sees, or the name the
 *   server declares), `allow` first, then `deny`; the search tools always stay.
 * - `maxSessions`, `maxCalls`: the principal's quotas (default `maxPrincipalSessions`,
 *   `maxPrincipalCalls`): a new session beyond its quota evicts the principal's own idlest session,
 *   never another principal's; its calls beyond the quota wait, then are refused.
 * - `shareFeedback`: whether its successful calls improve the search ranking of everyone
 *   (default `shareFeedback`).
 *
 * Every value is decoded with `Schema`; a mistake is one line naming the file and the place, never
 * a token.
 *
 * @since 0.3.0
 */
import { Disclosure, type Permission, type Visibility } from "@tool-search/core"
import { Predicate, Redacted, Result, Schema } from "effect"
import { firstIssue } from "./internal/FirstIssue.js"
import * as McpTool from "./McpTool.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

const Names = Schema.Array(Schema.String.check(Schema.isMinLength(1)))
const Count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))

/**
 * What one principal may see and use.
 *
 * @since 0.3.0
 * @category models
 */
export const Policy = Schema.Struct({
  servers: Schema.optionalKey(Names),
  allow: Schema.optionalKey(Names),
  deny: Schema.optionalKey(Names),
  maxSessions: Schema.optionalKey(Count),
  maxCalls: Schema.optionalKey(Count),
  shareFeedback: Schema.optionalKey(Schema.Boolean)
})

/**
 * A decoded policy.
 *
 * @since 0.3.0
 * @category models
 */
export type Policy = typeof Policy.Type

const Entry = Schema.Struct({
  tokens: Schema.Array(Schema.String.check(Schema.isMinLength(16))).check(Schema.isMinLength(1)),
  ...Policy.fields
})

const File = Schema.Struct({ principals: Schema.Record(Schema.String, Entry) })

/**
 * A principal: its name (in logs and the audit trail), its tokens and its policy.
 *
 * @since 0.3.0
 * @category models
 */
export interface Principal {
  readonly name: string
  readonly tokens: ReadonlyArray<Redacted.Redacted<string>>
  readonly policy: Policy
}

/**
 * The name of the one principal of a gateway without authentication, or of the variable's token.
 *
 * @since 0.3.0
 * @category constants
 */
export const ANONYMOUS = "anonymous"

/**
 * A principal holding every token of the list, with no policy of its own (the variable's token).
 *
 * @since 0.3.0
 * @category constructors
 */
export const make = (
  name: string,
  tokens: ReadonlyArray<Redacted.Redacted<string>>,
  policy: Policy = {}
): Principal => ({
  name,
  tokens,
  policy
})

/** A principal name: readable in a log line. */
const NAME = /^[A-Za-z0-9_.@-]{1,64}$/

// -----------------------------------------------------------------------------
// Parsing
// -----------------------------------------------------------------------------

/**
 * Parses the text of a tokens file named `file` (used in errors only): one token per line (`#`
 * starts a comment), or the JSON object of principals. Errors never include a token.
 *
 * @since 0.3.0
 * @category parsing
 */
export const parseFile = (file: string, text: string): Result.Result<ReadonlyArray<Principal>, string> => {
  const trimmed = text.trim()
  if (!trimmed.startsWith("{")) {
    const lines = trimmed.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== "" && !l.startsWith("#"))
    if (lines.length === 0) return Result.fail(`${file} holds no token`)
    return Result.succeed(lines.map((line, i) => make(`token-${i + 1}`, [Redacted.make(line)])))
  }
  let json: unknown
  try {
    json = JSON.parse(trimmed)
  } catch (error) {
    return Result.fail(`${file}: not valid JSON (${error instanceof Error ? error.message.slice(0, 80) : "?"})`)
  }
  if (Predicate.isObject(json)) {
    const extra = Object.keys(json).find((k) => k !== "principals")
    if (extra !== undefined) return Result.fail(`${file}: unknown key "${extra.slice(0, 60)}": expected "principals"`)
    const principals = json["principals"]
    if (Predicate.isObject(principals)) {
      for (const [name, entry] of Object.entries(principals)) {
        if (!NAME.test(name)) return Result.fail(`${file}: principals: the name must match ${NAME.source}`)
        const unknown = Predicate.isObject(entry) ? Object.keys(entry).find((k) => !(k in Entry.fields)) : undefined
        if (unknown !== undefined) {
          return Result.fail(
            `${file}: principals.${name}: unknown key "${unknown.slice(0, 60)}"; a principal takes ${
              Object.keys(Entry.fields).join(", ")
            }`
          )
        }
      }
    }
  }
  const decoded = Schema.decodeUnknownResult(File)(json)
  if (Result.isFailure(decoded)) return Result.fail(firstIssue(file, json, decoded.failure.issue, false))
  const all = Object.entries(decoded.success.principals).map(([name, { tokens, ...policy }]) =>
    make(name, tokens.map((t) => Redacted.make(t)), policy)
  )
  const tokens = all.flatMap((p) => p.tokens.map(Redacted.value))
  if (new Set(tokens).size !== tokens.length) return Result.fail(`${file}: a token is given to two principals`)
  if (all.length === 0) return Result.fail(`${file} holds no principal`)
  return Result.succeed(all)
}

// -----------------------------------------------------------------------------
// Policies
// -----------------------------------------------------------------------------

/** The meta tools a policy never hides. */
const META: ReadonlySet<string> = new Set([
  Disclosure.toolNames.toolSearch,
  Disclosure.toolNames.callTool,
  ...Object.values(Disclosure.toolNames).filter(Disclosure.isResourceTool)
])

/**
 * Whether the policy lets the principal see and use something of `source` named `names` (for a
 * tool: the name the client sees and the name the server declares; for a resource or prompt, none:
 * only `servers` applies). Something of no upstream server (a meta tool) is never hidden.
 *
 * @since 0.3.0
 * @category policies
 */
export const admits = (
  policy: Policy,
  servers: ReadonlySet<string>,
  subject: { readonly source?: string | undefined; readonly names: ReadonlyArray<string> }
): boolean => {
  if (subject.names.some((n) => META.has(n))) return true
  const source = subject.source
  if (source === undefined || !servers.has(source)) return true
  if (policy.servers !== undefined && !policy.servers.includes(source)) return false
  if (subject.names.length === 0 || (policy.allow === undefined && policy.deny === undefined)) return true
  const filter = {
    ...(policy.allow === undefined ? {} : { allow: policy.allow }),
    ...(policy.deny === undefined ? {} : { deny: policy.deny })
  }
  return subject.names.some((n) => McpTool.passes(filter, n))
}

/** Whether the policy restricts anything. */
const restricts = (policy: Policy): boolean =>
  policy.servers !== undefined || policy.allow !== undefined || policy.deny !== undefined

/**
 * `base`, narrowed to what the policy admits; `base` itself when the policy restricts nothing.
 *
 * @since 0.3.0
 * @category policies
 */
export const visibility = (
  base: Visibility.Visibility,
  policy: Policy,
  servers: ReadonlySet<string>,
  declared: (id: string) => string | undefined
): Visibility.Visibility =>
  restricts(policy)
    ? {
      ...base,
      includes: (tool) =>
        base.includes(tool) &&
        admits(policy, servers, { source: tool.source, names: namesOf(tool, declared) })
    }
    : base

/**
 * `base`, narrowed to what the policy admits; `base` itself when the policy restricts nothing.
 *
 * @since 0.3.0
 * @category policies
 */
export const permission = (
  base: Permission.Permission,
  policy: Policy,
  servers: ReadonlySet<string>,
  declared: (id: string) => string | undefined
): Permission.Permission =>
  restricts(policy)
    ? {
      allows: (tool) =>
        base.allows(tool) &&
        admits(policy, servers, {
          source: tool.source,
          names: [
            tool.name,
            ...(tool.declaredName === undefined ? [] : [tool.declaredName]),
            ...(declared(tool.id) ?? [])
          ]
        })
    }
    : base

/** A tool's names for a policy; a resource or prompt (it has a URI) has none. */
const namesOf = (
  tool: Visibility.Subject,
  declared: (id: string) => string | undefined
): ReadonlyArray<string> => "uri" in tool ? [] : [tool.modelName, tool.name, ...optional(declared(tool.id))]

const optional = (name: string | undefined): ReadonlyArray<string> => name === undefined ? [] : [name]
