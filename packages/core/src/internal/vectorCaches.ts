/**
 * The vector caches behind `VectorCache`'s layers: none, in memory, in a file per model, and the
 * directory of the file caches. Internal: applications choose a cache through `VectorCache.layerFile`,
 * `layerFileAt` or `layerMemory`.
 *
 * @internal
 */
import { Config, Effect, FileSystem, Option, Path, Schema } from "effect"
import * as Setting from "../Setting.js"
import type { VectorCache } from "../VectorCache.js"
import * as VectorFile from "./vectorFile.js"

/** The directory of the file cache (`VectorCache.settings.cacheDir`). */
export const cacheDir = Setting.make("cacheDir", {
  schema: Schema.String,
  default: "",
  values: "a directory",
  defaultText: "`node_modules/.cache/tool-search` when the working directory has `node_modules`, " +
    "else `tool-search` under `$XDG_CACHE_HOME` (`~/.cache`)",
  description: "where the semantic strategies keep tool vectors between runs (`VectorCache.layerFile`)"
})

/** A variable of the environment (the `ConfigProvider` in context), when set and not empty. */
const variable = (name: string): Effect.Effect<Option.Option<string>> =>
  Effect.orElseSucceed(Config.option(Config.NonEmptyString(name)), () => Option.none())

/**
 * The directory of the file cache: the `TOOL_SEARCH_CACHE_DIR` setting (through `Config`), else
 * `node_modules/.cache/tool-search` under the working directory when `node_modules` exists there,
 * else `tool-search` under `XDG_CACHE_HOME`, or under `.cache` of `HOME` or `USERPROFILE`.
 */
export const directory: Effect.Effect<string, never, FileSystem.FileSystem | Path.Path> = Effect.gen(function*() {
  const configured = yield* Effect.orElseSucceed(cacheDir.config, () => "")
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

/** Keeps nothing. */
export const none: VectorCache = {
  getMany: (keys) => Effect.succeed(keys.map(() => undefined)),
  setMany: () => Effect.void
}

/** Keeps vectors in this process. */
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
