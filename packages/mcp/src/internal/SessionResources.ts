/**
 * One gateway session's resources and prompts: `resources/list`, `resources/templates/list`,
 * `resources/read`, `resources/subscribe` and `unsubscribe`, `prompts/list` and `prompts/get`,
 * served from the resource catalog through the visibility and permission policies, and forwarded
 * to the upstream each resource came from. Also the `resource_link`s of upstream tool results,
 * rewritten to the URIs this session reads them by and remembered, so a link to a resource no
 * listing holds is readable in the session that received it; and the notifications: list changes
 * (coalesced, only when what the client listed changed) and updates of its own subscriptions.
 *
 * Everything a client sends is decoded and bounded first; a resource the policy hides answers as
 * one that does not exist; every upstream answer is decoded and bounded (`maxResourceBytes`).
 *
 * @internal
 */
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js"
import type { Permission, Resource, ResourceCatalog, Visibility } from "@tool-search/core"
import { Duration, Effect, Exit, Schema, Scope, Stream } from "effect"
import type { Resources as Upstream } from "../McpSources.js"
import type * as McpTool from "../McpTool.js"
import * as QualifiedUri from "../QualifiedUri.js"
import * as JsonBounds from "./JsonBounds.js"
import * as Listing from "./ResourceListing.js"
import { because, error, invalid, ok, type Reply, type Traced, upstreamError } from "./SessionReplies.js"
import * as Replies from "./SessionReplies.js"

/** The settings a session's resources apply. */
export interface Settings {
  readonly maxResourceBytes: number
  readonly maxSubscriptions: number
  readonly maxArgumentBytes: number
  readonly maxArgumentDepth: number
  readonly listChangedDelay: Duration.Input
  readonly readTimeout: Duration.Input
}

/** What a session's resources work with. */
export interface Dependencies {
  readonly catalog: ResourceCatalog.Service
  readonly upstream: Upstream | undefined
  /** The upstream servers' names, to name the qualified URIs of a URI several of them list. */
  readonly servers: ReadonlyArray<string>
  readonly visibility: Visibility.Visibility
  readonly permission: Permission.Permission
  readonly settings: Settings
}

/** How the session tells its client. */
export interface Notify {
  readonly resourcesChanged: () => Promise<void>
  readonly promptsChanged: () => Promise<void>
  readonly updated: (uri: string) => Promise<void>
  /** The catalog changed: the session's tool list may have too (the resource tools). */
  readonly changed: Effect.Effect<void>
}

export type { Reply, Traced }

/** The methods served here. */
export const METHODS: ReadonlySet<string> = new Set([
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "resources/subscribe",
  "resources/unsubscribe",
  "prompts/list",
  "prompts/get"
])

/** Links remembered per session; the least recently received go first. */
const MAX_LINKS = 1_000
/** The MCP error code of a resource that does not exist. */
const RESOURCE_NOT_FOUND = -32002

const UriParams = Schema.Struct({ uri: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(2_048)) })
const PromptParams = Schema.Struct({
  name: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(2_048)),
  arguments: Schema.optionalKey(
    Schema.NullOr(Schema.Record(Schema.String, Schema.String).check(Schema.isMaxProperties(32)))
  )
})

/** Where a read goes: an upstream server (by its URI), or the catalog entry's own reader. */
type Target =
  | { readonly _tag: "Upstream"; readonly server: string; readonly uri: string }
  | { readonly _tag: "Local"; readonly entry: ResourceCatalog.Entry }

