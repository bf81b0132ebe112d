/**
 * A session's `completion/complete`: the argument completions of a prompt or a resource template,
 * asked of the server the prompt or template came from, under that server's own name or URI
 * template. What the session cannot see (visibility) or use (permission) is answered as unknown,
 * exactly as `prompts/get` and `resources/read` answer it, so a completion never reveals a hidden
 * prompt or template. Prompts and templates of other catalog sources have no completions (an empty
 * answer, as the specification allows).
 *
 * @internal
 */
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js"
import type { Permission, ResourceCatalog, Visibility } from "@tool-search/core"
import { Effect, Schema } from "effect"
import type { CallError } from "../McpError.js"
import type { Resources as Upstream } from "../McpSources.js"
import * as JsonBounds from "./JsonBounds.js"
import * as Listing from "./ResourceListing.js"
import { error, invalid, ok, type Reply, upstreamError } from "./SessionReplies.js"

/** What a session's completions work with. */
export interface Dependencies {
  readonly catalog: ResourceCatalog.Service
  readonly upstream: Upstream | undefined
  readonly visibility: Visibility.Visibility
  readonly permission: Permission.Permission
  /** `completion/complete` on a server. */
  readonly complete: (server: string, params: Readonly<Record<string, unknown>>) => Effect.Effect<unknown, CallError>
  readonly maxArgumentBytes: number
  readonly maxArgumentDepth: number
}

const Text = Schema.String.check(Schema.isMaxLength(2_048))

const Params = Schema.Struct({
  ref: Schema.Union([
    Schema.Struct({ type: Schema.Literal("ref/prompt"), name: Text }),
    Schema.Struct({ type: Schema.Literal("ref/resource"), uri: Text })
  ]),
  argument: Schema.Struct({ name: Text, value: Schema.String }),
  context: Schema.optionalKey(
    Schema.Struct({ arguments: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)) })
  )
})

const Result = Schema.Struct({
  completion: Schema.Struct({
    values: Schema.Array(Schema.String).check(Schema.isMaxLength(100)),
    total: Schema.optionalKey(Schema.Int),
    hasMore: Schema.optionalKey(Schema.Boolean)
  })
})

const empty = ok({ completion: { values: [], total: 0, hasMore: false } })

/** The session's `completion/complete` handler. */
export const make = (deps: Dependencies) => {
  const { catalog, permission, upstream, visibility } = deps
  const listing = Listing.of(catalog, visibility)
  const permitted = (e: ResourceCatalog.Entry) => permission.allows({ id: e.uri, name: e.name, source: e.source })

  /** The prompt or template asked for, if the session may use it. */
  const entryOf = (ref: typeof Params.Type["ref"]) =>
    Effect.map(listing, (l): ResourceCatalog.Entry | string => {
      if (ref.type === "ref/prompt") {
        const entry = l.promptByName.get(ref.name)
        return entry !== undefined && permitted(entry) ? entry : `Unknown prompt '${ref.name.slice(0, 200)}'`
      }
      const entry = catalog.getUnsafe(ref.uri)
      return entry !== undefined && entry.template && visibility.includes(entry) && permitted(entry)
        ? entry
        : `Resource template not found: ${ref.uri.slice(0, 200)}`
    })

  return (params: unknown): Effect.Effect<Reply> =>
    Effect.gen(function*() {
      const exceeded = JsonBounds.exceeds(params, { maxBytes: deps.maxArgumentBytes, maxDepth: deps.maxArgumentDepth })
      if (exceeded !== undefined) return invalid("completion/complete: the params are over maxArgumentBytes")
      const input = Schema.decodeUnknownOption(Params)(params)
      if (input._tag === "None") {
        return invalid(
          "completion/complete needs {\"ref\": {\"type\": \"ref/prompt\", \"name\": ...} or {\"type\": " +
            "\"ref/resource\", \"uri\": ...}, \"argument\": {\"name\": ..., \"value\": ...}}"
        )
      }
      const entry = yield* entryOf(input.value.ref)
      if (typeof entry === "string") return invalid(entry)
      const origin = upstream?.origin(entry.uri)
      if (origin === undefined) return empty
      const ref = origin._tag === "Prompt"
        ? { type: "ref/prompt", name: origin.name }
        : { type: "ref/resource", uri: origin.uri }
      const answer = yield* Effect.result(deps.complete(origin.server, { ...input.value, ref }))
      if (answer._tag === "Failure") return upstreamError(answer.failure)
      const decoded = Schema.decodeUnknownOption(Result)(answer.success)
      return decoded._tag === "Some"
        ? ok({ ...decoded.value })
        : error(ErrorCode.InternalError, `MCP server '${origin.server}' sent an invalid answer to completion/complete`)
    })
}
