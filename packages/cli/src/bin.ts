/**
 * Entry point of the `tool-search` binary: the command line on `process.argv`, on Node.
 *
 * @since 0.1.0
 */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Effect } from "effect"
import { main } from "./Cli.js"

main.pipe(Effect.provide(NodeServices.layer), NodeRuntime.runMain)
