/**
 * One gateway session's `tools/call`: the search tool, `call_tool` (unwrapped, never itself), and
 * a tool by the name the client sees — resolved through the session's view (so visibility,
 * activation and permission apply), forwarded to its upstream server unchanged, or run by its
 * handler — with a log line, a span and a metric per call. An upstream result comes back as the
 * server sent it, cut to `maxResultChars`, its resource links rewritten to the URIs the session
 * reads them by.
 *
 * @internal
 */
import { Disclosure, type ToolView } from "@tool-search/core"
import { Clock, Effect, Metric, Option, Schema } from "effect"
import { randomUUID } from "node:crypto"
import type { Recorder } from "../GatewayAudit.js"
import type * as McpSources from "../McpSources.js"
import * as McpTool from "../McpTool.js"
import * as Telemetry from "../Telemetry.js"
import type { BoundedActivation } from "./BoundedActivation.js"
import { type Answer, result, textResult } from "./Calls.js"
import * as ResourceAudit from "./ResourceAudit.js"
import * as ResultCap from "./ResultCap.js"

/** The resource level tools: their audit entries name what they read (`target`). */
const RESOURCE_TOOLS: ReadonlySet<string> = new Set(Disclosure.RESOURCE_TOOL_NAMES)

/** The name of the meta tool that calls a found tool by name. */
export const CALL_TOOL = McpTool.CALL_TOOL

/** The `tools/list` entry of `call_tool`. */
export const callToolListed: McpTool.ListedTool = {
  name: CALL_TOOL,
  description: [
    `Call a tool that ${Disclosure.TOOL_SEARCH} loaded, by name. Use it when a loaded tool does not appear in`,
    "your tool list; otherwise call the tool directly."
  ].join(" "),
  inputSchema: {
    type: "object",
    properties: {
      name: { type: "string", description: `The tool name, as ${Disclosure.TOOL_SEARCH} returned it` },
      arguments: { type: "object", description: "The tool's arguments, matching its input schema" }
    },
    required: ["name"],
    additionalProperties: false
  }
}

const CallToolInput = Schema.Struct({
  name: Schema.String,
  arguments: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
})

/** A log line and a span around one search or call, with its outcome. */
export type Observed = <A>(
  what: "search" | "call",
  fields: Record<string, unknown>,
  effect: Effect.Effect<A>,
  outcome: (a: A) => Record<string, unknown>
) => Effect.Effect<A>

/** A structured log line and a span around one search or call of `session`, with its duration. */
export const observer = (session: () => string): Observed => (what, fields, effect, outcome) =>
  Effect.gen(function*() {
    const started = yield* Clock.currentTimeMillis
    const a = yield* effect
    const ms = (yield* Clock.currentTimeMillis) - started
    yield* Effect.logInfo(`gateway ${what}`).pipe(
      Effect.annotateLogs({ session: session(), ...fields, ...outcome(a), ms })
    )
    return a
  }).pipe(
    Effect.withSpan(`tool-search.gateway.${what}`, { attributes: { session: session(), ...fields } }, {
      captureStackTrace: false
    })
  )

/** What a session's calls work with. */
export interface Dependencies {
  readonly view: ToolView.Service
  readonly bounded: BoundedActivation
  readonly sources: McpSources.Service | undefined
  readonly settings: { readonly callTool: boolean; readonly maxResultChars: number }
  readonly observed: Observed
  /** The audit trail each call is recorded in, if any. */
  readonly audit: Recorder | undefined
  /** The session's id. */
  readonly session: () => string
  /** The session's search tool. */
  readonly search: (params: Record<string, unknown>, requestId: string) => Effect.Effect<Answer>
  /** An upstream result with its resource links as the session reads them. */
  readonly links: (server: string, result: McpTool.CallToolResult) => McpTool.CallToolResult
  /**
   * Reads the session's stored copy again (another instance may have loaded the tool a call names
   * a moment ago); true when that changed what is loaded.
   */
  readonly refresh: Effect.Effect<boolean>
}

/** What a call did, for the audit trail. */
interface Done {
  readonly answer: Answer
  readonly toolId: string | null
  readonly source: string | null
  readonly outcome: string
}

const refusals: Record<string, string> = {
  ToolNotActive: "not-active",
  UnknownTool: "unknown",
  ToolNotPermitted: "not-permitted"
}

