// An app with an existing effect/ai Toolkit adds progressive disclosure: the weather and e-mail
// tools become deferred (found through ToolSearch), `read_file` stays eager. The consumer test
// compiles and runs this file in an empty project where the packages come from their npm tarballs.
import { Executor, ScriptedModel, TokenCounter } from "@tool-search/agent"
import { Bm25f, CatalogTool, ToolCatalog } from "@tool-search/core"
import { Effect, Layer, Schema, Stream } from "effect"
import { Tool, Toolkit } from "effect/ai"

// The app's toolkit, as it was before tool search.
const ReadFile = Tool.make("read_file", {
  description: "Read a text file from the workspace",
  parameters: Schema.Struct({ path: Schema.String }),
  success: Schema.Struct({ content: Schema.String })
})
const GetWeather = Tool.make("get_weather", {
  description: "Get the weather forecast for a city",
  parameters: Schema.Struct({ city: Schema.String }),
  success: Schema.Struct({ city: Schema.String, forecast: Schema.String })
})
const SendEmail = Tool.make("send_email", {
  description: "Send an e-mail message to a recipient",
  parameters: Schema.Struct({ to: Schema.String, subject: Schema.String }),
  success: Schema.Struct({ sent: Schema.Boolean })
})
const AppToolkit = Toolkit.make(ReadFile, GetWeather, SendEmail)
const Handlers = AppToolkit.toLayer({
  read_file: ({ path }) => Effect.succeed({ content: `contents of ${path}` }),
  get_weather: ({ city }) => Effect.succeed({ city, forecast: "sunny" }),
  send_email: () => Effect.succeed({ sent: true })
})

// ---------------------------------------------------------------------------------------------
// DEFERRAL, LONG FORM. Issue #11 item 3 adds a one-step form (a deferral annotation per tool read
// by one layer built from the toolkit); when it lands, replace this block with it and keep the
// assertions of consumer/consumer.test.ts.
// ---------------------------------------------------------------------------------------------
const Catalog = Layer.effectDiscard(Effect.gen(function*() {
  const catalog = yield* ToolCatalog.ToolCatalog
  const toolkit = yield* AppToolkit
  yield* catalog.register(
    CatalogTool.fromToolkit(toolkit, { loading: (name) => name === "read_file" ? "eager" : "deferred" })
  )
})).pipe(Layer.provideMerge(ToolCatalog.ToolCatalog.layer), Layer.provide(Bm25f.layer), Layer.provide(Handlers))
// ---------------------------------------------------------------------------------------------

// A real app provides its effect/ai LanguageModel (OpenAI, Anthropic, ...) instead of the script.
const Model = ScriptedModel.layer({
  policy: "capable",
  plan: () => ({ search: "weather forecast", tool: "get_weather", params: { city: "Paris" } })
})

const Agent = Executor.Executor.layer({ maxIterations: 6 }).pipe(
  Layer.provideMerge(Model),
  Layer.provideMerge(Catalog),
  Layer.provide(TokenCounter.TokenCounter.o200k)
)

const program = Effect.gen(function*() {
  const executor = yield* Executor.Executor
  const events = yield* Stream.runCollect(
    executor.stream({ prompt: [{ role: "user", content: "What is the weather in Paris?" }] })
  )
  for (const event of events) {
    if (event.type === "model-request") console.log(`request: ${event.tools.join(", ")}`)
    if (event.type === "tool-result") console.log(`result: ${event.name} ${JSON.stringify(event.result)}`)
  }
}).pipe(Effect.provide(Agent))

Effect.runPromise(program).catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
