/**
 * MCP resources, resource templates and prompts on the wire, decoded with `Schema`, and their
 * import into a `ResourceCatalog`: an upstream `resources/list` entry becomes a resource whose
 * reader calls `resources/read`, a `resources/templates/list` entry a template (a family of
 * resources) whose reader reads the concrete URI asked for, and a `prompts/list` entry a prompt
 * rendered by `prompts/get`. The catalog then discloses them in levels like any other resource.
 *
 * The import needs only a `Client` — two functions returning the server's raw answers — so it
 * works over any connection (the gateway's supervised upstreams, an SDK client, a test double).
 * Everything from the server is hostile until decoded: every listing entry is decoded on its own
 * (a bad one is reported and left out, never hiding the others), long names and descriptions are
 * shortened, every answer of `resources/read` and `prompts/get` is decoded, bounded in size and in
 * time, and every failure is a `ResourceReadError` naming the resource.
 *
 * A resource keeps its server's URI, so what a tool's `resource_link` points to is found by it;
 * its source is the server. A prompt's URI is `prompt://<server>/<name>`.
 *
 * @since 0.2.0
 */
import { Resource } from "@tool-search/core"
import { type Duration, Effect, Schema } from "effect"
import * as Reads from "./internal/resourceReads.js"
import * as McpTool from "./McpTool.js"

// -----------------------------------------------------------------------------
// Wire schemas
// -----------------------------------------------------------------------------

/**
 * One entry of `resources/list`, as far as the catalog uses it. Other fields are ignored.
 *
 * @since 0.2.0
 * @category schemas
 */
export const ResourceEntry = Schema.Struct({
  uri: Schema.String,
  name: Schema.String,
  title: Schema.optionalKey(Schema.NullOr(Schema.String)),
  description: Schema.optionalKey(Schema.NullOr(Schema.String)),
  mimeType: Schema.optionalKey(Schema.NullOr(Schema.String)),
  size: Schema.optionalKey(Schema.NullOr(Schema.Finite))
})

/**
 * One entry of `resources/templates/list`.
 *
 * @since 0.2.0
 * @category schemas
 */
export const TemplateEntry = Schema.Struct({
  uriTemplate: Schema.String,
  name: Schema.String,
  title: Schema.optionalKey(Schema.NullOr(Schema.String)),
  description: Schema.optionalKey(Schema.NullOr(Schema.String)),
  mimeType: Schema.optionalKey(Schema.NullOr(Schema.String))
})

/**
 * One entry of `prompts/list`.
 *
 * @since 0.2.0
 * @category schemas
 */
export const PromptEntry = Schema.Struct({
  name: Schema.String,
  title: Schema.optionalKey(Schema.NullOr(Schema.String)),
  description: Schema.optionalKey(Schema.NullOr(Schema.String)),
  arguments: Schema.optionalKey(Schema.NullOr(Schema.Array(Schema.Struct({
    name: Schema.String,
    description: Schema.optionalKey(Schema.NullOr(Schema.String)),
    required: Schema.optionalKey(Schema.NullOr(Schema.Boolean))
  }))))
})

/**
 * One page of `resources/list`. Entries stay raw so that one bad entry cannot hide the others.
 *
 * @since 0.2.0
 * @category schemas
 */
export const ListResourcesPage = Schema.Struct({
  resources: Schema.Array(Schema.Unknown),
  nextCursor: Schema.optionalKey(Schema.NullOr(Schema.String))
})

/**
 * One page of `resources/templates/list`.
 *
 * @since 0.2.0
 * @category schemas
 */
export const ListTemplatesPage = Schema.Struct({
  resourceTemplates: Schema.Array(Schema.Unknown),
  nextCursor: Schema.optionalKey(Schema.NullOr(Schema.String))
})

/**
 * One page of `prompts/list`.
 *
 * @since 0.2.0
 * @category schemas
 */
export const ListPromptsPage = Schema.Struct({
  prompts: Schema.Array(Schema.Unknown),
  nextCursor: Schema.optionalKey(Schema.NullOr(Schema.String))
})

/**
 * A `resources/read` result: text or base64 contents.
 *
 * @since 0.2.0
 * @category schemas
 */
export const ReadResult = Reads.ReadResult

/**
 * A `prompts/get` result. Message contents stay raw: text is kept, other blocks are described.
 *
 * @since 0.2.0
 * @category schemas
 */
