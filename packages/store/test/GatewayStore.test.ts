// The gateway's sessions in the store: keys that say nothing of the credential, a session stored
// as soon as it opens, loads of several writers kept whole (a row per tool), held changes read back
// by this process while the database is away and written when it returns.
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { Database, GatewayStore, WriteBehind } from "../src/index.js"
import { describeEngines, freshDatabase, Plug } from "./engines.js"

const secret = Redacted.make("secret-one-of-enough-length")
const options: GatewayStore.Options = { maxSessions: 100, idleTimeout: "1 hour", secret }

describe("GatewayStore", () => {
  describe("keys", () => {
    it("an HMAC of the credential and the id: neither shows, another secret or credential is another key", () => {
      const principal = "3f1d…digest-of-a-token"
      const key = GatewayStore.key(secret, "session-1", principal)
      assert.match(key, /^[0-9a-f]{64}$/)
      assert.notInclude(key, "session-1")
      assert.notStrictEqual(GatewayStore.key(Redacted.make("another-secret-of-length"), "session-1", principal), key)
      assert.notStrictEqual(GatewayStore.key(secret, "session-1", "another"), key)
      assert.strictEqual(GatewayStore.key(secret, "session-1", principal), key)
    })

    it.effect("the secret's file: created once (readable by its owner only), then read back", () =>
      Effect.gen(function*() {
        const path = Path.join(Fs.mkdtempSync(Path.join(Os.tmpdir(), "tool-search-secret-")), "state", "session-secret")
        const first = yield* GatewayStore.secretFile(path)
        assert.strictEqual(Fs.statSync(path).mode & 0o777, 0o600)
        assert.strictEqual(Redacted.value(yield* GatewayStore.secretFile(path)), Redacted.value(first))
        Fs.writeFileSync(path, "short\n")
        const refused = yield* Effect.flip(GatewayStore.secretFile(path))
        assert.match(refused.message, /fewer than 16 characters/)
      }))
  })
})

describeEngines("GatewayStore sessions", (engine) => {
  layer(freshDatabase(engine), { timeout: 60_000 })((it) => {
    it.effect("opened: stored at once, with no tools; loads of two writers are both kept; removed", () =>
      Effect.gen(function*() {
        const one = yield* GatewayStore.sessions(options)
        const two = yield* GatewayStore.sessions(options)
        yield* one.open("s1", "alice")
        assert.deepStrictEqual(yield* two.load("s1", "alice"), Option.some([]))
        // another credential, the same id: nothing
        assert.isTrue(Option.isNone(yield* two.load("s1", "bob")))
        yield* Effect.all([
          one.change("s1", "alice", { loaded: ["a"], unloaded: [] }),
          two.change("s1", "alice", { loaded: ["b"], unloaded: [] })
        ], { concurrency: 2 })
        const both = Option.getOrThrow(yield* one.load("s1", "alice"))
        assert.sameMembers([...both], ["a", "b"])
        yield* two.change("s1", "alice", { loaded: ["c"], unloaded: ["a"] })
        assert.sameMembers([...Option.getOrThrow(yield* one.load("s1", "alice"))], ["b", "c"])
        // the rows say nothing of the session id or the credential
        const sql = yield* SqlClient
        const keys = yield* sql<{ readonly key: string }>`SELECT key FROM tool_search_gateway_sessions`
        for (const { key } of keys) assert.notInclude(key, "s1")
        yield* one.remove("s1", "alice")
        assert.isTrue(Option.isNone(yield* two.load("s1", "alice")))
      }))
  })

  // a live clock: the listening connection and the writer retry in real time (at most every second)
  it.live(
    "the database lost: changes are held, read back here, written when it returns",
    () =>
      Effect.gen(function*() {
        const plug = new Plug()
        const location = yield* engine.fresh
        yield* Effect.gen(function*() {
          const store = yield* GatewayStore.sessions(options)
          const other = yield* GatewayStore.sessions(options)
          yield* store.open("s2", "alice")
          plug.unplug()
          yield* store.open("s3", "alice") // opened during the outage
          yield* store.change("s2", "alice", { loaded: ["x"], unloaded: [] })
          yield* store.change("s3", "alice", { loaded: ["y"], unloaded: [] })
          // this process reads its own held changes; another cannot read the database at all
          assert.deepStrictEqual(yield* store.load("s3", "alice"), Option.some(["y"]))
          assert.isTrue(Option.isNone(yield* other.load("s3", "alice")))
          plug.replug()
          const writeBehind = yield* WriteBehind.WriteBehind
          yield* Effect.promise(() => until(async () => (await Effect.runPromise(writeBehind.held)).entries === 0))
          assert.deepStrictEqual(yield* other.load("s2", "alice"), Option.some(["x"]))
          assert.deepStrictEqual(yield* other.load("s3", "alice"), Option.some(["y"]))
        }).pipe(Effect.provide(Database.layer(location, { wrapConnection: plug.wrap, timeout: "2 seconds" })))
      }),
    60_000
  )
})

/** Polls `check` every 50 ms until it holds; gives up (a hang guard) after 30 s. */
const until = async (check: () => Promise<boolean>): Promise<void> => {
  const started = Date.now()
  while (!(await check())) {
    if (Date.now() - started > 30_000) throw new Error("gave up waiting after 30 s")
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
