import { assert, describe, it } from "@effect/vitest"
import { CatalogTool, Disclosure, Permission, ToolCatalog, Visibility } from "@tool-search/core"
import { Effect, Layer, Stream } from "effect"
import { LanguageModel, type Prompt, type Response } from "effect/ai"
import { Approval, Executor, ScriptedModel, TokenCounter, TurnEvent } from "../src/index.js"
import { CatalogLive, tool, typedTool, user } from "./fixtures.js"

// -----------------------------------------------------------------------------
// An agent under code delivery, whose model answers hand-written responses
// -----------------------------------------------------------------------------

const call = (id: string, name: string, params: unknown): Response.PartEncoded => ({
  type: "tool-call",
  id,
  name,
  params
})
const search = (id: string, query: string) => call(id, Disclosure.toolNames.toolSearch, { query })
const run = (id: string, code: string) => call(id, Disclosure.toolNames.executeCode, { code })
const answer: ReadonlyArray<Response.PartEncoded> = [{ type: "text", text: "done" }]

// eager tools for the checks after resolution; `hidden_tool` does not exist for the agent
const typed = typedTool()
const guarded = tool("delete_repo", "Delete a repository", { loading: "eager" })
const forbidden = tool("wire_money", "Wire money", { loading: "eager" })
const hidden = tool("hidden_tool", "A tool outside the agent's visibility", { loading: "eager" })
const big = tool("export_rows", "Export every row of a table", {
  loading: "eager",
  handler: CatalogTool.handler(
    "export_rows",
    () => Effect.succeed({ rows: Array.from({ length: 2000 }, (_, i) => ({ id: i, name: `row ${i}` })) })
  )
})

const agentOf = (
  responses: ReadonlyArray<ReadonlyArray<Response.PartEncoded>>,
  options: Partial<Executor.Options> = {}
) => {
  const seen: Array<LanguageModel.ProviderOptions> = []
  const model = Layer.effect(
    LanguageModel.LanguageModel,
    LanguageModel.make({
      generateText: (request) =>
        Effect.sync(() => [...(responses[Math.min(seen.push(request) - 1, responses.length - 1)] ?? [])]),
      streamText: () => Stream.empty
    })
  )
  const catalog = Layer.effectDiscard(
    Effect.flatMap(ToolCatalog.ToolCatalog, (c) => c.register([typed, guarded, forbidden, hidden, big]))
  ).pipe(Layer.provideMerge(CatalogLive), Layer.orDie)
  const layer = Executor.layerMemory({ ...options, delivery: "code" }).pipe(
    Layer.provideMerge(model),
    Layer.provideMerge(catalog),
    Layer.provide(TokenCounter.layerApproximate),
    Layer.provide(Visibility.layer({ ...Visibility.everything, includes: (t) => t.name !== "hidden_tool" })),
    Layer.provide(Permission.layer({ allows: (t) => t.name !== "wire_money" })),
    Layer.provide(Approval.layer({ decide: (r) => Effect.succeed(r.tool.name !== "delete_repo") }))
  )
  return { seen, layer }
}

const turn = (prompt = "go") =>
  Effect.flatMap(Executor.Executor, (e) => Stream.runCollect(e.stream({ prompt: user(prompt) })))

const resultsOf = (events: ReadonlyArray<TurnEvent.TurnEvent>) => events.filter(TurnEvent.$is("ToolResult"))

/** What the model received for the call `id`, from the prompt of the last request. */
const received = (seen: ReadonlyArray<LanguageModel.ProviderOptions>, id: string): Prompt.ToolResultPart => {
  const last = seen[seen.length - 1]
  const part = last?.prompt.content.flatMap((m) => m.role === "tool" ? m.content : []).find((p) =>
    p.type === "tool-result" && p.id === id
  )
  assert.isDefined(part)
  return part as Prompt.ToolResultPart
}

/** The returned value of a program the model received (`{ result, logs }`), failing if the program failed. */
const returned = (seen: ReadonlyArray<LanguageModel.ProviderOptions>, id: string): unknown => {
  const part = received(seen, id)
  assert.isFalse(part.isFailure, JSON.stringify(part.result))
  return (part.result as { readonly result: unknown }).result
}

