/**
 * The resources and prompts of the upstream servers in a `ResourceCatalog`, for `McpSources`: each
 * server's listings imported (`McpResource`) as one catalog source named after it, re-listed on its
 * `list_changed`, and named so that URIs never collide — a URI claimed by one server keeps its
 * form, a URI claimed by two (or by another source of the catalog, or in the gateway's own
 * scheme) is qualified per server (`QualifiedUri`), and renaming happens in one serialized step
 * over every server, so no registration is refused for a collision that renaming resolves.
 *
 * Also what the gateway forwards: where a catalog resource came from, the URI a client should see
 * for a server's URI, reads and prompt renderings by server, and resource subscriptions counted
 * across sessions — the first subscriber subscribes upstream, the last one unsubscribes, a
 * reconnection subscribes again — with every `notifications/resources/updated` published.
 *
 * @internal
 */
import { type Resource, type ResourceCatalog } from "@tool-search/core"
import { Effect, PubSub, type Scope, Semaphore, Stream } from "effect"
import type { McpConnection } from "../McpConnection.js"
import { type CallError, ServerProtocolError } from "../McpError.js"
import * as McpResource from "../McpResource.js"
import type { Resources } from "../McpSources.js"
import * as QualifiedUri from "../QualifiedUri.js"
import type * as Upstream from "../Upstream.js"

/** Where a catalog resource came from: a server's resource or template (its URI), or its prompt (its name). */
export type Origin =
  | { readonly _tag: "Resource"; readonly server: string; readonly uri: string }
  | { readonly _tag: "Prompt"; readonly server: string; readonly name: string }

/** The three listings of one server, raw. */
export interface Listings {
  readonly resources: ReadonlyArray<unknown>
  readonly templates: ReadonlyArray<unknown>
  readonly prompts: ReadonlyArray<unknown>
}

/** A resource update from a server, by the server's URI. */
export interface Update {
  readonly server: string
  readonly uri: string
}

/** What the supervisors use, and what the gateway forwards through. */
export interface UpstreamResources {
  /** Registers a server's listings (raw); the entries that could not join. */
  readonly sync: (
    config: Upstream.Config,
    listed: Listings
  ) => Effect.Effect<ReadonlyArray<McpResource.InvalidServerResource>>
  /** Resources and prompts of a server in the catalog. */
  readonly count: (server: string) => number
  /** Removes a server's resources and prompts (it stopped or failed). */
  readonly drop: (server: string) => Effect.Effect<void>
  /** After a reconnection: subscribes again to what sessions are subscribed to on `server`. */
  readonly resubscribe: (server: string, connection: McpConnection) => Effect.Effect<void>
  /** Publishes one `notifications/resources/updated` of `server`. */
  readonly publish: (update: Update) => Effect.Effect<void>
  readonly origin: (catalogUri: string) => Origin | undefined
  readonly clientUri: (server: string, uri: string) => string
  readonly subscribe: (server: string, uri: string) => Effect.Effect<void, CallError, Scope.Scope>
  readonly updates: Stream.Stream<Update>
}

/** How a request reaches a server now: its open connection, or why there is none. */
export type ConnectionOf = (server: string, target: string) => Effect.Effect<McpConnection, CallError>

