// The gateway as a transparent and fair proxy, attacked by a client sharing it with another: what a
// server sends during a call (log lines, progress, sampling and elicitation requests) reaches the
// session that made the call and no other; one session's flood of calls waits in its own queue or
// is refused, while another session's call is answered; a server never has more requests at once
// than its bound; everything a result or an error carries is within the result cap.
import { assert, describe, it } from "@effect/vitest"
import {
  CreateMessageRequestSchema,
  CreateMessageResultSchema,
  LoggingMessageNotificationSchema,
  McpError
} from "@modelcontextprotocol/sdk/types.js"
import { Gateway } from "@tool-search/mcp"
import { Deferred, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import * as SearchBudget from "../src/internal/SearchBudget.js"
import * as Fake from "./fixtures/FakeServer.js"
import { call, connect, type Session, text, upstreams } from "./fixtures/Sessions.js"

/** One fake server `files` with the tools `read_file` and `write_file`, imported eagerly. */
const oneServer = (behaviour: Fake.CallBehaviour, input: { readonly maxCalls?: number } = {}) =>
  Effect.gen(function*() {
    const files = Fake.make([Fake.echoTool("read_file", "Read a file"), Fake.echoTool("write_file", "Write a file")])
    files.onCall = behaviour
    const context = yield* upstreams([{ name: "files", transport: files.transport, loading: "eager", ...input }])
    return { files, context }
  })

/** A client session that answers sampling with `answer` and records the log lines it receives. */
const samplingSession = (context: Parameters<typeof connect>[0], answer: string, options = {}) =>
  Effect.gen(function*() {
    const session = yield* connect(context, options, [], { sampling: {} })
    const logs: Array<unknown> = []
    const sampled: Array<unknown> = []
    session.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params.data))
    session.client.setRequestHandler(CreateMessageRequestSchema, (request) => {
      sampled.push(request.params.messages)
      return { role: "assistant", content: { type: "text", text: answer }, model: "test" }
    })
    return { session, logs, sampled }
  })

/** Calls `name` on `session` and returns the JSON-RPC error's message, or the result's text. */
const outcome = (session: Session, name: string, args: Record<string, unknown> = {}) =>
  Effect.promise(() =>
    session.client.callTool({ name, arguments: args }).then(text, (e: unknown) => `error: ${(e as Error).message}`)
  )