describe("code delivery", () => {
  it.live("the model is offered ToolSearch and execute_code; a search answers declarations and loads nothing into the list", () => {
    const { layer, seen } = agentOf([[search("c1", "send chat message")], answer])
    return Effect.gen(function*() {
      yield* turn()
      const names = seen.map((r) => r.tools.map((t) => t.name))
      assert.deepStrictEqual(names[0], names[1]) // the list does not grow
      assert.includeMembers(names[0] ?? [], [Disclosure.toolNames.toolSearch, Disclosure.toolNames.executeCode])
      assert.notInclude(names[1] ?? [], "chat_send_message")
      const found = received(seen, "c1")
      assert.isString(found.result)
      assert.include(found.result as string, "interface Tools {")
      assert.include(found.result as string, "chat_send_message(args")
    }).pipe(Effect.provide(layer))
  })

  it.live("a program calls what the search loaded and eager tools; each call is a ToolCall/ToolResult via execute_code", () => {
    const { layer, seen } = agentOf([
      [search("c1", "send chat message")],
      [run(
        "c2",
        `const a = await tools.chat_send_message({ text: "one" })
         const b = await tools.create_ticket({ title: "two" })
         return [a, b]`
      )],
      answer
    ])
    return Effect.gen(function*() {
      const events = yield* turn()
      const value = returned(seen, "c2") as ReadonlyArray<unknown>
      assert.strictEqual(value.length, 2)
      const inner = events.filter(TurnEvent.$is("ToolCall")).filter((e) => e.via === Disclosure.toolNames.executeCode)
      assert.deepStrictEqual(inner.map((e) => e.name), ["chat_send_message", "create_ticket"])
      assert.deepStrictEqual(inner.map((e) => e.id), ["c2/1", "c2/2"])
      const results = resultsOf(events).filter((e) => e.via === Disclosure.toolNames.executeCode)
      assert.deepStrictEqual(results.map((e) => e.isFailure), [false, false])
      // the program's own call comes last, after its inner calls
      assert.strictEqual(resultsOf(events).at(-1)?.name, Disclosure.toolNames.executeCode)
    }).pipe(Effect.provide(layer))
  })

  it.live("attack: a tool the agent may not see, may not run, or has not loaded does not exist inside", () => {
    const { layer, seen } = agentOf([
      [run(
        "c1",
        `const names = Object.keys(tools)
         let refused = ""
         try { await tools.hidden_tool({}) } catch (e) { refused = e.name + ": " + e.message }
         return { names, hidden: typeof tools.hidden_tool, denied: typeof tools.wire_money,
                  notLoaded: typeof tools.chat_send_message, refused }`
      )],
      answer
    ])
    return Effect.gen(function*() {
      const events = yield* turn()
      const value = returned(seen, "c1") as Record<string, unknown>
      assert.deepStrictEqual([...(value["names"] as ReadonlyArray<string>)].sort(), [
        "create_ticket",
        "delete_repo",
        "export_rows",
        "read_file"
      ])
      assert.strictEqual(value["hidden"], "undefined")
      assert.strictEqual(value["denied"], "undefined")
      assert.strictEqual(value["notLoaded"], "undefined")
      assert.match(value["refused"] as string, /^TypeError/)
      // nothing reached the call path
      assert.deepStrictEqual(events.filter(TurnEvent.$is("ToolCall")).map((e) => e.name), [
        Disclosure.toolNames.executeCode
      ])
    }).pipe(Effect.provide(layer))
  })

  it.live("attack: bad arguments and a denied approval reject the program's call with the direct call's message", () => {
    const { layer, seen } = agentOf([
      [run(
        "c1",
        `const out = []
         for (const attempt of [() => tools.create_ticket({ priority: "high" }), () => tools.delete_repo({ text: "prod" })]) {
           try { await attempt(); out.push("ran") } catch (e) { out.push(e.name + ": " + e.message) }
         }
         return out`
      )],
      answer
    ])
    return Effect.gen(function*() {
      const events = yield* turn()
      const [invalid, denied] = returned(seen, "c1") as ReadonlyArray<string>
      assert.match(invalid ?? "", /^ToolError: Invalid arguments for 'create_ticket'/)
      assert.match(denied ?? "", /^ToolError: The call to 'delete_repo' was not approved/)
      const failures = resultsOf(events).filter((e) => e.via === Disclosure.toolNames.executeCode)
      assert.deepStrictEqual(failures.map((e) => [e.name, e.failure]), [
        ["create_ticket", "invalid-arguments"],
        ["delete_repo", "not-approved"]
      ])
    }).pipe(Effect.provide(layer))
  })

  it.live("a program's tool results are not cut to toolResultMaxTokens; what it returns is", () => {
    const { layer, seen } = agentOf([
      [run("c1", "const all = await tools.export_rows({}); return all.rows.length")],
      [run("c2", "return (await tools.export_rows({})).rows")],
      answer
    ], { toolResultMaxTokens: 200 })
    return Effect.gen(function*() {
      const events = yield* turn()
      assert.strictEqual(returned(seen, "c1"), 2000)
      const inner = resultsOf(events).filter((e) => e.via === Disclosure.toolNames.executeCode)
      assert.deepStrictEqual(inner.map((e) => e.truncated), [null, null])
      // the program's own answer reaches the model through the cap
      const cut = received(seen, "c2")
      assert.isString(cut.result)
      assert.include(cut.result as string, "[Result cut to 200 tokens")
    }).pipe(Effect.provide(layer))
  })

  it.live("a program that does not return tells the model why, with its line; the turn goes on", () => {
    const { layer, seen } = agentOf([[run("c1", "const x = 1\nreturn x.nope.deeper")], answer])
    return Effect.gen(function*() {
      const result = yield* Effect.flatMap(Executor.Executor, (e) => e.run({ prompt: user("go") }))
      assert.strictEqual(result.stopReason, "answered")
      const part = received(seen, "c1")
      assert.isTrue(part.isFailure)
      assert.match(JSON.stringify(part.result), /TypeError.*line 2/)
    }).pipe(Effect.provide(layer))
  })
})

