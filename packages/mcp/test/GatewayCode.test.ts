// Code mode through the gateway, with the official SDK client over in-memory transports: the session
// lists ToolSearch and execute_code, a search answers declarations, and every call a program makes
// goes through the session's call path (visibility, permission, bounds, forwarding, audit). The
// attacks are the tests: a hidden tool, a denied tool, unbounded arguments, and two sessions'
// programs at once, one looping (ordered with Deferreds, its time limit driven by the TestClock).
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { Sandbox } from "@tool-search/code"
import { Disclosure, Permission, type ToolCatalog, Visibility } from "@tool-search/core"
import { Gateway, GatewayAudit, type McpSources } from "@tool-search/mcp"
import { type Context, Deferred, Duration, Effect, Fiber, Layer, Logger, Option } from "effect"
import { TestClock } from "effect/testing"
import { filesAndMail, text } from "./fixtures/Sessions.js"

const EXECUTE_CODE = Disclosure.toolNames.executeCode

/** A code-mode session over the gateway's services in `context`, its programs in `sandbox`. */
const connect = (
  context: Context.Context<ToolCatalog.ToolCatalog | McpSources.McpSources>,
  sandbox: Sandbox.Service,
  policies: Layer.Layer<never> = Layer.empty
) =>
  Effect.gen(function*() {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    yield* Effect.forkScoped(
      Gateway.serve(serverSide).pipe(
        Gateway.withCode,
        Gateway.withSources,
        Effect.provideService(Sandbox.Sandbox, sandbox),
        Effect.provideContext(context),
        Effect.provide(Layer.merge(policies, Logger.layer([])))
      )
    )
    const client = new Client({ name: "test", version: "1" })
    let changes = 0
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes++
    })
    yield* Effect.promise(() => client.connect(clientSide))
    yield* Effect.addFinalizer(() => Effect.promise(() => client.close()))
    const call = (name: string, args: Record<string, unknown>, signal?: AbortSignal) =>
      Effect.promise(() =>
        client.callTool({ name, arguments: args }, undefined, signal === undefined ? {} : { signal })
      )
    return { client, call, changes: () => changes }
  })

/** What a program run answered: `{ result, logs }`, or `{ error, logs }` with `isError`. */
const answerOf = (result: unknown): { readonly isError: boolean; readonly value: Record<string, unknown> } => ({
  isError: (result as { isError?: boolean }).isError === true,
  value: JSON.parse(text(result)) as Record<string, unknown>
})

const sandbox = Sandbox.make({ codeWorkers: 2 })