describe("Gateway: what a server sends during a call", () => {
  it.effect("log lines, progress and sampling reach the calling session; the other session gets none", () =>
    Effect.gen(function*() {
      const { context } = yield* oneServer(async (name, _args, _signal, extra) => {
        await extra.sendNotification({ method: "notifications/message", params: { level: "info", data: "reading" } })
        const token = extra._meta?.progressToken
        if (token !== undefined) {
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken: token, progress: 1, total: 2 }
          })
        }
        const sampled = await extra.sendRequest({
          method: "sampling/createMessage",
          params: { messages: [{ role: "user", content: { type: "text", text: "summarize" } }], maxTokens: 10 }
        }, CreateMessageResultSchema)
        return { content: [{ type: "text", text: `${name}: ${JSON.stringify(sampled.content)}` }] }
      })
      const a = yield* samplingSession(context, "from A")
      const b = yield* samplingSession(context, "from B")
      const progress: Array<unknown> = []
      const result = yield* Effect.promise(() =>
        a.session.client.callTool({ name: "read_file", arguments: {} }, undefined, {
          onprogress: (p) => void progress.push(p)
        })
      )
      assert.include(text(result), "from A")
      assert.deepStrictEqual(a.logs, ["reading"])
      assert.deepStrictEqual(progress, [{ progress: 1, total: 2 }])
      assert.strictEqual(a.sampled.length, 1)
      // the other session saw nothing of it
      assert.deepStrictEqual(b.logs, [])
      assert.deepStrictEqual(b.sampled, [])
    }))

  it.effect("with calls of two sessions in flight on one server, its sampling request is refused, not guessed", () =>
    Effect.gen(function*() {
      const release = yield* Deferred.make<void>()
      const { context, files } = yield* oneServer(async (name, _args, _signal, extra) => {
        if (name === "write_file") {
          await Effect.runPromise(Deferred.await(release))
          return { content: [{ type: "text", text: "written" }] }
        }
        const answer = await extra.sendRequest({
          method: "sampling/createMessage",
          params: { messages: [{ role: "user", content: { type: "text", text: "whose?" } }], maxTokens: 10 }
        }, CreateMessageResultSchema).then((r) => JSON.stringify(r.content), (e: McpError) => `refused: ${e.message}`)
        await extra.sendNotification({ method: "notifications/message", params: { level: "error", data: "secret" } })
        return { content: [{ type: "text", text: answer }] }
      })
      const a = yield* samplingSession(context, "from A")
      const b = yield* samplingSession(context, "from B")
      const pending = yield* Effect.forkChild(call(a.session, "write_file"))
      yield* Effect.promise(() => files.received(1))
      const answer = yield* outcome(b.session, "read_file")
      assert.match(answer, /refused: .*calls of several client sessions are in flight on MCP server 'files'/)
      assert.deepStrictEqual([a.sampled, b.sampled, a.logs, b.logs], [[], [], [], []])
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(pending)
    }))

  it.effect("logging/setLevel: the session's level filters the log lines that reach it; a bad level is refused, named", () =>
    Effect.gen(function*() {
      const { context } = yield* oneServer(async (_name, _args, _signal, extra) => {
        for (const level of ["debug", "warning"] as const) {
          await extra.sendNotification({ method: "notifications/message", params: { level, data: level } })
        }
        return { content: [{ type: "text", text: "ok" }] }
      })
      const a = yield* samplingSession(context, "A")
      yield* Effect.promise(() => a.session.client.setLoggingLevel("warning"))
      yield* call(a.session, "read_file")
      assert.deepStrictEqual(a.logs, ["warning"])
      const refused = yield* Effect.flip(Effect.tryPromise(() => a.session.client.setLoggingLevel("loud" as never)))
      assert.match(String(refused.cause), /logging\/setLevel needs "level": one of debug, info/)
    }))
})

