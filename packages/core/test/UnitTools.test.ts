import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import { Disclosure, Permission, Strategies, ToolCatalog, Unit } from "../src/index.js"
import { CatalogLive, deferAlways, EmptyCatalog, tool, visibleNames } from "./kit/tools.js"

const run = (name: string, params: unknown) =>
  Effect.flatMap(Unit.resolve(name), (t) => t.run(params, { toolCallId: "c1" }))

const search = (query: string, max?: number) =>
  run("ToolSearch", max === undefined ? { query } : { query, max_results: max })

const functionsOf = (result: unknown): ReadonlyArray<string> =>
  (result as { functions: ReadonlyArray<{ name: string }> }).functions.map((f) => f.name)

const unit = <A, E>(effect: Effect.Effect<A, E, Unit.Unit | ToolCatalog.ToolCatalog>) =>
  Unit.provide(effect).pipe(Effect.provide(CatalogLive))

describe("Unit: seed 000's error and empty-result table", () => {
  it.effect("no match is an empty result, not an error", () =>
    unit(Effect.gen(function*() {
      const out = yield* search("kubernetes helm chart")
      assert.isFalse(out.isFailure)
      assert.deepStrictEqual(out.result, { functions: [] })
    })))

  it.effect("select: with every name absent is an empty result that names them", () =>
    unit(Effect.gen(function*() {
      const out = yield* search("select:Nope,Nothing")
      assert.isFalse(out.isFailure)
      assert.deepStrictEqual(out.result, { functions: [], note: "No tool is named Nope, Nothing." })
    })))

  it.effect("select: honours every explicit name up to the hard cap, whatever max_results says", () =>
    Effect.gen(function*() {
      const many = Array.from({ length: 25 }, (_, i) => tool(`t${String(i).padStart(2, "0")}`, `Tool ${i}`))
      const names = many.map((t) => t.name)
      const out = yield* Unit.provide(search(`select:${names.slice(0, 11).join(",")}`, 5)).pipe(
        Effect.provide(ToolCatalog.layerWithTools(many).pipe(Layer.provide(Strategies.layer("keyword"))))
      )
      assert.deepStrictEqual(functionsOf(out.result), names.slice(0, 11), "11 names with max_results 5: all 11")
      const capped = yield* Unit.provide(search(`select:${names.join(",")},Nope`)).pipe(
        Effect.provide(ToolCatalog.layerWithTools(many).pipe(Layer.provide(Strategies.layer("keyword"))))
      )
      assert.deepStrictEqual(functionsOf(capped.result), names.slice(0, 20), "at most the hard cap (20)")
      const note = (capped.result as { note?: string }).note ?? ""
      assert.include(note, "No tool is named Nope.")
      assert.include(note, `at most 20 tools: ${names.slice(20).join(", ")}`)
      assert.include(note, `'select:${names.slice(20).join(",")}'`, "the call that loads the rest")
    }))

  it.effect("a bare '+' is no requirement: '+ + +' is an invalid query, '+ slack' ranks by 'slack'", () =>
    unit(Effect.gen(function*() {
      const bare = yield* search("+ + +")
      assert.isTrue(bare.isFailure)
      assert.include(String(bare.result), "A bare '+' requires nothing")
      assert.deepStrictEqual(yield* Unit.activated, [], "nothing was loaded")
      const ranked = yield* search("+ slack")
      assert.isFalse(ranked.isFailure)
      assert.isTrue(functionsOf(ranked.result).every((n) => n.startsWith("slack_")))
    })))

  it.effect("select: with some names present returns only those", () =>
    unit(Effect.gen(function*() {
      const out = yield* search("select:Grep,Nope,WebFetch")
      assert.deepStrictEqual(functionsOf(out.result), ["Grep", "WebFetch"])
    })))

  it.effect("searching an already activated tool again is normal and idempotent", () =>
    unit(Effect.gen(function*() {
      const first = yield* search("select:Grep")
      const second = yield* search("select:Grep")
      assert.deepStrictEqual(functionsOf(first.result), ["Grep"])
      assert.deepStrictEqual(functionsOf(second.result), ["Grep"])
      assert.deepStrictEqual(first.activated, ["Grep"])
      assert.deepStrictEqual(second.activated, [])
      assert.deepStrictEqual((yield* Unit.activated).map((t) => t.id), ["Grep"])
    })))

  it.effect("a missing or blank query is the error 'Query cannot be empty'", () =>
    unit(Effect.gen(function*() {
      for (const params of [{}, { query: "" }, { query: "   \t" }, { query: 42 }, null]) {
        const out = yield* run("ToolSearch", params)
        assert.isTrue(out.isFailure)
        assert.strictEqual(out.result, "Query cannot be empty")
      }
    })))

  it.effect("select: eager tools are filtered out (they are visible already)", () =>
    unit(Effect.gen(function*() {
      const out = yield* search("select:Read,Grep")
      assert.deepStrictEqual(functionsOf(out.result), ["Grep"])
      assert.strictEqual((out.result as { note?: string }).note, "Already available, call directly: Read.")
    })))
})

