/**
 * The built-in search strategies by name, for configuration files, environment variables and the
 * command line. Apps that compose layers directly can use each strategy's own `layer`.
 *
 * @since 0.1.0
 */
import type { Layer } from "effect"
import type { SearchStrategy } from "./SearchStrategy.js"
import * as Keyword from "./strategies/Keyword.js"

/** Names of the built-in strategies. */
export const names = ["keyword"] as const

/** A built-in strategy name. */
export type Name = typeof names[number]

/** The strategy used when none is configured. */
export const defaultName: Name = "keyword"

/** Whether `name` is a built-in strategy. */
export const isName = (name: string): name is Name => (names as ReadonlyArray<string>).includes(name)

/** The layer of a built-in strategy. */
export const layer = (name: Name): Layer.Layer<SearchStrategy> => {
  switch (name) {
    case "keyword":
      return Keyword.layer
  }
}
