/**
 * The agent's settings, declared as a table of `Setting`s like core's `ToolSearchConfig`: how
 * activation carries over between the turns of a session, when a session's carried-over state is
 * dropped, how found tools reach the model, and the bounds on every tool call (its time, its
 * arguments, the result the model sees).
 * `Executor.layerConfig` reads them together with the core settings.
 *
 * @since 0.2.0
 */
import { Setting } from "@tool-search/core"
import { type Config, Duration } from "effect"
import * as ActivationPolicy from "./ActivationPolicy.js"
import * as Eviction from "./Eviction.js"
import * as Delivery from "./internal/delivery.js"
import * as UnitToolkit from "./UnitToolkit.js"

/**
 * Every agent setting: its variable, flag, values, default and description.
 *
 * @since 0.2.0
 * @category settings
 */
export const settings = {
  activation: Setting.make("activation", {
    schema: Setting.Choice(ActivationPolicy.policies),
    default: "turn",
    values: ActivationPolicy.policies.map((p) => `\`${p}\``).join(" | "),
    description: "how activation carries over between turns (the executor applies it)"
  }),
  eviction: Setting.make("eviction", {
    schema: Eviction.FromString,
    default: Eviction.defaultStrategy,
    values: "`never` | `always` | `lru:<sessions>` | `ttl:<duration>` | several joined by `,`",
    defaultText: "lru:1000",
    description: "when a session's carried-over activation is dropped, e.g. `lru:200,ttl:30 minutes`"
  }),
  delivery: Setting.make("delivery", {
    schema: Setting.Choice(Delivery.modes),
    default: "list",
    values: Delivery.modes.map((m) => `\`${m}\``).join(" | "),
    description: "how found tools reach the model: join the tool list (`list`), a fixed list and `call_tool` " +
      "(`result`, keeps the prompt cache), the provider's deferred tools (`native`, Anthropic), or " +
      "TypeScript declarations and a program run with `execute_code` in a sandbox (`code`)"
  }),
  toolTimeout: Setting.make("toolTimeout", {
    schema: Setting.PositiveDuration,
    default: Duration.fromInputUnsafe(UnitToolkit.defaults.toolTimeout),
    values: "a duration, e.g. `30 seconds`, `5 minutes`",
    defaultText: "5 minutes",
    description: "a tool call running longer is cancelled; the model is told it timed out"
  }),
  toolResultMaxTokens: Setting.make("toolResultMaxTokens", {
    schema: Setting.Int(1),
    default: UnitToolkit.defaults.toolResultMaxTokens,
    values: "integer ≥ 1",
    description: "a longer tool result is cut for the model, with a note; events keep the full result"
  }),
  toolArgumentsMaxSize: Setting.make("toolArgumentsMaxSize", {
    schema: Setting.Int(1),
    default: UnitToolkit.defaults.toolArgumentsMaxSize,
    values: "integer ≥ 1 (characters of JSON)",
    description: "larger tool-call arguments are refused before the tool runs"
  }),
  toolArgumentsMaxDepth: Setting.make("toolArgumentsMaxDepth", {
    schema: Setting.Int(1),
    default: UnitToolkit.defaults.toolArgumentsMaxDepth,
    values: "integer ≥ 1",
    description: "deeper nested tool-call arguments are refused before the tool runs"
  })
}

/**
 * The agent settings, typed.
 *
 * @since 0.2.0
 * @category models
 */
export type Settings = Setting.Values<typeof settings>

/**
 * Every agent setting from the `ConfigProvider` in context, defaults applied.
 *
 * @since 0.2.0
 * @category settings
 */
export const config: Config.Config<Settings> = Setting.values(settings)