describe("Unit: visible tools and activation", () => {
  it.effect("visible = eager, then ToolSearch, then activated tools in activation order", () =>
    unit(Effect.gen(function*() {
      assert.deepStrictEqual(yield* visibleNames, ["Read", "Write", "ToolSearch"])
      yield* search("select:ScheduleTask")
      yield* search("select:Grep,WebFetch")
      assert.deepStrictEqual(yield* visibleNames, ["Read", "Write", "ToolSearch", "ScheduleTask", "Grep", "WebFetch"])
    })))

  it.effect("search is load: the answer carries full schemas", () =>
    unit(Effect.gen(function*() {
      const out = yield* search("slack message")
      const fns =
        (out.result as { functions: ReadonlyArray<{ name: string; description: string; parameters: unknown }> })
          .functions
      assert.strictEqual(fns[0]?.name, "slack_send_message")
      assert.strictEqual(fns[0]?.description, "Send a message to a Slack channel")
      assert.deepStrictEqual(fns[0]?.parameters, {
        type: "object",
        properties: { path: { type: "string", description: "A file path" } }
      })
    })))

  it.effect("+slack send keeps names containing 'slack', ranked by 'send'", () =>
    unit(Effect.gen(function*() {
      const out = yield* search("+slack send")
      assert.deepStrictEqual(functionsOf(out.result), ["slack_send_message"])
      const all = yield* search("+slack")
      assert.deepStrictEqual(functionsOf(all.result), ["slack_list_channels", "slack_send_message"])
    })))

  it.effect("max_results is clamped to [1, 20], never rejected", () =>
    Effect.gen(function*() {
      const many = Array.from({ length: 30 }, (_, i) => tool(`file_tool_${i}`, `Works with file number ${i}`))
      const catalog = yield* ToolCatalog.ToolCatalog
      yield* catalog.register(many)
      const count = (max: unknown) =>
        Unit.provide(
          Effect.map(run("ToolSearch", { query: "file", max_results: max }), (o) => functionsOf(o.result).length)
        )
      assert.strictEqual(yield* count(0), 1)
      assert.strictEqual(yield* count(-5), 1)
      assert.strictEqual(yield* count(100), 20)
      assert.strictEqual(yield* count(7.9), 7)
      assert.strictEqual(yield* count("3"), 3)
      assert.strictEqual(yield* count("many"), 5)
      assert.strictEqual(yield* count(undefined), 5)
    }).pipe(Effect.provide(CatalogLive)))

  it.effect("the ToolSearch schema declares query required and additionalProperties false", () =>
    unit(Effect.gen(function*() {
      const ts = (yield* Unit.tools).find((t) => t.name === "ToolSearch")
      assert.deepStrictEqual(ts?.parameters["required"], ["query"])
      assert.strictEqual(ts?.parameters["additionalProperties"], false)
    })))
})

