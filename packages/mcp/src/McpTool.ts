/**
 * MCP tools on the wire, decoded with `Schema`, and the two conversions between them and catalog
 * tools: an upstream `tools/list` entry becomes a `CatalogTool` (import), and a catalog entry
 * becomes a `tools/list` entry again (the gateway).
 *
 * MCP names may hold characters providers reject (`files.read`, `get PM2.5`): the catalog name is
 * sanitized, the original name is kept as an alias (so a search for it still finds the tool) and
 * is what calls send to the server. The tool id is `server/original name`, unique across servers.
 *
 * @since 0.1.0
 */
import { CatalogTool, Disclosure, type ToolCatalog, ToolSpec } from "@tool-search/core"
import { Effect, type JsonSchema, Schema } from "effect"
import { InvalidServerTool } from "./McpError.js"

// -----------------------------------------------------------------------------
// Wire schemas
// -----------------------------------------------------------------------------

/**
 * MCP tool annotations (all hints are optional): core's wire schema, `ToolSpec.McpAnnotations`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Annotations = ToolSpec.McpAnnotations

/**
 * One entry of `tools/list`, as far as the catalog uses it. Other fields are ignored.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Tool = Schema.Struct({
  name: Schema.String,
  title: Schema.optionalKey(Schema.String),
  description: Schema.optionalKey(Schema.NullOr(Schema.String)),
  inputSchema: Schema.Record(Schema.String, Schema.Unknown),
  annotations: Schema.optionalKey(Annotations),
  execution: Schema.optionalKey(Schema.Struct({ taskSupport: Schema.optionalKey(Schema.String) }))
})

/**
 * A decoded MCP tool.
 *
 * @since 0.1.0
 * @category models
 */
export type Tool = typeof Tool.Type

/**
 * One page of `tools/list`. Tools stay raw here so that one bad tool cannot hide the others.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ListToolsPage = Schema.Struct({
  tools: Schema.Array(Schema.Unknown),
  nextCursor: Schema.optionalKey(Schema.NullOr(Schema.String))
})

/**
 * A `tools/call` result: checked for its required shape, then passed on as received (content
 * blocks, `structuredContent`, `isError`, `_meta` and any extension fields).
 *
 * @since 0.1.0
 * @category schemas
 */
export const CallToolResult = Schema.Struct({
  content: Schema.Array(Schema.Unknown),
  isError: Schema.optionalKey(Schema.Boolean)
})

/**
 * A `tools/call` result, as received.
 *
 * @since 0.1.0
 * @category models
 */
export interface CallToolResult {
  readonly content: ReadonlyArray<unknown>
  readonly isError?: boolean
  readonly [key: string]: unknown
}

// -----------------------------------------------------------------------------
// Import
// -----------------------------------------------------------------------------

/**
 * Where an imported tool comes from: the server and the tool's MCP name.
 *
 * @since 0.1.0
 * @category models
 */
export interface Origin {
  readonly server: string
  readonly tool: string
}

/**
 * How a server's tools join the catalog.
 *
 * @since 0.1.0
 * @category models
 */
export interface ImportOptions {
  readonly server: string
  readonly loading: CatalogTool.Loading
  readonly category: string
  /** Runs one call on the server under the tool's MCP name. */
  readonly handler: (origin: Origin) => CatalogTool.Handler
  /** Which of the server's tools join the catalog; default: all. */
  readonly filter?: Filter
  /** Put before every catalog name of the server's tools (`gh_` makes `create_issue` `gh_create_issue`). */
  readonly prefix?: string
  /** MCP names loaded eagerly whatever `loading` says. */
  readonly alwaysLoad?: ReadonlyArray<string>
}

/**
 * Which tools, resources and prompts of a server join the catalogs, by name (and a resource's
 * URI): `allow` (default: everything) then `deny`. A pattern is a name, or a name with `*` standing
 * for any run of characters (`delete_*`); `deny: ["*"]` keeps everything of the server out.
 *
 * @since 0.2.0
 * @category models
 */
export interface Filter {
  readonly allow?: ReadonlyArray<string>
  readonly deny?: ReadonlyArray<string>
}

/**
 * Whether a filter lets an entry through, by any of its names (a tool's MCP name; a resource's
 * name and URI; a prompt's name): one of them matches `allow` (when given) and none matches `deny`.
 * The one rule for every kind a server offers — tools, resources, templates and prompts.
 *
 * @since 0.2.0
 * @category import
 */
export const passes = (filter: Filter | undefined, ...names: ReadonlyArray<string>): boolean => {
  if (filter === undefined) return true
  const matches = (patterns: ReadonlyArray<string>) =>
    patterns.some((p) => names.some((name) => globToRegExp(p).test(name)))
  return (filter.allow === undefined || matches(filter.allow)) && !(filter.deny !== undefined && matches(filter.deny))
}

const globToRegExp = (pattern: string): RegExp =>
  new RegExp(`^${pattern.split("*").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`, "s")

/**
 * The catalog name of a server's tool: its MCP name when providers accept it and nothing reserves
 * it; a reserved name qualified by the server; any other name sanitized (`CatalogTool.sanitizeName`,
 * its stem from the description when nothing of the name is readable). `prefix` comes first.
 *
 * @since 0.2.0
 * @category import
 */