export const GetPromptResult = Schema.Struct({
  description: Schema.optionalKey(Schema.NullOr(Schema.String)),
  messages: Schema.Array(Schema.Struct({
    role: Schema.Literals(["user", "assistant"]),
    content: Schema.Unknown
  }))
})

// -----------------------------------------------------------------------------
// Import
// -----------------------------------------------------------------------------

/**
 * How the import reaches the server: the raw answers of `resources/read` and `prompts/get`.
 *
 * @since 0.2.0
 * @category models
 */
export interface Client {
  readonly readResource: (uri: string) => Effect.Effect<unknown, { readonly message: string }>
  readonly getPrompt: (
    name: string,
    args: Readonly<Record<string, string>>
  ) => Effect.Effect<unknown, { readonly message: string }>
}

/**
 * How a server's resources and prompts join the catalog.
 *
 * @since 0.2.0
 * @category models
 */
export interface ImportOptions {
  /** The server's name: the source of everything imported. */
  readonly server: string
  readonly client: Client
  /** The kind of a resource (default `document`) and of a template (default `collection`). */
  readonly kind?: {
    readonly resource?: (entry: typeof ResourceEntry.Type) => string
    readonly template?: (entry: typeof TemplateEntry.Type) => string
  }
  /** Largest body a read may return, in characters or bytes (default 20,000,000). */
  readonly maxBodySize?: number
  /** How long one read or prompt rendering may take (default 30 seconds). */
  readonly timeout?: Duration.Input
  /** Which entries join the catalog, by name and URI (the server's `allow`/`deny`, as for its tools). */
  readonly filter?: McpTool.Filter
}

/**
 * A listing entry that cannot become a catalog resource; names the server, the entry and why.
 *
 * @since 0.2.0
 * @category errors
 */
export class InvalidServerResource extends Schema.TaggedError<InvalidServerResource>()("InvalidServerResource", {
  server: Schema.String,
  resource: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `MCP server '${this.server}' lists an unusable resource or prompt '${this.resource}': ${this.reason}`
  }
}

/**
 * What the three listings of one server gave: the usable resources, and one error per unusable
 * entry.
 *
 * @since 0.2.0
 * @category models
 */
export interface Imported {
  readonly resources: ReadonlyArray<Resource.Resource>
  readonly invalid: ReadonlyArray<InvalidServerResource>
}

/**
 * Imports a server's listings (each optional, all pages concatenated). Entries are independent: a
 * bad one is reported and left out, and so is a second entry with the same URI or prompt name.
 *
 * @since 0.2.0
 * @category import
 */
export const importAll = (
  listings: {
    readonly resources?: ReadonlyArray<unknown>
    readonly templates?: ReadonlyArray<unknown>
    readonly prompts?: ReadonlyArray<unknown>
  },
  options: ImportOptions
): Effect.Effect<Imported> =>
  Effect.gen(function*() {
    const resources: Array<Resource.Resource> = []
    const invalid: Array<InvalidServerResource> = []
    const uris = new Set<string>()
    const add = (
      result: { _tag: "Success"; success: Resource.Resource } | { _tag: "Failure"; failure: InvalidServerResource }
    ) => {
      if (result._tag === "Failure") return invalid.push(result.failure)
      if (!McpTool.passes(options.filter, result.success.name, result.success.uri)) return
      if (uris.has(result.success.uri)) {
        return invalid.push(
          new InvalidServerResource({
            server: options.server,
            resource: result.success.name,
            reason: "the server lists this URI or prompt name twice"
          })
        )
      }
      uris.add(result.success.uri)
      return resources.push(result.success)
    }
    for (const raw of listings.resources ?? []) add(yield* Effect.result(toResource(raw, options)))
    for (const raw of listings.templates ?? []) add(yield* Effect.result(toTemplate(raw, options)))
    for (const raw of listings.prompts ?? []) add(yield* Effect.result(toPrompt(raw, options)))
    return { resources, invalid }
  })

/**
 * Decodes one raw `resources/list` entry into a resource read through `resources/read`.
 *
 * @since 0.2.0
 * @category import
 */