/** A session's resources, in the session's scope. */
export const make = (deps: Dependencies) =>
  Effect.gen(function*() {
    const { catalog, permission, settings, upstream, visibility } = deps
    const scope = yield* Scope.Scope
    const links = new Map<string, { readonly server: string; readonly uri: string }>()
    const subscriptions = new Map<string, { readonly target: Target; readonly scope: Scope.Closeable }>()
    // what the client was last told, once it listed
    const known: { resources?: string; prompts?: string } = {}

    const listing = Listing.of(catalog, visibility)
    const permitted = (e: ResourceCatalog.Entry) => permission.allows({ id: e.uri, name: e.name, source: e.source })
    const notFound = (uri: string) => {
      // a URI several servers list is read by one of its qualified URIs: say which
      const candidates = deps.servers.map((s) => QualifiedUri.qualify(s, uri)).filter((q) => {
        const entry = catalog.getUnsafe(q)
        return entry !== undefined && visibility.includes(entry)
      })
      const shown = uri.slice(0, 200)
      return because(
        candidates.length === 0
          ? error(RESOURCE_NOT_FOUND, `Resource not found: ${shown}`, { uri: uri.slice(0, 2_048) })
          : error(
            RESOURCE_NOT_FOUND,
            `Resource not found: ${shown} is listed by several servers; read one of ${candidates.join(", ")}`,
            { uri: uri.slice(0, 2_048), candidates }
          ),
        "not-found"
      )
    }
    const notPermitted = (uri: string) =>
      because(invalid(`Resource '${uri.slice(0, 200)}' is not permitted for this client`), "not-permitted")

    /** Checks a catalog entry a client URI resolved to. */
    const check = (entry: ResourceCatalog.Entry, uri: string): Reply | undefined =>
      !visibility.includes(entry)
        ? notFound(uri)
        : entry.prompt !== undefined
        ? invalid(`'${uri.slice(0, 200)}' is a prompt: get it with prompts/get {"name": "${entry.name}"}`)
        : entry.template && entry.uri === uri
        ? invalid(`'${uri.slice(0, 200)}' is a URI template: read a concrete URI that matches it`)
        : !permitted(entry)
        ? notPermitted(uri)
        : undefined

    /** Where a client URI is read from, or why it cannot be. */
    const target = (uri: string): Target | Reply => {
      const entry = catalog.resolveUnsafe(uri)
      if (entry !== undefined) {
        const refused = check(entry, uri)
        if (refused !== undefined) return refused
        const origin = upstream?.origin(entry.uri)
        return origin?._tag === "Resource"
          ? { _tag: "Upstream", server: origin.server, uri: QualifiedUri.originalFor(origin.server, uri) }
          : { _tag: "Local", entry }
      }
      // a server's qualified URI for a resource listed in its own form reads it too
      const parts = QualifiedUri.parse(uri)
      const alias = parts === undefined ? undefined : catalog.resolveUnsafe(parts.uri)
      if (parts !== undefined && alias !== undefined && upstream?.origin(alias.uri)?.server === parts.server) {
        return check(alias, parts.uri) ?? { _tag: "Upstream", server: parts.server, uri: parts.uri }
      }
      // a link an upstream tool gave this session, to a resource no listing holds
      const link = links.get(uri)
      if (link === undefined) return notFound(uri)
      return permission.allows({ id: uri, name: uri, source: link.server })
        ? { _tag: "Upstream", server: link.server, uri: link.uri }
        : notPermitted(uri)
    }

    /** A reply no source answered (refused before any read). */
    const untraced = (reply: Reply): Effect.Effect<Traced> => Effect.succeed({ reply, source: null })
    /** A reply `source` answered. */
    const traced = (source: string | null, reply: Effect.Effect<Reply>): Effect.Effect<Traced> =>
      Effect.map(reply, (r) => ({ reply: r, source }))

    // -------------------------------------------------------------------------
    // resources/read
    // -------------------------------------------------------------------------

    const read = (params: unknown): Effect.Effect<Traced> =>
      Effect.suspend(() => {
        const input = Schema.decodeUnknownOption(UriParams)(params)
        if (input._tag === "None") return untraced(invalid("resources/read needs {\"uri\": \"...\"}"))
        const uri = input.value.uri
        const where = target(uri)
        if (where._tag === "Ok" || where._tag === "Error") return untraced(where)
        return where._tag === "Upstream"
          ? traced(where.server, Replies.readUpstream(upstream as Upstream, settings, where.server, where.uri, uri))
          : traced(where.entry.source ?? null, Replies.readLocal(settings, where.entry, uri))
      })

    // -------------------------------------------------------------------------
    // Subscriptions
    // -------------------------------------------------------------------------

    const subscribe = (params: unknown) =>
      Effect.gen(function*() {
        const input = Schema.decodeUnknownOption(UriParams)(params)
        if (input._tag === "None") return invalid("resources/subscribe needs {\"uri\": \"...\"}")
        const uri = input.value.uri
        if (subscriptions.has(uri)) return ok({})
        if (subscriptions.size >= settings.maxSubscriptions) {
          return invalid(`at most ${settings.maxSubscriptions} subscriptions per session (maxSubscriptions)`)
        }
        const where = target(uri)
        if (where._tag === "Ok" || where._tag === "Error") return where
        const own = yield* Scope.fork(scope)
        if (where._tag === "Upstream") {
          const done = yield* Effect.result(
            (upstream as Upstream).subscribe(where.server, where.uri).pipe(Scope.provide(own))
          )
          if (done._tag === "Failure") {
            yield* Scope.close(own, Exit.void)
            return upstreamError(done.failure)
          }
        }
        subscriptions.set(uri, { target: where, scope: own })
        return ok({})
      })

    const unsubscribe = (params: unknown) =>
      Effect.gen(function*() {
        const input = Schema.decodeUnknownOption(UriParams)(params)
        if (input._tag === "None") return invalid("resources/unsubscribe needs {\"uri\": \"...\"}")
        const subscription = subscriptions.get(input.value.uri)
        subscriptions.delete(input.value.uri)
        if (subscription !== undefined) yield* Scope.close(subscription.scope, Exit.void)
        return ok({})
      })

    // -------------------------------------------------------------------------
    // Prompts
    // -------------------------------------------------------------------------

    const getPrompt = (params: unknown): Effect.Effect<Traced> =>
      Effect.gen(function*() {
        const exceeded = JsonBounds.exceeds(params, {
          maxBytes: settings.maxArgumentBytes,
          maxDepth: settings.maxArgumentDepth
        })
        if (exceeded !== undefined) {
          return {
            reply: invalid("prompts/get: the params are over maxArgumentBytes or maxArgumentDepth"),
            source: null
          }
        }
        const input = Schema.decodeUnknownOption(PromptParams)(params)
        if (input._tag === "None") {
          const usage = "prompts/get needs {\"name\": \"...\", \"arguments\": {\"argument\": \"text value\"}}"
          return { reply: invalid(usage), source: null }
        }
        const { name } = input.value
        const args = input.value.arguments ?? {}
        const entry = (yield* listing).promptByName.get(name)
        if (entry === undefined) {
          return { reply: because(invalid(`Unknown prompt '${name.slice(0, 200)}'`), "unknown"), source: null }
        }
        const refused = invalid(`Prompt '${name.slice(0, 200)}' is not permitted for this client`)
        if (!permitted(entry)) {
          return { reply: because(refused, "not-permitted"), source: entry.source ?? null }
        }
        const missing = (entry.prompt?.arguments ?? []).filter((a) => a.required && !(a.name in args))
        if (missing.length > 0) {
          return {
            source: entry.source ?? null,
            reply: invalid(
              `prompts/get '${name.slice(0, 200)}' needs the arguments ${missing.map((a) => a.name).join(", ")}`
            )
          }
        }
        const origin = upstream?.origin(entry.uri)
        return origin?._tag === "Prompt"
          ? yield* traced(origin.server, Replies.promptUpstream(upstream as Upstream, settings, origin, args, linked))
          : yield* traced(entry.source ?? null, Replies.promptLocal(settings, entry.prompt as Resource.Prompt, args))
      })

    // -------------------------------------------------------------------------
    // Links in upstream answers
    // -------------------------------------------------------------------------

    /** A content block with its resource URI as this session reads it; the link remembered. */
    const linked = (server: string, block: unknown): unknown => {
      if (upstream === undefined || typeof block !== "object" || block === null) return block
      const b = block as Record<string, unknown>
      const remember = (uri: string) => {
        const client = upstream.clientUri(server, uri)
        links.delete(client)
        links.set(client, { server, uri })
        if (links.size > MAX_LINKS) links.delete(links.keys().next().value as string)
        return client
      }
      if (b["type"] === "resource_link" && typeof b["uri"] === "string") return { ...b, uri: remember(b["uri"]) }
      const embedded = b["resource"]
      if (b["type"] === "resource" && typeof embedded === "object" && embedded !== null) {
        const r = embedded as Record<string, unknown>
        if (typeof r["uri"] === "string") return { ...b, resource: { ...r, uri: remember(r["uri"]) } }
      }
      return block
    }

    // -------------------------------------------------------------------------
    // Requests and notifications
    // -------------------------------------------------------------------------

    const listed = (params: unknown, kind: "resources" | "templates" | "prompts") =>
      Effect.map(listing, (l): Reply => {
        const items = kind === "resources" ? l.resources : kind === "templates" ? l.templates : l.prompts
        const field = kind === "templates" ? "resourceTemplates" : kind
        const answer = Listing.page(params, items, field)
        if (typeof answer === "string") return invalid(answer)
        if (kind === "prompts") known.prompts = l.promptsSignature
        else known.resources = l.resourcesSignature
        return ok(answer)
      })

    /** A request's reply; for `resources/read` and `prompts/get`, with the source that answered. */
    const handle = (method: string, params: unknown): Effect.Effect<Traced> =>
      method === "resources/read"
        ? read(params)
        : method === "prompts/get"
        ? getPrompt(params)
        : Effect.map(others(method, params), (reply) => ({ reply, source: null }))

    const others = (method: string, params: unknown): Effect.Effect<Reply> => {
      switch (method) {
        case "resources/list":
          return listed(params, "resources")
        case "resources/templates/list":
          return listed(params, "templates")
        case "resources/subscribe":
          return subscribe(params)
        case "resources/unsubscribe":
          return unsubscribe(params)
        case "prompts/list":
          return listed(params, "prompts")
        default:
          return Effect.succeed(error(ErrorCode.MethodNotFound, "Method not found"))
      }
    }

    const send = (promise: () => Promise<void>) => Effect.promise(() => promise().catch(() => undefined))

    /** Started at once in the session's scope: list changes (coalesced) and subscription updates. */
    const follow = (notify: Notify) =>
      Effect.gen(function*() {
        const delay = Duration.fromInputUnsafe(settings.listChangedDelay)
        yield* catalog.changes.pipe(
          Stream.runForEachArray((changes) =>
            Effect.gen(function*() {
              yield* notify.changed
              const l = yield* listing
              if (known.resources !== undefined && known.resources !== l.resourcesSignature) {
                known.resources = l.resourcesSignature
                yield* send(notify.resourcesChanged)
              }
              if (known.prompts !== undefined && known.prompts !== l.promptsSignature) {
                known.prompts = l.promptsSignature
                yield* send(notify.promptsChanged)
              }
              // a resource of another source, replaced: its subscribers are told
              const added = new Set(changes.flatMap((c) => c.added))
              for (const [uri, s] of subscriptions) {
                if (s.target._tag === "Local" && added.has(s.target.entry.uri)) yield* send(() => notify.updated(uri))
              }
              yield* Effect.sleep(delay)
            })
          ),
          Effect.forkIn(scope, { startImmediately: true })
        )
        if (upstream === undefined) return
        yield* upstream.updates.pipe(
          Stream.runForEach((update) =>
            Effect.forEach(
              [...subscriptions].filter(([, s]) =>
                s.target._tag === "Upstream" && s.target.server === update.server && s.target.uri === update.uri
              ),
              ([uri]) => send(() => notify.updated(uri)),
              { discard: true }
            )
          ),
          Effect.forkIn(scope, { startImmediately: true })
        )
      })

    return {
      handle,
      /** The result of an upstream tool, with its resource links rewritten and remembered. */
      links: (server: string, result: McpTool.CallToolResult): McpTool.CallToolResult =>
        upstream === undefined ? result : { ...result, content: result.content.map((block) => linked(server, block)) },
      follow
    }
  })

/** The session's resources. */
export type SessionResources = Effect.Success<ReturnType<typeof make>>
