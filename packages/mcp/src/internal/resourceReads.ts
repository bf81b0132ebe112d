/**
 * Reading an MCP server's resources and prompts for `McpResource`: each request bounded in time,
 * its answer decoded and bounded in size, every failure a `ResourceReadError` naming the resource.
 *
 * @internal
 */
import { Resource, ResourceReadError } from "@tool-search/core"
import { Clock, Effect, Schema } from "effect"
import { Base64 } from "effect/encoding"
import type { ImportOptions } from "../McpResource.js"

/** A `resources/read` result: text or base64 contents. */
export const ReadResult = Schema.Struct({
  contents: Schema.Array(Schema.Union([
    Schema.Struct({
      uri: Schema.String,
      mimeType: Schema.optionalKey(Schema.NullOr(Schema.String)),
      text: Schema.String
    }),
    Schema.Struct({
      uri: Schema.String,
      mimeType: Schema.optionalKey(Schema.NullOr(Schema.String)),
      blob: Schema.String
    })
  ]))
})

/** Runs one request to the server: bounded in time, its answer decoded, every failure a `ResourceReadError`. */
export const guard = <S extends Schema.Decoder<unknown>>(
  uri: string,
  options: ImportOptions,
  request: Effect.Effect<unknown, { readonly message: string }>,
  schema: S
): Effect.Effect<S["Type"], ResourceReadError> => {
  const fail = (reason: string) => new ResourceReadError({ uri, reason })
  return Effect.suspend(() => request).pipe(
    Effect.mapError((e) => fail(`MCP server '${options.server}': ${e.message}`)),
    Effect.timeout(options.timeout ?? "30 seconds"),
    Effect.catchTag("TimeoutError", () => Effect.fail(fail(`MCP server '${options.server}' did not answer in time`))),
    Effect.catchDefect((defect) => Effect.fail(fail(`MCP server '${options.server}': ${String(defect)}`))),
    Effect.flatMap((answer) =>
      Schema.decodeUnknownEffect(schema)(answer).pipe(
        Effect.mapError((e) =>
          fail(`MCP server '${options.server}' sent a malformed answer: ${e.message.split("\n")[0] ?? ""}`)
        )
      )
    )
  )
}

/** How long a body read for slicing is kept: the slices of one reading come from one upstream read. */
const CACHE_MILLIS = 30_000

/** The characters of bodies kept per server for slicing; the least recently read go first. */
const CACHE_CHARS = 32 * 1024 * 1024

/** A body kept for slicing. */
interface Kept {
  readonly at: number
  readonly chars: number
  readonly result: typeof ReadResult.Type
}

/** One cache per server import: its bodies by URI, least recently read first. */
const caches = new WeakMap<ImportOptions, Map<string, Kept>>()

/**
 * `resources/read` of `uri`, or the body read for it less than `CACHE_MILLIS` ago: a client reading
 * a long resource slice by slice (`read_resource` with `offset`) costs one upstream read, not one
 * per slice. Bounded to `CACHE_CHARS` per server, least recently read first out.
 */
const readCached = (options: ImportOptions, uri: string) =>
  Effect.gen(function*() {
    let cache = caches.get(options)
    if (cache === undefined) caches.set(options, cache = new Map())
    const now = yield* Clock.currentTimeMillis
    const kept = cache.get(uri)
    if (kept !== undefined && now - kept.at < CACHE_MILLIS) {
      cache.delete(uri)
      cache.set(uri, kept)
      return kept.result
    }
    const result = yield* guard(uri, options, options.client.readResource(uri), ReadResult)
    const chars = result.contents.reduce((n, c) => n + ("text" in c ? c.text.length : c.blob.length), 0)
    cache.delete(uri)
    if (chars <= CACHE_CHARS) {
      cache.set(uri, { at: now, chars, result })
      let total = 0
      for (const k of cache.values()) total += k.chars
      for (const [key, k] of cache) {
        if (total <= CACHE_CHARS) break
        cache.delete(key)
        total -= k.chars
      }
    }
    return result
  })

/** Reads a resource through `resources/read` (once for a run of slices), then slices what was asked. */
export const reader = (options: ImportOptions): Resource.Reader => (request) =>
  readCached(options, request.uri).pipe(
    Effect.flatMap((result) => {
      const max = options.maxBodySize ?? 20_000_000
      const tooLarge = new ResourceReadError({
        uri: request.uri,
        reason: `MCP server '${options.server}' sent a body larger than ${max}`
      })
      const texts = result.contents.flatMap((c) => "text" in c ? [c.text] : [])
      const blobs = result.contents.flatMap((c) => "blob" in c ? [c] : [])
      if (blobs.length === 1 && texts.length === 0) {
        const blob = (blobs[0] as { readonly blob: string }).blob // one blob
        if (blob.length > Math.ceil(max / 3) * 4) return Effect.fail(tooLarge)
        const bytes = Base64.decode(blob)
        if (bytes._tag === "Failure") {
          return Effect.fail(
            new ResourceReadError({ uri: request.uri, reason: "the server sent invalid base64" })
          )
        }
        return Effect.succeed(Resource.sliceBytes(bytes.success, request.offset, request.length))
      }
      // several contents (a folder, a multi-part document): one text, binary parts described
      const parts = result.contents.map((c) =>
        "text" in c ? c.text : `[binary content ${c.mimeType ?? "application/octet-stream"}, ${c.uri}]`
      )
      const size = parts.reduce((n, p) => n + p.length + 2, 0)
      if (size > max) return Effect.fail(tooLarge)
      return Effect.succeed(Resource.sliceText(parts.join("\n\n"), request.offset, request.length))
    })
  )

/** The text of one prompt message's content: text as is, other blocks described in one line. */
export const contentText = (content: unknown): string => {
  if (typeof content !== "object" || content === null) return ""
  const c = content as Record<string, unknown>
  const str = (key: string, of: Record<string, unknown> = c) => typeof of[key] === "string" ? of[key] as string : ""
  switch (c["type"]) {
    case "text":
      return str("text")
    case "image":
    case "audio":
      return `[${c["type"]} ${str("mimeType")}]`
    case "resource_link":
      return `[resource ${str("name")} <${str("uri")}>]`
    case "resource": {
      const resource = typeof c["resource"] === "object" && c["resource"] !== null
        ? c["resource"] as Record<string, unknown>
        : {}
      const text = str("text", resource)
      return text !== "" ? text : `[resource <${str("uri", resource)}>]`
    }
    default:
      return ""
  }
}
