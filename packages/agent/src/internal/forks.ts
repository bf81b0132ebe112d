/**
 * Forks: the `delegate_task` tool a turn offers when forks are on. It runs a sub-agent through the
 * executor's one fork path (`Executor.fork`, which an app calls the same way): a unit of its own —
 * its own scope, a fresh activation (or, only when the options ask, a snapshot of its parent's),
 * its own budget — and its answer returns as the tool result. The call runs as a child fiber of
 * the parent's unit, so the parent's end interrupts a fork still running.
 */
import { Unit } from "@tool-search/core"
import { Effect } from "effect"
import type { JsonSchema } from "effect"
import type { ForkInput, Options, TurnResult } from "../Executor.js"
import type { RunError } from "./run.js"

/** The name of the fork tool. */
export const DELEGATE_TASK = "delegate_task"

const PARAMETERS: JsonSchema.JsonSchema = {
  type: "object",
  properties: {
    task: { type: "string", description: "The task, self-contained: the sub-agent sees nothing else" }
  },
  required: ["task"],
  additionalProperties: false
}

/** The fork tool of a turn whose executor has `options`; `runFork` is the executor's fork path. */
export const delegateTool = (
  options: Options,
  runFork: (input: ForkInput) => Effect.Effect<TurnResult, RunError>
): Unit.ModelTool => ({
  name: DELEGATE_TASK,
  description: "Run a sub-agent on a self-contained task. It finds and loads its own tools, " +
    "independently of yours, and returns its final answer.",
  parameters: PARAMETERS,
  kind: "eager",
  run: (params) =>
    Effect.gen(function*() {
      const task = typeof params === "object" && params !== null && "task" in params ? params.task : undefined
      if (typeof task !== "string" || task.trim() === "") {
        return { isFailure: true, result: `${DELEGATE_TASK} needs {"task": "..."}` }
      }
      // fresh by default; an explicit option copies a snapshot, never shares the parent's state
      const inherit = options.forks?.inheritActivation === true ? yield* Unit.snapshot : "nothing" as const
      const result = yield* runFork({ task, inherit })
      return {
        isFailure: false,
        result: { answer: result.text, stopReason: result.stopReason, iterations: result.iterations }
      }
    }).pipe(
      Effect.catch((e) => Effect.succeed({ isFailure: true, result: `The sub-agent failed: ${e.message}` }))
    )
})
