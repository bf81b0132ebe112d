/**
 * The audit entries of a session's resource reads and prompt requests: each `resources/read` and
 * `prompts/get` is recorded as a call whose tool is the method and whose target is the URI or
 * prompt name the client gave, with the source that answered, the outcome and the duration; the
 * params and the answer only when the audit records payloads.
 *
 * @internal
 */
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js"
import { Clock, Effect } from "effect"
import type { Recorder } from "../GatewayAudit.js"
import type { Reply, Traced } from "./SessionReplies.js"

/** The methods recorded: what a session read. */
export const METHODS: ReadonlySet<string> = new Set(["resources/read", "prompts/get"])

/** What a request names: the `uri` of a read, the `name` of a prompt. */
export const targetOf = (params: unknown, field: "uri" | "name" | "query"): string | null => {
  if (typeof params !== "object" || params === null) return null
  const value = (params as Record<string, unknown>)[field]
  return typeof value === "string" ? value : null
}

/** The audit outcome of a reply. */
export const outcomeOf = (reply: Reply): string =>
  reply._tag === "Ok"
    ? "ok"
    : reply.outcome ?? (reply.code === ErrorCode.InvalidParams ? "invalid" : "failed")

/** Runs `request` and records it in `audit`, when there is one. */
export const recorded = (
  audit: Recorder | undefined,
  request: {
    readonly sessionId: string
    readonly requestId: string
    readonly method: string
    readonly params: unknown
  },
  run: Effect.Effect<Traced>
): Effect.Effect<Reply> =>
  audit === undefined || !METHODS.has(request.method)
    ? Effect.map(run, (t) => t.reply)
    : Effect.gen(function*() {
      const at = yield* Clock.currentTimeMillis
      const { reply, source } = yield* run
      yield* audit.call({
        at,
        sessionId: request.sessionId,
        requestId: request.requestId,
        toolName: request.method,
        toolId: null,
        source,
        target: targetOf(request.params, request.method === "prompts/get" ? "name" : "uri"),
        outcome: outcomeOf(reply),
        durationMs: (yield* Clock.currentTimeMillis) - at,
        ...(audit.payloads
          ? { arguments: request.params, result: reply._tag === "Ok" ? reply.value : { error: reply.message } }
          : {})
      })
      return reply
    })