/** Builds the registry over `catalog` in the current scope. */
export const make = (
  catalog: ResourceCatalog.Service,
  servers: ReadonlyArray<string>,
  connectionOf: ConnectionOf
): Effect.Effect<UpstreamResources, never, Scope.Scope> =>
  Effect.gen(function*() {
    // Each server's imported resources, with the server's own URIs; changed only under `naming`.
    const listings = new Map<string, ReadonlyArray<Resource.Resource>>()
    const origins = new Map<string, Origin>()
    const naming = yield* Semaphore.make(1)
    const updates = yield* Effect.acquireRelease(PubSub.sliding<Update>(1024), PubSub.shutdown)

    // The servers listing each URI, kept with `listings`.
    const claims = new Map<string, Set<string>>()
    const setListing = (server: string, resources: ReadonlyArray<Resource.Resource>) => {
      for (const r of listings.get(server) ?? []) {
        const owners = claims.get(r.uri)
        owners?.delete(server)
        if (owners?.size === 0) claims.delete(r.uri)
      }
      if (resources.length === 0) listings.delete(server)
      else listings.set(server, resources)
      for (const r of resources) {
        const owners = claims.get(r.uri) ?? new Set<string>()
        owners.add(server)
        claims.set(r.uri, owners)
      }
    }

    /** Whether a URI is claimed by a source that is not `server`: another server, or another source of the catalog. */
    const claimedElsewhere = (server: string, uri: string): boolean => {
      const owners = claims.get(uri)
      if (owners !== undefined && (owners.size > 1 || !owners.has(server))) return true
      const entry = catalog.getUnsafe(uri)
      return entry !== undefined && (entry.source === undefined || !servers.includes(entry.source))
    }

    /** The catalog URI of a server's URI under the current listings. */
    const finalUri = (server: string, uri: string): string =>
      QualifiedUri.isQualified(uri) || claimedElsewhere(server, uri) ? QualifiedUri.qualify(server, uri) : uri

    /** A server's resources as the catalog should hold them (renamed, read with the server's URI), with their originals. */
    const renamed = (
      server: string
    ): ReadonlyArray<{ readonly resource: Resource.Resource; readonly original: Resource.Resource }> =>
      (listings.get(server) ?? []).map((original) => {
        const uri = finalUri(server, original.uri)
        const read = original.read
        if (uri === original.uri) return { resource: original, original }
        const resource = read === undefined
          ? { ...original, uri }
          : {
            ...original,
            uri,
            read: (request: Resource.ReadRequest) =>
              read({ ...request, uri: QualifiedUri.originalFor(server, request.uri) })
          }
        return { resource, original }
      })

    const signature = (server: string): string => renamed(server).map((r) => r.resource.uri).join("\n")

    const registered = (server: string): ReadonlyArray<string> =>
      [...origins].flatMap(([uri, o]) => o.server === server ? [uri] : [])

    /**
     * Registers `server`'s resources; what the catalog refuses (a qualified URI over the length
     * bound, a URI another source registered meanwhile) is reported and left out, never the rest.
     */
    const register = (server: string) =>
      Effect.gen(function*() {
        const invalid: Array<McpResource.InvalidServerResource> = []
        let planned = renamed(server)
        while (true) {
          const refused = yield* catalog.replaceSource(server, planned.map((p) => p.resource)).pipe(
            Effect.as(undefined),
            Effect.catch((e) => Effect.succeed(e))
          )
          if (refused === undefined) break
          const culprit = planned.find((p) => p.resource.uri.slice(0, 120) === refused.name.slice(0, 120))
          invalid.push(
            new McpResource.InvalidServerResource({
              server,
              resource: culprit?.original.name ?? refused.name,
              reason: refused.message
            })
          )
          if (culprit === undefined) {
            // not attributable to one resource: register nothing rather than a partial, wrong source
            yield* catalog.replaceSource(server, []).pipe(Effect.ignore)
            planned = []
            break
          }
          planned = planned.filter((p) => p !== culprit)
        }
        for (const uri of registered(server)) origins.delete(uri)
        for (const { original, resource } of planned) {
          origins.set(
            resource.uri,
            original.prompt !== undefined
              ? { _tag: "Prompt", server, name: promptName(original) }
              : { _tag: "Resource", server, uri: original.uri }
          )
        }
        return invalid
      })

    /** Makes `server` hold `resources`, renaming the others' where a claim appeared or went. */
    const apply = (server: string, resources: ReadonlyArray<Resource.Resource>) =>
      naming.withPermits(1)(Effect.gen(function*() {
        const before = new Map(servers.map((s) => [s, signature(s)]))
        setListing(server, resources)
        // the others first: a URI this server now takes is released by them before it is registered
        for (const other of servers) {
          if (other === server || !listings.has(other)) continue
          if (signature(other) !== before.get(other)) yield* register(other)
        }
        return yield* register(server)
      }))

    const sync = (config: Upstream.Config, listed: Listings) =>
      Effect.gen(function*() {
        const server = config.name
        const client: McpResource.Client = {
          readResource: (uri) =>
            Effect.flatMap(
              connectionOf(server, uri),
              (c) => c.request("resources/read", { uri }, uri)
            ),
          getPrompt: (name, args) =>
            Effect.flatMap(
              connectionOf(server, name),
              (c) => c.request("prompts/get", { name, arguments: args }, name)
            )
        }
        const imported = yield* McpResource.importAll(listed, {
          server,
          client,
          timeout: config.callTimeout,
          maxBodySize: config.maxMessageBytes,
          ...(config.filter === undefined ? {} : { filter: config.filter })
        })
        const refused = yield* apply(server, imported.resources)
        return [...imported.invalid, ...refused]
      })

    // Subscriptions: counted per server and URI; a server's own lock orders its subscribe and
    // unsubscribe requests, so a slow server delays only the subscriptions to its own resources.
    const counts = new Map<string, Map<string, number>>(servers.map((s) => [s, new Map()]))
    const locks = new Map<string, Semaphore.Semaphore>()
    for (const s of servers) locks.set(s, yield* Semaphore.make(1))

    const withLock = <A, E>(server: string, effect: Effect.Effect<A, E>) => {
      const lock = locks.get(server)
      return lock === undefined ? effect : lock.withPermits(1)(effect)
    }

    const subscribe = (server: string, uri: string) =>
      Effect.acquireRelease(
        withLock(
          server,
          Effect.gen(function*() {
            const count = counts.get(server)
            const n = count?.get(uri) ?? 0
            if (n === 0) {
              const connection = yield* connectionOf(server, uri)
              yield* connection.request("resources/subscribe", { uri }, uri)
            }
            count?.set(uri, n + 1)
          })
        ),
        () =>
          withLock(
            server,
            Effect.gen(function*() {
              const count = counts.get(server)
              const n = count?.get(uri) ?? 0
              if (n > 1) return count?.set(uri, n - 1)
              count?.delete(uri)
              const connection = yield* connectionOf(server, uri)
              yield* connection.request("resources/unsubscribe", { uri }, uri)
            }).pipe(Effect.ignore)
          )
      )

    const resubscribe = (server: string, connection: McpConnection) =>
      withLock(
        server,
        Effect.forEach(
          [...(counts.get(server)?.keys() ?? [])],
          (uri) =>
            connection.request("resources/subscribe", { uri }, uri).pipe(
              Effect.catch((e) => Effect.logWarning(`resubscribing to ${uri}: ${e.message}`))
            ),
          { discard: true }
        )
      )

    return {
      sync,
      count: (server) => registered(server).length,
      drop: (server) => Effect.asVoid(apply(server, [])),
      resubscribe,
      publish: (update) => Effect.asVoid(PubSub.publish(updates, update)),
      origin: (uri) => origins.get(uri),
      clientUri: (server, uri) => {
        const qualified = QualifiedUri.qualify(server, uri)
        if (QualifiedUri.isQualified(uri)) return qualified
        const entry = catalog.resolveUnsafe(uri)
        if (entry !== undefined) return origins.get(entry.uri)?.server === server ? uri : qualified
        // not in the catalog in its own form: qualified when the server's resources are, or another claims it
        return catalog.resolveUnsafe(qualified) !== undefined || claimedElsewhere(server, uri) ? qualified : uri
      },
      subscribe,
      updates: Stream.fromPubSub(updates)
    } satisfies UpstreamResources
  })

