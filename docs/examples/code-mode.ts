// Code mode without an agent: a program that lists 200 users, keeps the three ops engineers idle the
// longest and messages them — one run, where calling the tools one by one would drag all 200 users
// through the model's context. The two tools are plain host functions behind `call`; the model would
// read `declarations` to write the program.
// Runs in docs/examples.test.ts (npm test).
import { Declarations, Sandbox } from "@tool-search/code"
import { Effect, Result, Schema } from "effect"

const users = Array.from({ length: 200 }, (_, i) => ({
  id: `u${i}`,
  name: `User ${i}`,
  team: i % 4 === 0 ? "ops" : "dev",
  idleDays: (i * 37) % 120
}))
const sent: Array<{ readonly to: string; readonly text: string }> = []

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
    parameters: {
      type: "object",
      properties: { to: { type: "string", description: "A user id" }, text: { type: "string" } },
      required: ["to", "text"]
    }
  }
]

/** What the model reads before it writes a program. */
export const declarations = `${Declarations.preamble}\n${Declarations.make(tools)}`

const Message = Schema.Struct({ to: Schema.String, text: Schema.String })

/** Runs one tool call of a program: here, two plain functions; in an agent, the unit's call path. */
const call: Sandbox.CallTool = (tool, args) => {
  if (tool === "list_users") return Effect.succeed(users)
  return Schema.decodeUnknownEffect(Message)(args).pipe(
    Effect.map((message) => {
      sent.push(message)
      return { delivered: true }
    }),
    Effect.mapError((error) => new Sandbox.CallFailure({ tool, message: error.message }))
  )
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
