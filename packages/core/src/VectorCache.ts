/**
 * Where the semantic strategy keeps tool vectors between searches and runs, keyed by a hash of the
 * embedding model's name and the tool's text: a tool whose text did not change is never embedded
 * twice, and changing its description or the model simply misses the cache.
 *
 * A cache is an optimization, never a source of failure: a file that cannot be read or written is
 * logged as a warning and the vectors are computed as if there were no cache.
 *
 * - `none`: nothing is kept (tests, providers that are cheap to call).
 * - `memory()`: kept for the life of the process.
 * - `makeFile(directory, model)`: an append-only binary file per model under `directory`, read
 *   once through Effect's `FileSystem`, so a second run of the CLI or the benchmark embeds
 *   nothing.
 *
 * The strategies built by name (`Strategies.layer("semantic")`) take their caches from the `Store`
 * in context, one cache per model: `layerFile` keeps them in files under `directory` — the
 * `TOOL_SEARCH_CACHE_DIR` setting, else `node_modules/.cache/tool-search` under the working
 * directory when `node_modules` exists there, else `tool-search` under the user's cache directory
 * — and needs a `FileSystem` and a `Path` (`NodeServices.layer` of `@effect/platform-node`);
 * `layerMemory` keeps them in memory for the life of the layer. Without either, the default
 * `Store` keeps them in memory for the life of the process; the `tool-search` command line
 * provides `layerFile`.
 *
 * @since 0.1.0
 */
import { Config, Context, Effect, FileSystem, Layer, Option, Path, Schema, SynchronizedRef } from "effect"
import * as VectorFile from "./internal/vectorFile.js"
import * as Setting from "./Setting.js"

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
export const settings = {
  cacheDir: Setting.make("cacheDir", {
    schema: Schema.String,
    default: "",
    values: "a directory",
    defaultText: "`node_modules/.cache/tool-search` when the working directory has `node_modules`, " +
      "else `tool-search` under `$XDG_CACHE_HOME` (`~/.cache`)",
    description: "where the semantic strategies keep tool vectors between runs (`VectorCache.layerFile`)"
  })
}

/** A variable of the environment (the `ConfigProvider` in context), when set and not empty. */
const variable = (name: string): Effect.Effect<Option.Option<string>> =>
  Effect.orElseSucceed(Config.option(Config.NonEmptyString(name)), () => Option.none())

/**
 * The directory of the file cache: the `TOOL_SEARCH_CACHE_DIR` setting (through `Config`), else
 * `node_modules/.cache/tool-search` under the working directory when `node_modules` exists there,
 * else `tool-search` under `XDG_CACHE_HOME`, or under `.cache` of `HOME` or `USERPROFILE`.
 *
 * @since 0.2.0
 * @category settings
 */
export const directory: Effect.Effect<string, never, FileSystem.FileSystem | Path.Path> = Effect.gen(function*() {
  const configured = yield* Effect.orElseSucceed(settings.cacheDir.config, () => "")
  if (configured !== "") return configured
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const cwd = path.resolve(".")
  const modules = path.join(cwd, "node_modules")
  if (yield* Effect.orElseSucceed(fs.exists(modules), () => false)) return path.join(modules, ".cache", "tool-search")
  const xdg = yield* variable("XDG_CACHE_HOME")
  if (Option.isSome(xdg)) return path.join(xdg.value, "tool-search")
  const home = yield* variable("HOME")
  const user = Option.isSome(home) ? home : yield* variable("USERPROFILE")
  return path.join(Option.getOrElse(user, () => cwd), ".cache", "tool-search")
})

// -----------------------------------------------------------------------------
// Constructors
// -----------------------------------------------------------------------------

/**
 * Keeps nothing.
 *
 * @since 0.1.0
 * @category constructors
 */
export const none: VectorCache = {
  getMany: (keys) => Effect.succeed(keys.map(() => undefined)),
  setMany: () => Effect.void
}

/**
 * Keeps vectors in this process.
 *
 * @since 0.1.0
 * @category constructors
 */
export const memory = (): VectorCache => {
  const vectors = new Map<string, Float32Array>()
  return {
    getMany: (keys) => Effect.sync(() => keys.map((k) => vectors.get(k))),
    setMany: (entries) => Effect.sync(() => entries.forEach(([k, v]) => vectors.set(k, v)))
  }
}

/**
 * Keeps the vectors of `model` in `directory/<model>.vectors`, an append-only file read once, at
 * the first use (a torn last record is ignored). Reading and writing go through the `FileSystem`
 * in context; a file that cannot be read or written is a logged warning.
 *
 * @since 0.2.0
 * @category constructors
 */
export const makeFile = (directory: string, model: string): Effect.Effect<VectorCache, never, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = VectorFile.pathOf(directory, model)
    const loaded = yield* Effect.cached(
      fs.readFile(path).pipe(
        Effect.map(VectorFile.parse),
        Effect.catch((error) =>
          error.reason._tag === "NotFound"
            ? Effect.succeed(new Map<string, Float32Array>())
            : Effect.as(
              Effect.logWarning(`tool-search: cannot read the vector cache ${path}; embedding without it`, error),
              new Map<string, Float32Array>()
            )
        )
      )
    )
    return {
      getMany: (keys) => Effect.map(loaded, (map) => keys.map((k) => map.get(k))),
      setMany: (entries) =>
        entries.length === 0 ? Effect.void : Effect.flatMap(loaded, (map) => {
          for (const [k, v] of entries) map.set(k, v)
          return fs.makeDirectory(directory, { recursive: true }).pipe(
            Effect.andThen(fs.writeFile(path, VectorFile.serialize(entries), { flag: "a" })),
            Effect.catch((error) => Effect.logWarning(`tool-search: cannot write the vector cache ${path}`, error))
          )
        })
    } satisfies VectorCache
  })

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
        const cache = memory()
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
  Effect.flatMap(directory, (dir) => makeCaches((model) => makeFile(dir, model)))
)

/**
 * Keeps each model's vectors in a file under `dir`, through the `FileSystem` in context.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerFileAt = (dir: string): Layer.Layer<never, never, FileSystem.FileSystem> =>
  Layer.effect(Store, makeCaches((model) => makeFile(dir, model)))

/**
 * Keeps each model's vectors in memory, for the life of the layer.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerMemory: Layer.Layer<never> = Layer.effect(Store, Effect.sync(memoryCaches))
