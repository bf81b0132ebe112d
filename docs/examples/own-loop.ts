// Use 4 — your own generateText loop, with tool search: `UnitToolkit.generateText` sends the tools
// the unit shows now and resolves every call the way the executor does. The scripted model calls a
// deferred tool before loading it; it gets the corrective message as a tool result (never an
// AiError), loads the tool with the call the message names, and calls it again.
// Runs in docs/examples.test.ts (npm test).
import { ScriptedModel, UnitToolkit } from "@tool-search/agent"
import { CatalogTool, Disclosure, SearchToolkit, Unit } from "@tool-search/core"
import { Effect, Layer, Schema } from "effect"
import { Prompt, Tool, Toolkit } from "effect/ai"

const ReadFile = Tool.make("read_file", {
  description: "Read a file",
  parameters: Schema.Struct({ path: Schema.String }),
  success: Schema.String
})
const JiraCreate = Tool.make("jira_create", {
  description: "Create a Jira ticket",
  parameters: Schema.Struct({ title: Schema.String }),
  success: Schema.String
}).annotate(CatalogTool.Deferred, true)
export const MyToolkit = Toolkit.make(ReadFile, JiraCreate)
const Handlers = MyToolkit.toLayer({
  read_file: ({ path }) => Effect.succeed(`# ${path}`),
  jira_create: ({ title }) => Effect.succeed(`OPS-1: ${title}`)
})

// A model that calls tools by name without searching first, then follows corrections.
export const Model = ScriptedModel.layer({
  policy: "guesser",
  plan: () => ({ search: "create ticket", tool: "jira_create", params: { title: "outage" } })
})

/** One turn of the loop: a unit of its own, so what it loads is gone when it ends. */
const turn = (user: string) =>
  Effect.gen(function*() {
    const tools = yield* UnitToolkit.make()
    let prompt = Prompt.make(user)
    const steps: Array<string> = []
    for (let i = 0; i < 8; i++) {
      const step = yield* tools.generateText({ prompt }) // the tools the unit shows now, calls resolved
      prompt = step.prompt
      steps.push(...step.outcomes.map((o) => `${o.call.name}: ${o.failure ?? "ok"}`))
      if (step.response.toolCalls.length === 0) return { answer: step.response.text, steps }
    }
    return { answer: "(out of steps)", steps }
  }).pipe(Unit.provide)

export const program = turn("open a ticket for the outage").pipe(
  Effect.provide(Layer.mergeAll(
    Model,
    SearchToolkit.layerFromToolkit(MyToolkit).pipe(Layer.provide(Handlers)),
    Disclosure.layer({ defer: "always" }) // one deferred tool: below the default threshold
  ))
)
