/**
 * Resource files: a catalog of resources as JSON Lines (one resource per line) or as one JSON
 * array of the same objects.
 *
 * ```json
 * {"uri": "policy://acme/handbook", "name": "Customer handbook", "kind": "policy",
 *  "source": "handbook", "description": "Returns, refunds, warranty.", "path": "handbook.md"}
 * {"uri": "docs://faq", "name": "FAQ", "text": "# FAQ\n\nInline bodies work too."}
 * {"uri": "prompt://acme/summary", "name": "summary", "kind": "prompt",
 *  "prompt": "Summarize {{topic}} in three bullet points.",
 *  "arguments": [{"name": "topic", "required": true}]}
 * ```
 *
 * Fields: `uri` and `name` (required), `kind` (default `document`), `title`, `source` (default the
 * loader's `source` option), `description`, `mimeType`, and exactly one body: `text` (inline),
 * `path` (a file in the catalog file's folder or below it; its MIME type defaults from its
 * extension) or `prompt` (a template whose `{{argument}}`s are replaced by the values given to
 * `get_prompt`, with `arguments` declaring them).
 *
 * A resource file is untrusted input: every object is decoded with `Schema`; the file, each inline
 * body and each body file are bounded; a `path` may not leave the catalog's folder — not by `..`,
 * not as an absolute path, not through a symbolic link (checked when the file is loaded and again
 * at every read). Parsing is all-or-nothing: the first bad line is a `CatalogFileError` naming the
 * file, the line and what was wrong, and no resource of the file is returned.
 *
 * @since 0.2.0
 */
import { Effect, FileSystem, Option, Path, Schema } from "effect"
import { CatalogFileError, ResourceReadError } from "./Errors.js"
import * as JsonFile from "./internal/jsonFile.js"
import * as Resource from "./Resource.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * How a resource file is read.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** The source of resources that name none. */
  readonly source?: string
  /** Largest resource file, in bytes (default 10 MB). */
  readonly maxFileBytes: number
  /** Most resources in one file (default 10,000). */
  readonly maxResources: number
  /** Longest inline `text` or `prompt`, in characters (default 1,000,000). */
  readonly maxInlineChars: number
  /** Largest body file, in bytes (default 20 MB). */
  readonly maxBodyBytes: number
}

/**
 * The defaults.
 *
 * @since 0.2.0
 * @category models
 */
const defaults: Options = {
  maxFileBytes: 10_000_000,
  maxResources: 10_000,
  maxInlineChars: 1_000_000,
  maxBodyBytes: 20_000_000
}

/**
 * One entry of a resource file, as decoded.
 *
 * @since 0.2.0
 * @category schemas
 */
const Entry = Schema.Struct({
  uri: Schema.String,
  name: Schema.String,
  kind: Schema.optionalKey(Schema.String),
  title: Schema.optionalKey(Schema.String),
  source: Schema.optionalKey(Schema.String),
  description: Schema.optionalKey(Schema.String),
  mimeType: Schema.optionalKey(Schema.String),
  text: Schema.optionalKey(Schema.String),
  path: Schema.optionalKey(Schema.String),
  prompt: Schema.optionalKey(Schema.String),
  arguments: Schema.optionalKey(Schema.Array(Schema.Struct({
    name: Schema.String,
    description: Schema.optionalKey(Schema.String),
    required: Schema.optionalKey(Schema.Boolean)
  })))
})

/**
 * A decoded entry.
 *
 * @since 0.2.0
 * @category schemas
 */
type Entry = typeof Entry.Type

// -----------------------------------------------------------------------------
// Loading
// -----------------------------------------------------------------------------

/**
 * Reads the resource file at `file`: bodies in files are read from its folder when the model reads
 * them (and once when the catalog indexes them).
 *
 * @since 0.2.0
 * @category loading
 */