export const toResource = (
  raw: unknown,
  options: ImportOptions
): Effect.Effect<Resource.Resource, InvalidServerResource> =>
  Effect.gen(function*() {
    const entry = yield* decodeEntry(ResourceEntry, raw, options)
    const size = entry.size !== undefined && entry.size !== null && Number.isSafeInteger(entry.size) && entry.size >= 0
      ? { size: entry.size }
      : {}
    return yield* checked(
      Resource.make({
        ...common(entry, options),
        uri: entry.uri,
        kind: options.kind?.resource?.(entry) ?? "document",
        ...size,
        read: Reads.reader(options)
      }),
      options
    )
  })

/**
 * Decodes one raw `resources/templates/list` entry into a template whose reader reads the concrete
 * URI the model asked for.
 *
 * @since 0.2.0
 * @category import
 */
export const toTemplate = (
  raw: unknown,
  options: ImportOptions
): Effect.Effect<Resource.Resource, InvalidServerResource> =>
  Effect.gen(function*() {
    const entry = yield* decodeEntry(TemplateEntry, raw, options)
    return yield* checked(
      Resource.template({
        ...common(entry, options),
        uri: entry.uriTemplate,
        kind: options.kind?.template?.(entry) ?? "collection",
        read: Reads.reader(options)
      }),
      options
    )
  })

/**
 * Decodes one raw `prompts/list` entry into a prompt rendered through `prompts/get`.
 *
 * @since 0.2.0
 * @category import
 */
export const toPrompt = (
  raw: unknown,
  options: ImportOptions
): Effect.Effect<Resource.Resource, InvalidServerResource> =>
  Effect.gen(function*() {
    const entry = yield* decodeEntry(PromptEntry, raw, options)
    const uri = `prompt://${encodeURIComponent(options.server)}/${encodeURIComponent(entry.name)}`
    const { description, title } = common(entry, options)
    return yield* checked(
      Resource.prompt({
        uri,
        name: entry.name,
        source: options.server,
        ...(title === undefined ? {} : { title }),
        ...(description === undefined ? {} : { description }),
        arguments: (entry.arguments ?? []).map((a) => ({
          name: a.name,
          required: a.required === true,
          ...(typeof a.description === "string" ? { description: shorten(a.description, 1_000) } : {})
        })),
        render: (args) =>
          Reads.guard(uri, options, options.client.getPrompt(entry.name, args), GetPromptResult).pipe(
            Effect.map((result) => ({
              ...(typeof result.description === "string" ? { description: result.description } : {}),
              messages: result.messages.map((m) => ({ role: m.role, text: Reads.contentText(m.content) }))
            }))
          )
      }),
      options
    )
  })

// -----------------------------------------------------------------------------
// Internals
// -----------------------------------------------------------------------------

const MAX_NAME = Resource.limits.name
const MAX_DESCRIPTION = 2_000

const labelOf = (raw: unknown): string => {
  if (typeof raw !== "object" || raw === null) return "<unnamed>"
  const record = raw as Record<string, unknown>
  const label = [record["uri"], record["uriTemplate"], record["name"]].find((v) => typeof v === "string")
  return typeof label === "string" ? label.slice(0, 120) : "<unnamed>"
}

const decodeEntry = <S extends Schema.Decoder<unknown>>(schema: S, raw: unknown, options: ImportOptions) =>
  Schema.decodeUnknownEffect(schema)(raw).pipe(
    Effect.mapError((e) =>
      new InvalidServerResource({
        server: options.server,
        resource: labelOf(raw),
        reason: e.message.split("\n").slice(0, 3).join(" ")
      })
    )
  )

/** Name, title, description and MIME type, shortened to the catalog's bounds; the server as source. */
const common = (
  entry: {
    readonly name: string
    readonly title?: string | null
    readonly description?: string | null
    readonly mimeType?: string | null
  },
  options: ImportOptions
) => ({
  name: shorten(entry.name, MAX_NAME),
  source: options.server,
  ...(typeof entry.title === "string" && entry.title.trim() !== "" ? { title: shorten(entry.title, MAX_NAME) } : {}),
  ...(typeof entry.description === "string" ? { description: shorten(entry.description, MAX_DESCRIPTION) } : {}),
  ...(typeof entry.mimeType === "string" && entry.mimeType !== "" ? { mimeType: entry.mimeType } : {})
})

const checked = (resource: Resource.Resource, options: ImportOptions) =>
  Resource.validate(resource).pipe(
    Effect.mapError((e) => new InvalidServerResource({ server: options.server, resource: e.name, reason: e.reason }))
  )

const shorten = (text: string, max: number): string => text.length <= max ? text : `${text.slice(0, max - 1)}…`
