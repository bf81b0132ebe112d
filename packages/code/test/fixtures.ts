/**
 * Programs for the sandbox tests: tools as plain handlers, a run, and the reason a run failed.
 */
import { Effect, Schema } from "effect"
import { Sandbox } from "../src/index.js"

/** The tools of a program: one handler per name. */
export type Handlers = Readonly<Record<string, (args: unknown) => Effect.Effect<unknown, Sandbox.CallFailure>>>

/** A program with `handlers` as its tools (their names are the program's `tools`). */
export const program = (
  code: string,
  handlers: Handlers = {},
  limits?: Partial<Sandbox.Limits>
): Sandbox.Program => ({
  code,
  tools: Object.keys(handlers),
  call: (tool, args) =>
    handlers[tool]?.(args) ?? Effect.fail(new Sandbox.CallFailure({ tool, message: "no such handler" })),
  ...(limits === undefined ? {} : { limits })
})

/** Runs `code` in the sandbox in context. */
export const run = (code: string, handlers: Handlers = {}, limits?: Partial<Sandbox.Limits>) =>
  Effect.flatMap(Sandbox.Sandbox, (sandbox) => sandbox.run(program(code, handlers, limits)))

/** The reason `code` failed (the test fails if it returned). */
export const reasonOf = (
  code: string,
  handlers: Handlers = {},
  limits?: Partial<Sandbox.Limits>
): Effect.Effect<Sandbox.Reason, never, Sandbox.Sandbox> =>
  run(code, handlers, limits).pipe(
    Effect.flatMap((outcome) => Effect.die(new Error(`the program returned ${JSON.stringify(outcome.result)}`))),
    Effect.flip,
    Effect.map((error) => error.reason)
  )

const Sum = Schema.Struct({ a: Schema.Finite, b: Schema.Finite })

/** `get-sum`, as server-everything has it: its arguments decoded, a failure the program can catch. */
export const getSum = (args: unknown): Effect.Effect<number, Sandbox.CallFailure> =>
  Schema.decodeUnknownEffect(Sum)(args).pipe(
    Effect.map(({ a, b }) => a + b),
    Effect.mapError((error) => new Sandbox.CallFailure({ tool: "get-sum", message: error.message }))
  )