export const load = (
  file: string,
  options: Partial<Options> = {}
): Effect.Effect<ReadonlyArray<Resource.Resource>, CatalogFileError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const o = { ...defaults, ...options }
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const fail = (reason: string) => new CatalogFileError({ file, line: 0, reason })
    const info = yield* fs.stat(file).pipe(Effect.mapError((e) => fail(`cannot be read (${e.message})`)))
    if (info.type !== "File") return yield* fail("is not a file")
    if (Number(info.size) > o.maxFileBytes) return yield* fail(`is larger than ${o.maxFileBytes} bytes`)
    const text = yield* fs.readFileString(file).pipe(Effect.mapError((e) => fail(`cannot be read (${e.message})`)))
    return yield* parse(file, text, { ...o, folder: { directory: path.dirname(path.resolve(file)), fs, path } })
  })

/**
 * The folder `path` bodies are read from, and the file system they are read through.
 *
 * @since 0.2.0
 * @category models
 */
export interface Folder {
  readonly directory: string
  readonly fs: FileSystem.FileSystem
  readonly path: Path.Path
}

/**
 * Parses the text of a resource file named `file`. Entries with a `path` need `folder` (`load`
 * gives the file's own); without it they are refused.
 *
 * @since 0.2.0
 * @category loading
 */
export const parse = (
  file: string,
  text: string,
  options: Partial<Options> & { readonly folder?: Folder } = {}
): Effect.Effect<ReadonlyArray<Resource.Resource>, CatalogFileError> =>
  Effect.gen(function*() {
    const o = { ...defaults, ...options }
    const items = yield* split(file, text)
    if (items.length > o.maxResources) {
      return yield* new CatalogFileError({ file, line: 0, reason: `holds more than ${o.maxResources} resources` })
    }
    const resources: Array<Resource.Resource> = []
    const lineOf = new Map<string, number>()
    for (const { line, value } of items) {
      const fail = (reason: string) => new CatalogFileError({ file, line, reason })
      const entry = yield* Schema.decodeUnknownEffect(Entry)(value).pipe(
        Effect.mapError((e) => fail(e.message.split("\n").slice(0, 3).join(" ")))
      )
      const resource = yield* toResource(entry, o, options.folder).pipe(Effect.mapError(fail))
      const checked = yield* Resource.validate(resource).pipe(Effect.mapError((e) => fail(e.reason)))
      const previous = lineOf.get(checked.uri)
      if (previous !== undefined) return yield* fail(`duplicate uri '${checked.uri}' (first on line ${previous})`)
      lineOf.set(checked.uri, line)
      resources.push(checked)
    }
    return resources
  })

