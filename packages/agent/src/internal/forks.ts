/**
 * Forks: the `delegate_task` tool a turn offers when forks are on. A fork is a unit of its own —
 * its own scope, a fresh activation (or, only when asked, a snapshot copy of its parent's), its own
 * budget — and its answer returns as the tool result.
 */
import type { ToolView } from "@tool-search/core"
import { Effect, Ref } from "effect"
import type { JsonSchema } from "effect"
import type { AiError } from "effect/ai"
import type { TurnInput, TurnResult } from "../Executor.js"
import type { Unit } from "./unit.js"

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

/** Runs a fork as a unit at `path`. */
export type RunFork = (input: TurnInput, path: ReadonlyArray<string>) => Effect.Effect<TurnResult, AiError.AiError>

/** The fork tool of `parent`. */
export const delegateTool = (parent: Omit<Unit, "toolkit" | "delivery">, runFork: RunFork): ToolView.ModelTool => ({
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
      const { options } = parent.agent
      const forks = options.forks ?? { maxIterations: options.maxIterations, inheritActivation: false }
      const n = yield* Ref.updateAndGet(parent.agent.forks, (k) => k + 1)
      const result = yield* runFork(
        {
          prompt: [{ role: "user", content: task }],
          maxIterations: forks.maxIterations,
          // fresh by default; an explicit option copies a snapshot, never shares the parent's Ref
          activation: forks.inheritActivation ? yield* parent.activation.ids : []
        },
        [...parent.path, `fork-${n}`]
      )
      return {
        isFailure: false,
        result: { answer: result.text, stopReason: result.stopReason, iterations: result.iterations }
      }
    }).pipe(
      Effect.catch((e) => Effect.succeed({ isFailure: true, result: `The sub-agent failed: ${e.message}` }))
    )
})
