/**
 * The wire form of a tool: the JSON that catalog files, MCP `tools/list` results and APIs write,
 * decoded with `Schema` into a validated `CatalogTool`. It is untrusted input: `decode` names the
 * tool and what was wrong, and nothing invalid reaches the catalog.
 *
 * MCP spells a tool's annotations `readOnlyHint`, `destructiveHint`, `idempotentHint`,
 * `openWorldHint`; the catalog spells them `readOnly`, ... `AnnotationsFromMcp` is the one codec
 * between the two: decoding reads MCP's spelling, encoding writes it back (what a gateway lists).
 *
 * @since 0.2.0
 */
import type { JsonSchema } from "effect"
import { Effect, Predicate, Schema, SchemaGetter } from "effect"
import * as CatalogTool from "./CatalogTool.js"
import { InvalidEntry } from "./Errors.js"
import * as Names from "./internal/names.js"

// -----------------------------------------------------------------------------
// Annotations
// -----------------------------------------------------------------------------

/**
 * MCP's tool annotations on the wire, every hint optional.
 *
 * @since 0.2.0
 * @category annotations
 */
export const McpAnnotations = Schema.Struct({
  title: Schema.optionalKey(Schema.String),
  readOnlyHint: Schema.optionalKey(Schema.Boolean),
  destructiveHint: Schema.optionalKey(Schema.Boolean),
  idempotentHint: Schema.optionalKey(Schema.Boolean),
  openWorldHint: Schema.optionalKey(Schema.Boolean)
})

/**
 * MCP's tool annotations on the wire.
 *
 * @since 0.2.0
 * @category annotations
 */
export type McpAnnotations = typeof McpAnnotations.Type

const fromMcp = (a: McpAnnotations): CatalogTool.Annotations => ({
  ...(a.title === undefined ? {} : { title: a.title }),
  ...(a.readOnlyHint === undefined ? {} : { readOnly: a.readOnlyHint }),
  ...(a.destructiveHint === undefined ? {} : { destructive: a.destructiveHint }),
  ...(a.idempotentHint === undefined ? {} : { idempotent: a.idempotentHint }),
  ...(a.openWorldHint === undefined ? {} : { openWorld: a.openWorldHint })
})

const toMcp = (a: CatalogTool.Annotations): McpAnnotations => ({
  ...(a.title === undefined ? {} : { title: a.title }),
  ...(a.readOnly === undefined ? {} : { readOnlyHint: a.readOnly }),
  ...(a.destructive === undefined ? {} : { destructiveHint: a.destructive }),
  ...(a.idempotent === undefined ? {} : { idempotentHint: a.idempotent }),
  ...(a.openWorld === undefined ? {} : { openWorldHint: a.openWorld })
})

/**
 * MCP's annotations decoded into `CatalogTool.Annotations`, and encoded back:
 * `Schema.decodeUnknownEffect(AnnotationsFromMcp)` on what a server lists,
 * `Schema.encodeSync(AnnotationsFromMcp)` on what a gateway lists.
 *
 * @since 0.2.0
 * @category annotations
 */
export const AnnotationsFromMcp: Schema.Codec<CatalogTool.Annotations, McpAnnotations> = McpAnnotations.pipe(
  Schema.decodeTo(CatalogTool.Annotations, {
    decode: SchemaGetter.transform(fromMcp),
    encode: SchemaGetter.transform(toMcp)
  })
)

// -----------------------------------------------------------------------------
// Tools
// -----------------------------------------------------------------------------

/**
 * The wire form of a tool: `parameters` or MCP's `inputSchema`, MCP's annotations, and every field
 * of a `CatalogTool` that a file can hold. `loading` defaults to `deferred`.
 *
 * @since 0.1.0
 * @category schemas
 */
const Spec = Schema.Struct({
  id: Schema.optionalKey(Schema.String),
  name: Schema.String,
  description: Schema.optionalKey(Schema.NullOr(Schema.String)),
  parameters: Schema.optionalKey(Schema.Unknown),
  inputSchema: Schema.optionalKey(Schema.Unknown),
  loading: Schema.optionalKey(Schema.Literals(["eager", "deferred"])),
  category: Schema.optionalKey(Schema.String),
  source: Schema.optionalKey(Schema.String),
  aliases: Schema.optionalKey(Schema.Array(Schema.String)),
  annotations: Schema.optionalKey(AnnotationsFromMcp)
})

/**
 * The decoded wire form.
 *
 * @since 0.1.0
 * @category schemas
 */
type Spec = typeof Spec.Type

/**
 * How `decode` treats names a provider would reject, and the handler of what it decodes.
 *
 * @since 0.1.0
 * @category decoding
 */
export interface DecodeOptions {
  /** `strict` (default) rejects them; `sanitize` rewrites them with `CatalogTool.sanitizeName`. */
  readonly names?: "strict" | "sanitize"
  readonly handler?: CatalogTool.Handler
}

/**
 * Decodes and validates one tool from untrusted JSON (a catalog line, an MCP `tools/list` entry).
 * A rewritten name keeps the original as `originalName` and as an alias, so a search for it still
 * finds the tool.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decode = (
  input: unknown,
  options: DecodeOptions = {}
): Effect.Effect<CatalogTool.CatalogTool, InvalidEntry> =>
  Schema.decodeUnknownEffect(Spec)(input).pipe(
    Effect.mapError((error) =>
      new InvalidEntry({
        kind: "tool",
        name: Predicate.isObject(input) && typeof input["name"] === "string" ? input["name"] : "<unnamed>",
        reason: error.message
      })
    ),
    Effect.flatMap((spec) => CatalogTool.validate(CatalogTool.make(toInput(spec, options))))
  )

/** The fields of a tool from its decoded wire form. */
const toInput = (spec: Spec, options: DecodeOptions): CatalogTool.Input => {
  const rewrite = options.names === "sanitize" && !Names.isValid(spec.name)
  const name = rewrite ? Names.rewrite(spec.name, spec.description ?? spec.source ?? "") : spec.name
  const aliases = rewrite && !(spec.aliases ?? []).includes(spec.name)
    ? [spec.name, ...(spec.aliases ?? [])]
    : spec.aliases
  const parameters = spec.parameters ?? spec.inputSchema ?? undefined
  return {
    id: spec.id ?? spec.name,
    name,
    ...(rewrite ? { originalName: spec.name } : {}),
    description: spec.description ?? "",
    ...(parameters === undefined ? {} : { parameters: parameters as JsonSchema.JsonSchema }),
    loading: spec.loading ?? "deferred",
    ...(spec.category === undefined ? {} : { category: spec.category }),
    ...(spec.source === undefined ? {} : { source: spec.source }),
    ...(aliases === undefined ? {} : { aliases }),
    ...(spec.annotations === undefined ? {} : { annotations: spec.annotations }),
    ...(options.handler === undefined ? {} : { handler: options.handler })
  }
}
