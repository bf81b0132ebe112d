/**
 * Code mode as a unit takes it: a plug, so that core knows nothing of programs, sandboxes or
 * TypeScript. A surface (the executor, a gateway session) builds a `Code` from its sandbox and its
 * own call path (`@tool-search/code`'s `CodeMode.make`) and passes it to the unit; the unit then
 * offers `execute_code` among its own tools, answers `ToolSearch` with the plug's declarations
 * instead of JSON Schemas, and keeps found tools out of its tool list (programs call them).
 *
 * @internal
 */
import type { Effect, JsonSchema } from "effect"
import type * as CatalogTool from "../../CatalogTool.js"
import * as Disclosure from "../../Disclosure.js"
import type { FunctionDefinition } from "./messages.js"
import type * as Model from "./model.js"
import type { UnitService } from "./service.js"

/** Code mode, plugged into a unit. */
export interface Code {
  /** `execute_code`'s description: how to write a program, and what it sees. */
  readonly description: string
  /** `execute_code`'s parameters: a JSON Schema object. */
  readonly parameters: JsonSchema.JsonSchema
  /**
   * Runs one `execute_code` call in the unit of the call — its tools are `Unit.callable`, each call
   * goes through the surface's own call path — and answers what the model receives. Never fails:
   * a program that does not return is an answer with `isFailure`.
   */
  readonly run: (params: unknown, context: CatalogTool.CallContext) => Effect.Effect<Model.Output, never, UnitService>
  /**
   * What `ToolSearch` (and `discover_tools`) answers for the tools it found, in place of their
   * definitions: their declarations for a program, with the answer's note (if any).
   */
  readonly declare: (tools: ReadonlyArray<FunctionDefinition>, note: string | undefined) => string
}

/** `execute_code` as the model sees it, running `code.run`. */
export const tool = (code: Code): Model.ModelTool => ({
  name: Disclosure.toolNames.executeCode,
  description: code.description,
  parameters: code.parameters,
  kind: "meta",
  run: code.run
})