export const catalogName = (
  tool: { readonly name: string; readonly description?: string | null | undefined },
  options: { readonly server: string; readonly prefix?: string }
): string => {
  const prefixed = `${options.prefix ?? ""}${tool.name}`
  // a meta tool's name is qualified by its server (`evil__call_tool`), like any collision
  if (Disclosure.isMetaTool(prefixed)) return CatalogTool.sanitizeName(`${options.server}__${prefixed}`)
  return CatalogTool.sanitizeName(prefixed, { stem: tool.description ?? options.server })
}

/**
 * The catalog id of an imported tool.
 *
 * @since 0.1.0
 * @category import
 */
export const idOf = (origin: Origin): string => `${origin.server}/${origin.tool}`

/**
 * Decodes one raw `tools/list` entry and turns it into a catalog tool, or says why it cannot be one.
 *
 * @since 0.1.0
 * @category import
 */
export const toCatalogTool = (
  raw: unknown,
  options: ImportOptions
): Effect.Effect<CatalogTool.CatalogTool, InvalidServerTool> =>
  Effect.gen(function*() {
    const label = typeof raw === "object" && raw !== null && "name" in raw && typeof raw.name === "string"
      ? raw.name
      : "<unnamed>"
    const invalid = (reason: string) => new InvalidServerTool({ server: options.server, tool: label, reason })
    const tool = yield* Schema.decodeUnknownEffect(Tool)(raw).pipe(Effect.mapError((e) => invalid(e.message)))
    if (tool.name.trim() === "") return yield* invalid("the name is empty")
    const name = catalogName(tool, options)
    // a prefix is the operator's choice, not a rewrite: only a changed declared name is one
    const declared = `${options.prefix ?? ""}${tool.name}`
    if (tool.execution?.taskSupport === "required") {
      return yield* invalid("it can only run as an MCP task, which tool-search does not support")
    }
    const origin: Origin = { server: options.server, tool: tool.name }
    const a = tool.annotations
    const title = tool.title ?? a?.title
    const candidate = CatalogTool.make({
      id: idOf(origin),
      name,
      ...(name === declared ? {} : { originalName: declared }),
      description: tool.description ?? title ?? "",
      parameters: tool.inputSchema as JsonSchema.JsonSchema,
      loading: options.alwaysLoad?.includes(tool.name) === true ? "eager" : options.loading,
      category: options.category,
      source: options.server,
      aliases: name === tool.name ? [] : [tool.name],
      annotations: {
        ...Schema.decodeSync(ToolSpec.AnnotationsFromMcp)(a ?? {}),
        ...(title === undefined ? {} : { title })
      },
      handler: options.handler(origin)
    })
    return yield* CatalogTool.validate(candidate).pipe(Effect.mapError((e) => invalid(e.reason)))
  })

/**
 * The outcome of importing one listing: the usable tools, and one error per unusable tool.
 *
 * @since 0.1.0
 * @category models
 */
export interface Imported {
  readonly tools: ReadonlyArray<CatalogTool.CatalogTool>
  readonly invalid: ReadonlyArray<InvalidServerTool>
}

/**
 * Imports a whole listing. Tools are independent: a bad one is reported and left out, and so is
 * a second tool with the same MCP name (the server could not tell them apart in calls either).
 *
 * @since 0.1.0
 * @category import
 */
export const importAll = (raws: ReadonlyArray<unknown>, options: ImportOptions): Effect.Effect<Imported> =>
  Effect.gen(function*() {
    const tools: Array<CatalogTool.CatalogTool> = []
    const invalid: Array<InvalidServerTool> = []
    const ids = new Set<string>()
    for (const raw of raws) {
      const named = typeof raw === "object" && raw !== null && "name" in raw && typeof raw.name === "string"
      if (named && !passes(options.filter, raw.name as string)) continue
      const result = yield* Effect.result(toCatalogTool(raw, options))
      if (result._tag === "Failure") {
        invalid.push(result.failure)
      } else if (ids.has(result.success.id)) {
        const tool = result.success.aliases[0] ?? result.success.name
        invalid.push(
          new InvalidServerTool({ server: options.server, tool, reason: "the server lists this name twice" })
        )
      } else {
        ids.add(result.success.id)
        tools.push(result.success)
      }
    }
    return { tools, invalid }
  })

// -----------------------------------------------------------------------------
// Export (the gateway)
// -----------------------------------------------------------------------------

/**
 * A `tools/list` entry as the gateway announces it.
 *
 * @since 0.1.0
 * @category models
 */
export interface ListedTool {
  readonly name: string
  readonly title?: string
  readonly description: string
  readonly inputSchema: { readonly type: "object"; readonly [key: string]: unknown }
  readonly annotations?: {
    readonly title?: string
    readonly readOnlyHint?: boolean
    readonly destructiveHint?: boolean
    readonly idempotentHint?: boolean
    readonly openWorldHint?: boolean
  }
}

/**
 * A tool the model sees, as a `tools/list` entry. Annotations carry over from the catalog entry.
 *
 * @since 0.1.0
 * @category wire
 */
export const toListed = (tool: {
  readonly name: string
  readonly description: string
  readonly parameters: JsonSchema.JsonSchema
  readonly entry?: ToolCatalog.Entry
}): ListedTool => {
  const a = tool.entry?.annotations ?? {}
  const annotations = Schema.encodeSync(ToolSpec.AnnotationsFromMcp)(a)
  return {
    name: tool.name,
    ...(a.title === undefined ? {} : { title: a.title }),
    description: tool.description,
    inputSchema: { ...tool.parameters, type: "object" },
    ...(Object.keys(annotations).length === 0 ? {} : { annotations })
  }
}
