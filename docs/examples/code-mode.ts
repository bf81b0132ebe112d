// Code mode: a program that lists 200 users, keeps the three ops engineers idle the longest and
// messages them — one run, where calling the tools one by one would drag all 200 users through the
// model's context. First without an agent (`program`: the two tools are plain host functions behind
// `call`; the model would read `declarations` to write the program), then in an agent with
// `delivery: "code"` (`inAgent`: the scripted model searches, reads the declarations ToolSearch
// answers, writes the program and runs it with execute_code; every call of the program goes through
// the executor's call path, marked `via: "execute_code"`).
// Runs in docs/examples.test.ts (npm test).
import { Executor, ScriptedModel, TurnEvent } from "@tool-search/agent"
import { Declarations, Sandbox } from "@tool-search/code"
import { CatalogTool, Disclosure, Keyword, ToolCatalog } from "@tool-search/core"
import { Effect, type JsonSchema, Layer, Result, Schema, Stream } from "effect"

const users = Array.from({ length: 200 }, (_, i) => ({
  id: `u${i}`,
  name: `User ${i}`,
  team: i % 4 === 0 ? "ops" : "dev",
  idleDays: (i * 37) % 120
}))
const sent: Array<{ readonly to: string; readonly text: string }> = []

/** `send_message`'s parameters. */
const messageParameters: JsonSchema.JsonSchema = {
  type: "object",
  properties: { to: { type: "string", description: "A user id" }, text: { type: "string" } },
  required: ["to", "text"]
}

const Message = Schema.Struct({ to: Schema.String, text: Schema.String })

/** Sends a message: what `send_message` does. */
const send = (args: unknown) =>
  Schema.decodeUnknownEffect(Message)(args).pipe(
    Effect.map((message) => {
      sent.push(message)
      return { delivered: true }
    })
  )

/** The tools as the model sees them. */
export const tools: ReadonlyArray<Declarations.Tool> = [
  {
    name: "list_users",
    description: "Every user of the workspace.",
    parameters: { type: "object", properties: {} }
  },
  {
    name: "send_message",
    description: "Send a direct message to a user.",
    parameters: messageParameters
  }
]

/** What the model reads before it writes a program. */
export const declarations = `${Declarations.preamble}\n${Declarations.make(tools)}`

/** Runs one tool call of a program: here, two plain functions; in an agent, the unit's call path. */
const call: Sandbox.CallTool = (tool, args) => {
  if (tool === "list_users") return Effect.succeed(users)
  return send(args).pipe(Effect.mapError((error) => new Sandbox.CallFailure({ tool, message: error.message })))
}

/** The program a model would write. */
const code = `
const everyone = await tools.list_users({})
const idle = everyone
  .filter((u) => u.team === "ops")
  .sort((a, b) => b.idleDays - a.idleDays)
  .slice(0, 3)
await Promise.all(idle.map((u) => tools.send_message({ to: u.id, text: "Still on call?" })))
console.log("messaged", idle.length, "of", everyone.length)
return idle.map((u) => u.name)
`

export const program = Effect.gen(function*() {
  const sandbox = yield* Sandbox.Sandbox
  const outcome = yield* sandbox.run({ code, tools: tools.map((t) => t.name), call })
  return { outcome, sent, forTheModel: Sandbox.toModel(Result.succeed(outcome)) }
}).pipe(Effect.provide(Sandbox.layer()))

// -----------------------------------------------------------------------------
// In an agent: TOOL_SEARCH_DELIVERY=code
// -----------------------------------------------------------------------------

/** The same two tools as a catalog: deferred, each found with a search. */
const catalog = [
  CatalogTool.make({
    name: "list_users",
    description: "Every user of the workspace.",
    handler: CatalogTool.handler("list_users", () => Effect.succeed({ users }))
  }),
  CatalogTool.make({
    name: "send_message",
    description: "Send a direct message to a user.",
    parameters: messageParameters,
    handler: CatalogTool.handler("send_message", (args) => send(args).pipe(Effect.mapError((error) => error.message)))
  })
]

const agent = Executor.layerMemory({ delivery: "code" }).pipe(
  Layer.provideMerge(ScriptedModel.layer({
    policy: "capable",
    plan: () => ({
      search: "users",
      pipeline: {
        list: { tool: "list_users", search: "list the users", items: "users" },
        where: { team: "ops" },
        largest: "idleDays",
        take: 3,
        act: { tool: "send_message", search: "send a message", params: { text: "Still on call?" }, from: { to: "id" } }
      }
    })
  })),
  Layer.provide(ToolCatalog.layerWithTools(catalog).pipe(Layer.provide(Keyword.layer), Layer.orDie)),
  Layer.provide(Disclosure.layer({ defer: "always" })) // two tools: below the default threshold
)

/** One turn in code delivery: what each request offered, the calls made, and the answer. */
export const inAgent = Effect.gen(function*() {
  sent.length = 0
  const executor = yield* Executor.Executor
  const events = yield* Stream.runCollect(
    executor.stream({ prompt: [{ role: "user", content: "Ask the three idlest ops engineers if they are on call" }] })
  )
  return {
    offered: events.filter(TurnEvent.$is("ModelRequest")).map((r) => r.tools),
    calls: events.filter(TurnEvent.$is("ToolCall")).map((c) => c.via === undefined ? c.name : `${c.via} → ${c.name}`),
    sent: sent.map((m) => m.to),
    answer: events.filter(TurnEvent.$is("TurnFinished")).map((f) => f.text).join("")
  }
}).pipe(Effect.provide(agent))
