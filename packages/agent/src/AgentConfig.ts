/**
 * The agent's settings, declared as a table of `Setting`s like core's `ToolSearchConfig`: how
 * activation carries over between the turns of a session and when a session's carried-over state
 * is dropped. `Executor.layerConfig` reads them together with the core settings.
 *
 * @since 0.2.0
 */
import { Setting } from "@tool-search/core"
import type { Config, Schema } from "effect"
import * as ActivationPolicy from "./ActivationPolicy.js"
import * as Eviction from "./Eviction.js"

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
    schema: Eviction.FromString as unknown as Schema.Codec<Eviction.Strategy, unknown>,
    default: Eviction.defaultStrategy,
    values: "`never` | `always` | `lru:<sessions>` | `ttl:<duration>` | several joined by `,`",
    defaultText: "lru:1000",
    description: "when a session's carried-over activation is dropped, e.g. `lru:200,ttl:30 minutes`"
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
