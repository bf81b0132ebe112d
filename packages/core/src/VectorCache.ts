/**
 * Where the semantic strategy keeps tool vectors between searches and runs, keyed by a hash of the
 * embedding model's name and the tool's text: a tool whose text did not change is never embedded
 * twice, and changing its description or the model simply misses the cache.
 *
 * A cache is an optimization, never a source of failure: a file that cannot be read or written is
 * logged as a warning and the vectors are computed as if there were no cache.
 *
 * The cache of a semantic index is one of three, chosen by a layer: in memory for the life of
 * the process, in memory for the life of a layer, or an append-only binary file per model under a
 * directory, read once through Effect's `FileSystem`, so a second run of the CLI or the benchmark
 * embeds nothing.
 *
 * The strategies built by name (`Strategies.layer("semantic")`) take their caches from the `Store`
 * in context, one cache per model: `layerFile` keeps them in files under a directory — the
 * `TOOL_SEARCH_CACHE_DIR` setting, else `node_modules/.cache/tool-search` under the working
 * directory when `node_modules` exists there, else `tool-search` under the user's cache directory
 * — and needs a `FileSystem` and a `Path` (`NodeServices.layer` of `@effect/platform-node`);
 * `layerMemory` keeps them in memory for the life of the layer. Without either, the default
 * `Store` keeps them in memory for the life of the process; the `tool-search` command line
 * provides `layerFile`.
 *
 * @since 0.1.0
 */
import { Context, Effect, type FileSystem, Layer, type Path, SynchronizedRef } from "effect"
import * as VectorCaches from "./internal/vectorCaches.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * A store of one model's vectors by key.
 *
 * @since 0.1.0
 * @category models
 */
export interface VectorCache {
  /** The cached vector of each key, `undefined` where there is none. */
  readonly getMany: (keys: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Float32Array | undefined>>
  /** Stores vectors; failures are logged, not raised. */
  readonly setMany: (entries: ReadonlyArray<readonly [key: string, vector: Float32Array]>) => Effect.Effect<void>
}

/**
 * The caches of an application, one per embedding model.
 *
 * @since 0.2.0
 * @category models
 */
export interface Caches {
  /** The cache of `model`: the same one for every index of the model. */
  readonly cacheFor: (model: string) => Effect.Effect<VectorCache>
}

// -----------------------------------------------------------------------------
// Settings
// -----------------------------------------------------------------------------

/**
 * The vector cache's setting: the directory of the file cache.
 *
 * @since 0.2.0
 * @category settings
 */
export const settings = { cacheDir: VectorCaches.cacheDir }

/** Caches made by `make` for each model, once per model. */
const makeCaches = <R>(make: (model: string) => Effect.Effect<VectorCache, never, R>) =>
  Effect.gen(function*() {
    const context = yield* Effect.context<R>()
    const caches = yield* SynchronizedRef.make(new Map<string, VectorCache>())
    return {
      cacheFor: (model) =>
        SynchronizedRef.modifyEffect(caches, (byModel) => {
          const cached = byModel.get(model)
          if (cached !== undefined) return Effect.succeed([cached, byModel] as const)
          return Effect.map(make(model), (cache) => [cache, new Map(byModel).set(model, cache)] as const)
        }).pipe(Effect.provideContext(context))
    } satisfies Caches
  })

// -----------------------------------------------------------------------------
// Layers
// -----------------------------------------------------------------------------

/**
 * The caches of the strategies built by name: in memory for the life of the process unless a
 * layer (`layerFile`, `layerFileAt`, `layerMemory`) provides others.
 *
 * @since 0.2.0
 * @category layers
 */
export const Store = Context.Reference<Caches>("@tool-search/core/VectorCache/Store", {
  defaultValue: () => processCaches
})

/** A `memory()` cache per model. */
const memoryCaches = (): Caches => {
  const byModel = new Map<string, VectorCache>()
  return {
    cacheFor: (model) =>
      Effect.sync(() => {
        const cached = byModel.get(model)
        if (cached !== undefined) return cached
        const cache = VectorCaches.memory()
        byModel.set(model, cache)
        return cache
      })
  }
}

const processCaches = memoryCaches()

/**
 * Keeps each model's vectors in a file under `directory` (see the module documentation), through
 * the `FileSystem` and `Path` in context.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerFile: Layer.Layer<never, never, FileSystem.FileSystem | Path.Path> = Layer.effect(
  Store,
  Effect.flatMap(VectorCaches.directory, (dir) => makeCaches((model) => VectorCaches.makeFile(dir, model)))
)

/**
 * Keeps each model's vectors in a file under `dir`, through the `FileSystem` in context.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerFileAt = (dir: string): Layer.Layer<never, never, FileSystem.FileSystem> =>
  Layer.effect(Store, makeCaches((model) => VectorCaches.makeFile(dir, model)))

/**
 * Keeps each model's vectors in memory, for the life of the layer.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerMemory: Layer.Layer<never> = Layer.effect(Store, Effect.sync(memoryCaches))
