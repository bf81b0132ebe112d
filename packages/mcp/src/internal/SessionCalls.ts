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
import type * as McpSources from "../McpSources.js"
import * as McpTool from "../McpTool.js"
import * as Telemetry from "../Telemetry.js"
import type { BoundedActivation } from "./BoundedActivation.js"
import { type Answer, result, textResult } from "./Calls.js"
import * as ResultCap from "./ResultCap.js"

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
  /** The session's search tool. */
  readonly search: (params: Record<string, unknown>) => Effect.Effect<Answer>
  /** An upstream result with its resource links as the session reads them. */
  readonly links: (server: string, result: McpTool.CallToolResult) => McpTool.CallToolResult
}

/** The session's `tools/call` handler. */
export const make = (deps: Dependencies) => {
  const { bounded, links, observed, settings, sources, view } = deps

  /** A call of a tool by the name the model sees. */
  const callNamed = (name: string, args: Record<string, unknown>, requestId: string): Effect.Effect<Answer> =>
    Effect.gen(function*() {
      const resolved = yield* Effect.result(view.resolve(name))
      if (resolved._tag === "Failure") return result(textResult(resolved.failure.message, true))
      const tool = resolved.success
      if (tool.tool !== undefined) yield* bounded.touch(tool.tool.id)
      const origin = tool.tool === undefined ? undefined : sources?.origin(tool.tool.id)
      if (origin !== undefined && sources !== undefined) {
        const outcome = yield* Effect.result(sources.call(origin.server, origin.tool, args))
        if (outcome._tag === "Success") {
          return result(ResultCap.cap(links(origin.server, outcome.success), settings.maxResultChars))
        }
        const e = outcome.failure
        return e._tag === "UpstreamError"
          ? { _tag: "Error", code: e.code, message: e.reason, ...(e.data === undefined ? {} : { data: e.data }) }
          : result(textResult(e.message, true))
      }
      const output = yield* Effect.result(tool.run(args, { toolCallId: requestId }))
      if (output._tag === "Failure") return result(textResult(output.failure.message, true))
      const { isFailure, result: value } = output.success
      const content = textResult(typeof value === "string" ? value : JSON.stringify(value), isFailure)
      return result(ResultCap.cap(content, settings.maxResultChars))
    })

  const outcomeOf = (answer: Answer): string =>
    answer._tag === "Error" ? "error" : answer.result.isError === true ? "tool_error" : "ok"

  /** A call the model made: the search tool, or a tool by name. */
  const dispatch = (name: string, args: Record<string, unknown>, requestId: string): Effect.Effect<Answer> => {
    if (name === Disclosure.TOOL_SEARCH && view.disclosure.mode !== "catalog") return deps.search(args)
    return observed("call", { tool: name }, callNamed(name, args, requestId), (answer) => ({
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
