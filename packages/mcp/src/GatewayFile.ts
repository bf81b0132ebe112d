/**
 * The gateway's config file: the `mcpServers` object of MCP clients' configs as they write it
 * (Claude Desktop, Claude Code, Cursor: `command`, `args`, `env`, `cwd` for a server started as a
 * command; `url` and `headers` for a server over Streamable HTTP), with per-server options, and
 * the global settings next to it:
 *
 * ```json
 * {
 *   "mcpServers": {
 *     "memory": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"] },
 *     "github": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
 *                 "env": { "GITHUB_PERSONAL_ACCESS_TOKEN": "..." }, "deny": ["delete_*"], "prefix": "gh_" },
 *     "remote": { "url": "https://mcp.example.com/mcp", "headers": { "Authorization": "Bearer ..." },
 *                 "kind": "platform" }
 *   },
 *   "strict": true,
 *   "maxResults": 5
 * }
 * ```
 *
 * Every value is decoded with `Schema`, and every mistake is one line naming the file, the server
 * and the key (`gateway.json: mcpServers.memory: unknown key "comand"`). The global settings are
 * the keys of the settings tables given to `parse` (checked by the caller with `Setting.check`).
 *
 * @since 0.2.0
 */
import { Setting, ToolSearchConfig } from "@tool-search/core"
import { Predicate, Result, Schema } from "effect"
import * as GatewayConfig from "./GatewayConfig.js"
import { firstIssue } from "./internal/FirstIssue.js"
import * as Upstream from "./Upstream.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

const Names = Schema.Array(Schema.String)
const Seconds = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))

/**
 * One entry of `mcpServers`: the client format, plus the gateway's per-server options.
 *
 * @since 0.2.0
 * @category models
 */
export const ServerEntry = Schema.Struct({
  // the MCP client format
  type: Schema.optionalKey(Schema.Literals(["stdio", "http", "streamable-http", "sse"])),
  command: Schema.optionalKey(Schema.String),
  args: Schema.optionalKey(Names),
  env: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)),
  cwd: Schema.optionalKey(Schema.String),
  url: Schema.optionalKey(Schema.String),
  headers: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)),
  disabled: Schema.optionalKey(Schema.Boolean),
  // the gateway's options
  loading: Schema.optionalKey(Schema.Literals(["deferred", "eager"])),
  alwaysLoad: Schema.optionalKey(Names),
  allow: Schema.optionalKey(Names),
  deny: Schema.optionalKey(Names),
  kind: Schema.optionalKey(Schema.Literals(["connected", "platform"])),
  prefix: Schema.optionalKey(Schema.String),
  category: Schema.optionalKey(Schema.String),
  callTimeout: Schema.optionalKey(Seconds),
  connectTimeout: Schema.optionalKey(Seconds)
})

/**
 * A decoded entry of `mcpServers`.
 *
 * @since 0.2.0
 * @category models
 */
export type ServerEntry = typeof ServerEntry.Type

/** The keys an entry may have, for the message about an unknown one. */
const entryKeys = Object.keys(ServerEntry.fields)

/**
 * What a config file describes: the servers, and the global settings (raw, keyed by setting key).
 *
 * @since 0.2.0
 * @category models
 */
export interface GatewayFile {
  readonly servers: ReadonlyArray<Upstream.Input>
  readonly settings: Readonly<Record<string, unknown>>
}

/**
 * A config file that cannot be used; the message is one line naming the file and the place.
 *
 * @since 0.2.0
 * @category errors
 */
export class InvalidGatewayFile extends Schema.TaggedError<InvalidGatewayFile>()("InvalidGatewayFile", {
  file: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `${this.file}: ${this.reason}`
  }
}

// -----------------------------------------------------------------------------
// Parsing
// -----------------------------------------------------------------------------

/**
 * The tables whose keys a file may hold next to `mcpServers`.
 *
 * @since 0.2.0
 * @category settings
 */
export const tables: ReadonlyArray<Setting.Table> = [ToolSearchConfig.settings, GatewayConfig.settings]

/**
 * A setting that is gone, and the one to use instead.
 *
 * @since 0.2.0
 * @category models
 */
export interface Retired {
  readonly key: string
  readonly env: string
  readonly flag: string
  readonly now: Setting.Any
  readonly why: string
}

/**
 * The gateway settings that are gone. `parse` refuses an old key, and `tool-search serve` an old
 * variable, naming the setting to use instead.
 *
 * @since 0.2.0
 * @category parsing
 */
export const retired: ReadonlyArray<Retired> = [{
  key: "minRelativeScore",
  env: "TOOL_SEARCH_MIN_RELATIVE_SCORE",
  flag: "min-relative-score",
  now: ToolSearchConfig.settings.minScoreRatio,
  why: "search hits are now left out by the agent's rule, a share of the best hit's strength; docs/configuration.md"
}]

/**
 * The one-line error for a retired setting, spelled as a file key, a variable or a flag.
 *
 * @since 0.2.0
 * @category parsing
 */
export const retiredError = (r: Retired, as: "key" | "env" | "flag"): string => {
  const name = (s: { readonly key: string; readonly env: string; readonly flag: string }) =>
    as === "key" ? `"${s.key}"` : as === "env" ? s.env : `--${s.flag}`
  return `${name(r)} is no longer a setting: use ${name(r.now)} (${r.why})`
}