/** Turns one entry into a resource, or says why it cannot be one. */
const toResource = (
  entry: Entry,
  options: Options,
  folder: Folder | undefined
): Effect.Effect<Resource.Resource, string> =>
  Effect.gen(function*() {
    const bodies = [entry.text, entry.path, entry.prompt].filter((b) => b !== undefined).length
    if (bodies !== 1) return yield* Effect.fail("give exactly one of 'text', 'path' and 'prompt'")
    const source = entry.source ?? options.source
    const input: Resource.Input = {
      uri: entry.uri,
      name: entry.name,
      ...(entry.kind === undefined ? {} : { kind: entry.kind }),
      ...(entry.title === undefined ? {} : { title: entry.title }),
      ...(source === undefined ? {} : { source }),
      ...(entry.description === undefined ? {} : { description: entry.description }),
      ...(entry.mimeType === undefined ? {} : { mimeType: entry.mimeType })
    }
    if (entry.prompt !== undefined) {
      if (entry.prompt.length > options.maxInlineChars) {
        return yield* Effect.fail(`the prompt is longer than ${options.maxInlineChars} characters`)
      }
      const template = entry.prompt
      const { kind: _, ...rest } = input
      return Resource.prompt({
        ...rest,
        arguments: (entry.arguments ?? []).map((a) => ({
          name: a.name,
          required: a.required ?? false,
          ...(a.description === undefined ? {} : { description: a.description })
        })),
        render: (args) => Effect.succeed({ messages: [{ role: "user", text: fill(template, args) }] })
      })
    }
    if (entry.arguments !== undefined) return yield* Effect.fail("'arguments' belong to a 'prompt'")
    if (entry.text !== undefined) {
      if (entry.text.length > options.maxInlineChars) {
        return yield* Effect.fail(`the text is longer than ${options.maxInlineChars} characters`)
      }
      return Resource.text({ ...input, text: entry.text })
    }
    const relative = entry.path as string // exactly one body, and not text or prompt
    if (folder === undefined) {
      return yield* Effect.fail("'path' needs the catalog file's folder and a file system: use ResourceFile.load")
    }
    const { directory, fs, path } = folder
    const confine = confined(fs, path, directory, relative)
    const located = yield* confine
    const info = yield* fs.stat(located).pipe(Effect.mapError((e) => `'${relative}' cannot be read (${e.message})`))
    if (info.type !== "File") return yield* Effect.fail(`'${relative}' is not a file`)
    const mimeType = entry.mimeType ?? mimeOf(path.extname(relative))
    const readBody = (request: Resource.ReadRequest) =>
      Effect.gen(function*() {
        // checked again at every read: the file may have been replaced by a link since it was loaded
        const current = yield* confine
        const now = yield* fs.stat(current).pipe(Effect.mapError((e) => e.message))
        if (Number(now.size) > options.maxBodyBytes) {
          return yield* Effect.fail(`the file is larger than ${options.maxBodyBytes} bytes`)
        }
        const body = yield* fs.readFileString(current).pipe(Effect.mapError((e) => e.message))
        return Resource.sliceText(body, request.offset, request.length)
      }).pipe(Effect.mapError((reason) => new ResourceReadError({ uri: request.uri, reason })))
    return Resource.make({ ...input, mimeType, size: Number(info.size), read: readBody })
  })

/** The real path of `relative` under `directory`, refusing any way out of it. */
const confined = (fs: FileSystem.FileSystem, path: Path.Path, directory: string, relative: string) =>
  Effect.gen(function*() {
    const outside = `'${relative}' is outside the catalog's folder`
    const lexical = path.resolveWithin(directory, relative)
    if (Option.isNone(lexical)) return yield* Effect.fail(outside)
    const root = yield* fs.realPath(directory).pipe(Effect.mapError((e) => `the catalog's folder (${e.message})`))
    const real = yield* fs.realPath(lexical.value).pipe(
      Effect.mapError((e) => `'${relative}' cannot be read (${e.message})`)
    )
    const inside = path.relative(root, real)
    if (inside === "" || inside.startsWith("..") || path.isAbsolute(inside)) return yield* Effect.fail(outside)
    return real
  })

/** Replaces each `{{name}}` by its value; unknown names are left as written. */
const fill = (template: string, args: Readonly<Record<string, string>>): string =>
  template.replace(/\{\{\s*([A-Za-z0-9_.-]{1,64})\s*\}\}/g, (whole, name: string) => args[name] ?? whole)

const MIME_TYPES: Readonly<Record<string, string>> = {
  ".md": "text/markdown",
  ".markdown": "text/markdown",
  ".txt": "text/plain",
  ".json": "application/json",
  ".html": "text/html",
  ".csv": "text/csv",
  ".yaml": "application/yaml",
  ".yml": "application/yaml"
}

const mimeOf = (extension: string): string => MIME_TYPES[extension.toLowerCase()] ?? "text/plain"

// -----------------------------------------------------------------------------
// Splitting
// -----------------------------------------------------------------------------

/** Splits a file into raw resource objects with the line each starts on; the first broken line fails it. */
const split = (
  file: string,
  text: string
): Effect.Effect<ReadonlyArray<{ line: number; value: unknown }>, CatalogFileError> =>
  Effect.flatMap(
    JsonFile.split(file, text, "resource"),
    (items) => Effect.forEach(items, (item) => item._tag === "Invalid" ? Effect.fail(item.error) : Effect.succeed(item))
  )
