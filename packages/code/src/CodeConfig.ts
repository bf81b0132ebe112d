/**
 * The settings of code mode, declared as a table of `Setting`s like the other packages' configs:
 * the limits of one program run in the `Sandbox` (its time, memory, stack, tool calls, output and
 * size) and the pool of worker threads the runs share. `Sandbox.layerConfig` reads them.
 *
 * @since 0.2.0
 */
import { Setting } from "@tool-search/core"
import { type Config, Duration } from "effect"

// -----------------------------------------------------------------------------
// Bounds
// -----------------------------------------------------------------------------

/**
 * The largest stack a program may be given, in kilobytes. The sandbox's worker threads have a
 * native stack sized for it: QuickJS stops a deeper program with a stack-overflow error well
 * before the thread's own stack could run out.
 *
 * @since 0.2.0
 * @category bounds
 */
export const MAX_STACK_KB = 1024

/**
 * The largest memory a program may be given, in megabytes.
 *
 * @since 0.2.0
 * @category bounds
 */
export const MAX_MEMORY_MB = 1024

// -----------------------------------------------------------------------------
// Settings
// -----------------------------------------------------------------------------

/**
 * Every code-mode setting: its variable, flag, values, default and description.
 *
 * @since 0.2.0
 * @category settings
 */
export const settings = {
  codeTimeout: Setting.make("codeTimeout", {
    schema: Setting.PositiveDuration,
    default: Duration.seconds(30),
    values: "a duration, e.g. `10 seconds`, `2 minutes`",
    defaultText: "30 seconds",
    description: "a program running longer (its tool calls included) is stopped; the model is told it ran out of time"
  }),
  codeMaxMemory: Setting.make("codeMaxMemory", {
    schema: Setting.Int(1, MAX_MEMORY_MB),
    default: 64,
    values: `integer from 1 to ${MAX_MEMORY_MB} (megabytes)`,
    description: "the memory one program may allocate; a program that needs more is stopped"
  }),
  codeMaxStack: Setting.make("codeMaxStack", {
    schema: Setting.Int(16, MAX_STACK_KB),
    default: 512,
    values: `integer from 16 to ${MAX_STACK_KB} (kilobytes)`,
    description: "the stack of one program; deeper recursion is stopped with a stack-overflow error"
  }),
  codeMaxToolCalls: Setting.make("codeMaxToolCalls", {
    schema: Setting.Int(0),
    default: 100,
    values: "integer ≥ 0",
    description: "the tool calls one program may make; the next one stops the program"
  }),
  codeMaxOutput: Setting.make("codeMaxOutput", {
    schema: Setting.Int(1),
    default: 100_000,
    values: "integer ≥ 1 (characters)",
    description: "console output plus the returned value of one program; more stops the program"
  }),
  codeMaxSize: Setting.make("codeMaxSize", {
    schema: Setting.Int(1),
    default: 100_000,
    values: "integer ≥ 1 (characters)",
    description: "a longer program is refused before it runs"
  }),
  codeToolConcurrency: Setting.make("codeToolConcurrency", {
    schema: Setting.Int(1),
    default: 4,
    values: "integer ≥ 1",
    description: "tool calls of one program running at once (`Promise.all`); the others wait their turn"
  }),
  codeWorkers: Setting.make("codeWorkers", {
    schema: Setting.Int(1),
    default: 4,
    values: "integer ≥ 1",
    description: "worker threads running programs; a program waits for a free one when all are busy"
  })
}

/**
 * The code-mode settings, typed.
 *
 * @since 0.2.0
 * @category models
 */
export type Settings = Setting.Values<typeof settings>

/**
 * The defaults of every code-mode setting.
 *
 * @since 0.2.0
 * @category settings
 */
export const defaults: Settings = {
  codeTimeout: settings.codeTimeout.default,
  codeMaxMemory: settings.codeMaxMemory.default,
  codeMaxStack: settings.codeMaxStack.default,
  codeMaxToolCalls: settings.codeMaxToolCalls.default,
  codeMaxOutput: settings.codeMaxOutput.default,
  codeMaxSize: settings.codeMaxSize.default,
  codeToolConcurrency: settings.codeToolConcurrency.default,
  codeWorkers: settings.codeWorkers.default
}

/**
 * Every code-mode setting from the `ConfigProvider` in context, defaults applied.
 *
 * @since 0.2.0
 * @category settings
 */
export const config: Config.Config<Settings> = Setting.values(settings)
