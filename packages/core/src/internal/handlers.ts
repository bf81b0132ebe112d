/**
 * The handler side of `CatalogTool`: the boundary around user handlers, and what `fromToolkit`
 * reads from an `effect/ai` tool (its approval rule, its annotations).
 *
 * @internal
 */
import { Context, Effect, Option, Schema, Stream } from "effect"
import { Tool } from "effect/ai"

import type { Annotations, Handler, NeedsApproval, Output } from "../CatalogTool.js"
import { messageOf } from "./messages.js"

import type { ToolExecutionError } from "../Errors.js"

/**
 * A toolkit's `handle` seen with loose types: parameters are the model's JSON (each tool's decoder
 * checks them) and nothing is required from the caller's context.
 */
export type LooseHandle = (
  name: string,
  params: unknown,
  toolCallId?: string
) => Effect.Effect<Stream.Stream<Tool.HandlerResult<Tool.Any>, unknown>, unknown>

/** Marks handlers already guarded, so a tool rebuilt from another keeps one wrapper. */
const guarded = new WeakSet<Handler>()

/**
 * The handler boundary: a handler is user code, so a synchronous `throw` while building its effect,
 * or a return value that is not an `Effect`, becomes a defect of the call — as `Effect.die` would —
 * instead of escaping into the caller. The executor reports defects to the model as `crashed` and
 * goes on with the turn.
 */
export const guard = (name: string, handler: Handler): Handler => {
  if (guarded.has(handler)) return handler
  const safe: Handler = (params, context) =>
    Effect.suspend(() => {
      const effect: unknown = handler(params, context)
      return Effect.isEffect(effect)
        ? effect as ReturnType<Handler>
        : Effect.die(new Error(`The handler of '${name}' returned ${typeof effect}, not an Effect`))
    })
  guarded.add(safe)
  return safe
}

/**
 * `effect/ai`'s `needsApproval` on JSON parameters: a function gets the parameters decoded by the
 * tool's schema (parameters that do not decode need no approval — the call fails on them anyway).
 */
export const approvalOf = (tool: Tool.Any): NeedsApproval | undefined => {
  const rule = tool.needsApproval
  if (rule === undefined || rule === false) return undefined
  if (rule === true) return () => Effect.succeed(true)
  // `fromToolkit` accepts only `SelfContained` toolkits: decoding needs no services.
  const decode = Schema.decodeUnknownEffect(tool.parametersSchema as Schema.Codec<unknown, unknown>)
  return (params, context) =>
    decode(params).pipe(
      Effect.flatMap((decoded) => {
        const answer = rule(decoded, { toolCallId: context.toolCallId, messages: [] })
        return typeof answer === "boolean" ? Effect.succeed(answer) : answer
      }),
      Effect.catch(() => Effect.succeed(false))
    )
}

/** The annotations of an `effect/ai` tool, in the catalog's spelling. */
export const annotationsOf = (tool: Tool.Any): Annotations => ({
  readOnly: Context.get(tool.annotations, Tool.Readonly),
  destructive: Context.get(tool.annotations, Tool.Destructive),
  idempotent: Context.get(tool.annotations, Tool.Idempotent),
  openWorld: Context.get(tool.annotations, Tool.OpenWorld)
})

/**
 * The handler of one tool of a toolkit: the call goes through `Toolkit.handle`, so parameter
 * decoding, failure modes and result encoding are exactly `effect/ai`'s; `fail` names the tool.
 */
export const toolkitHandler = (
  handle: LooseHandle,
  name: string,
  fail: (reason: string) => ToolExecutionError
): Handler =>
(params, context) =>
  handle(name, params, context.toolCallId).pipe(
    Effect.flatMap(Stream.runLast),
    Effect.flatMap(Option.match({
      onNone: () => Effect.fail(fail("the handler produced no result")),
      onSome: (r) => Effect.succeed<Output>({ isFailure: r.isFailure, result: r.encodedResult })
    })),
    Effect.catch((error) => Effect.fail(fail(messageOf(error))))
  )
