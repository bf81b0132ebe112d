/**
 * The `tool-search` command line as a library: the root command and `run` on explicit arguments.
 *
 * @since 0.1.0
 */

/** The root command and `run`. */
export * as Cli from "./Cli.js"
/** Errors the command reports as one line with exit code 2. */
export * as CliError from "./CliError.js"
/** Loading catalog files. */
export * as Catalogs from "./Catalogs.js"
/** The demo's policy handbook, wiki and prompt: the resources of its resource turn. */
export * as DemoPolicies from "./demo/Policies.js"
/** Retrieval metrics and the benchmark harness. */
export * as Evaluation from "./Evaluation.js"
