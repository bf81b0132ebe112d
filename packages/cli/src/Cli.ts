/**
 * The `tool-search` command line: `search`, `toc`, `serve`, `demo`, `chat`, `run`, `bench`, `bench-executor`.
 *
 * @since 0.1.0
 */
import { Command } from "effect/cli"
import * as Bench from "./commands/Bench.js"
import * as BenchExecutor from "./commands/BenchExecutor.js"
import * as Chat from "./commands/Chat.js"
import * as Demo from "./commands/Demo.js"
import * as Run from "./commands/Run.js"
import * as Search from "./commands/Search.js"
import * as Serve from "./commands/Serve.js"
import * as Toc from "./commands/Toc.js"

/** The version printed by `--version`. */
export const version = "0.1.0"

/** The root command with its subcommands. */
export const cli = Command.make("tool-search").pipe(
  Command.withDescription("progressive tool disclosure for LLM agents"),
  Command.withSubcommands([
    Search.command,
    Toc.command,
    Serve.command,
    Demo.command,
    Chat.command,
    Run.command,
    Bench.command,
    BenchExecutor.command
  ])
)

/** Runs the command line on explicit arguments (tests use this). */
export const run = Command.runWith(cli, { version })
