/**
 * The built-in search strategies by name, for configuration files, environment variables and the
 * command line. Apps that compose layers directly can use each strategy's own `layer`.
 *
 * `semantic` and `hybrid` resolved here use the offline embedding model (`OfflineEmbeddings`) and
 * keep tool vectors in the `VectorCache.Store` in context (`VectorCache.layerFile` keeps them in
 * files, so a second run embeds nothing). The model loads at the first search that needs it.
 *
 * @since 0.1.0
 */
import { Layer } from "effect"
import * as OfflineModel from "./internal/offlineModel.js"
import * as OfflineEmbeddings from "./OfflineEmbeddings.js"
import type { SearchStrategy } from "./SearchStrategy.js"
import * as Bm25f from "./strategies/Bm25f.js"
import * as Hybrid from "./strategies/Hybrid.js"
import * as Keyword from "./strategies/Keyword.js"
import * as Regex from "./strategies/Regex.js"
import * as Semantic from "./strategies/Semantic.js"

/**
 * Names of the built-in strategies.
 *
 * @since 0.1.0
 * @category names
 */
export const names = ["bm25f", "keyword", "regex", "semantic", "hybrid"] as const

/**
 * A built-in strategy name.
 *
 * @since 0.1.0
 * @category names
 */
export type Name = typeof names[number]

/**
 * The strategy used when none is configured.
 *
 * @since 0.1.0
 * @category names
 */
export const defaultName: Name = "bm25f"

/**
 * Settings of the built-in strategies that embed.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Progress of embedding queued tools (done, total). */
  readonly onProgress?: (done: number, total: number) => void
}

/**
 * The layer of a built-in strategy.
 *
 * **Example**
 *
 * ```ts
 * const Catalog = ToolCatalog.layer.pipe(Layer.provide(Strategies.layer("hybrid")))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (name: Name, options: Options = {}): Layer.Layer<SearchStrategy> => {
  switch (name) {
    case "bm25f":
      return Bm25f.layer
    case "keyword":
      return Keyword.layer
    case "regex":
      return Regex.layer
    case "semantic":
      return Layer.suspend(() => Semantic.layerWith(semanticOptions(options))).pipe(
        Layer.provide(OfflineEmbeddings.layer)
      )
    case "hybrid":
      return Layer.suspend(() => Hybrid.layerWith({ ...Hybrid.defaults, semantic: semanticOptions(options) })).pipe(
        Layer.provide(OfflineEmbeddings.layer)
      )
  }
}

const semanticOptions = (options: Options): Semantic.Options => {
  const { cache: _none, ...defaults } = Semantic.defaults
  return {
    ...defaults,
    model: OfflineModel.modelName,
    ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress })
  }
}