describe("code delivery with the scripted model", () => {
  const scripted = (policy: ScriptedModel.Policy, plans: Record<string, ScriptedModel.Plan>) =>
    Executor.layerMemory({ delivery: "code" }).pipe(
      Layer.provideMerge(ScriptedModel.layer({ policy, plan: (text) => plans[text] })),
      Layer.provideMerge(CatalogLive),
      Layer.provide(TokenCounter.layerApproximate)
    )

  it.live("a capable model searches, then calls the found tool from a program of one call", () =>
    Effect.gen(function*() {
      const events = yield* turn("tell #ops")
      const calls = events.filter(TurnEvent.$is("ToolCall")).map((e) => [e.name, e.via ?? null])
      assert.deepStrictEqual(calls, [
        [Disclosure.toolNames.toolSearch, null],
        [Disclosure.toolNames.executeCode, null],
        ["chat_send_message", Disclosure.toolNames.executeCode]
      ])
      const finished = events.find(TurnEvent.$is("TurnFinished"))
      assert.strictEqual(finished?.stopReason, "answered")
      assert.match(finished?.text ?? "", /^Done: chat_send_message returned/)
    }).pipe(Effect.provide(scripted("capable", {
      "tell #ops": { search: "send chat message", tool: "chat_send_message", params: { text: "deploy done" } }
    }))))

  it.live("a guesser calls by name, follows the corrective message, then runs a program", () =>
    Effect.gen(function*() {
      const events = yield* turn("open a ticket")
      const names = events.filter(TurnEvent.$is("ToolCall")).map((e) => e.name)
      assert.deepStrictEqual(names, [
        "tickets_create",
        Disclosure.toolNames.toolSearch,
        Disclosure.toolNames.executeCode,
        "tickets_create"
      ])
      assert.strictEqual(events.find(TurnEvent.$is("TurnFinished"))?.stopReason, "answered")
    }).pipe(Effect.provide(scripted("guesser", {
      "open a ticket": { search: "create ticket", tool: "tickets_create", params: { text: "outage" } }
    }))))
})
