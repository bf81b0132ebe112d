import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { CatalogFileError } from "../src/index.js"
import { type Resource, ResourceFile } from "../src/index.js"
import * as MemoryFs from "./kit/MemoryFileSystem.js"

const jsonl = (...entries: ReadonlyArray<unknown>) => entries.map((e) => JSON.stringify(e)).join("\n")

const handbook = "# Handbook\n\nOpened laptops carry a 15% restocking fee."
const baseFiles = () => ({
  "/etc/passwd": "root:x:0:0",
  "/catalog/docs/handbook.md": handbook,
  "/catalog/big.md": "x".repeat(5_000),
  "/secret.txt": "top secret"
})

const loadWith = (
  text: string,
  options: Partial<ResourceFile.Options> = {},
  links = new Map<string, string>()
) => {
  const files = MemoryFs.disk({ ...baseFiles(), "/catalog/resources.jsonl": text })
  return ResourceFile.load("/catalog/resources.jsonl", options).pipe(
    Effect.provide(MemoryFs.layer({ ...files, links }))
  )
}

const readAll = (resource: Resource.Resource) =>
  Effect.flatMap(
    (resource.read as Resource.Reader)({ uri: resource.uri, offset: 0, length: 1_000_000 }),
    (slice) => Effect.succeed(slice.content._tag === "Text" ? slice.content.text : "")
  )

