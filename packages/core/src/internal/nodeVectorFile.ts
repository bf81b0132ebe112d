/**
 * The vector file cache as it was before it took `FileSystem` and `Config`: Node's `fs` resolved
 * at first use and the directory from `process.env`. Kept only behind the deprecated
 * `VectorCache.file` and `VectorCache.defaultDirectory`, and as the default `VectorCache.Store`,
 * until the applications provide `VectorCache.layerFile` (see the note in `VectorCache`).
 *
 * @internal
 */
import { Effect } from "effect"
import type * as NodeFsModule from "node:fs"
import type { VectorCache } from "../VectorCache.js"
import * as VectorFile from "./vectorFile.js"

type NodeFs = typeof NodeFsModule

// `process.getBuiltinModule` exists from Node 20.16 (the engines field asks for 20.19).
const nodeFs = (): NodeFs => process.getBuiltinModule("node:fs") as NodeFs

/** `$TOOL_SEARCH_CACHE_DIR`, else `node_modules/.cache/tool-search`, else the user's cache directory. */
export const defaultDirectory = (): string => {
  const env = process.env["TOOL_SEARCH_CACHE_DIR"]
  if (env !== undefined && env !== "") return env
  const cwd = process.cwd()
  if (nodeFs().existsSync(`${cwd}/node_modules`)) return `${cwd}/node_modules/.cache/tool-search`
  const xdg = process.env["XDG_CACHE_HOME"]
  const home = process.env["HOME"] ?? process.env["USERPROFILE"] ?? cwd
  return `${xdg !== undefined && xdg !== "" ? xdg : `${home}/.cache`}/tool-search`
}

const isNotFound = (error: unknown): boolean =>
  typeof error === "object" && error !== null && "code" in error && (error as { code: unknown }).code === "ENOENT"

/** The file cache of `name` under `directory`, through Node's `fs`. */
export const file = (directory: string, name: string): VectorCache => {
  const path = VectorFile.pathOf(directory, name)
  let loaded: Map<string, Float32Array> | undefined
  const load = Effect.suspend(() => {
    if (loaded !== undefined) return Effect.succeed(loaded)
    return Effect.tryPromise(() => nodeFs().promises.readFile(path)).pipe(
      Effect.map(VectorFile.parse),
      Effect.catch((error) =>
        isNotFound(error.cause)
          ? Effect.succeed(new Map<string, Float32Array>())
          : Effect.as(
            Effect.logWarning(`tool-search: cannot read the vector cache ${path}; embedding without it`, error.cause),
            new Map<string, Float32Array>()
          )
      ),
      Effect.tap((map) => Effect.sync(() => (loaded = map)))
    )
  })
  return {
    getMany: (keys) => Effect.map(load, (map) => keys.map((k) => map.get(k))),
    setMany: (entries) =>
      entries.length === 0 ? Effect.void : Effect.flatMap(load, (map) => {
        for (const [k, v] of entries) map.set(k, v)
        return Effect.tryPromise(async () => {
          const fs = nodeFs().promises
          await fs.mkdir(directory, { recursive: true })
          await fs.appendFile(path, VectorFile.serialize(entries))
        }).pipe(
          Effect.catch((error) => Effect.logWarning(`tool-search: cannot write the vector cache ${path}`, error.cause))
        )
      })
  }
}
