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
import { Disclosure, Unit } from "@tool-search/core"
import { Clock, Effect, Metric, Predicate } from "effect"
import type { Recorder } from "../GatewayAudit.js"
import type * as McpSources from "../McpSources.js"
import type * as McpTool from "../McpTool.js"
import * as Telemetry from "../Telemetry.js"
import { type Answer, result, textResult } from "./Calls.js"
import * as ResourceAudit from "./ResourceAudit.js"
import * as ResultCap from "./ResultCap.js"
import * as SearchBudget from "./SearchBudget.js"
import type { CallContext } from "./SessionRelay.js"
import type { SessionView } from "./SessionView.js"

/** The resource level tools: their audit entries name what they read (`target`). */

/** A log line and a span around one search or call, with its outcome. */
export type Observed = <A, R>(
  what: "search" | "call",
  fields: Record<string, unknown>,
  effect: Effect.Effect<A, never, R>,
  outcome: (a: A) => Record<string, unknown>
) => Effect.Effect<A, never, R>

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
  readonly view: Pick<SessionView, "inUnit">
  readonly sources: McpSources.Service | undefined
  readonly settings: { readonly maxResultChars: number; readonly searchBudget: number }
  readonly observed: Observed
  /** The audit trail each call is recorded in, if any. */
  readonly audit: Recorder | undefined
  /** The session's id. */
  readonly session: () => string
  /** An upstream result with its resource links as the session reads them. */
  readonly links: (server: string, result: McpTool.CallToolResult) => McpTool.CallToolResult
}

/** What a call did, for the audit trail. */
interface Done {
  readonly answer: Answer
  readonly toolId: string | null
  readonly source: string | null
  readonly outcome: string
}

/** A meta tool's answer as an MCP tool result: its JSON as text, or its message as an error. */
const metaResult = (output: Unit.Output): Answer =>
  result(
    textResult(typeof output.result === "string" ? output.result : JSON.stringify(output.result), output.isFailure)
  )

/** The session's `tools/call` handler. */
export const make = (deps: Dependencies) => {
  const { audit, links, observed, settings, sources, view } = deps

  /** A call of a tool by the name the model sees, in the session's unit. */
  const callNamed = (
    name: string,
    args: Record<string, unknown>,
    requestId: string,
    context: CallContext | undefined
  ): Effect.Effect<Done, never, Unit.Unit> =>
    Effect.gen(function*() {
      const resolved = yield* Effect.result(Unit.resolve(name))
      if (resolved._tag === "Failure") {
        const e = resolved.failure
        return { answer: result(textResult(e.message, true)), toolId: null, source: null, outcome: e.reason }
      }
      const tool = resolved.success
      const toolId = tool.entry?.id ?? null
      const origin = toolId === null ? undefined : sources?.origin(toolId)
      if (origin !== undefined && sources !== undefined) {
        const done = (answer: Answer, outcome: string): Done => ({ answer, toolId, source: origin.server, outcome })
        const forwarded = sources.call(
          origin.server,
          origin.tool,
          args,
          context?.onProgress === undefined ? {} : { onProgress: context.onProgress }
        )
        const outcome = yield* Effect.result(
          // the server's log lines, sampling and elicitation during the call reach this session
          context === undefined ? forwarded : sources.relay.during(origin.server, context.caller, forwarded)
        )
        if (outcome._tag === "Success") {
          // a run through the tool's own handler records its own evidence; an upstream call is run here
          if (toolId !== null && outcome.success.isError !== true) yield* Unit.recordSuccessfulCall(toolId)
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
      const source = tool.entry?.source ?? null
      const output = yield* Effect.result(tool.run(args, { toolCallId: requestId }))
      if (output._tag === "Failure") {
        return { answer: result(textResult(output.failure.message, true)), toolId, source, outcome: "failed" }
      }
      if (tool.kind === "meta") {
        return {
          answer: metaResult(output.success),
          toolId,
          source,
          outcome: output.success.isFailure ? "failed" : "ok"
        }
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

  /** Runs a call, and records it in the audit trail when there is one. */
  const audited = (
    name: string,
    args: Record<string, unknown>,
    requestId: string,
    context: CallContext | undefined
  ): Effect.Effect<Answer, never, Unit.Unit> =>
    Effect.gen(function*() {
      const at = yield* Clock.currentTimeMillis
      const done = yield* callNamed(name, args, requestId, context)
      if (audit !== undefined) {
        const answer = done.answer
        yield* audit.call({
          at,
          sessionId: deps.session(),
          requestId,
          toolName: name,
          toolId: done.toolId,
          source: done.source,
          ...(Disclosure.isResourceTool(name)
            ? {
              target: ResourceAudit.targetOf(args, name === Disclosure.toolNames.getPrompt ? "name" : "uri") ??
                ResourceAudit.targetOf(args, "query")
            }
            : {}),
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

  /**
   * The search tool: the unit's one `ToolSearch` (it records itself in the audit trail), with a log
   * line, within the session's search budget.
   */
  const search = SearchBudget.make(settings.searchBudget, (args, requestId) => {
    const query = typeof args["query"] === "string" ? args["query"] : ""
    const answer = Unit.answer(Disclosure.toolNames.toolSearch, args, { toolCallId: requestId }).pipe(
      Effect.catch((e) => Effect.succeed<Unit.Output>({ isFailure: true, result: e.message }))
    )
    return view.inUnit(
      observed("search", { query }, answer, (out) => ({
        results: out.found?.length ?? 0,
        loaded: out.activated?.length ?? 0
      })).pipe(Effect.map(metaResult))
    )
  })

  /** A call the model made: the search tool, or a tool by name. */
  const dispatch = (
    name: string,
    args: Record<string, unknown>,
    requestId: string,
    context: CallContext | undefined
  ): Effect.Effect<Answer, never, Unit.Unit> =>
    Effect.flatMap(Unit.policies, ({ disclosure }) => {
      if (name === Disclosure.toolNames.toolSearch && disclosure.mode !== "catalog") return search(args, requestId)
      return observed("call", { tool: name }, audited(name, args, requestId, context), (answer) => ({
        outcome: outcomeOf(answer)
      })).pipe(
        Effect.tap((answer) => Metric.update(Metric.withAttributes(Telemetry.calls, { outcome: outcomeOf(answer) }), 1))
      )
    })

  /** The call a call of `call_tool` stands for (the unit's one dispatcher rule), else the call itself. */
  const unwrap = (name: string, args: Record<string, unknown>, requestId: string) =>
    Effect.flatMap(Unit.dispatches, (on) =>
      !on || name !== Disclosure.toolNames.callTool
        ? Effect.succeed({ name, args })
        : Effect.map(Unit.unwrap({ id: requestId, name, params: args }), (call) =>
          Predicate.isObject(call.params) && !Array.isArray(call.params)
            ? { name: call.name, args: call.params as Record<string, unknown> }
            : `${Disclosure.toolNames.callTool}: "arguments" must be a JSON object`))

  return (
    name: string,
    args: Record<string, unknown>,
    requestId: string,
    context?: CallContext
  ): Effect.Effect<Answer> =>
    view.inUnit(
      unwrap(name, args, requestId).pipe(
        Effect.flatMap((call) =>
          typeof call === "string"
            ? Effect.succeed(result(textResult(call, true)))
            : dispatch(call.name, call.args, requestId, context)
        ),
        Effect.catch((refused) => Effect.succeed(result(textResult(refused.message, true))))
      )
    )
}
