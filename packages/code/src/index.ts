/**
 * Code mode for tool-search: the model writes one short program that calls the tools it found,
 * instead of calling them one model round trip at a time. This package holds the `Sandbox` that
 * runs a program (QuickJS compiled to WebAssembly, on worker threads, within limits),
 * `Declarations`, the TypeScript declarations of tools that show the model how to call them, and
 * `CodeMode`, the plug that gives an execution unit `execute_code` over a surface's call path.
 *
 * @since 0.2.0
 */

// -----------------------------------------------------------------------------
// Running programs
// -----------------------------------------------------------------------------

/**
 * The sandbox: runs a program's code with `tools` and `console`, within limits, off the main
 * thread; why a run failed (`Sandbox.SandboxError`, its `reason`).
 *
 * @since 0.2.0
 * @category running programs
 */
export * as Sandbox from "./Sandbox.js"

// -----------------------------------------------------------------------------
// Errors, also at the top level so that declaration files of dependent code can name them
// -----------------------------------------------------------------------------

export {
  /**
   * A program run did not return a value: one error with a `reason`, written for the model.
   *
   * @since 0.2.0
   * @category errors
   */
  SandboxError
} from "./SandboxError.js"

export {
  /**
   * A tool call of a program failed: the program sees a rejected promise.
   *
   * @since 0.2.0
   * @category errors
   */
  CallFailure
} from "./Sandbox.js"

// -----------------------------------------------------------------------------
// Declarations
// -----------------------------------------------------------------------------

/**
 * TypeScript declarations of tools from their JSON Schemas, bounded and safe against hostile
 * schemas and names: what the model reads to call tools from a program.
 *
 * @since 0.2.0
 * @category declarations
 */
export * as Declarations from "./Declarations.js"

// -----------------------------------------------------------------------------
// Code mode in a unit
// -----------------------------------------------------------------------------

/**
 * The code-mode plug of an execution unit (`Unit.Code`): `execute_code` running programs in a
 * `Sandbox` whose calls go through the surface's own call path, and `ToolSearch` answering with
 * `Declarations`.
 *
 * @since 0.3.0
 * @category code mode
 */
export * as CodeMode from "./CodeMode.js"

// -----------------------------------------------------------------------------
// Settings
// -----------------------------------------------------------------------------

/**
 * The code-mode settings as a `Setting` table: the limits of a run and the size of the worker pool.
 *
 * @since 0.2.0
 * @category settings
 */
export * as CodeConfig from "./CodeConfig.js"
