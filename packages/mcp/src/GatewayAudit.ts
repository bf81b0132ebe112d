/**
 * What the gateway tells an audit trail: every search through its `ToolSearch` (a reveal: what
 * it found and what it loaded for the session) and every `tools/call` it ran or forwarded (a call:
 * the tool, where it came from, the outcome, the duration; arguments and results only when the
 * audit asks for them, since they can hold secrets; a call a program made in code mode says so,
 * `via: "execute_code"`). A `resources/read` or `prompts/get` it answered is a call too, its tool
 * the method and its `target` the URI or prompt name; so is a call of a resource level tool
 * (`read_resource`, `get_prompt`, ...), its `target` the URI, prompt name or query it was given.
 *
 * A call that runs a tool (an upstream call, a handler) is recorded twice: its intent right before
 * the tool runs, and its outcome after, sharing an `id` — so a call whose outcome never comes (the
 * process stopped during it) still has a record. Recording never makes an answer wait: an
 * implementation takes the entry and writes it when it can.
 *
 * The records are `@tool-search/core`'s `AuditRecord`: the gateway only states them; an implementation keeps them (`@tool-search/store` appends
 * them to its audit trail, and `tool-search serve --database` wires it). Without one in context
 * nothing is recorded.
 *
 * @since 0.2.0
 */
import type { AuditRecord } from "@tool-search/core"
import { Context, Option } from "effect"

/**
 * One search of a gateway session (`AuditRecord.Reveal` of `@tool-search/core`).
 *
 * @since 0.2.0
 * @category models
 */
export type Reveal = AuditRecord.Reveal

/**
 * One `tools/call` of a gateway session, other than a search; or one `resources/read`,
 * `prompts/get` (`AuditRecord.Call` of `@tool-search/core`).
 *
 * @since 0.2.0
 * @category models
 */
export type Call = AuditRecord.Call

/**
 * A call about to run a tool, recorded right before it runs (`AuditRecord.Intent` of
 * `@tool-search/core`).
 *
 * @since 0.2.0
 * @category models
 */
export type Intent = AuditRecord.Intent

/**
 * An audit trail the gateway writes to (`AuditRecord.Recorder` of `@tool-search/core`).
 *
 * @since 0.2.0
 * @category models
 */
export type Recorder = AuditRecord.Recorder

/**
 * The audit trail of the gateway sessions opened in its scope; none by default.
 *
 * @since 0.2.0
 * @category references
 */
export const GatewayAudit: Context.Reference<Option.Option<Recorder>> = Context.Reference<Option.Option<Recorder>>(
  "@tool-search/mcp/GatewayAudit",
  { defaultValue: () => Option.none() }
)
