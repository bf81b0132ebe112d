/**
 * Permission to run a tool. Activation is exposure, not permission: a tool the model found and
 * activated still needs this check at every execution, and so does an eager tool.
 *
 * The default allows everything; `allowOnly` is the allowed-tools list of the Java core (meta tools
 * included, so the search tool itself can be withheld). Approval of individual calls is the
 * executor's job; this is the static policy.
 *
 * @since 0.1.0
 */
import { Context, Layer, Schema } from "effect"

/** The facts a policy decides on. */
export interface Subject {
  readonly id: string
  /** The name the model sees. */
  readonly name: string
  /** The name the tool declares, when it differs (a qualified name). */
  readonly declaredName?: string | undefined
  readonly source?: string | undefined
}

/** A permission policy. */
export interface Policy {
  readonly allows: (tool: Subject) => boolean
}

/** Running the tool is not allowed for this agent. */
export class ToolNotPermitted extends Schema.TaggedError<ToolNotPermitted>()("ToolNotPermitted", {
  name: Schema.String
}) {
  override get message(): string {
    return `Tool '${this.name}' is not permitted for this agent.`
  }
}

/** Allows every tool. */
export const allowAll: Policy = { allows: () => true }

/** Allows only the listed tools, matched by model name, declared name or id. */
export const only = (names: Iterable<string>): Policy => {
  const allowed = new Set(names)
  return {
    allows: (t) =>
      allowed.has(t.name) || allowed.has(t.id) || (t.declaredName !== undefined && allowed.has(t.declaredName))
  }
}

/** The permission policy in context; everything is allowed unless one is provided. */
export const Permission = Context.Reference<Policy>("@tool-search/core/Permission", {
  defaultValue: () => allowAll
})

/** Provides an allowed-tools list. */
export const allowOnly = (names: Iterable<string>): Layer.Layer<never> => Layer.succeed(Permission, only(names))

/** Provides a policy. */
export const layer = (policy: Policy): Layer.Layer<never> => Layer.succeed(Permission, policy)