describe("Gateway: code mode", () => {
  it.live("lists ToolSearch and execute_code; a search answers declarations and the list stays as it was", () =>
    Effect.gen(function*() {
      const { context } = yield* filesAndMail
      const session = yield* connect(context, yield* sandbox)
      const listed = (yield* Effect.promise(() => session.client.listTools())).tools.map((t) => t.name)
      assert.deepStrictEqual(listed, [Disclosure.toolNames.toolSearch, EXECUTE_CODE])
      const found = text(yield* session.call("ToolSearch", { query: "select:read_file,send_email" }))
      assert.include(found, "interface Tools {")
      assert.include(found, "read_file(args")
      assert.include(found, "send_email(args")
      const after = (yield* Effect.promise(() => session.client.listTools())).tools.map((t) => t.name)
      assert.deepStrictEqual(after, listed)
      assert.strictEqual(session.changes(), 0)
    }))

  it.live("a program's calls are forwarded, logged and audited as calls made by a program", () =>
    Effect.gen(function*() {
      const entries: Array<GatewayAudit.Call> = []
      const recorder: GatewayAudit.Recorder = {
        reveal: () => Effect.void,
        intent: () => Effect.void,
        call: (e) => Effect.sync(() => void entries.push(e)),
        payloads: false
      }
      const { context, files, mail } = yield* filesAndMail
      const session = yield* connect(context, yield* sandbox).pipe(
        Effect.provideService(GatewayAudit.GatewayAudit, Option.some(recorder))
      )
      yield* session.call("ToolSearch", { query: "select:read_file,send_email" })
      const ran = answerOf(
        yield* session.call(EXECUTE_CODE, {
          code: `const file = await tools.read_file({ text: "notes" })
                 const sent = await tools.send_email({ text: "hi" })
                 return { file, sent }`
        })
      )
      assert.isFalse(ran.isError, JSON.stringify(ran.value))
      // structured content as data; a text result as its text
      assert.deepStrictEqual((ran.value["result"] as Record<string, unknown>)["file"], { ok: true })
      assert.deepStrictEqual(files.calls.map((c) => c.name), ["read_file"])
      assert.deepStrictEqual(mail.calls.map((c) => c.name), ["send_email"])
      assert.deepStrictEqual(entries.map((e) => [e.toolName, e.via ?? null, e.outcome]), [
        ["read_file", EXECUTE_CODE, "ok"],
        ["send_email", EXECUTE_CODE, "ok"],
        [EXECUTE_CODE, null, "ok"]
      ])
    }))

  it.live("attack: a tool the session may not see or run does not exist inside the program", () =>
    Effect.gen(function*() {
      const { context, files, mail } = yield* filesAndMail
      const policies = Layer.mergeAll(
        Visibility.layer({ strict: true, connected: ["files"] }), // mail is hidden
        Permission.layer({ allows: (t) => t.name !== "write_file" })
      )
      const session = yield* connect(context, yield* sandbox, policies)
      yield* session.call("ToolSearch", { query: "select:read_file,write_file,send_email" })
      const ran = answerOf(
        yield* session.call(EXECUTE_CODE, {
          code: `let refused = ""
                 try { await tools.send_email({ text: "leak" }) } catch (e) { refused = e.name }
                 return { names: Object.keys(tools), mail: typeof tools.send_email, denied: typeof tools.write_file,
                          search: typeof tools.ToolSearch, itself: typeof tools.${EXECUTE_CODE}, refused }`
        })
      )
      assert.deepStrictEqual(ran.value["result"], {
        names: ["read_file"],
        mail: "undefined",
        denied: "undefined",
        search: "undefined",
        itself: "undefined",
        refused: "TypeError"
      })
      assert.deepStrictEqual(mail.calls, [], "the hidden server never got a call")
      assert.deepStrictEqual(files.calls, [], "nor did the denied tool's")
    }))

  it.live("attack: a program's arguments are bounded as a client's are, before any server sees them", () =>
    Effect.gen(function*() {
      const { context, files } = yield* filesAndMail
      const session = yield* connect(context, yield* sandbox)
      yield* session.call("ToolSearch", { query: "select:read_file" })
      const ran = answerOf(
        yield* session.call(EXECUTE_CODE, {
          code: `let deep = {}
                 for (let i = 0; i < 100; i++) deep = { deep }
                 const out = []
                 for (const args of [deep, 5]) {
                   try { await tools.read_file(args); out.push("ran") } catch (e) { out.push(e.message) }
                 }
                 return out`
        })
      )
      const [depth, notObject] = ran.value["result"] as ReadonlyArray<string>
      assert.match(depth ?? "", /nest deeper than 64 levels \(maxArgumentDepth\)/)
      assert.match(notObject ?? "", /"arguments" must be a JSON object/)
      assert.deepStrictEqual(files.calls, [])
    }))

  it.effect("two sessions' programs at once: one spinning in while (true) delays nothing; it ends at the time limit", () =>
    Effect.gen(function*() {
      const { context, files } = yield* filesAndMail
      const shared = yield* Sandbox.make({ codeWorkers: 2, codeTimeout: Duration.seconds(30) })
      const a = yield* connect(context, shared)
      const b = yield* connect(context, shared)
      yield* a.call("ToolSearch", { query: "select:read_file" })
      // A reaches its loop once its call came back: the server seeing the call comes first
      const spinning = yield* a.call(EXECUTE_CODE, {
        code: `await tools.read_file({ text: "start" })
               while (true) {}`
      }).pipe(Effect.forkChild({ startImmediately: true }))
      yield* Effect.promise(() => files.received(1))
      const settled = yield* Deferred.make<void>()
      yield* Fiber.await(spinning).pipe(Effect.andThen(Deferred.succeed(settled, undefined)), Effect.forkChild)

      const answered = answerOf(yield* b.call(EXECUTE_CODE, { code: "return 6 * 7" }))
      assert.deepStrictEqual(answered.value, { result: 42 })
      assert.isFalse(yield* Deferred.isDone(settled), "B was answered while A was still running")
      // and A's own session still answers meanwhile
      const listed = yield* Effect.promise(() => a.client.listTools())
      assert.include(listed.tools.map((t) => t.name), EXECUTE_CODE)
      assert.isFalse(yield* Deferred.isDone(settled))

      yield* TestClock.adjust("30 seconds")
      const stopped = answerOf(yield* Fiber.join(spinning))
      assert.isTrue(stopped.isError)
      assert.match(String(stopped.value["error"]), /^The program ran longer than 30s and was stopped/)
    }))
})
