import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import {
  CatalogTool,
  Permission,
  Resource,
  type ResourceCatalog,
  ResourceDisclosure,
  ToolCatalog,
  Unit,
  Visibility
} from "../src/index.js"
import { handbook, handbookText, logTemplate, resourceCatalogOf, summaryPrompt, wikiPage } from "./kit/resources.js"
import { CatalogLive } from "./kit/tools.js"

const everything = [handbook, wikiPage(1), wikiPage(2), summaryPrompt, logTemplate]

/** Runs `effect` as one unit over a catalog of `resources`. */
const unit = <A, E>(
  effect: Effect.Effect<A, E, Unit.Unit | ResourceCatalog.ResourceCatalog | ToolCatalog.ToolCatalog>,
  resources: ReadonlyArray<Resource.Resource> = everything
) =>
  effect.pipe(
    Unit.provideWith({ resources: true }),
    Effect.provide(resourceCatalogOf(resources)),
    Effect.provide(CatalogLive)
  )

/** The unit's resource operations, as the resource tools run them. */
const view = {
  sample: Unit.sampleResources,
  search: Unit.searchResources,
  read: Unit.readResource,
  getPrompt: Unit.getPrompt,
  revealed: Unit.revealed
}

/** Calls a resource tool as the executor would: by name, with JSON parameters. */
const call = (name: string, params: unknown) =>
  Effect.flatMap(Unit.resolve(name), (tool) => tool.run(params, { toolCallId: "t" }))

const text = (out: { readonly result: unknown }) => JSON.stringify(out.result)

/** Why a resource request was refused (or the tag of another failure). */
const reasonOf = (error: { readonly _tag: string; readonly reason?: unknown }) =>
  error._tag === "Refused" ? error.reason : error._tag

