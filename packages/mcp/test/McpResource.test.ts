// MCP resources, templates and prompts imported into a resource catalog: hostile listings and
// answers with a test double, then the real server-everything over stdio through the official SDK
// client, read through the four levels.
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { Bm25f, type Resource, ResourceCatalog, ToolCatalog, Unit, Visibility } from "@tool-search/core"
import { McpResource } from "@tool-search/mcp"
import { Effect, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"

const server = "docs"

/** A client answering from a table; `undefined` answers never come. */
const fakeClient = (answers: Readonly<Record<string, unknown>>): McpResource.Client => ({
  readResource: (uri) => uri in answers ? Effect.succeed(answers[uri]) : Effect.never,
  getPrompt: (name, args) =>
    Effect.succeed({
      messages: [{ role: "user", content: { type: "text", text: `${name}: ${JSON.stringify(args)}` } }]
    })
})

const read = (resource: Resource.Resource, uri = resource.uri) =>
  Effect.flatMap((resource.read as Resource.Reader)({ uri, offset: 0, length: 1_000 }), (slice) =>
    Effect.succeed(
      slice.content._tag === "Text" ? slice.content.text : `bytes:${[...slice.content.bytes].join(",")}`
    ))

describe("McpResource import", () => {
  it.effect("imports resources, templates and prompts; a bad entry is reported, never hides the others", () =>
    Effect.gen(function*() {
      const imported = yield* McpResource.importAll({
        resources: [
          { uri: "file:///a.md", name: "a.md", mimeType: "text/markdown", size: 12, description: "x".repeat(50_000) },
          { name: "no uri" },
          { uri: "file:///b.md", name: 5 },
          { uri: "not a uri", name: "spaces" },
          { uri: "file:///a.md", name: "twice" },
          "a string",
          { uri: "file:///c.md", name: "c".repeat(1_000), title: null, description: null, mimeType: null, size: -3 }
        ],
        templates: [
          { uriTemplate: "file:///logs/{day}", name: "logs" },
          { uriTemplate: "file:///broken/{day", name: "broken" }
        ],
        prompts: [
          {
            name: "review",
            description: "Review code",
            arguments: [{ name: "code", required: true }, { name: "style" }]
          },
          { name: "bad", arguments: [{ name: "has space" }] }
        ]
      }, { server, client: fakeClient({}) })
      assert.deepStrictEqual(imported.resources.map((r) => [r.uri, r.kind, r.source]), [
        ["file:///a.md", "document", server],
        ["file:///c.md", "document", server],
        ["file:///logs/{day}", "collection", server],
        ["prompt://docs/review", "prompt", server]
      ])
      assert.strictEqual(imported.resources[0]?.description.length, 2_000)
      assert.strictEqual(imported.resources[1]?.name.length, 200)
      assert.isUndefined(imported.resources[1]?.size)
      assert.deepStrictEqual(imported.resources[3]?.prompt?.arguments, [
        { name: "code", required: true },
        { name: "style", required: false }
      ])
      assert.deepStrictEqual(imported.invalid.map((e) => e.resource), [
        "no uri",
        "file:///b.md",
        "not a uri",
        "twice",
        "<unnamed>",
        "file:///broken/{day",
        "prompt://docs/bad"
      ])
      assert.include(imported.invalid[5]?.message, "MCP server 'docs' lists an unusable resource or prompt")
    }))

  it.effect("reads text, several contents and blobs; refuses malformed, oversized and late answers", () =>
    Effect.gen(function*() {
      const client = fakeClient({
        "file:///one": { contents: [{ uri: "file:///one", text: "hello" }] },
        "file:///dir": {
          contents: [
            { uri: "file:///dir/a", text: "A" },
            { uri: "file:///dir/b", mimeType: "image/png", blob: "AAEC" }
          ]
        },
        "file:///bin": { contents: [{ uri: "file:///bin", mimeType: "image/png", blob: "AAEC" }] },
        "file:///bad64": { contents: [{ uri: "file:///bad64", blob: "@@@" }] },
        "file:///malformed": { contents: "nope" },
        "file:///huge": { contents: [{ uri: "file:///huge", text: "x".repeat(101) }] },
        "file:///logs/2026": { contents: [{ uri: "file:///logs/2026", text: "log 2026" }] }
      })
      const options = { server, client, maxBodySize: 100 }
      const resource = (uri: string) => McpResource.toResource({ uri, name: uri }, options)
      assert.strictEqual(yield* read(yield* resource("file:///one")), "hello")
      assert.strictEqual(yield* read(yield* resource("file:///dir")), "A\n\n[binary content image/png, file:///dir/b]")
      assert.strictEqual(yield* read(yield* resource("file:///bin")), "bytes:0,1,2")
      const message = (uri: string) =>
        Effect.map(Effect.flip(Effect.flatMap(resource(uri), (r) => read(r))), (e) => e.message)
      assert.include(yield* message("file:///bad64"), "invalid base64")
      assert.include(yield* message("file:///malformed"), "MCP server 'docs' sent a malformed answer")
      assert.include(yield* message("file:///huge"), "sent a body larger than 100")
      const template = yield* McpResource.toTemplate({ uriTemplate: "file:///logs/{year}", name: "logs" }, options)
      assert.strictEqual(yield* read(template, "file:///logs/2026"), "log 2026")
      const late = yield* Effect.forkChild(Effect.flip(Effect.flatMap(resource("file:///never"), (r) => read(r))))
      yield* TestClock.adjust("31 seconds")
      assert.include((yield* Fiber.join(late)).message, "did not answer in time")
    }))

  it.effect("renders prompts, describing what is not text", () =>
    Effect.gen(function*() {
      const client: McpResource.Client = {
        readResource: () => Effect.never,
        getPrompt: () =>
          Effect.succeed({
            description: "rendered",
            messages: [
              { role: "user", content: { type: "text", text: "Look at this:" } },
              { role: "user", content: { type: "image", mimeType: "image/png", data: "AAEC" } },
              { role: "assistant", content: { type: "resource", resource: { uri: "file:///x", text: "embedded" } } },
              { role: "user", content: { type: "resource_link", uri: "file:///y", name: "y" } }
            ]
          })
      }
      const prompt = yield* McpResource.toPrompt({ name: "p" }, { server, client })
      const rendered = yield* (prompt.prompt as Resource.Prompt).render({})
      assert.deepStrictEqual(rendered, {
        description: "rendered",
        messages: [
          { role: "user", text: "Look at this:" },
          { role: "user", text: "[image image/png]" },
          { role: "assistant", text: "embedded" },
          { role: "user", text: "[resource y <file:///y>]" }
        ]
      })
      const broken = yield* McpResource.toPrompt({ name: "q" }, {
        server,
        client: { readResource: () => Effect.never, getPrompt: () => Effect.fail({ message: "Invalid arguments" }) }
      })
      const error = yield* Effect.flip((broken.prompt as Resource.Prompt).render({}))
      assert.strictEqual(
        error.message,
        "Reading resource 'prompt://docs/q' failed: MCP server 'docs': Invalid arguments"
      )
    }))
})

// -----------------------------------------------------------------------------
// server-everything, for real
// -----------------------------------------------------------------------------

const require = createRequire(import.meta.url)
const everything = (() => {
  const manifest = require.resolve("@modelcontextprotocol/server-everything/package.json")
  const bin = (JSON.parse(readFileSync(manifest, "utf8")) as { bin: Record<string, string> }).bin
  return join(dirname(manifest), Object.values(bin)[0] as string)
})()

/** An SDK client of server-everything over stdio, closed with the scope. */
const sdkClient = Effect.acquireRelease(
  Effect.promise(async () => {
    const client = new Client({ name: "tool-search-test", version: "0.0.0" })
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [everything, "stdio"], stderr: "ignore" })
    )
    return client
  }),
  (client) => Effect.promise(() => client.close())
)

