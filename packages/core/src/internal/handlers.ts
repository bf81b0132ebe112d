/**
 * The handler side of `CatalogTool`: the boundary around user handlers, and what `fromToolkit`
 * reads from an `effect/ai` tool (its approval rule, its annotations).
 */
import { Context, Effect, Schema } from "effect"
import { Tool } from "effect/ai"
import type { Annotations, Handler, NeedsApproval } from "../CatalogTool.js"

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

export const annotationsOf = (tool: Tool.Any): Annotations => ({
  readOnly: Context.get(tool.annotations, Tool.Readonly),
  destructive: Context.get(tool.annotations, Tool.Destructive),
  idempotent: Context.get(tool.annotations, Tool.Idempotent),
  openWorld: Context.get(tool.annotations, Tool.OpenWorld)
})
