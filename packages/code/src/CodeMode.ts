/**
 * Code mode for an execution unit: the `Unit.Code` plug a surface (the executor, a gateway
 * session) passes to its unit, built from a `Sandbox` and the surface's own call path.
 *
 * With it the unit offers `execute_code({ code })` and answers `ToolSearch` with the TypeScript
 * declarations of what it loaded (`Declarations`), not JSON Schemas. A run gives the program
 * `tools` = the tools the unit may call at that moment (`Unit.callable`: eager and activated tools
 * that exist for it and that the permission policy allows — a tool the session may not see does
 * not exist inside), and every call the program makes goes through `call`: the surface's normal
 * call path, with permission, approval, argument validation, timeout and audit, the call marked
 * `via: "execute_code"`. What the model receives is `Sandbox.toModel` of the run: the returned
 * value and the logs, or the error and the logs.
 *
 * **Example**
 *
 * ```ts
 * const turn = Effect.gen(function*() {
 *   const tools = yield* UnitToolkit.make()
 *   const code = CodeMode.make({ sandbox: yield* Sandbox.Sandbox, call: tools.handle })
 *   return yield* loop(tools).pipe(Unit.provideWith({ code }))
 * })
 * ```
 *
 * @since 0.3.0
 */
import { Disclosure, Unit } from "@tool-search/core"
import { Effect, type JsonSchema, Option, Schema } from "effect"
import * as Declarations from "./Declarations.js"
import * as Sandbox from "./Sandbox.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * What one call of a program came to on the surface's call path: its result, or (`isFailure`) the
 * message the program's `await` rejects with.
 *
 * @since 0.3.0
 * @category models
 */
export interface Called {
  readonly isFailure: boolean
  readonly result: unknown
}

/**
 * How code mode is built: the sandbox that runs programs, the surface's call path for the calls a
 * program makes (each arrives marked `via: "execute_code"`, with an id of its own under the
 * `execute_code` call's id), and optionally tighter limits for these programs and bounds on the
 * declarations.
 *
 * @since 0.3.0
 * @category models
 */
export interface Options<R> {
  readonly sandbox: Sandbox.Service
  readonly call: (call: Unit.Call) => Effect.Effect<Called, never, R>
  readonly limits?: Partial<Sandbox.Limits>
  readonly declarations?: Partial<Declarations.Options>
}

/**
 * The `via` of every call a program makes: the name of the tool that ran the program.
 *
 * @since 0.3.0
 * @category constants
 */
export const VIA: string = Disclosure.toolNames.executeCode

// -----------------------------------------------------------------------------
// Constructors
// -----------------------------------------------------------------------------

/**
 * The code-mode plug of a unit: `execute_code`'s description and parameters, its run, and the
 * declarations `ToolSearch` answers with. The call path may require the unit (`UnitToolkit`'s
 * `handle` does): a run happens inside the unit.
 *
 * @since 0.3.0
 * @category constructors
 */
export const make = <R extends Unit.Unit = never>(options: Options<R>): Unit.Code => ({
  description,
  parameters,
  declare: (tools, note) => declare(tools, note, options.declarations),
  run: (params, context) => run(options, params, context.toolCallId)
})

// -----------------------------------------------------------------------------
// For the model
// -----------------------------------------------------------------------------

/**
 * `execute_code`'s description: what a program is, what it sees, and the declarations of `tools`
 * and `console`.
 *
 * @since 0.3.0
 * @category for the model
 */
export const description: string = [
  "Run a JavaScript program that calls tools, and get back only what it returns: chain calls, filter or",
  "combine large results inside the program, so that only the answer reaches you. The code is the body of an",
  "async function: `await tools.name(args)` calls a tool (one ToolSearch loaded, or one in your tool list) and",
  "resolves with its result; a failed call rejects with an Error named ToolError. `return` a JSON value;",
  "console.log is captured. No network, files, timers or modules; time, memory, output and the number of",
  "tool calls are limited.",
  "",
  Declarations.preamble
].join("\n")

/**
 * `execute_code`'s parameters: `{ code }`.
 *
 * @since 0.3.0
 * @category for the model
 */
export const parameters: JsonSchema.JsonSchema = {
  type: "object",
  properties: {
    code: {
      type: "string",
      description: "The body of an async JavaScript function, e.g. `const r = await tools.name({...}); return r`"
    }
  },
  required: ["code"],
  additionalProperties: false
}

/**
 * What `ToolSearch` answers in code mode: the declarations of the tools it loaded (an
 * `interface Tools` block; the blocks of several answers merge), then its note as a comment.
 *
 * @since 0.3.0
 * @category for the model
 */
export const declare = (
  tools: ReadonlyArray<Declarations.Tool>,
  note: string | undefined,
  options: Partial<Declarations.Options> = {}
): string => {
  const lines = [
    ...(tools.length === 0 ? [] : [`// Call them from ${VIA}: await tools.${tools[0]?.name ?? "name"}(args)`]),
    Declarations.make(tools, options),
    // a line comment ends at a line break: the note is kept on one line
    ...(note === undefined ? [] : [`// ${note.replace(/[\r\n\u2028\u2029]+/g, " ")}`])
  ]
  return lines.join("\n")
}

// -----------------------------------------------------------------------------
// Internals
// -----------------------------------------------------------------------------

const Input = Schema.Struct({ code: Schema.String })

const run = <R extends Unit.Unit>(
  options: Options<R>,
  params: unknown,
  toolCallId: string
): Effect.Effect<Unit.Output, never, Unit.Unit> =>
  Effect.gen(function*() {
    const input = Schema.decodeUnknownOption(Input)(params)
    if (Option.isNone(input)) {
      return { isFailure: true, result: `${VIA} needs {"code": "<the body of an async function>"}` }
    }
    // the tools the unit may call now: a tool the unit may not see or run does not exist inside
    const tools = (yield* Unit.callable).map((t) => t.name)
    let calls = 0
    const ended = yield* Effect.result(options.sandbox.run({
      code: input.value.code,
      tools,
      call: (tool, args) =>
        Effect.flatMap(
          options.call({ id: `${toolCallId}/${++calls}`, name: tool, params: args, via: VIA }),
          (called) =>
            called.isFailure
              ? Effect.fail(new Sandbox.CallFailure({ tool, message: messageOf(called.result) }))
              : Effect.succeed(called.result)
        ),
      ...(options.limits === undefined ? {} : { limits: options.limits })
    }))
    return Sandbox.toModel(ended)
  })

const messageOf = (result: unknown): string => {
  if (typeof result === "string") return result
  try {
    return JSON.stringify(result) ?? String(result)
  } catch {
    return String(result)
  }
}
