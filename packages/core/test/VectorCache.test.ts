import { NodeFileSystem } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, type FileSystem, Layer, Path } from "effect"
import { EmbeddingModel } from "effect/ai"
import { appendFileSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { CatalogTool, Query, Semantic, ToolCatalog, VectorCache } from "../src/index.js"
import * as VectorCaches from "../src/internal/vectorCaches.js"
import { key } from "../src/internal/vectorFile.js"
import * as MemoryFs from "./kit/MemoryFileSystem.js"

const vector = (cache: VectorCache.VectorCache, k: string) => Effect.map(cache.getMany([k]), ([v]) => [...(v ?? [])])

describe("VectorCaches.makeFile", () => {
  it.effect("persists vectors across caches, one file per model, and ignores a torn last record", () => {
    const disk = MemoryFs.disk()
    return Effect.gen(function*() {
      const k1 = key("model/a", "one")
      const k2 = key("model/a", "two")
      assert.notStrictEqual(k1, k2)
      assert.notStrictEqual(k1, key("model/b", "one"), "the model is part of the key")
      const first = yield* VectorCaches.makeFile("/cache", "model/a")
      yield* first.setMany([[k1, Float32Array.from([1, 2, 3])], [k2, Float32Array.from([0.5])]])
      assert.deepStrictEqual([...disk.files.keys()], ["/cache/model_a.vectors"])
      const second = yield* VectorCaches.makeFile("/cache", "model/a")
      assert.deepStrictEqual(yield* vector(second, k1), [1, 2, 3])
      assert.deepStrictEqual(yield* vector(second, k2), [0.5])
      assert.deepStrictEqual(yield* vector(second, key("model/a", "three")), [])
      // a process killed mid-write leaves a partial record: it is skipped, the rest still loads
      const file = disk.files.get("/cache/model_a.vectors") as Uint8Array
      disk.files.set("/cache/model_a.vectors", Uint8Array.from([...file, ...new Uint8Array(30)]))
      const third = yield* VectorCaches.makeFile("/cache", "model/a")
      assert.deepStrictEqual(yield* vector(third, k1), [1, 2, 3])
    }).pipe(Effect.provide(MemoryFs.layer(disk)))
  })

  it.effect("reads its file once, at the first use", () =>
    Effect.gen(function*() {
      const disk = MemoryFs.disk()
      const k = key("m", "x")
      const writer = yield* VectorCaches.makeFile("/cache", "m").pipe(Effect.provide(MemoryFs.layer(disk)))
      yield* writer.setMany([[k, Float32Array.from([7])]])
      const reader = yield* VectorCaches.makeFile("/cache", "m").pipe(Effect.provide(MemoryFs.layer(disk)))
      assert.deepStrictEqual(yield* vector(reader, k), [7])
      disk.files.delete("/cache/m.vectors")
      assert.deepStrictEqual(yield* vector(reader, k), [7], "loaded once, kept")
    }))

  it.effect("a cache that cannot be written is a warning, not a failure", () =>
    Effect.gen(function*() {
      const disk = MemoryFs.disk()
      disk.readOnly.add("/cache")
      const cache = yield* VectorCaches.makeFile("/cache", "m").pipe(Effect.provide(MemoryFs.layer(disk)))
      yield* cache.setMany([[key("m", "x"), Float32Array.from([1])]])
      assert.deepStrictEqual(yield* vector(cache, key("m", "x")), [1], "kept in memory")
      assert.strictEqual(disk.files.size, 0)
    }))
})

describe("VectorCaches.directory", () => {
  const directoryWith = (env: Record<string, string>, files: Record<string, string> = {}) =>
    VectorCaches.directory.pipe(
      Effect.provide(MemoryFs.layer(MemoryFs.disk(files))),
      Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env })))
    )

  it.effect("the setting first, then node_modules of the working directory, then the user's cache", () =>
    Effect.gen(function*() {
      const cwd = (yield* Path.Path).resolve(".")
      assert.strictEqual(yield* directoryWith({ TOOL_SEARCH_CACHE_DIR: "/var/cache/ts" }), "/var/cache/ts")
      assert.strictEqual(
        yield* directoryWith({ HOME: "/home/me" }, { [`${cwd}/node_modules/x/package.json`]: "{}" }),
        `${cwd}/node_modules/.cache/tool-search`
      )
      assert.strictEqual(
        yield* directoryWith({ XDG_CACHE_HOME: "/xdg", HOME: "/home/me" }),
        "/xdg/tool-search"
      )
      assert.strictEqual(yield* directoryWith({ HOME: "/home/me" }), "/home/me/.cache/tool-search")
      // an empty variable is unset
      assert.strictEqual(yield* directoryWith({ TOOL_SEARCH_CACHE_DIR: "", HOME: "/h" }), "/h/.cache/tool-search")
    }).pipe(Effect.provide(Path.layer)))
})

