// The gateway's ToolSearch and the agent's ToolSearch leave out the same weak hits: one rule
// (`Disclosure.weakHits`), one pair of settings (`minScore`, `minScoreRatio`), whichever loads.
import { assert, describe, it } from "@effect/vitest"
import { Disclosure, Strategies, ToolCatalog, Unit } from "@tool-search/core"
import { Context, Effect, Layer } from "effect"
import * as fc from "fast-check"
import * as Fake from "./fixtures/FakeServer.js"
import { call, connect, text, upstreams } from "./fixtures/Sessions.js"

const Bm25f = ToolCatalog.layer.pipe(Layer.provide(Strategies.layer("bm25f")))

const tools = [
  Fake.echoTool("read_graph", "Read the entire knowledge graph"),
  Fake.echoTool("open_nodes", "Open specific nodes in the knowledge graph by their names"),
  Fake.echoTool("create_entities", "Create new entities in the knowledge graph"),
  Fake.echoTool("read_file", "Read a file from disk"),
  Fake.echoTool("write_file", "Write a file to disk"),
  Fake.echoTool("list_files", "List the files of a folder"),
  Fake.echoTool("send_email", "Send an email message to a person"),
  Fake.echoTool("search_web", "Search the web for pages about a topic")
]

const words = [
  "read",
  "graph",
  "file",
  "nodes",
  "send",
  "email",
  "web",
  "folder",
  "the",
  "weather",
  "translate",
  "names"
]

/** Fixed queries, then word salads drawn with a fixed seed: strong, partial and weak matches. */
const queries = [
  "read graph",
  "read the knowledge graph and open its nodes",
  "send an email about the weather tomorrow in paris",
  "translate my essay into french",
  "list files",
  ...fc.sample(fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 6 }), { seed: 7, numRuns: 24 })
    .map((ws) => ws.join(" "))
]

const settings: ReadonlyArray<Partial<Disclosure.Options>> = [
  {},
  { minScore: 0, minScoreRatio: 0 },
  { minScore: 0, minScoreRatio: 0.5 },
  { minScore: 0.3, minScoreRatio: 0 },
  { minScore: 0.1, minScoreRatio: 0.6 }
]

const names = (json: string): ReadonlyArray<string> =>
  (JSON.parse(json) as { functions: ReadonlyArray<{ name: string }> }).functions.map((f) => f.name)

describe("Gateway ToolSearch: weak hits", () => {
  it.effect("the gateway loads exactly what the agent's ToolSearch loads, for the same catalog, query and settings", () =>
    Effect.gen(function*() {
      const memory = Fake.make(tools)
      const base = yield* upstreams([{ name: "memory", transport: memory.transport }], {}, Bm25f)
      let cut = 0
      let whole = 0
      for (const options of settings) {
        const disclosure = { ...Disclosure.Disclosure.defaultValue(), defer: "always" as const, ...options }
        const context = Context.add(base, Disclosure.Disclosure, disclosure)
        const session = yield* connect(context, { maxLoadedTools: 100 })
        for (const query of queries) {
          const agent = yield* Unit.provide(Unit.answer("ToolSearch", { query, max_results: 5 })).pipe(
            Effect.provideContext(context)
          )
          const answer = agent.result as { functions: ReadonlyArray<{ name: string }>; note?: string }
          const expected = answer.functions.map((f) => f.name)
          const gateway = text(yield* call(session, "ToolSearch", { query, max_results: 5 }))
          assert.deepStrictEqual(names(gateway), expected, `${JSON.stringify(options)} '${query}'`)
          // the same "no good match" note, or none (the gateway's answer adds what call_tool does)
          const note = (JSON.parse(gateway) as { note?: string }).note ?? ""
          if (answer.note === undefined) assert.notInclude(note, "match")
          else assert.include(note, answer.note, `${JSON.stringify(options)} '${query}'`)
          if (answer.note !== undefined) cut++
          else if (expected.length > 0) whole++
        }
      }
      // the table exercises both sides of the rule
      assert.isAbove(cut, 5)
      assert.isAbove(whole, 5)
    }))

  it.effect("minScoreRatio leaves out the hits far below the best one's strength", () =>
    Effect.gen(function*() {
      const memory = Fake.make(tools)
      const base = yield* upstreams([{ name: "memory", transport: memory.transport }], {}, Bm25f)
      const over = (options: Partial<Disclosure.Options>) =>
        connect(
          Context.add(base, Disclosure.Disclosure, {
            ...Disclosure.Disclosure.defaultValue(),
            defer: "always" as const,
            ...options
          })
        )
      const loose = yield* over({ minScore: 0, minScoreRatio: 0 })
      const strict = yield* over({ minScore: 0, minScoreRatio: 0.5 })
      const all = text(yield* call(loose, "ToolSearch", { query: "read graph", max_results: 5 }))
      const best = text(yield* call(strict, "ToolSearch", { query: "read graph", max_results: 5 }))
      const first = (answer: string) => names(answer.split("\n")[0] ?? "{}")
      assert.isAbove(first(all).length, first(best).length)
      assert.strictEqual(first(best)[0], "read_graph")
      assert.notInclude(first(best), "list_files")
      assert.match(best, /Only \d tools? matched well; weaker matches were not loaded: /)
    }))
})
