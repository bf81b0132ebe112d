/**
 * The `tool-search` command line as a library: the root command and `run` on explicit arguments.
 *
 * The modules, by category:
 *
 * - **commands** — `Cli`, `CliError`
 * - **catalogs** — `Catalogs`
 * - **evaluation** — `Evaluation`
 * - **demo** — `DemoPolicies`
 *
 * The commands themselves are in `commands/`, the demo's data and engine in `demo/`.
 *
 * @since 0.1.0
 */

// -----------------------------------------------------------------------------
// Commands
// -----------------------------------------------------------------------------

/**
 * The root command and `run`.
 *
 * @since 0.1.0
 * @category commands
 */
export * as Cli from "./Cli.js"

/**
 * Errors the command reports as one line with exit code 2.
 *
 * @since 0.1.0
 * @category commands
 */
export * as CliError from "./CliError.js"

// -----------------------------------------------------------------------------
// Catalogs
// -----------------------------------------------------------------------------

/**
 * Loading catalog files.
 *
 * @since 0.1.0
 * @category catalogs
 */
export * as Catalogs from "./Catalogs.js"

// -----------------------------------------------------------------------------
// Evaluation
// -----------------------------------------------------------------------------

/**
 * Retrieval metrics and the benchmark harness.
 *
 * @since 0.1.0
 * @category evaluation
 */
export * as Evaluation from "./Evaluation.js"

// -----------------------------------------------------------------------------
// Demo
// -----------------------------------------------------------------------------

/**
 * The demo's policy handbook, wiki and prompt: the resources of its resource turn.
 *
 * @since 0.2.0
 * @category demo
 */
export * as DemoPolicies from "./demo/Policies.js"