describe("VectorCache.Store", () => {
  // an embedding model that counts the texts it embeds
  const counting = (embedded: Array<string>) =>
    Layer.effect(
      EmbeddingModel.EmbeddingModel,
      EmbeddingModel.make({
        embedMany: ({ inputs }) =>
          Effect.sync(() => {
            embedded.push(...inputs)
            return { results: inputs.map((t) => [t.length, 1]), usage: { inputTokens: undefined } }
          })
      })
    )
  // the store reaches the strategy through its layer: the catalog's context has none
  const search = (embedded: Array<string>, store: Layer.Layer<never>) =>
    Effect.gen(function*() {
      const catalog = yield* ToolCatalog.ToolCatalog
      yield* catalog.register([CatalogTool.make({ name: "send_mail", description: "Send an e-mail" })])
      return yield* catalog.search(Query.keywords("mail"), { limit: 1 })
    }).pipe(
      Effect.provide(ToolCatalog.layer),
      Effect.provide(
        Semantic.layerWith({ model: "counting", batchSize: 8 }).pipe(Layer.provide([counting(embedded), store]))
      )
    )

  it.effect("a semantic index without a cache of its own uses the store's cache of its model", () =>
    Effect.gen(function*() {
      const disk = MemoryFs.disk()
      const files = VectorCache.layerFileAt("/cache").pipe(Layer.provide(MemoryFs.layer(disk)))
      const first: Array<string> = []
      yield* search(first, files)
      assert.deepStrictEqual([...disk.files.keys()], ["/cache/counting.vectors"])
      const second: Array<string> = []
      yield* search(second, files)
      assert.deepStrictEqual(second, ["mail"], "the tool's vector came from the file; only the query was embedded")
      const memory: Array<string> = []
      yield* search(memory, VectorCache.layerMemory)
      assert.strictEqual(memory.length, 2, "a fresh memory store embeds the tool again")
    }))
})

describe("VectorCaches.makeFile on Node's file system", () => {
  const onDisk = <A, E>(effect: Effect.Effect<A, E, FileSystem.FileSystem>) =>
    Effect.provide(effect, NodeFileSystem.layer)

  it.effect("persists vectors across caches and ignores a torn last record", () =>
    onDisk(Effect.gen(function*() {
      const dir = mkdtempSync(join(tmpdir(), "tool-search-vectors-"))
      const k1 = key("model/a", "one")
      yield* (yield* VectorCaches.makeFile(dir, "model/a")).setMany([[k1, Float32Array.from([1, 2, 3])]])
      assert.deepStrictEqual(yield* vector(yield* VectorCaches.makeFile(dir, "model/a"), k1), [1, 2, 3])
      appendFileSync(join(dir, "model_a.vectors"), new Uint8Array(30))
      assert.deepStrictEqual(yield* vector(yield* VectorCaches.makeFile(dir, "model/a"), k1), [1, 2, 3])
    })))

  it.effect("a cache that cannot be written is a warning, not a failure", () =>
    onDisk(Effect.gen(function*() {
      const dir = mkdtempSync(join(tmpdir(), "tool-search-vectors-"))
      const blocked = join(dir, "file-not-dir")
      writeFileSync(blocked, "x")
      const cache = yield* VectorCaches.makeFile(join(blocked, "sub"), "m")
      yield* cache.setMany([[key("m", "x"), Float32Array.from([1])]])
      assert.deepStrictEqual(yield* vector(cache, key("m", "x")), [1], "kept in memory")
    })))
})