/**
 * The name a server gave an imported prompt: the last segment of its URI, which the import builds
 * as `prompt://<server>/<encoded name>` (the catalog's name may be shortened).
 */
const promptName = (prompt: Resource.Resource): string => {
  try {
    return decodeURIComponent(prompt.uri.slice(prompt.uri.lastIndexOf("/") + 1))
  } catch {
    return prompt.name
  }
}

/** What the gateway forwards through, over the registry and the open connections. */
export const forwarding = (
  upstream: UpstreamResources,
  connectionOf: ConnectionOf,
  connections: ReadonlyMap<string, McpConnection>
): Resources => ({
  origin: upstream.origin,
  clientUri: upstream.clientUri,
  read: (server, uri) => Effect.flatMap(connectionOf(server, uri), (c) => c.request("resources/read", { uri }, uri)),
  getPrompt: (server, name, args) =>
    Effect.flatMap(connectionOf(server, name), (c) => c.request("prompts/get", { name, arguments: args }, name)),
  subscribe: (server, uri) =>
    Effect.suspend(() =>
      connections.get(server)?.capabilities.resources?.subscribe === false
        ? Effect.fail(new ServerProtocolError({ server, tool: uri, reason: "the server does not offer subscriptions" }))
        : upstream.subscribe(server, uri)
    ),
  canSubscribe: (server) => connections.get(server)?.capabilities.resources?.subscribe === true,
  updates: upstream.updates
})