describe("Unit resources levels", () => {
  it.effect("L2 sample reveals, L3 search ranks passages, L4 reads only the slice asked for", () =>
    unit(Effect.gen(function*() {
      const sampled = yield* view.sample({ query: "refund and returns policy" })
      assert.strictEqual(sampled.resources[0]?.uri, handbook.uri)
      assert.strictEqual(sampled.resources[0]?.kind, "policy")
      assert.isAtMost(sampled.resources[0]?.snippet.length ?? 0, 202)
      const found = yield* view.search({ query: "restocking fee opened laptops", uri: handbook.uri, max: 1 })
      const passage = found.passages[0]
      assert.strictEqual(passage?.heading, "Customer handbook › Returns › Laptops")
      assert.include(passage?.excerpt, "15% restocking fee")
      const slice = yield* view.read({ uri: handbook.uri, offset: passage?.offset ?? 0, length: passage?.length ?? 0 })
      assert.strictEqual(slice.text, handbookText.slice(slice.offset, slice.offset + slice.length))
      assert.include(slice.text, "15% restocking fee")
      assert.strictEqual(slice.total, handbookText.length)
      assert.strictEqual(slice.next_offset, slice.offset + slice.length)
      const tail = yield* view.read({ uri: handbook.uri, offset: handbookText.length - 10 })
      assert.strictEqual(tail.length, 10)
      assert.isNull(tail.next_offset)
    })))

  it.effect("what the model did not reveal it cannot read, and the error names the revealing call", () =>
    unit(Effect.gen(function*() {
      const error = yield* Effect.flip(view.read({ uri: handbook.uri }))
      assert.strictEqual(error._tag === "Refused" && error.reason, "not-active")
      assert.strictEqual(
        error.message,
        `Resource '${handbook.uri}' is not revealed yet. Call sample_resources with {"uri":"${handbook.uri}"} to reveal it, then call read_resource again.`
      )
      const prompt = yield* Effect.flip(view.getPrompt({ name: "summarize", arguments: { topic: "x" } }))
      assert.strictEqual(prompt._tag === "Refused" && prompt.reason, "not-active")
      // a search reveals the resources of the passages it shows
      yield* view.search({ query: "two-year warranty" })
      assert.strictEqual((yield* view.read({ uri: handbook.uri, length: 5 })).text, "# Cus")
      assert.deepStrictEqual((yield* view.revealed).map((e) => e.uri), [handbook.uri])
    })))

  it.effect("unknown URIs get suggestions; bad offsets and prompts name the corrective call", () =>
    unit(Effect.gen(function*() {
      const unknown = yield* Effect.flip(view.read({ uri: "policy://acme/handbok" }))
      assert.strictEqual(unknown._tag === "Refused" && unknown.reason, "unknown")
      assert.include(unknown.message, "Did you mean: policy://acme/handbook")
      yield* view.sample({ uri: handbook.uri })
      const past = yield* Effect.flip(view.read({ uri: handbook.uri, offset: 1_000_000 }))
      assert.include(past.message, `Call read_resource with {"uri":"${handbook.uri}","offset":0}`)
      const prompt = yield* Effect.flip(view.read({ uri: summaryPrompt.uri }))
      assert.include(prompt.message, `Call get_prompt with {"name":"summarize","arguments":{}}`)
      const notPrompt = yield* Effect.flip(view.getPrompt({ name: handbook.uri }))
      assert.include(notPrompt.message, "is not a prompt. Call read_resource")
    })))

  it.effect("get_prompt checks arguments, then renders", () =>
    unit(Effect.gen(function*() {
      const shown = yield* view.sample({ uri: summaryPrompt.uri })
      assert.deepStrictEqual(shown.resources[0]?.arguments, [
        { name: "topic", description: "What to summarize", required: true },
        { name: "tone", required: false }
      ])
      const missing = yield* Effect.flip(view.getPrompt({ name: "summarize" }))
      assert.include(missing.message, `needs a value for topic. Call get_prompt with {"name":"summarize"`)
      const extra = yield* Effect.flip(view.getPrompt({ name: "summarize", arguments: { topic: "x", colour: "red" } }))
      assert.include(extra.message, "has no argument 'colour'; its arguments: topic (required), tone")
      const rendered = yield* view.getPrompt({ name: "summarize", arguments: { topic: "Q3 results" } })
      assert.deepStrictEqual(rendered.messages, [{
        role: "user",
        text: "Summarize Q3 results in three bullet points."
      }])
    })))

  it.effect("templates: a concrete URI reveals and reads its family; the template itself is not readable", () =>
    unit(Effect.gen(function*() {
      const shown = yield* view.sample({ uri: "logs://acme/2026-11-30" })
      assert.strictEqual(shown.resources[0]?.template, true)
      const read = yield* view.read({ uri: "logs://acme/2026-12-01" })
      assert.strictEqual(read.text, "log of logs://acme/2026-12-01")
      const template = yield* Effect.flip(view.read({ uri: logTemplate.uri }))
      assert.include(template.message, "is a URI template: read a concrete uri")
    })))

  it.effect("reads are bounded: length clamped, a reader sending more is cut, a slow one times out", () =>
    Effect.gen(function*() {
      const greedy = Resource.make({
        uri: "greedy://a",
        name: "greedy",
        read: () => Effect.succeed({ content: { _tag: "Text", text: "x".repeat(500) }, total: 500 })
      })
      // answers the catalog's index read, then never again
      const slow = Resource.make({
        uri: "slow://a",
        name: "slow",
        read: (r) => r.length > 1_000_000 ? Effect.succeed(Resource.sliceText("slow", 0, 4)) : Effect.never
      })
      yield* Unit.provideWith({ resources: true })(
        Effect.gen(function*() {
          yield* view.sample({ uri: handbook.uri })
          assert.strictEqual((yield* view.read({ uri: handbook.uri, length: 1_000_000 })).length, 100)
          yield* view.sample({ uri: "greedy://a" })
          const cut = yield* view.read({ uri: "greedy://a", length: 7 })
          assert.strictEqual(cut.text, "xxxxxxx")
          assert.strictEqual(cut.next_offset, 7)
          yield* view.sample({ uri: "slow://a" })
          const fiber = yield* Effect.forkChild(Effect.flip(view.read({ uri: "slow://a" })))
          yield* TestClock.adjust("31 seconds")
          const error = yield* Fiber.join(fiber)
          assert.strictEqual(error._tag, "ResourceReadError")
          assert.include(error.message, "took too long")
        })
      ).pipe(
        Effect.provide(ResourceDisclosure.layer({ maxReadLength: 100 })),
        Effect.provide(resourceCatalogOf([handbook, greedy, slow])),
        Effect.provide(CatalogLive)
      )
    }))

  it.effect("binary bodies come as base64, offsets in bytes; text never starts inside a character", () =>
    unit(
      Effect.gen(function*() {
        yield* view.sample({ uri: "bin://a" })
        const bytes = yield* view.read({ uri: "bin://a", offset: 1, length: 2 })
        assert.deepStrictEqual([bytes.base64, bytes.total, bytes.next_offset], ["AgM=", 4, 3])
        yield* view.sample({ uri: "emoji://a" })
        const inside = yield* view.read({ uri: "emoji://a", offset: 2, length: 2 })
        assert.deepStrictEqual([inside.offset, inside.text], [3, "b"])
      }),
      [
        Resource.make({
          uri: "bin://a",
          name: "bytes",
          read: (r) => Effect.succeed(Resource.sliceBytes(new Uint8Array([1, 2, 3, 4]), r.offset, r.length))
        }),
        Resource.text({ uri: "emoji://a", name: "emoji", text: "a🙂b" })
      ]
    ))
})