/** The session's `tools/call` handler. */
export const make = (deps: Dependencies) => {
  const { audit, bounded, links, observed, settings, sources, view } = deps

  /**
   * A call of a tool by the name the model sees; `starting` runs right before the tool does (an
   * upstream call, a handler), with its catalog id and source.
   */
  const callNamed = (
    name: string,
    args: Record<string, unknown>,
    requestId: string,
    starting: (toolId: string | null, source: string | null) => Effect.Effect<void>
  ): Effect.Effect<Done> =>
    Effect.gen(function*() {
      const first = yield* Effect.result(view.resolve(name))
      // not loaded here: another instance serving this session may have loaded it a moment ago
      const resolved = first._tag === "Failure" && first.failure._tag === "ToolNotActive" && (yield* deps.refresh)
        ? yield* Effect.result(view.resolve(name))
        : first
      if (resolved._tag === "Failure") {
        const e = resolved.failure
        const answer = result(textResult(e.message, true))
        return { answer, toolId: null, source: null, outcome: refusals[e._tag] ?? "failed" }
      }
      const tool = resolved.success
      const toolId = tool.tool?.id ?? null
      if (toolId !== null) yield* bounded.touch(toolId)
      const origin = toolId === null ? undefined : sources?.origin(toolId)
      if (origin !== undefined && sources !== undefined) {
        const done = (answer: Answer, outcome: string): Done => ({ answer, toolId, source: origin.server, outcome })
        yield* starting(toolId, origin.server)
        const outcome = yield* Effect.result(sources.call(origin.server, origin.tool, args))
        if (outcome._tag === "Success") {
          // a run through `resolve` records its own evidence; an upstream call is run here
          if (toolId !== null && outcome.success.isError !== true) yield* view.recordSuccessfulCall(toolId)
          return done(
            result(ResultCap.cap(links(origin.server, outcome.success), settings.maxResultChars)),
            outcome.success.isError === true ? "failed" : "ok"
          )
        }
        const e = outcome.failure
        const failed = e._tag === "ServerTimeout" ? "timeout" : "failed"
        return e._tag === "UpstreamError"
          ? done(
            { _tag: "Error", code: e.code, message: e.reason, ...(e.data === undefined ? {} : { data: e.data }) },
            failed
          )
          : done(result(textResult(e.message, true)), failed)
      }
      const source = tool.tool?.source ?? null
      yield* starting(toolId, source)
      const output = yield* Effect.result(tool.run(args, { toolCallId: requestId }))
      if (output._tag === "Failure") {
        return { answer: result(textResult(output.failure.message, true)), toolId, source, outcome: "failed" }
      }
      const { isFailure, result: value } = output.success
      const content = textResult(typeof value === "string" ? value : JSON.stringify(value), isFailure)
      return {
        answer: result(ResultCap.cap(content, settings.maxResultChars)),
        toolId,
        source,
        outcome: isFailure ? "failed" : "ok"
      }
    })

  /**
   * Runs a call, and records it in the audit trail when there is one: its intent right before the
   * tool runs (so a call whose outcome never comes still has a record), its outcome after — both
   * handed to the trail, which never makes the answer wait.
   */
  const audited = (name: string, args: Record<string, unknown>, requestId: string): Effect.Effect<Answer> =>
    Effect.gen(function*() {
      const at = yield* Clock.currentTimeMillis
      const id = audit === undefined ? undefined : randomUUID()
      const fields = (toolId: string | null, source: string | null) => ({
        id: id as string,
        at,
        sessionId: deps.session(),
        requestId,
        toolName: name,
        toolId,
        source,
        ...(RESOURCE_TOOLS.has(name)
          ? {
            target: ResourceAudit.targetOf(args, name === Disclosure.GET_PROMPT ? "name" : "uri") ??
              ResourceAudit.targetOf(args, "query")
          }
          : {})
      })
      const done = yield* callNamed(
        name,
        args,
        requestId,
        (toolId, source) => audit === undefined ? Effect.void : audit.intent(fields(toolId, source))
      )
      if (audit !== undefined) {
        const answer = done.answer
        yield* audit.call({
          ...fields(done.toolId, done.source),
          outcome: done.outcome,
          durationMs: (yield* Clock.currentTimeMillis) - at,
          ...(audit.payloads
            ? { arguments: args, result: answer._tag === "Result" ? answer.result : { error: answer.message } }
            : {})
        })
      }
      return done.answer
    })

  const outcomeOf = (answer: Answer): string =>
    answer._tag === "Error" ? "error" : answer.result.isError === true ? "tool_error" : "ok"

  /** A call the model made: the search tool, or a tool by name. */
  const dispatch = (name: string, args: Record<string, unknown>, requestId: string): Effect.Effect<Answer> => {
    if (name === Disclosure.TOOL_SEARCH && view.disclosure.mode !== "catalog") return deps.search(args, requestId)
    return observed("call", { tool: name }, audited(name, args, requestId), (answer) => ({
      outcome: outcomeOf(answer)
    })).pipe(
      Effect.tap((answer) => Metric.update(Metric.withAttributes(Telemetry.calls, { outcome: outcomeOf(answer) }), 1))
    )
  }

  return (name: string, args: Record<string, unknown>, requestId: string): Effect.Effect<Answer> => {
    if (!settings.callTool || name !== CALL_TOOL) return dispatch(name, args, requestId)
    const input = Schema.decodeUnknownOption(CallToolInput)(args)
    if (Option.isNone(input) || input.value.name === CALL_TOOL) {
      const usage = `${CALL_TOOL} needs {"name": "<tool name>", "arguments": {...}} naming a tool other than itself`
      return Effect.succeed(result(textResult(usage, true)))
    }
    return dispatch(input.value.name, input.value.arguments ?? {}, requestId)
  }
}
