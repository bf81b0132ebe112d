/**
 * `tool-search chat (--catalog <file> | --upstream <name>=<command>…) [--model m] [--json]`: an
 * interactive agent on the configured model (`TOOL_SEARCH_MODEL`, see docs/providers.md). Each
 * line on stdin is a user message; each turn is printed as the demo prints its turns. The
 * conversation carries over as text (user and assistant messages) and activation follows
 * `TOOL_SEARCH_ACTIVATION`. Ends at the end of input or with `/exit`.
 *
 * Without a configured model it says how to configure one and exits 2. A failed model call is
 * printed and the conversation goes on without that message.
 *
 * @since 0.2.0
 */
import { Console, Effect, Ref, Stdio, Stream } from "effect"
import type { Prompt } from "effect/ai"
import { Command } from "effect/cli"
import * as Agents from "../Agents.js"

/** Reads lines from stdin and runs a turn for each. */
const conversation = (json: boolean) =>
  Effect.gen(function*() {
    const stdio = yield* Stdio.Stdio
    const interactive = yield* stdio.stdinIsTerminal
    const prompt = interactive
      ? Stream.make("\nyou> ").pipe(Stream.run(stdio.stdout({ endOnDone: false })))
      : Effect.void
    const history = yield* Ref.make<ReadonlyArray<Prompt.MessageEncoded>>([])
    yield* prompt
    yield* stdio.stdin.pipe(
      Stream.decodeText(),
      Stream.splitLines,
      Stream.map((line) => line.trim()),
      Stream.takeWhile((line) => line !== "/exit"),
      Stream.runForEach((line) =>
        Effect.gen(function*() {
          if (line === "") return
          const messages = [...(yield* Ref.get(history)), { role: "user" as const, content: line }]
          const events = yield* Agents.turn(messages, { command: "tool-search chat", json, sessionId: "chat" }).pipe(
            Effect.catchTag("TurnFailed", () => Effect.succeed(undefined))
          )
          if (events !== undefined) {
            yield* Ref.set(history, [...messages, { role: "assistant", content: Agents.answerOf(events) }])
          }
        }).pipe(Effect.andThen(prompt))
      )
    )
  })

/**
 * The `chat` command.
 *
 * @since 0.2.0
 * @category commands
 */
export const command = Command.make(
  "chat",
  Agents.flags,
  (flags) =>
    Agents.withAgent("chat", flags, (info) =>
      Effect.gen(function*() {
        if (!flags.json) {
          yield* Console.log(`tool-search chat — ${Agents.banner(info)}`)
          yield* Console.log("  one message per line; /exit or end of input (Ctrl-D) ends the chat")
        }
        yield* conversation(flags.json)
      })).pipe(Agents.report("tool-search chat", { json: flags.json }))
).pipe(
  Command.withDescription("an interactive agent on the configured model (TOOL_SEARCH_MODEL)")
)