describe("Unit: resolve", () => {
  it.effect("a visible tool resolves and runs", () =>
    unit(Effect.gen(function*() {
      const out = yield* run("Read", { path: "a.txt" })
      assert.deepStrictEqual(out, { isFailure: false, result: { tool: "Read", params: { path: "a.txt" } } })
    })))

  it.effect("a deferred tool that is not active fails with the call that would activate it", () =>
    unit(Effect.gen(function*() {
      const error = yield* Effect.flip(Unit.resolve("Grep"))
      assert.strictEqual(error.reason, "not-active")
      assert.include(error.message, `Call ToolSearch with {"query": "select:Grep"}`)
      yield* search("select:Grep")
      const resolved = yield* Unit.resolve("Grep")
      assert.strictEqual(resolved.kind, "activated")
    })))

  it.effect("an unknown name fails with up to three 'did you mean' names", () =>
    unit(Effect.gen(function*() {
      const error = yield* Effect.flip(Unit.resolve("slack_send_mesage"))
      assert.strictEqual(error.reason, "unknown")
      assert.strictEqual(error.message, "Unknown tool 'slack_send_mesage'. Did you mean: slack_send_message?")
      const vague = yield* Effect.flip(Unit.resolve("slack"))
      assert.strictEqual(vague.reason, "unknown")
      assert.include(vague.message, "Did you mean: slack_send_message, slack_list_channels?")
      const none = yield* Effect.flip(Unit.resolve("zzzzzzzzzz"))
      assert.include(none.message, "Use ToolSearch to find the tool you need")
    })))

  it.effect("a 'functions.' prefix from the model is stripped", () =>
    unit(Effect.gen(function*() {
      assert.strictEqual((yield* Unit.resolve("functions.Read")).name, "Read")
      assert.strictEqual((yield* Unit.resolve("functions.ToolSearch")).name, "ToolSearch")
    })))

  it.effect("activation never grants permission: the allowed-tools list is checked at resolve", () =>
    unit(Effect.gen(function*() {
      yield* search("select:Grep,WebFetch")
      assert.strictEqual((yield* Unit.resolve("Grep")).name, "Grep")
      const denied = yield* Effect.flip(Unit.resolve("WebFetch"))
      assert.strictEqual(denied.reason, "not-permitted")
      const eagerDenied = yield* Effect.flip(Unit.resolve("Write"))
      assert.strictEqual(eagerDenied.reason, "not-permitted")
      // not permitted wins over "not active": no point telling the model to search for it
      const inactive = yield* Effect.flip(Unit.resolve("ScheduleTask"))
      assert.strictEqual(inactive.reason, "not-permitted")
    })).pipe(Effect.provide(Permission.allowOnly(["ToolSearch", "Read", "Grep"]))))

  it.effect("the search tool itself is subject to the allowed-tools list", () =>
    unit(Effect.gen(function*() {
      const error = yield* Effect.flip(search("grep"))
      assert.strictEqual(error._tag === "Refused" && error.reason, "not-permitted")
    })).pipe(Effect.provide(Permission.allowOnly(["Read"]))))

  it.effect("a tool without handler resolves but reports it cannot run", () =>
    Effect.gen(function*() {
      const catalog = yield* ToolCatalog.ToolCatalog
      yield* catalog.register({ ...tool("Bare", "No handler here", { loading: "eager" }), handler: undefined } as never)
      const exit = yield* Unit.provide(Effect.exit(run("Bare", {})))
      assert.isTrue(Exit.isFailure(exit))
    }).pipe(Effect.provide(CatalogLive)))
})

describe("Unit: the discovery tool (catalog mode)", () => {
  const catalogMode = (detail: Disclosure.DescriptionDetail) =>
    Disclosure.layer({ defer: "always", mode: "catalog", descriptionDetail: detail })

  const discoveryDescription = Unit.tools.pipe(
    Effect.map((ts) => ts.find((t) => t.name === "discover_tools")?.description ?? "")
  )

  it.effect("'none' lists names only", () =>
    unit(Effect.gen(function*() {
      const description = yield* discoveryDescription
      assert.include(description, "\n- WebFetch\n")
      assert.notInclude(description, "Fetch a web page")
    })).pipe(Effect.provide(catalogMode("none"))))

  /** The discovery tool's description in `mode`, with a `Deploy` tool described as `description` registered. */
  const describingDeploy = (mode: Disclosure.DescriptionDetail, description: string) =>
    Effect.gen(function*() {
      const catalog = yield* ToolCatalog.ToolCatalog
      yield* catalog.register(tool("Deploy", description))
      return yield* Unit.provide(discoveryDescription)
    }).pipe(Effect.provide(CatalogLive), Effect.provide(catalogMode(mode)))

  it.effect("'first-sentence' adds the first sentence", () =>
    Effect.map(
      describingDeploy("first-sentence", "Deploy a service. Rolls back on failure. Needs admin."),
      (description) => {
        assert.include(description, "- Deploy — Deploy a service.")
        assert.notInclude(description, "Rolls back")
      }
    ))

  it.effect("'full' adds the whole description", () =>
    Effect.map(
      describingDeploy("full", "Deploy a service. Rolls back on failure."),
      (description) => assert.include(description, "- Deploy — Deploy a service. Rolls back on failure.")
    ))

  it.effect("answers schemas and per-name errors, and activates what it discovered", () =>
    unit(Effect.gen(function*() {
      const out = yield* run("discover_tools", { toolNames: ["Grep", "Grepp", "Read"] })
      const answer = out.result as {
        tools: ReadonlyArray<{ name: string }>
        errors: ReadonlyArray<{ name: string; error: string }>
      }
      assert.deepStrictEqual(answer.tools.map((t) => t.name), ["Read", "Grep"])
      assert.deepStrictEqual(answer.errors.map((e) => e.name), ["Grepp"])
      assert.include(answer.errors[0]?.error, "Did you mean: Grep?")
      assert.deepStrictEqual(out.activated, ["Grep"])
      assert.include(yield* visibleNames, "Grep")
    })).pipe(Effect.provide(catalogMode("none"))))

  it.effect("the not-active message names the discovery call", () =>
    unit(Effect.gen(function*() {
      const error = yield* Effect.flip(Unit.resolve("Grep"))
      assert.include(error.message, `Call discover_tools with {"toolNames": ["Grep"]}`)
    })).pipe(Effect.provide(catalogMode("none"))))

  it.effect("absent when nothing is deferred", () =>
    Effect.gen(function*() {
      const catalog = yield* ToolCatalog.ToolCatalog
      yield* catalog.register(tool("Only", "The only tool", { loading: "eager" }))
      assert.deepStrictEqual(yield* Unit.provide(visibleNames), ["Only"])
    }).pipe(
      Effect.provide(EmptyCatalog),
      Effect.provide(catalogMode("none"))
    ))

  it.effect("leaves the visible list once everything is discovered, but stays callable", () =>
    unit(Effect.gen(function*() {
      const names = (yield* Unit.searchable).map((t) => t.modelName)
      yield* run("discover_tools", { toolNames: names })
      const visible = yield* visibleNames
      assert.notInclude(visible, "discover_tools")
      const again = yield* run("discover_tools", { toolNames: ["Grep"] })
      assert.isFalse(again.isFailure)
      assert.deepStrictEqual(again.activated, [])
    })).pipe(Effect.provide(catalogMode("none"))))

  it.effect("malformed input is a failure result, not a crash", () =>
    unit(Effect.gen(function*() {
      const out = yield* run("discover_tools", { toolNames: "Grep" })
      assert.isTrue(out.isFailure)
      assert.include(String(out.result), "toolNames")
    })).pipe(Effect.provide(catalogMode("none"))))
})