describe("Unit resources policies", () => {
  // The attached handbook is a resource source; the wiki and its prompt are platform sources.
  const strict = Visibility.layer({ strict: true, resources: ["handbook"] })
  const hidden = wikiPage(1)
  const hiddenPrompt = Resource.prompt({
    name: "wiki_digest",
    source: "wiki",
    description: "Digest of the wiki.",
    render: () => Effect.succeed({ messages: [{ role: "user", text: "secret digest" }] })
  })

  it.effect("strict mode hides a non-selected resource from every level", () =>
    unit(
      Effect.gen(function*() {
        // L1: not named, not even counted
        const toc = yield* Unit.contents
        assert.include(toc, "[policy · handbook]\n- Customer handbook <policy://acme/handbook> (load first)")
        assert.notInclude(toc, "wiki")
        assert.notInclude(toc, "more resources")
        // L2: neither by query nor by uri
        assert.deepStrictEqual((yield* view.sample({ query: "meeting notes project budgets" })).resources, [])
        assert.strictEqual(reasonOf(yield* Effect.flip(view.sample({ uri: hidden.uri }))), "unknown")
        // L3: none of its passages, and it cannot be targeted
        assert.deepStrictEqual((yield* view.search({ query: "meeting notes project budgets" })).passages, [])
        assert.strictEqual(
          reasonOf(yield* Effect.flip(view.search({ query: "notes", uri: hidden.uri }))),
          "unknown"
        )
        // L4: neither its body nor its prompt
        assert.strictEqual(reasonOf(yield* Effect.flip(view.read({ uri: hidden.uri }))), "unknown")
        const prompt = yield* Effect.flip(view.getPrompt({ name: "wiki_digest" }))
        assert.strictEqual(prompt._tag === "Refused" && prompt.reason, "unknown")
        assert.notInclude(prompt.message, "Did you mean") // hidden names are never suggested
        // the same resources exist without strict mode: the wiki is folded into a count
        const open = yield* Effect.provide(
          Unit.provideWith({ resources: true })(Unit.contents),
          Visibility.layer({ strict: false, resources: ["handbook"] })
        )
        assert.include(open, "[document · wiki] (1 more resource, hidden)")
        assert.include(open, "[prompt · wiki] (1 more resource, hidden)")
      }),
      [handbook, hidden, hiddenPrompt]
    ).pipe(Effect.provide(strict)))

  it.effect("the selection names a platform resource by URI: it exists and is listed", () =>
    unit(
      Effect.gen(function*() {
        const toc = yield* Unit.contents
        assert.include(toc, `[document · wiki]\n- Wiki page 1 <${hidden.uri}> (load first)`)
        yield* view.sample({ uri: hidden.uri })
        assert.include((yield* view.read({ uri: hidden.uri })).text, "Meeting notes")
      }),
      [handbook, hidden]
    ).pipe(Effect.provide(Visibility.layer({ strict: true, select: [hidden.uri] }))))

  it.effect("permission guards content: metadata is shown, snippets, passages and reads are not", () =>
    unit(
      Effect.gen(function*() {
        const sampled = yield* view.sample({ query: "customer handbook returns" })
        const shown = sampled.resources.find((r) => r.uri === handbook.uri)
        assert.strictEqual(shown?.snippet, "(content not permitted for this agent)")
        assert.isTrue((yield* view.search({ query: "restocking fee" })).passages.every((p) => p.uri !== handbook.uri))
        // nor does its content rank it in a sample: only its metadata can
        const byContent = yield* view.sample({ query: "restocking fee opened laptops" })
        assert.isTrue(byContent.resources.every((r) => r.uri !== handbook.uri))
        assert.strictEqual(reasonOf(yield* Effect.flip(view.read({ uri: handbook.uri }))), "not-permitted")
        assert.strictEqual(
          reasonOf(yield* Effect.flip(view.search({ query: "fee", uri: handbook.uri }))),
          "not-permitted"
        )
        // the permitted wiki reads normally
        yield* view.sample({ uri: "wiki://acme/page-1" })
        assert.include((yield* view.read({ uri: "wiki://acme/page-1" })).text, "Meeting notes")
      }),
      [handbook, wikiPage(1)]
    ).pipe(
      Effect.provide(
        Permission.allowOnly(["sample_resources", "search_resources", "read_resource", "wiki://acme/page-1"])
      )
    ))

  it.effect("permission can withhold a resource tool itself", () =>
    unit(
      Effect.gen(function*() {
        const denied = yield* Effect.flip(Unit.resolve("read_resource"))
        assert.strictEqual(denied.reason, "not-permitted")
        assert.strictEqual((yield* Unit.resolve("sample_resources")).name, "sample_resources")
      }),
      [handbook]
    ).pipe(Effect.provide(Permission.allowOnly(["sample_resources", handbook.uri]))))
})

