// An app with an existing effect/ai Toolkit and its own generateText loop adds tool search: the
// weather and e-mail tools are annotated as deferred, one layer builds the catalog from the
// toolkit, and `UnitToolkit.generateText` sends the tools the unit shows now. The model calls
// a deferred tool before searching; it gets the corrective message as a tool result, loads the
// tool, and calls it. The consumer test compiles and runs this file in an empty project where the
// packages come from their npm tarballs.
import { ScriptedModel, UnitToolkit } from "@tool-search/agent"
import { CatalogTool, Disclosure, SearchToolkit, Unit } from "@tool-search/core"
import { Effect, Layer, Schema } from "effect"
import { Prompt, Tool, Toolkit } from "effect/ai"

// The app's toolkit, as it was before tool search, plus one annotation per deferred tool.
const ReadFile = Tool.make("read_file", {
  description: "Read a text file from the workspace",
  parameters: Schema.Struct({ path: Schema.String }),
  success: Schema.Struct({ content: Schema.String })
})
const GetWeather = Tool.make("get_weather", {
  description: "Get the weather forecast for a city",
  parameters: Schema.Struct({ city: Schema.String }),
  success: Schema.Struct({ city: Schema.String, forecast: Schema.String })
}).annotate(CatalogTool.Deferred, true)
const SendEmail = Tool.make("send_email", {
  description: "Send an e-mail message to a recipient",
  parameters: Schema.Struct({ to: Schema.String, subject: Schema.String }),
  success: Schema.Struct({ sent: Schema.Boolean })
}).annotate(CatalogTool.Deferred, true)
const AppToolkit = Toolkit.make(ReadFile, GetWeather, SendEmail)
const Handlers = AppToolkit.toLayer({
  read_file: ({ path }) => Effect.succeed({ content: `contents of ${path}` }),
  get_weather: ({ city }) => Effect.succeed({ city, forecast: "sunny" }),
  send_email: () => Effect.succeed({ sent: true })
})

// A real app provides its effect/ai LanguageModel; this one calls tools by name before searching.
const Model = ScriptedModel.layer({
  policy: "guesser",
  plan: () => ({ search: "weather forecast", tool: "get_weather", params: { city: "Paris" } })
})

const turn = (user: string) =>
  Effect.gen(function*() {
    const tools = yield* UnitToolkit.make()
    let prompt = Prompt.make(user)
    for (let i = 0; i < 6; i++) {
      console.log(`request: ${(yield* tools.tools).map((t) => t.name).join(", ")}`)
      const step = yield* tools.generateText({ prompt })
      prompt = step.prompt
      for (const o of step.outcomes) console.log(`call: ${o.call.name} ${o.failure ?? "ok"}`)
      if (step.response.toolCalls.length === 0) return console.log(`answer: ${step.response.text}`)
    }
  }).pipe(Unit.provide)

const program = turn("What is the weather in Paris?").pipe(
  Effect.provide(Layer.mergeAll(
    Model,
    SearchToolkit.layerFromToolkit(AppToolkit).pipe(Layer.provide(Handlers)),
    Disclosure.layer({ defer: "always" }) // two deferred tools: below the default threshold
  ))
)

Effect.runPromise(program).catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
