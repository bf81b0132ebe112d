/**
 * What a gateway session answers to `resources/read` and `prompts/get` once it knows where the
 * resource or prompt is: the upstream's answer, decoded and bounded (`maxResourceBytes`), with its
 * URIs as the session reads them; or a catalog resource read through its own reader, a prompt
 * rendered by its own function, within the read timeout. Every failure is a JSON-RPC error naming
 * the server or the resource.
 *
 * @internal
 */
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js"
import type { Resource, ResourceCatalog } from "@tool-search/core"
import { type Duration, Effect, Schema } from "effect"
import { Base64 } from "effect/encoding"
import type { CallError } from "../McpError.js"
import * as McpResource from "../McpResource.js"
import type { Resources as Upstream } from "../McpSources.js"

/** What a request comes to: a result, or a JSON-RPC error to send as is. */
export type Reply =
  | { readonly _tag: "Ok"; readonly value: Record<string, unknown> }
  | {
    readonly _tag: "Error"
    readonly code: number
    readonly message: string
    readonly data?: unknown
    /** The audit outcome, when it says more than the code (`not-found`, `not-permitted`, `timeout`). */
    readonly outcome?: string
  }

/** What a request came to, for the audit trail: the reply, and the server or catalog source that answered. */
export interface Traced {
  readonly reply: Reply
  readonly source: string | null
}

/** A reply with the audit outcome it stands for. */
export const because = (reply: Reply, outcome: string): Reply => reply._tag === "Ok" ? reply : { ...reply, outcome }

export const ok = (value: Record<string, unknown>): Reply => ({ _tag: "Ok", value })

export const error = (code: number, message: string, data?: unknown): Reply => ({
  _tag: "Error",
  code,
  message,
  ...(data === undefined ? {} : { data })
})

export const invalid = (message: string): Reply => error(ErrorCode.InvalidParams, message)

/** A server's JSON-RPC error as it sent it; any other failure named, as an internal error. */
export const upstreamError = (e: CallError): Reply =>
  e._tag === "UpstreamError"
    ? error(e.code, e.reason, e.data)
    : because(error(ErrorCode.InternalError, e.message), e._tag === "ServerTimeout" ? "timeout" : "failed")

/** The bounds replies apply. */
export interface Bounds {
  readonly maxResourceBytes: number
  readonly readTimeout: Duration.Input
}

const tooLarge = (bounds: Bounds, what: string, size: number) =>
  error(
    ErrorCode.InternalError,
    `${what} is ${size} characters, over the limit of ${bounds.maxResourceBytes} (maxResourceBytes)`
  )

const isBase64 = (text: string): boolean => text.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(text)

/** `resources/read` of `uri` on `server`, answered under `asked` (the URI the client gave). */
export const readUpstream = (upstream: Upstream, bounds: Bounds, server: string, uri: string, asked: string) =>
  Effect.gen(function*() {
    const raw = yield* Effect.result(upstream.read(server, uri))
    if (raw._tag === "Failure") return upstreamError(raw.failure)
    const decoded = Schema.decodeUnknownOption(McpResource.ReadResult)(raw.success)
    if (decoded._tag === "None") {
      return error(ErrorCode.InternalError, `MCP server '${server}' sent an invalid answer to resources/read`)
    }
    const contents = decoded.value.contents
    const size = contents.reduce((n, c) => n + ("text" in c ? c.text.length : c.blob.length), 0)
    if (size > bounds.maxResourceBytes) return tooLarge(bounds, `MCP server '${server}''s answer for '${asked}'`, size)
    if (contents.some((c) => "blob" in c && !isBase64(c.blob))) {
      return error(ErrorCode.InternalError, `MCP server '${server}' sent invalid base64 for '${asked}'`)
    }
    return ok({
      contents: contents.map((c) => ({
        uri: c.uri === uri ? asked : upstream.clientUri(server, c.uri),
        ...(typeof c.mimeType === "string" ? { mimeType: c.mimeType } : {}),
        ...("text" in c ? { text: c.text } : { blob: c.blob })
      }))
    })
  })

/** A catalog resource read whole through its own reader. */
export const readLocal = (bounds: Bounds, entry: ResourceCatalog.Entry, uri: string) =>
  Effect.gen(function*() {
    const reader = entry.read as Resource.Reader // checked by the caller: not a prompt
    const slice = yield* Effect.result(
      Effect.suspend(() => reader({ uri, offset: 0, length: bounds.maxResourceBytes + 1 })).pipe(
        Effect.timeoutOrElse({
          duration: bounds.readTimeout,
          orElse: () => Effect.fail({ message: `reading '${uri}' took too long` })
        })
      )
    )
    if (slice._tag === "Failure") return error(ErrorCode.InternalError, slice.failure.message)
    const { content, total } = slice.success
    if (total > bounds.maxResourceBytes) return tooLarge(bounds, `'${uri}'`, total)
    const mime = entry.mimeType === undefined ? {} : { mimeType: entry.mimeType }
    return ok({
      contents: [
        content._tag === "Text"
          ? { uri, ...mime, text: content.text }
          : { uri, ...mime, blob: Base64.encode(content.bytes) }
      ]
    })
  })

/** `prompts/get` of a server's prompt; each message's content with its resource URIs as the session reads them. */
export const promptUpstream = (
  upstream: Upstream,
  bounds: Bounds,
  origin: { readonly server: string; readonly name: string },
  args: Readonly<Record<string, string>>,
  linked: (server: string, block: unknown) => unknown
) =>
  Effect.gen(function*() {
    const raw = yield* Effect.result(upstream.getPrompt(origin.server, origin.name, args))
    if (raw._tag === "Failure") return upstreamError(raw.failure)
    const decoded = Schema.decodeUnknownOption(McpResource.GetPromptResult)(raw.success)
    if (decoded._tag === "None") {
      return error(ErrorCode.InternalError, `MCP server '${origin.server}' sent an invalid answer to prompts/get`)
    }
    const size = JSON.stringify(decoded.value).length
    if (size > bounds.maxResourceBytes) return tooLarge(bounds, `MCP server '${origin.server}''s prompt`, size)
    const messages = decoded.value.messages.map((m) => ({ role: m.role, content: linked(origin.server, m.content) }))
    const description = decoded.value.description
    return ok({ ...(typeof description === "string" ? { description } : {}), messages })
  })

/** A catalog prompt rendered by its own function. */
export const promptLocal = (bounds: Bounds, prompt: Resource.Prompt, args: Readonly<Record<string, string>>) =>
  Effect.gen(function*() {
    const rendered = yield* Effect.result(
      Effect.suspend(() => prompt.render(args)).pipe(Effect.timeout(bounds.readTimeout))
    )
    if (rendered._tag === "Failure") return error(ErrorCode.InternalError, rendered.failure.message)
    return ok({
      ...(rendered.success.description === undefined ? {} : { description: rendered.success.description }),
      messages: rendered.success.messages.map((m) => ({ role: m.role, content: { type: "text", text: m.text } }))
    })
  })