describe("Unit resources lifetime", () => {
  it.effect("a resource revealed in one turn is not readable in the next", () =>
    Effect.gen(function*() {
      yield* Unit.provideWith({ resources: true })(view.sample({ uri: handbook.uri }))
      const next = yield* Unit.provideWith({ resources: true })(Effect.flip(view.read({ uri: handbook.uri })))
      assert.strictEqual(reasonOf(next), "not-active")
    }).pipe(Effect.provide(resourceCatalogOf(everything)), Effect.provide(CatalogLive)))

  it.effect("a fork does not inherit its parent's reveals, and its own do not leak back", () =>
    Effect.gen(function*() {
      const result = yield* Unit.provideWith({ resources: true })(Effect.gen(function*() {
        yield* view.sample({ uri: handbook.uri })
        const fork = yield* Unit.provideWith({ resources: true })(Effect.gen(function*() {
          const before = yield* Effect.flip(view.read({ uri: handbook.uri }))
          yield* view.sample({ uri: "wiki://acme/page-1" })
          return reasonOf(before)
        }))
        const wiki = yield* Effect.flip(view.read({ uri: "wiki://acme/page-1" }))
        return { fork, parent: reasonOf(wiki), own: (yield* view.read({ uri: handbook.uri, length: 1 })).text }
      }))
      assert.deepStrictEqual(result, { fork: "not-active", parent: "not-active", own: "#" })
    }).pipe(Effect.provide(resourceCatalogOf(everything)), Effect.provide(CatalogLive)))

  it.effect("a reveal cannot be used after its unit ended", () =>
    Effect.gen(function*() {
      const kept = yield* Unit.provideWith({ resources: true })(
        Effect.andThen(view.sample({ uri: handbook.uri }), Effect.context<Unit.Unit>())
      )
      const exit = yield* Effect.exit(view.read({ uri: handbook.uri }).pipe(Effect.provideContext(kept)))
      assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause))
    }).pipe(Effect.provide(resourceCatalogOf(everything)), Effect.provide(CatalogLive)))
})