describe("ResourceFile", () => {
  it.effect("reads inline, file and prompt bodies, in JSON Lines and as a JSON array", () =>
    Effect.gen(function*() {
      const text = jsonl(
        { uri: "policy://acme/handbook", name: "Handbook", kind: "policy", path: "docs/handbook.md" },
        { uri: "docs://faq", name: "FAQ", text: "Inline body." },
        {
          uri: "prompt://acme/summary",
          name: "summary",
          kind: "prompt",
          prompt: "Summarize {{topic}} for {{ who }}.",
          arguments: [{ name: "topic", required: true }, { name: "who" }]
        }
      )
      const resources = yield* loadWith(text, { source: "acme" })
      assert.deepStrictEqual(resources.map((r) => [r.uri, r.kind, r.source, r.mimeType]), [
        ["policy://acme/handbook", "policy", "acme", "text/markdown"],
        ["docs://faq", "document", "acme", "text/plain"],
        ["prompt://acme/summary", "prompt", "acme", undefined]
      ])
      assert.strictEqual(yield* readAll(resources[0] as Resource.Resource), handbook)
      assert.strictEqual(resources[0]?.size, Buffer.byteLength(handbook))
      const prompt = resources[2]?.prompt as Resource.Prompt
      const rendered = yield* prompt.render({ topic: "returns", who: "support" })
      assert.strictEqual(rendered.messages[0]?.text, "Summarize returns for support.")
      const array = yield* loadWith(JSON.stringify([{ uri: "docs://a", name: "A", text: "a" }]))
      assert.strictEqual(array[0]?.uri, "docs://a")
    }))

  it.effect("a path may not leave the catalog's folder: not by '..', not absolutely, not through a link", () =>
    Effect.gen(function*() {
      const attempt = (path: string, links = new Map<string, string>()) =>
        Effect.map(
          Effect.flip(
            loadWith(jsonl({ uri: "docs://ok", name: "ok", text: "ok" }, { uri: "x://a", name: "a", path }), {}, links)
          ),
          (e) => e.message
        )
      assert.strictEqual(
        yield* attempt("../secret.txt"),
        "/catalog/resources.jsonl:2: '../secret.txt' is outside the catalog's folder"
      )
      assert.include(yield* attempt("/etc/passwd"), "'/etc/passwd' is outside the catalog's folder")
      assert.include(yield* attempt("docs/../../secret.txt"), "outside the catalog's folder")
      assert.include(
        yield* attempt("docs/passwd.md", new Map([["/catalog/docs/passwd.md", "/etc/passwd"]])),
        "'docs/passwd.md' is outside the catalog's folder"
      )
      assert.include(
        yield* attempt("escape/passwd", new Map([["/catalog/escape", "/etc"]])),
        "outside the catalog's folder"
      )
      assert.include(yield* attempt("docs"), "'docs' is not a file")
      assert.include(yield* attempt("docs/missing.md"), "'docs/missing.md' cannot be read")
    }))

  it.effect("a body replaced by a link after loading is refused at read time", () =>
    Effect.gen(function*() {
      const links = new Map<string, string>()
      const [resource] = yield* loadWith(jsonl({ uri: "x://a", name: "a", path: "docs/handbook.md" }), {}, links)
      links.set("/catalog/docs/handbook.md", "/etc/passwd")
      const error = yield* Effect.flip(readAll(resource as Resource.Resource))
      assert.strictEqual(error._tag, "ResourceReadError")
      assert.include(error.message, "outside the catalog's folder")
    }))

  it.effect("bounds the file, the number of resources, inline bodies and body files", () =>
    Effect.gen(function*() {
      const message = <A>(effect: Effect.Effect<A, CatalogFileError>) =>
        Effect.map(Effect.flip(effect), (e) => e.message)
      const one = jsonl({ uri: "docs://a", name: "a", text: "abc" })
      assert.include(yield* message(loadWith(one, { maxFileBytes: 10 })), "is larger than 10 bytes")
      assert.include(
        yield* message(loadWith(`${one}\n${one.replace("docs://a", "docs://b")}`, { maxResources: 1 })),
        "more than 1 resources"
      )
      assert.include(yield* message(loadWith(one, { maxInlineChars: 2 })), ":1: the text is longer than 2 characters")
      const [big] = yield* loadWith(jsonl({ uri: "docs://big", name: "big", path: "big.md" }), { maxBodyBytes: 100 })
      const tooBig = yield* Effect.flip(readAll(big as Resource.Resource))
      assert.include(tooBig.message, "larger than 100 bytes")
    }))

  it.effect("names the line of each malformed entry, and returns nothing of a bad file", () =>
    Effect.gen(function*() {
      const message = (text: string) => Effect.map(Effect.flip(loadWith(text)), (e) => e.message)
      const ok = JSON.stringify({ uri: "docs://a", name: "a", text: "a" })
      assert.include(yield* message(`${ok}\n{not json`), "resources.jsonl:2: invalid JSON")
      assert.include(yield* message(`${ok}\n[1]`), ":2: expected a JSON object (one resource per line)")
      assert.include(yield* message(jsonl({ uri: "docs://a", name: 5, text: "a" })), ":1: ")
      assert.include(yield* message(jsonl({ uri: "docs://a", name: "a", text: "a", path: "b" })), "exactly one of")
      assert.include(yield* message(jsonl({ uri: "docs://a", name: "a" })), "exactly one of")
      assert.include(
        yield* message(jsonl({ uri: "docs://a", name: "a", text: "a", arguments: [] })),
        "belong to a 'prompt'"
      )
      assert.include(yield* message(jsonl({ uri: "no-scheme", name: "a", text: "a" })), ":1: the URI needs a scheme")
      assert.include(yield* message(`${ok}\n\n${ok}`), ":3: duplicate uri 'docs://a' (first on line 1)")
      assert.include(yield* message("   "), "the file is empty")
      assert.include(yield* message(`${"[".repeat(200_000)}${"]".repeat(200_000)}`), "resources.jsonl")
    }))

  it.effect("parse needs no file system for inline bodies, and says so for file bodies", () =>
    Effect.gen(function*() {
      const inline = yield* ResourceFile.parse("inline.jsonl", jsonl({ uri: "docs://a", name: "a", text: "a" }))
      assert.strictEqual(inline.length, 1)
      const error = yield* Effect.flip(
        ResourceFile.parse("x.jsonl", jsonl({ uri: "docs://a", name: "a", path: "a.md" }))
      )
      assert.include(error.message, "use ResourceFile.load")
    }))
})