/** One entry as an upstream; `undefined` for a disabled one. */
const toUpstream = (
  name: string,
  entry: ServerEntry,
  fail: (reason: string) => InvalidGatewayFile
): Result.Result<Upstream.Input | undefined, InvalidGatewayFile> => {
  const at = `mcpServers.${name}`
  if (entry.disabled === true) return Result.succeed(undefined)
  if (!Upstream.NAME_PATTERN.test(name)) {
    return Result.fail(fail(`${at}: the server name must match ${Upstream.NAME_PATTERN.source}`))
  }
  if (entry.type === "sse") {
    return Result.fail(fail(`${at}: the SSE transport is not supported: use the server's Streamable HTTP URL`))
  }
  if ((entry.command === undefined) === (entry.url === undefined)) {
    return Result.fail(fail(`${at}: give either "command" (a server started as a command) or "url"`))
  }
  const local = ["command", "args", "env", "cwd"] as const
  const remote = ["url", "headers"] as const
  const misplaced = entry.url !== undefined
    ? local.find((k) => entry[k] !== undefined)
    : remote.find((k) => entry[k] !== undefined)
  if (misplaced !== undefined) {
    return Result.fail(fail(`${at}: "${misplaced}" does not go with "${entry.url !== undefined ? "url" : "command"}"`))
  }
  if (entry.url !== undefined && !URL.canParse(entry.url)) {
    return Result.fail(fail(`${at}.url: not a valid URL: ${entry.url}`))
  }
  const transport: Upstream.Transport = entry.url !== undefined
    ? Upstream.http(entry.url, entry.headers)
    : Upstream.stdio(entry.command ?? "", entry.args ?? [], {
      ...(entry.env === undefined ? {} : { env: entry.env }),
      ...(entry.cwd === undefined ? {} : { cwd: entry.cwd })
    })
  return Result.succeed({
    name,
    transport,
    ...(entry.kind === undefined ? {} : { kind: entry.kind }),
    ...(entry.loading === undefined ? {} : { loading: entry.loading }),
    ...(entry.category === undefined ? {} : { category: entry.category }),
    ...(entry.prefix === undefined ? {} : { prefix: entry.prefix }),
    ...(entry.alwaysLoad === undefined ? {} : { alwaysLoad: entry.alwaysLoad }),
    ...(entry.allow === undefined && entry.deny === undefined ? {} : {
      filter: {
        ...(entry.allow === undefined ? {} : { allow: entry.allow }),
        ...(entry.deny === undefined ? {} : { deny: entry.deny })
      }
    }),
    ...(entry.callTimeout === undefined ? {} : { callTimeout: `${entry.callTimeout} seconds` }),
    ...(entry.connectTimeout === undefined ? {} : { connectTimeout: `${entry.connectTimeout} seconds` })
  })
}

/**
 * Parses the text of a config file named `file` (the name is only used in errors). The global
 * settings are returned raw: check them with `Setting.check` so that their errors name the key.
 * `known` are the tables whose keys the file may set (a command with settings of its own adds them).
 *
 * @since 0.2.0
 * @category parsing
 */
export const parse = (
  file: string,
  text: string,
  known: ReadonlyArray<Setting.Table> = tables
): Result.Result<GatewayFile, InvalidGatewayFile> => {
  const fail = (reason: string) => new InvalidGatewayFile({ file, reason })
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    return Result.fail(fail(`not valid JSON: ${error instanceof Error ? error.message : String(error)}`))
  }
  if (!Predicate.isObject(json)) return Result.fail(fail("expected a JSON object with \"mcpServers\""))
  const { mcpServers, ...settings } = json
  if (!Predicate.isObject(mcpServers)) return Result.fail(fail("\"mcpServers\" must be an object of servers by name"))
  const keys = known.flatMap((t) => Object.values(t).map((s) => s.key))
  const unknown = Object.keys(settings).filter((k) => !keys.includes(k))
  const old = retired.find((r) => unknown.includes(r.key))
  if (old !== undefined) return Result.fail(fail(retiredError(old, "key")))
  if (unknown[0] !== undefined) {
    const guess = Setting.closestKey(unknown[0], keys)
    return Result.fail(
      fail(
        `unknown key "${unknown[0]}": next to "mcpServers" go the settings (docs/configuration.md)${
          guess === undefined ? "" : `; did you mean "${guess}"?`
        }`
      )
    )
  }
  const servers: Array<Upstream.Input> = []
  for (const [name, raw] of Object.entries(mcpServers)) {
    const at = `mcpServers.${name}`
    if (!Predicate.isObject(raw)) return Result.fail(fail(`${at}: expected an object`))
    const extra = Object.keys(raw).find((k) => !entryKeys.includes(k))
    if (extra !== undefined) {
      const guess = Setting.closestKey(extra, entryKeys)
      return Result.fail(
        fail(
          `${at}: unknown key "${extra}"${
            guess === undefined ? `; a server takes ${entryKeys.join(", ")}` : ` (did you mean "${guess}"?)`
          }`
        )
      )
    }
    const decoded = Schema.decodeUnknownResult(ServerEntry)(raw)
    if (Result.isFailure(decoded)) return Result.fail(fail(firstIssue(at, raw, decoded.failure.issue)))
    const upstream = toUpstream(name, decoded.success, fail)
    if (Result.isFailure(upstream)) return Result.fail(upstream.failure)
    if (upstream.success !== undefined) servers.push(upstream.success)
  }
  return Result.succeed({ servers, settings })
}
