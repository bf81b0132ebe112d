/**
 * One gateway session's `tools/call`: the search tool, `call_tool` (unwrapped, never itself), and
 * a tool by the name the client sees — resolved through the session's unit (so visibility,
 * activation and permission apply), forwarded to its upstream server unchanged, or run by its
 * handler — with a log line, a span and a metric per call. An upstream result comes back as the
 * server sent it, cut to `maxResultChars`, its resource links rewritten to the URIs the session
 * reads them by.
 *
 * A call a program makes in code mode (`program`) runs the same path — bounded like a client's
 * arguments, resolved, forwarded or run, logged, counted and audited with `via: "execute_code"` —
 * and only its result differs: data for the program (an upstream's structured content, or its text
 * parsed as JSON when it is JSON), neither cut nor rewritten.
 *
 * Every operation requires the session's unit: the gateway runs them in it (`SessionView.inUnit`).
 *
 * @internal
 */
import type { CodeMode } from "@tool-search/code"
import { Disclosure, Tracing, Unit } from "@tool-search/core"
import { Clock, Effect, Metric, Predicate } from "effect"
import { randomUUID } from "node:crypto"
import type { Limits } from "../Gateway.js"
import type { Recorder } from "../GatewayAudit.js"
import type * as McpSources from "../McpSources.js"
import type * as McpTool from "../McpTool.js"
import * as Telemetry from "../Telemetry.js"
import { type Answer, checkParams, result, textResult } from "./Calls.js"
import * as ResourceAudit from "./ResourceAudit.js"
import * as ResultCap from "./ResultCap.js"
import * as SearchBudget from "./SearchBudget.js"
import type { CallContext } from "./SessionRelay.js"

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
    Tracing.span(`tool-search.gateway.${what}`, { attributes: () => ({ session: session(), ...fields }) })
  )

/** What a session's calls work with. */
export interface Dependencies {
  readonly sources: McpSources.Service | undefined
  readonly settings: {
    readonly maxResultChars: number
    readonly searchBudget: number
    /** The bounds on a call's arguments: a program's calls are held to a client's. */
    readonly limits: Limits
  }
  readonly observed: Observed
  /** The audit trail each call is recorded in, if any. */
  readonly audit: Recorder | undefined
  /** The session's id. */
  readonly session: () => string
  /**
   * Reads the session's stored copy again (another instance may have loaded the tool a call names
   * a moment ago); true when that changed what is loaded.
   */
  readonly refresh: Effect.Effect<boolean>
}

/** An upstream result with its resource links as the session reads them. */
export type Links = (server: string, result: McpTool.CallToolResult) => McpTool.CallToolResult

/** A session's calls; each runs in the session's unit. */
export interface SessionCalls {
  /** A client's `tools/call`: the search tool, `call_tool`, or a tool by name. */
  readonly handle: (
    name: string,
    args: Record<string, unknown>,
    requestId: string,
    context: CallContext | undefined,
    links: Links
  ) => Effect.Effect<Answer, never, Unit.Unit>
  /** A call a program made (code mode): the same path, its result as data for the program. */
  readonly program: (call: Unit.Call) => Effect.Effect<CodeMode.Called, never, Unit.Unit>
}

/**
 * One call of a tool by name: a client's (`via` absent, its result cut and its links rewritten by
 * `links`) or a program's (`via`, its result whole).
 */
interface Request {
  readonly name: string
  readonly args: Record<string, unknown>
  readonly requestId: string
  readonly context: CallContext | undefined
  readonly links: Links
  readonly via: string | undefined
}

/** What a call did: the client's answer, the program's data, and what the audit trail records. */
interface Done {
  readonly answer: Answer
  readonly data: CodeMode.Called
  readonly toolId: string | null
  readonly source: string | null
  readonly outcome: string
}

/** A meta tool's answer as an MCP tool result: its JSON as text, or its message as an error. */
const metaResult = (output: Unit.Output): Answer =>
  result(
    textResult(typeof output.result === "string" ? output.result : JSON.stringify(output.result), output.isFailure)
  )

/** A call that did not run, and why. */
const refusal = (
  message: string,
  outcome: string,
  toolId: string | null = null,
  source: string | null = null
): Done => ({
  answer: result(textResult(message, true)),
  data: { isFailure: true, result: message },
  toolId,
  source,
  outcome
})