/** Every page of a listing (at most 50 pages). */
const listAll = <K extends string>(
  page: (
    cursor: string | undefined
  ) => Promise<Record<K, ReadonlyArray<unknown>> & { nextCursor?: string | undefined }>,
  key: K
) =>
  Effect.promise(async () => {
    const all: Array<unknown> = []
    let cursor: string | undefined
    for (let i = 0; i < 50; i++) {
      const result = await page(cursor)
      all.push(...result[key])
      cursor = result.nextCursor
      if (cursor === undefined) break
    }
    return all
  })

describe("McpResource with server-everything", () => {
  it.live(
    "its resources, templates and prompts are sampled, searched, read in slices and rendered",
    () =>
      Effect.gen(function*() {
        const client = yield* sdkClient
        const listings = {
          resources: yield* listAll(
            (cursor) => client.listResources(cursor === undefined ? {} : { cursor }),
            "resources"
          ),
          templates: yield* listAll(
            (cursor) => client.listResourceTemplates(cursor === undefined ? {} : { cursor }),
            "resourceTemplates"
          ),
          prompts: yield* listAll((cursor) => client.listPrompts(cursor === undefined ? {} : { cursor }), "prompts")
        }
        const imported = yield* McpResource.importAll(listings, {
          server: "everything",
          client: {
            readResource: (uri) =>
              Effect.tryPromise({ try: () => client.readResource({ uri }), catch: (e) => ({ message: String(e) }) }),
            getPrompt: (name, args) =>
              Effect.tryPromise({
                try: () => client.getPrompt({ name, arguments: { ...args } }),
                catch: (e) => ({ message: String(e) })
              })
          }
        })
        assert.deepStrictEqual(imported.invalid, [])
        const catalog = yield* Layer.build(
          ResourceCatalog.layerWithResources(imported.resources).pipe(Layer.provide(Bm25f.layer))
        )
        const outcome = yield* Effect.gen(function*() {
          const sampled = yield* Unit.sampleResources({ query: "architecture of the server", max: 3 })
          const doc = sampled.resources.find((r) => r.uri.includes("architecture"))
          const passages = yield* Unit.searchResources({ query: "transports stdio streamable http", max: 3 })
          const first = passages.passages[0]
          const slice = yield* Unit.readResource({ uri: first?.uri ?? "", offset: first?.offset ?? 0, length: 300 })
          yield* Unit.sampleResources({ uri: "demo://resource/dynamic/text/7" })
          const dynamic = yield* Unit.readResource({ uri: "demo://resource/dynamic/text/7" })
          yield* Unit.sampleResources({ query: "prompt with arguments" })
          const prompt = yield* Unit.getPrompt({ name: "args-prompt", arguments: { city: "Paris" } })
          return { doc, passages: passages.passages.length, first, slice, dynamic, prompt }
        }).pipe(
          Unit.provideWith({ resources: true }),
          Effect.provideContext(catalog),
          Effect.provide(ToolCatalog.layer.pipe(Layer.provide(Bm25f.layer))),
          Effect.provide(Visibility.layer({ resources: ["everything"] }))
        )
        assert.isDefined(outcome.doc)
        assert.isAbove(outcome.passages, 0)
        assert.strictEqual(outcome.slice.offset, outcome.first?.offset)
        assert.isAtMost(outcome.slice.length, 300)
        assert.isAbove(outcome.slice.total, outcome.slice.length)
        assert.include(outcome.dynamic.text, "7")
        assert.deepStrictEqual(outcome.prompt.messages, [{ role: "user", text: "What's weather in Paris?" }])
      }),
    60_000
  )
})