describe("Unit: the ToolSearch description follows the strategy", () => {
  const description = Unit.tools.pipe(
    Effect.map((ts) => ts.find((t) => t.name === "ToolSearch")?.description ?? "")
  )
  it.effect("keywords by default, a name pattern with the regex strategy", () =>
    Effect.gen(function*() {
      const keywords = yield* Unit.provide(description).pipe(Effect.provide(CatalogLive))
      assert.include(keywords, "keywords ('read file')")
      const regex = yield* Unit.provide(description).pipe(
        Effect.provide(ToolCatalog.layer.pipe(Layer.provide(Strategies.layer("regex")))),
        Effect.provide(deferAlways)
      )
      assert.include(regex, "a regular expression over tool names")
      assert.notInclude(regex, "keywords ('read file')")
    }))
})

describe("Unit: no good match", () => {
  const catalog = [
    tool("slack_send_message", "Send a message to a Slack channel"),
    tool("slack_list_channels", "List the channels of a Slack workspace"),
    tool("github_create_issue", "Create an issue in a GitHub repository"),
    tool("calendar_create_event", "Create an event in the calendar"),
    tool("weather_forecast", "Get the weather forecast for a city")
  ]
  const over = (disclosure: Partial<Disclosure.Options>) =>
    Effect.provide(
      Layer.mergeAll(
        ToolCatalog.layerWithTools(catalog).pipe(Layer.provide(Strategies.layer("bm25f"))),
        Disclosure.layer({ defer: "always", ...disclosure })
      )
    )

  it.effect("weak hits are not loaded, and the answer says so and names them", () =>
    Effect.gen(function*() {
      const out = yield* Unit.provide(search("send a slack message to the team about the weather tomorrow"))
      const loaded = functionsOf(out.result)
      assert.strictEqual(loaded[0], "slack_send_message")
      assert.isBelow(loaded.length, catalog.length, "fewer tools than max_results")
      const note = (out.result as { note?: string }).note ?? ""
      assert.match(note, /^Only \d tools? matched well; weaker matches were not loaded: /)
      assert.deepStrictEqual(out.activated, loaded, "only what was returned was activated")
    }).pipe(over({ minScoreRatio: 0.5 })))

  it.effect("nothing strong enough: no tool is loaded and the answer says 'No good match'", () =>
    Effect.gen(function*() {
      const out = yield* Unit.provide(
        search("translate my essay into french, summarize its tone and reply to the message")
      )
      assert.deepStrictEqual(functionsOf(out.result), [])
      assert.include((out.result as { note?: string }).note ?? "", "No good match")
      assert.deepStrictEqual(out.activated, [])
    }).pipe(over({ minScore: 0.5 })))

  it.effect("0 and 0 turn it off: every hit up to max_results is loaded", () =>
    Effect.gen(function*() {
      const out = yield* Unit.provide(search("create slack weather", 5))
      assert.strictEqual(functionsOf(out.result).length, 5, "every tool shares a word with the query")
      assert.isUndefined((out.result as { note?: string }).note)
    }).pipe(over({ minScore: 0, minScoreRatio: 0 })))
})