/** The session's calls. */
export const make = (deps: Dependencies): SessionCalls => {
  const { audit, observed, settings, sources } = deps

  /**
   * A call of a tool by the name the model sees, in the session's unit. A client's call gets the
   * result as the client receives it (links rewritten, cut); a program's (`via`) gets it whole.
   * `starting` runs right before the tool does (an upstream call, a handler), with its catalog id
   * and source.
   */
  const callNamed = (
    request: Request,
    starting: (toolId: string | null, source: string | null) => Effect.Effect<void>
  ): Effect.Effect<Done, never, Unit.Unit> =>
    Effect.gen(function*() {
      const { args, context, links, name, requestId, via } = request
      const first = yield* Effect.result(Unit.resolve(name))
      // not loaded here: another instance serving this session may have loaded it a moment ago
      const resolved = first._tag === "Failure" && first.failure.reason === "not-active" && (yield* deps.refresh)
        ? yield* Effect.result(Unit.resolve(name))
        : first
      if (resolved._tag === "Failure") return refusal(resolved.failure.message, resolved.failure.reason)
      const tool = resolved.success
      const toolId = tool.entry?.id ?? null
      // a program calls catalog tools only (its `tools` has no other): never a search or itself
      if (via !== undefined && tool.kind === "meta") {
        return refusal(`'${name}' cannot be called from a program`, "not-permitted")
      }
      const origin = toolId === null ? undefined : sources?.origin(toolId)
      if (origin !== undefined && sources !== undefined) {
        yield* starting(toolId, origin.server)
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
          const sent = outcome.success
          // a run through the tool's own handler records its own evidence; an upstream call is run here
          if (toolId !== null && sent.isError !== true) yield* Unit.recordSuccessfulCall(toolId)
          return {
            answer: result(
              via === undefined ? ResultCap.cap(links(origin.server, sent), settings.maxResultChars) : sent
            ),
            data: { isFailure: sent.isError === true, result: dataOf(sent) },
            toolId,
            source: origin.server,
            outcome: sent.isError === true ? "failed" : "ok"
          }
        }
        const e = outcome.failure
        const failed = e._tag === "ServerTimeout" ? "timeout" : "failed"
        if (e._tag !== "UpstreamError") return refusal(e.message, failed, toolId, origin.server)
        return {
          answer: { _tag: "Error", code: e.code, message: e.reason, ...(e.data === undefined ? {} : { data: e.data }) },
          data: { isFailure: true, result: e.reason },
          toolId,
          source: origin.server,
          outcome: failed
        }
      }
      const source = tool.entry?.source ?? null
      yield* starting(toolId, source)
      const output = yield* Effect.result(tool.run(args, { toolCallId: requestId }))
      if (output._tag === "Failure") return refusal(output.failure.message, "failed", toolId, source)
      const { isFailure, result: value } = output.success
      const outcome = isFailure ? "failed" : "ok"
      if (tool.kind === "meta") {
        return { answer: metaResult(output.success), data: output.success, toolId, source, outcome }
      }
      const content = textResult(typeof value === "string" ? value : JSON.stringify(value), isFailure)
      return {
        answer: result(via === undefined ? ResultCap.cap(content, settings.maxResultChars) : content),
        data: { isFailure, result: value },
        toolId,
        source,
        outcome
      }
    })

  /**
   * Runs a call, and records it in the audit trail when there is one: its intent right before the
   * tool runs (so a call whose outcome never comes still has a record), its outcome after — both
   * handed to the trail, which never makes the answer wait.
   */
  const audited = (request: Request): Effect.Effect<Done, never, Unit.Unit> =>
    Effect.gen(function*() {
      const { args, name, requestId, via } = request
      const at = yield* Clock.currentTimeMillis
      const id = randomUUID()
      const fields = (toolId: string | null, source: string | null) => ({
        id,
        at,
        sessionId: deps.session(),
        requestId,
        toolName: name,
        toolId,
        source,
        ...(via === undefined ? {} : { via }),
        ...(Disclosure.isResourceTool(name)
          ? {
            target: ResourceAudit.targetOf(args, name === Disclosure.toolNames.getPrompt ? "name" : "uri") ??
              ResourceAudit.targetOf(args, "query")
          }
          : {})
      })
      const done = yield* callNamed(
        request,
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
      return done
    })

  const outcomeOf = (answer: Answer): string =>
    answer._tag === "Error" ? "error" : answer.result.isError === true ? "tool_error" : "ok"

  /** A call of a tool by name, with a log line, a span, a metric and the audit entry. */
  const observedCall = (request: Request): Effect.Effect<Done, never, Unit.Unit> =>
    observed(
      "call",
      { tool: request.name, ...(request.via === undefined ? {} : { via: request.via }) },
      audited(request),
      (done) => ({ outcome: outcomeOf(done.answer) })
    ).pipe(
      Effect.tap((done) =>
        Metric.update(Metric.withAttributes(Telemetry.calls, { outcome: outcomeOf(done.answer) }), 1)
      )
    )

  /**
   * The search tool: the unit's one `ToolSearch` (it records itself in the audit trail), with a log
   * line, within the session's search budget.
   */
  const search = SearchBudget.make(settings.searchBudget, (args, requestId) => {
    const query = typeof args["query"] === "string" ? args["query"] : ""
    const answer = Unit.answer(Disclosure.toolNames.toolSearch, args, { toolCallId: requestId }).pipe(
      Effect.catch((e) => Effect.succeed<Unit.Output>({ isFailure: true, result: e.message }))
    )
    return observed("search", { query }, answer, (out) => ({
      results: out.found?.length ?? 0,
      loaded: out.activated?.length ?? 0
    })).pipe(Effect.map(metaResult))
  })

  /** A call the model made: the search tool, or a tool by name. */
  const dispatch = (
    name: string,
    args: Record<string, unknown>,
    requestId: string,
    context: CallContext | undefined,
    links: Links
  ): Effect.Effect<Answer, never, Unit.Unit> =>
    Effect.flatMap(
      Unit.policies,
      ({ disclosure }) =>
        name === Disclosure.toolNames.toolSearch && disclosure.mode !== "catalog"
          ? search(args, requestId)
          : Effect.map(observedCall({ name, args, requestId, context, links, via: undefined }), (done) => done.answer)
    )

  /** The call a call of `call_tool` stands for (the unit's one dispatcher rule), else the call itself. */
  const unwrap = (name: string, args: Record<string, unknown>, requestId: string) =>
    Effect.flatMap(Unit.dispatches, (on) =>
      !on || name !== Disclosure.toolNames.callTool
        ? Effect.succeed({ name, args })
        : Effect.map(Unit.unwrap({ id: requestId, name, params: args }), (call) =>
          Predicate.isObject(call.params) && !Array.isArray(call.params)
            ? { name: call.name, args: call.params as Record<string, unknown> }
            : `${Disclosure.toolNames.callTool}: "arguments" must be a JSON object`))

  const handle: SessionCalls["handle"] = (name, args, requestId, context, links) =>
    unwrap(name, args, requestId).pipe(
      Effect.flatMap((call) =>
        typeof call === "string"
          ? Effect.succeed(result(textResult(call, true)))
          : dispatch(call.name, call.args, requestId, context, links)
      ),
      Effect.catch((refused) => Effect.succeed(result(textResult(refused.message, true))))
    )

  const program: SessionCalls["program"] = (call) => {
    // a program's arguments are bounded as a client's are
    const checked = checkParams({ name: call.name, arguments: call.params }, settings.limits)
    if (typeof checked === "string") return Effect.succeed({ isFailure: true, result: checked })
    return Effect.map(
      observedCall({
        name: checked.name,
        args: checked.args,
        requestId: call.id,
        context: undefined,
        links: unchanged,
        via: call.via ?? Disclosure.toolNames.executeCode
      }),
      (done) => done.data
    )
  }

  return { handle, program }
}

/** A program's results are data: no link is rewritten. */
const unchanged: Links = (_, result) => result

/**
 * An upstream result as a program receives it: its structured content when it has one, else its
 * text (parsed when it is JSON), else its content blocks.
 */
const dataOf = (sent: McpTool.CallToolResult): unknown => {
  if (sent["structuredContent"] !== undefined) return sent["structuredContent"]
  const texts = sent.content.flatMap((block) =>
    Predicate.isObject(block) && block["type"] === "text" && typeof block["text"] === "string" ? [block["text"]] : []
  )
  if (texts.length !== sent.content.length) return sent.content
  const text = texts.join("\n")
  try {
    const parsed: unknown = JSON.parse(text)
    return Predicate.isObject(parsed) || Array.isArray(parsed) ? parsed : text
  } catch {
    return text
  }
}
