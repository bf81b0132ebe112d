// Two processes, one session. Process 1 runs a turn with the `session` activation policy and exits;
// process 2, started later on the same database, continues the session: the model's first request
// already carries the tool that process 1 found, so it calls it without searching again.
//
//   TOOL_SEARCH_DATABASE=./agent-db node dist/docs/examples/persistence.js s1 "tell #ops the deploy is done"
//   TOOL_SEARCH_DATABASE=./agent-db node dist/docs/examples/persistence.js s1 "post the release notes to #ops"
//
// TOOL_SEARCH_DATABASE may also be postgres://user:password@host:5432/db. Runs in
// docs/examples.test.ts (npm test), as two real processes.
import { Executor, ScriptedModel, type TurnEvent } from "@tool-search/agent"
import { CatalogTool, Disclosure, Keyword, ToolCatalog, type UnknownTools } from "@tool-search/core"
import { AuditRecorder, type Database, StoreConfig } from "@tool-search/store"
import { type Config, Effect, Layer, Logger, Stream } from "effect"
import type { AiError } from "effect/ai"

const echo = (name: string) => CatalogTool.handler(name, (params) => Effect.succeed({ ok: true, name, params }))
const tools = [
  CatalogTool.make({ name: "read_file", description: "Read a file", loading: "eager", handler: echo("read_file") }),
  CatalogTool.make({ name: "chat_send", description: "Send a chat message to a channel", handler: echo("chat_send") }),
  CatalogTool.make({ name: "tickets_open", description: "Open a ticket in the tracker", handler: echo("tickets_open") })
]
const Catalog = ToolCatalog.layerWithTools(tools).pipe(
  Layer.provide(Keyword.layer),
  Layer.orDie,
  Layer.merge(Disclosure.layer({ defer: "always" })) // two deferred tools: below the default threshold
)

// A real app provides an effect/ai LanguageModel; this one searches for what it needs, and calls a
// tool directly when the request already offers it.
const Model = ScriptedModel.layer({
  policy: "capable",
  plan: (text) => ({ search: "send chat message", tool: "chat_send", params: { text } })
})

// The store from the settings (TOOL_SEARCH_DATABASE, TOOL_SEARCH_EVICTION, ...): the executor picks
// up its session store; the audit records every turn.
const Agent = Executor.layer({ activationPolicy: "session" }).pipe(
  Layer.provideMerge(Model),
  Layer.provideMerge(Catalog),
  Layer.provideMerge(StoreConfig.layerConfig())
)

/** What one turn showed. */
export interface Summary {
  /** Tools carried over from earlier turns of the session. */
  readonly carried: ReadonlyArray<string>
  /** The tools of the turn's first model request. */
  readonly firstRequest: ReadonlyArray<string>
  readonly searches: number
  readonly calls: ReadonlyArray<string>
}

/** One turn of `sessionId`: what it carried over, what the first request offered, what it searched. */
export const turn = (
  sessionId: string,
  message: string
): Effect.Effect<Summary, AiError.AiError | UnknownTools | Database.DatabaseUnavailable | Config.ConfigError> =>
  Effect.gen(function*() {
    const executor = yield* Executor.Executor
    const events: ReadonlyArray<TurnEvent.TurnEvent> = yield* Stream.runCollect(
      executor.stream({ sessionId, prompt: [{ role: "user", content: message }] }).pipe(AuditRecorder.tap)
    )
    return {
      carried: events.flatMap((e) => e._tag === "TurnStarted" ? e.carried : []),
      firstRequest: events.find((e) => e._tag === "ModelRequest")?.tools ?? [],
      searches: events.filter((e) => e._tag === "Search").length,
      calls: events.flatMap((e) => e._tag === "ToolCall" ? [e.name] : [])
    }
  }).pipe(Effect.provide(Agent))

if (process.argv[1]?.endsWith("persistence.js") === true) {
  const [sessionId = "s1", message = "tell #ops the deploy is done"] = process.argv.slice(2)
  // stdout carries the JSON answer: log lines (a database that went away, say) go to stderr
  Effect.runPromise(turn(sessionId, message).pipe(Effect.provideService(Logger.LogToStderr, true))).then(
    (result) => console.log(JSON.stringify(result)),
    (error: unknown) => {
      console.error(`persistence: ${error instanceof Error ? error.message : String(error)}`)
      process.exitCode = 1
    }
  )
}