describe("resource tools", () => {
  it.effect("are offered by what exists: none without resources, get_prompt only with prompts", () =>
    Effect.gen(function*() {
      const names = (resources: ReadonlyArray<Resource.Resource>) =>
        unit(
          Effect.map(Unit.tools, (ts) =>
            ts.filter((t) => t.name.includes("resource") || t.name === "get_prompt").map((t) => t.name)),
          resources
        )
      assert.deepStrictEqual(yield* names([]), [])
      assert.deepStrictEqual(yield* names([handbook]), ["sample_resources", "search_resources", "read_resource"])
      assert.deepStrictEqual(yield* names(everything), [
        "sample_resources",
        "search_resources",
        "read_resource",
        "get_prompt"
      ])
    }))

  it.effect("decode their input with bounds, accept null for absent fields, and answer errors as results", () =>
    unit(Effect.gen(function*() {
      const sampled = yield* call("sample_resources", { query: "customer handbook", uri: null, max: "1" })
      assert.isFalse(sampled.isFailure)
      assert.deepStrictEqual(sampled.found, [handbook.uri])
      const bad = yield* call("read_resource", { uri: handbook.uri, offset: -1 })
      assert.isTrue(bad.isFailure)
      assert.include(text(bad), "read_resource takes {\\\"uri\\\"")
      const huge = yield* call("search_resources", { query: "x".repeat(5_000) })
      assert.isTrue(huge.isFailure)
      const neither = yield* call("sample_resources", {})
      assert.include(text(neither), "sample_resources takes")
      const tooMany = yield* call("get_prompt", {
        name: "summarize",
        arguments: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`a${i}`, "v"]))
      })
      assert.isTrue(tooMany.isFailure)
      const read = yield* call("read_resource", { uri: handbook.uri, offset: 0, length: 17 })
      assert.deepStrictEqual(read.result, {
        uri: handbook.uri,
        mime_type: "text/markdown",
        offset: 0,
        length: 17,
        total: handbookText.length,
        next_offset: 17,
        text: "# Customer handbo"
      })
    })))

  it.effect("compose with the tool view: listed after the meta tools, resolved first, names reserved", () =>
    Effect.gen(function*() {
      yield* Unit.search("select:Grep")
      assert.deepStrictEqual((yield* Unit.tools).map((t) => t.name), [
        "Read",
        "Write",
        "ToolSearch",
        "sample_resources",
        "search_resources",
        "read_resource",
        "get_prompt",
        "Grep"
      ])
      assert.strictEqual((yield* Unit.resolve("functions.read_resource")).kind, "meta")
      assert.strictEqual((yield* Unit.resolve("Grep")).name, "Grep")
      const catalog = yield* ToolCatalog.ToolCatalog
      const reserved = yield* Effect.flip(catalog.register(CatalogTool.make({ name: "read_resource" })))
      assert.strictEqual(reserved._tag, "InvalidEntry")
    }).pipe(
      Unit.provideWith({ resources: true }),
      Effect.provide(Layer.merge(CatalogLive, resourceCatalogOf(everything)))
    ))

  it.effect("the system prompt carries the resource section in every mode when a resource view is present", () =>
    Effect.gen(function*() {
      const prompt = yield* Unit.contents
      assert.include(prompt, "## Resources to read")
      assert.include(prompt, "[policy · handbook]\n- Customer handbook <policy://acme/handbook> (load first)")
      assert.include(prompt, "[prompt · prompts]\n- summarize <prompt://prompts/summarize> (load first)")
      assert.include(prompt, "sample_resources shows resources")
      assert.include(prompt, "get_prompt renders a shown prompt")
    }).pipe(
      Unit.provideWith({ resources: true }),
      Effect.provide(Visibility.layer({ resources: ["handbook", "prompts"] })),
      Effect.provide(Layer.merge(CatalogLive, resourceCatalogOf(everything)))
    ))
})
