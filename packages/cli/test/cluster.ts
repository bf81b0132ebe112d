// A PostgreSQL server of the test's own — `initdb` and `pg_ctl` in a temporary directory, on
// loopback, on a free port — for what the shared server (`TOOL_SEARCH_TEST_POSTGRES`) must not
// suffer: being stopped, restarted, or run out of disk. Debian's PostgreSQL binaries are used (as by
// `.ci/postgres.sh`); without them, `unavailable` says why and the tests that need a cluster skip.
import { execFile } from "node:child_process"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import { promisify } from "node:util"

const run = promisify(execFile)

const binDir = (): string | undefined => {
  try {
    const versions = Fs.readdirSync("/usr/lib/postgresql").sort((a, b) => Number(a) - Number(b))
    const last = versions[versions.length - 1]
    const bin = last === undefined ? undefined : Path.join("/usr/lib/postgresql", last, "bin")
    return bin !== undefined && Fs.existsSync(Path.join(bin, "initdb")) ? bin : undefined
  } catch {
    return undefined
  }
}

const bin = binDir()
const root = process.getuid?.() === 0
/** PostgreSQL refuses to run as root: as root, the cluster belongs to the `postgres` user. */
const asOwner = (command: string, args: ReadonlyArray<string>) =>
  root ? run("runuser", ["-u", "postgres", "--", command, ...args]) : run(command, [...args])

/** Why no cluster can be had here, if it cannot. */
export const unavailable: string | undefined = bin === undefined
  ? "no PostgreSQL binaries (/usr/lib/postgresql/*/bin)"
  : root && (() => {
      try {
        return Fs.readFileSync("/etc/passwd", "utf8").split("\n").every((l) => !l.startsWith("postgres:"))
      } catch {
        return true
      }
    })()
  ? "running as root without a postgres user"
  : undefined

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = Net.createServer()
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

/** A cluster of the test's own. */
export interface Cluster {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  readonly url: string
  /** The data directory. */
  readonly data: string
  readonly start: () => Promise<void>
  /** `fast` ends sessions cleanly; `immediate` is a crash (recovery at the next start). */
  readonly stop: (mode?: "fast" | "immediate") => Promise<void>
  readonly restart: () => Promise<void>
  /** Stops it and removes its files. */
  readonly remove: () => Promise<void>
}

/** Creates and starts a cluster; its data directory in `parent` when given (a small file system). */
export const make = async (parent?: string): Promise<Cluster> => {
  if (bin === undefined || unavailable !== undefined) throw new Error(`no PostgreSQL cluster: ${unavailable}`)
  const dir = Fs.mkdtempSync(Path.join(parent ?? Os.tmpdir(), "tool-search-cluster-"))
  Fs.chmodSync(dir, 0o777)
  const data = Path.join(dir, "data")
  const port = await freePort()
  if (root) await run("chown", ["postgres", dir])
  await asOwner(Path.join(bin, "initdb"), ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8"])
  const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c max_connections=200`
  const ctl = (...args: ReadonlyArray<string>) =>
    asOwner(Path.join(bin, "pg_ctl"), ["-D", data, "-l", Path.join(dir, "server.log"), ...args])
  const start = async () => {
    await ctl("-w", "-t", "120", "-o", options, "start")
  }
  const stop = async (mode: "fast" | "immediate" = "fast") => {
    await ctl("-w", "-t", "120", "-m", mode, "stop").catch(() => undefined)
  }
  await start()
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    data,
    start,
    stop,
    restart: async () => {
      await ctl("-w", "-t", "120", "-m", "fast", "-o", options, "restart")
    },
    remove: async () => {
      await stop("immediate")
      Fs.rmSync(dir, { recursive: true, force: true })
    }
  }
}

/** Runs SQL on `url` with the server's own client, as the `postgres` user. */
export const psql = async (url: string, sql: string): Promise<string> => {
  if (bin === undefined) throw new Error("no PostgreSQL binaries")
  const { stdout } = await run(Path.join(bin, "psql"), [url, "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql])
  return stdout.trim()
}
