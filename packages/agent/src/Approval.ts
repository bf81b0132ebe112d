/**
 * Approval of individual tool calls, decided at execution time with the call's parameters — the
 * dynamic counterpart of `Permission` (which decides per tool, statically). A denied call is
 * answered to the model as a failure; it does not end the turn.
 *
 * @since 0.1.0
 */
import type { Unit } from "@tool-search/core"
import { Context, Effect, Layer } from "effect"

/**
 * One call awaiting a decision.
 *
 * @since 0.1.0
 * @category models
 */
export interface Request {
  readonly tool: Unit.ModelTool
  readonly params: unknown
  readonly toolCallId: string
}

/**
 * An approval policy.
 *
 * @since 0.1.0
 * @category models
 */
export interface Policy {
  readonly decide: (request: Request) => Effect.Effect<boolean>
}

/**
 * Approves everything.
 *
 * @since 0.1.0
 * @category policies
 */
export const approveAll: Policy = { decide: () => Effect.succeed(true) }

/**
 * Asks `ask` (a person, a UI, a rule engine) only for calls whose tool says it needs approval —
 * `effect/ai`'s `needsApproval`, carried over by `CatalogTool.fromToolkit` — and approves the rest.
 *
 * @since 0.1.0
 * @category policies
 */
export const whenNeeded = (ask: (request: Request) => Effect.Effect<boolean>): Policy => ({
  decide: (request) => {
    const rule = request.tool.entry?.needsApproval
    if (rule === undefined) return Effect.succeed(true)
    return Effect.flatMap(
      rule(request.params, { toolCallId: request.toolCallId }),
      (needed) => needed ? ask(request) : Effect.succeed(true)
    )
  }
})

/**
 * Denies calls of tools annotated destructive; approves the rest.
 *
 * @since 0.1.0
 * @category policies
 */
export const denyDestructive: Policy = {
  decide: ({ tool }) => Effect.succeed(tool.entry?.annotations.destructive !== true)
}

/**
 * The approval policy in context; approves everything unless one is provided.
 *
 * @since 0.1.0
 * @category services
 */
export const Approval = Context.Reference<Policy>("@tool-search/agent/Approval", { defaultValue: () => approveAll })

/**
 * Provides a policy.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (policy: Policy): Layer.Layer<never> => Layer.succeed(Approval, policy)

/**
 * The message the model receives for a denied call.
 *
 * @since 0.1.0
 * @category messages
 */
export const deniedMessage = (name: string): string =>
  `The call to '${name}' was not approved. Do not retry it; tell the user what you wanted to do instead.`
