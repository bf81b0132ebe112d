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
import { Context, Layer } from "effect"

/**
 * The facts a permission decides on.
 *
 * @since 0.1.0
 * @category models
 */
export interface Subject {
  readonly id: string
  /** The name the model sees. */
  readonly name: string
  /** The name the tool declares, when it differs (a qualified name). */
  readonly declaredName?: string | undefined
  readonly source?: string | undefined
}

/**
 * A permission policy: whether a tool may run.
 *
 * @since 0.2.0
 * @category models
 */
export interface Permission {
  readonly allows: (tool: Subject) => boolean
}

/**
 * Allows every tool.
 *
 * @since 0.1.0
 * @category constructors
 */
const allowAll: Permission = { allows: () => true }

/**
 * Allows only the listed tools, matched by model name, declared name or id.
 *
 * @since 0.1.0
 * @category constructors
 */
const only = (names: Iterable<string>): Permission => {
  const allowed = new Set(names)
  return {
    allows: (t) =>
      allowed.has(t.name) || allowed.has(t.id) || (t.declaredName !== undefined && allowed.has(t.declaredName))
  }
}

/**
 * The permission policy in context; everything is allowed unless one is provided.
 *
 * @since 0.1.0
 * @category services
 */
export const Permission = Context.Reference<Permission>("@tool-search/core/Permission", {
  defaultValue: () => allowAll
})

/**
 * Provides an allowed-tools list.
 *
 * **Example**
 *
 * ```ts
 * const readOnly = myTurn.pipe(Effect.provide(Permission.allowOnly(["read_file", "search_docs"])))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const allowOnly = (names: Iterable<string>): Layer.Layer<never> => Layer.succeed(Permission, only(names))

/**
 * Provides a policy.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (policy: Permission): Layer.Layer<never> => Layer.succeed(Permission, policy)
