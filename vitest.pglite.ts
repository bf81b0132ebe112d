// In test runs only: each embedded PostgreSQL a test creates (in memory, or in a new directory)
// starts from a template, the dump of one freshly created cluster, instead of running initdb again.
// initdb is most of an embedded database's start (seconds on a quiet 2-core machine, 20 s and more
// on a loaded one) and the store's and the gateway's tests create dozens. The cluster is made once
// per run (the first test that needs one makes it, in the run's temporary directory) and each
// database loads it; the product's code is unchanged (it still runs initdb, and a new directory is
// still opened twice), and the migrations still run on every database.
import type * as Pglite from "@electric-sql/pglite"
import { vi } from "vitest"

vi.mock("@electric-sql/pglite", async (importOriginal) => {
  const real = await importOriginal<typeof Pglite>()
  const { inject } = await import("vitest")
  const Fs = await import("node:fs")
  const Path = await import("node:path")
  type Options = NonNullable<Parameters<typeof real.PGlite.create>[0]>

  /** The template's dump, read (or made) once per worker; the run's workers share the file. */
  const template = (): Promise<Blob> => {
    const cache = globalThis as { toolSearchPgliteTemplate?: Promise<Blob> }
    cache.toolSearchPgliteTemplate ??= (async () => {
      const make = async () => {
        const db = await real.PGlite.create({})
        const dump = await db.dumpDataDir("none")
        await db.close()
        return new Blob([await dump.arrayBuffer()])
      }
      // a project whose own `globalSetup` replaces the shared one: a template of this worker's own
      const directory = inject("pgliteTemplateDirectory")
      if (directory === undefined) return make()
      const file = Path.join(directory, "cluster.tar")
      if (!Fs.existsSync(file)) {
        // another worker may be making it too: the file is whole or absent, never half written
        const partial = `${file}.${process.pid}`
        Fs.writeFileSync(partial, Buffer.from(await (await make()).arrayBuffer()))
        Fs.renameSync(partial, file)
      }
      return new Blob([Fs.readFileSync(file)])
    })()
    return cache.toolSearchPgliteTemplate
  }

  /** A cluster initdb would create: in memory, or in a directory that holds none yet. */
  const isNew = (options: Options): boolean => {
    if (options.loadDataDir !== undefined) return false
    const dir = options.dataDir
    if (dir === undefined || dir.startsWith("memory://")) return true
    return !dir.includes("://") && !Fs.existsSync(Path.join(dir, "PG_VERSION"))
  }

  class PGlite extends real.PGlite {
    static override async create(options?: Options) {
      if (options === undefined || typeof options !== "object" || !isNew(options)) return real.PGlite.create(options)
      return real.PGlite.create({ ...options, loadDataDir: await template() })
    }
  }
  return { ...real, PGlite }
})
