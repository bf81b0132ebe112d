/**
 * Entry point of the `tool-search` binary: the command line on `process.argv`, on Node.
 *
 * @since 0.1.0
 */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Effect } from "effect"
import { Command } from "effect/cli"
import { cli, version } from "./Cli.js"

cli.pipe(Command.run({ version }), Effect.provide(NodeServices.layer), NodeRuntime.runMain)
