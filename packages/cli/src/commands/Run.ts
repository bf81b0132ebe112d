/**
 * `tool-search run "<task>" (--catalog <file> | --upstream <name>=<command>…) [--model m] [--json]`:
 * one turn of the agent on the configured model (`TOOL_SEARCH_MODEL`, see docs/providers.md),
 * printed as the demo prints its turns: what each request carried, what was searched, activated
 * and run, and the answer. Without a configured model it says how to configure one and exits 2;
 * a failed model call exits 1.
 *
 * @since 0.2.0
 */
import { Console, Effect } from "effect"
import { Argument, Command } from "effect/cli"
import * as Agents from "../Agents.js"

/**
 * The `run` command.
 *
 * @since 0.2.0
 * @category commands
 */
export const command = Command.make(
  "run",
  { task: Argument.String("task").pipe(Argument.withDescription("what the agent should do")), ...Agents.flags },
  (flags) =>
    Agents.withAgent("run", flags, (info) =>
      Effect.gen(function*() {
        if (!flags.json) yield* Console.log(`tool-search run — ${Agents.banner(info)}`)
        yield* Agents.turn([{ role: "user", content: flags.task }], {
          command: "tool-search run",
          json: flags.json,
          sessionId: "run"
        })
      })).pipe(Agents.report("tool-search run", { json: flags.json }))
).pipe(Command.withDescription("one turn of the agent on the configured model (TOOL_SEARCH_MODEL)"))