describe("Gateway: fair sharing", () => {
  it.effect("a session's flood waits in its own queue, then is refused; another session's call is answered", () =>
    Effect.gen(function*() {
      const release = yield* Deferred.make<void>()
      const { context, files } = yield* oneServer(async (name) => {
        if (name === "write_file") await Effect.runPromise(Deferred.await(release))
        return { content: [{ type: "text", text: `${name} done` }] }
      })
      const options = { maxSessionCalls: 4, maxQueuedCalls: 6 }
      const attacker = yield* connect(context, options)
      const victim = yield* connect(context, options)
      const flood = yield* Effect.forkChild(
        Effect.forEach(Array.from({ length: 30 }, () => 0), () => outcome(attacker, "write_file"), {
          concurrency: "unbounded"
        })
      )
      // 4 reach the server, 6 wait in the session's queue, 20 are refused at once
      yield* Effect.promise(() => files.received(4))
      assert.strictEqual(yield* outcome(victim, "read_file"), "read_file done")
      assert.strictEqual(files.calls.filter((c) => c.name === "write_file").length, 4)
      yield* Deferred.succeed(release, undefined)
      const answers = yield* Fiber.join(flood)
      const refused = answers.filter((a) => a.startsWith("error:"))
      assert.strictEqual(refused.length, 20)
      assert.match(
        refused[0] ?? "",
        /too many requests in flight for this session \(maxSessionCalls 4, maxQueuedCalls 6\): 4 running and 6 waiting/
      )
      assert.strictEqual(answers.filter((a) => a === "write_file done").length, 10)
    }))

  it.effect("a server never has more requests at once than its maxCalls, whatever the sessions send", () =>
    Effect.gen(function*() {
      let running = 0
      let peak = 0
      const { context } = yield* oneServer(async () => {
        running++
        peak = Math.max(peak, running)
        await new Promise((resolve) => setImmediate(resolve))
        running--
        return { content: [{ type: "text", text: "ok" }] }
      }, { maxCalls: 2 })
      const sessions = yield* Effect.all([connect(context), connect(context), connect(context)])
      yield* Effect.forEach(
        sessions,
        (s) =>
          Effect.forEach(Array.from({ length: 6 }, () => 0), () => call(s, "read_file"), {
            concurrency: "unbounded"
          }),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(peak, 2)
    }))

  it.effect("the result cap covers _meta, extra fields and a JSON-RPC error's data", () =>
    Effect.gen(function*() {
      const big = "x".repeat(50_000)
      const { context } = yield* oneServer(async (name) => {
        if (name === "write_file") throw new McpError(-32001, "refused", { blob: big })
        return { content: [{ type: "text", text: "small" }], _meta: { blob: big }, extra: big }
      })
      const session = yield* connect(context, { limits: { ...Gateway.defaults.limits, maxResultChars: 1000 } })
      const result: Record<string, unknown> = yield* call(session, "read_file")
      assert.isUndefined(result["_meta"])
      assert.isUndefined(result["extra"])
      assert.match(text(result), /over the limit of 1000 \(maxResultChars\).*_meta, extra left out/)
      assert.isBelow(JSON.stringify(result).length, 1500)
      const error = yield* Effect.flip(Effect.tryPromise(() => session.client.callTool({ name: "write_file" })))
      const cause = error.cause as McpError
      assert.strictEqual(cause.code, -32001)
      assert.isUndefined(cause.data)
      assert.match(cause.message, /refused \[tool-search: the error had \d+ characters.*its data was left out\]/)
    }))
})

describe("Gateway: a search budget per session", () => {
  it.effect("searches run one at a time and past the budget are refused until it refills; others are not", () =>
    Effect.gen(function*() {
      let running = 0
      let peak = 0
      // a costly search: 4 seconds of (test) time each
      const search = () =>
        Effect.gen(function*() {
          running++
          peak = Math.max(peak, running)
          yield* Effect.sleep("4 seconds")
          running--
          return { _tag: "Result" as const, result: { content: [{ type: "text", text: "found" }] } }
        })
      const attacker = SearchBudget.make(10_000, search)
      const victim = SearchBudget.make(10_000, search)
      const flood = yield* Effect.forkChild(
        Effect.forEach(Array.from({ length: 5 }, (_, i) => i), (i) => attacker({ query: "x" }, String(i)), {
          concurrency: "unbounded"
        })
      )
      yield* TestClock.adjust("20 seconds")
      const answers = yield* Fiber.join(flood)
      assert.strictEqual(peak, 1)
      const texts = answers.map((a) => a._tag === "Result" ? JSON.stringify(a.result.content) : "")
      // 10 s of budget: three 4-second searches start (the third with 2 s left), then the bucket is empty
      assert.strictEqual(texts.filter((t) => t.includes("found")).length, 3)
      assert.match(texts[4] ?? "", /Search refused: this session used its search time \(searchBudget: 10000 ms/)
      // another session's budget is its own
      const other = yield* Effect.forkChild(victim({ query: "y" }, "v"))
      yield* TestClock.adjust("4 seconds")
      const answer = yield* Fiber.join(other)
      assert.include(JSON.stringify(answer), "found")
      // and the attacker's refills with time
      yield* TestClock.adjust("60 seconds")
      const later = yield* Effect.forkChild(attacker({ query: "x" }, "later"))
      yield* TestClock.adjust("4 seconds")
      assert.include(JSON.stringify(yield* Fiber.join(later)), "found")
    }))
})
