/**
 * A tool as the catalog knows it: a name the model may call, a description, JSON-Schema
 * parameters, how it is loaded (`eager`: always visible, `deferred`: visible once activated),
 * where it comes from, and the handler that runs it.
 *
 * Tools come from three places: typed `effect/ai` tools with their handlers (`fromToolkit`),
 * plain JSON-Schema definitions with a handler (`make`, what MCP and OpenAPI give you), and
 * untrusted input such as catalog files (`ToolSpec.decode`). Every path ends in `validate`, which the
 * catalog runs again at registration, so a bad tool never reaches the model.
 *
 * @since 0.1.0
 */
import { Context, Effect, Predicate, Schema } from "effect"
import type { JsonSchema } from "effect"
import { Tool, type Toolkit } from "effect/ai"
import { InvalidEntry, ToolExecutionError } from "./Errors.js"
import { annotationsOf, approvalOf, guard, type LooseHandle, toolkitHandler } from "./internal/handlers.js"
import { messageOf } from "./internal/messages.js"
import * as Names from "./internal/names.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * How a tool reaches the model: `eager` is always sent, `deferred` only once activated.
 *
 * @since 0.1.0
 * @category models
 */
export type Loading = "eager" | "deferred"

/**
 * An `effect/ai` tool annotation: `true` defers the tool (the model finds it through the search
 * tool), `false` keeps it eager. The counterpart of Anthropic's `defer_loading: true`, read by
 * `fromToolkit` and `SearchToolkit.layerFromToolkit`; a tool without it takes their `loading` option.
 *
 * ```ts
 * const GetWeather = Tool.make("get_weather", { parameters: Schema.Struct({ city: Schema.String }) })
 *   .annotate(CatalogTool.Deferred, true)
 * ```
 *
 * @since 0.2.0
 * @category annotations
 */
export const Deferred = Context.Reference<boolean | undefined>("@tool-search/core/CatalogTool/Deferred", {
  defaultValue: () => undefined
})

/**
 * What the `Deferred` annotation of an `effect/ai` tool says, if anything.
 *
 * @since 0.2.0
 * @category annotations
 */
const loadingOf = (tool: Tool.Any): Loading | undefined => {
  const deferred = Context.get(tool.annotations, Deferred)
  return deferred === undefined ? undefined : deferred ? "deferred" : "eager"
}

/**
 * Hints about a tool's behaviour, as `effect/ai` tool annotations carry them (MCP spells them
 * `readOnlyHint`, ...: `ToolSpec.AnnotationsFromMcp` maps one to the other).
 *
 * @since 0.1.0
 * @category models
 */
export const Annotations = Schema.Struct({
  title: Schema.optionalKey(Schema.String),
  readOnly: Schema.optionalKey(Schema.Boolean),
  destructive: Schema.optionalKey(Schema.Boolean),
  idempotent: Schema.optionalKey(Schema.Boolean),
  openWorld: Schema.optionalKey(Schema.Boolean)
})

/**
 * Hints about a tool's behaviour.
 *
 * @since 0.1.0
 * @category models
 */
export type Annotations = typeof Annotations.Type

/**
 * What one call of a tool produced: a JSON value for the model, and whether it is a failure.
 *
 * @since 0.1.0
 * @category models
 */
export interface Output {
  readonly isFailure: boolean
  readonly result: unknown
}

/**
 * Per-call information a handler may use.
 *
 * @since 0.1.0
 * @category models
 */
export interface CallContext {
  readonly toolCallId: string
}

/**
 * Runs one call: parameters as the model sent them (JSON), an encoded result back.
 *
 * @since 0.1.0
 * @category models
 */
export type Handler = (params: unknown, context: CallContext) => Effect.Effect<Output, ToolExecutionError>

/**
 * Decides from a call's parameters whether it needs approval.
 *
 * @since 0.1.0
 * @category models
 */
export type NeedsApproval = (params: unknown, context: CallContext) => Effect.Effect<boolean>

/**
 * A tool in the catalog. Immutable; the catalog derives the name the model sees from `name`.
 *
 * @since 0.1.0
 * @category models
 */
export interface CatalogTool {
  /** Identity in the catalog; defaults to `name`. Two sources may share a name, never an id. */
  readonly id: string
  /** The name the tool declares; the model sees it unless another tool declares the same name. */
  readonly name: string
  /**
   * The name as its source wrote it, when `name` is a rewrite of it (a name providers reject,
   * sanitized; a reserved name, qualified). A rewritten name yields to a name declared as is
   * when the two collide.
   */
  readonly originalName?: string
  readonly description: string
  /** A JSON Schema whose root is an object. */
  readonly parameters: JsonSchema.JsonSchema
  readonly loading: Loading
  /** The tool's own category: tables of contents group by it, and search may filter by it. */
  readonly category?: string
  /** The source id (an MCP server, a service); qualifies the name when names collide. */
  readonly source?: string
  /** Other words for the tool (for example Korean names of an English tool), searched like its name. */
  readonly aliases: ReadonlyArray<string>
  readonly annotations: Annotations
  /** Absent for catalogs read from files: such tools can be searched but not run. */
  readonly handler?: Handler
  /** Whether a call needs a person's approval (`effect/ai`'s `needsApproval`); absent: never. */
  readonly needsApproval?: NeedsApproval
}

/**
 * The fields a caller supplies: a name, and anything else that should not take its default.
 *
 * @since 0.1.0
 * @category models
 */
export interface Input extends Partial<Omit<CatalogTool, "name">> {
  readonly name: string
}

// -----------------------------------------------------------------------------
// Errors
// -----------------------------------------------------------------------------

// -----------------------------------------------------------------------------
// Names
// -----------------------------------------------------------------------------

/**
 * Whether a provider would accept `name` as a tool name: ASCII letters, digits, `_` and `-`, 1 to
 * 64 characters (the subset OpenAI, Anthropic and Gemini agree on).
 *
 * @since 0.1.0
 * @category names
 */
export const isValidName: (name: string) => boolean = Names.isValid

/**
 * Turns any string into a valid tool name, keeping it recognisable. A valid name is returned as
 * is. Otherwise letters of other scripts are written in ASCII where a table allows (`café` →
 * `cafe`, `읽기` → `ilggi`, `чтение` → `chtenie`), runs of other characters become `_`, and:
 *
 * - when letters or digits had no ASCII form (CJK ideographs, ...), a short hash of the whole name
 *   follows, so two such names stay distinct; a name left with no readable part takes its stem
 *   from `options.stem` (a description or source: `検索` described as "Search the web" becomes
 *   `search_the_web_1f3a9c`), else `tool`;
 * - a name longer than 64 characters keeps its head and a hash of the whole.
 *
 * @since 0.1.0
 * @category names
 */
export const sanitizeName = (name: string, options: { readonly stem?: string } = {}): string =>
  Names.isValid(name) ? name : Names.rewrite(name, options.stem ?? "")

/**
 * Removes a leading `functions.` that some models echo from their tool-calling format. Safe for
 * any name: `.` is not a valid tool name character, so no real tool can start with it.
 *
 * @since 0.1.0
 * @category names
 */
export const stripFunctionsPrefix: (name: string) => string = Names.stripFunctionsPrefix

/**
 * A short stable hash (FNV-1a, 32 bit, 8 hex digits), for names and cache keys.
 *
 * @since 0.1.0
 * @category names
 */
export const hash: (text: string) => string = Names.hash

/**
 * The first sentence of a description, for compact listings.
 *
 * @since 0.1.0
 * @category names
 */
export const firstSentence = (description: string): string => {
  const text = description.trim().replace(/\s+/g, " ")
  const match = /^(.+?[.!?。！？])(\s|$)/u.exec(text)
  return match?.[1] ?? text
}

// -----------------------------------------------------------------------------
// Validation
// -----------------------------------------------------------------------------

/**
 * Checks what every tool must satisfy before a model may see it: a provider-valid name, a non-empty
 * id, and a parameter schema whose root is an object. A schema without `type` gets `"type": "object"`
 * (catalogs write `{}` for "no parameters"); any other root type is rejected.
 *
 * @since 0.1.0
 * @category validation
 */
export const validate = (tool: CatalogTool): Effect.Effect<CatalogTool, InvalidEntry> => {
  const invalid = (reason: string) =>
    Effect.fail(new InvalidEntry({ kind: "tool", name: tool.name || tool.id, reason }))
  if (!Names.isValid(tool.name)) {
    return invalid(`name must match ${Names.PATTERN.source} (letters, digits, '_' or '-', at most 64 characters)`)
  }
  if (tool.id.length === 0) return invalid("id must not be empty")
  if (!Predicate.isObject(tool.parameters)) return invalid("parameters must be a JSON Schema object")
  const type = tool.parameters["type"]
  if (type !== undefined && type !== "object") {
    return invalid(`parameters must describe an object, not ${JSON.stringify(type)}`)
  }
  return Effect.succeed(type === undefined ? { ...tool, parameters: { type: "object", ...tool.parameters } } : tool)
}

// -----------------------------------------------------------------------------
// Constructors
// -----------------------------------------------------------------------------

const EMPTY_PARAMETERS: JsonSchema.JsonSchema = { type: "object", properties: {} }

/**
 * Builds a tool from plain fields (what MCP or OpenAPI give you). Not validated here: the catalog
 * validates at registration, and `validate` is available for earlier checks.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (input: Input): CatalogTool => ({
  id: input.id ?? input.name,
  name: input.name,
  ...(input.originalName === undefined || input.originalName === input.name
    ? {}
    : { originalName: input.originalName }),
  description: input.description ?? "",
  parameters: input.parameters ?? EMPTY_PARAMETERS,
  loading: input.loading ?? "deferred",
  aliases: input.aliases ?? [],
  annotations: input.annotations ?? {},
  ...(input.category === undefined ? {} : { category: input.category }),
  ...(input.source === undefined ? {} : { source: input.source }),
  ...(input.handler === undefined ? {} : { handler: guard(input.name, input.handler) }),
  ...(input.needsApproval === undefined ? {} : { needsApproval: input.needsApproval })
})

/**
 * A handler from a function that returns the result value, or fails with a message for the model.
 *
 * @since 0.1.0
 * @category constructors
 */
export const handler = <E>(
  name: string,
  run: (params: unknown, context: CallContext) => Effect.Effect<unknown, E>
): Handler =>
(params, context) =>
  run(params, context).pipe(
    Effect.map((result): Output => ({ isFailure: false, result })),
    Effect.catch((error) => Effect.fail(new ToolExecutionError({ tool: name, reason: messageOf(error) })))
  )

/**
 * Accepts only toolkits whose calls need nothing from the caller's context — what a catalog,
 * shared by every turn, can hold. Tools with request-level dependencies (`Tool.addDependency`)
 * are rejected at compile time.
 *
 * @since 0.2.0
 * @category constructors
 */
export type SelfContained<Tools extends Record<string, Tool.Any>> =
  & Toolkit.WithHandler<Tools>
  & ([Tool.HandlerServices<Tools[keyof Tools]>] extends [never] ? unknown
    : { readonly "tools with request-level dependencies cannot join a catalog": never })

/**
 * Options shared by the constructors that take several tools at once.
 *
 * @since 0.2.0
 * @category constructors
 */
export interface FromToolkitOptions {
  /**
   * The loading of tools without a `Deferred` annotation (default: `eager`, as Anthropic's
   * `defer_loading` and TanStack's lazy flag default to off: the annotation marks what is deferred).
   */
  readonly loading?: Loading | ((name: string) => Loading)
  readonly category?: string
  readonly source?: string
}

/**
 * Turns a `Toolkit` with handlers (`yield* MyToolkit` with its handler layer provided) into catalog
 * tools. Calls go through `Toolkit.handle`, so parameter decoding, failure modes and result encoding
 * are exactly `effect/ai`'s. A tool's `Deferred` annotation decides its loading; `options.loading`
 * applies to the tools without one.
 *
 * @since 0.2.0
 * @category constructors
 */
export const fromToolkit = <Tools extends Record<string, Tool.Any>>(
  toolkit: SelfContained<Tools>,
  options: FromToolkitOptions = {}
): ReadonlyArray<CatalogTool> =>
  Object.values(toolkit.tools).map((tool) => {
    const name = tool.name
    const loading = loadingOf(tool) ??
      (typeof options.loading === "function" ? options.loading(name) : options.loading)
    const needsApproval = approvalOf(tool)
    return make({
      name,
      description: Tool.getDescription(tool) ?? "",
      parameters: Tool.getJsonSchema(tool),
      annotations: annotationsOf(tool),
      // `SelfContained` proved that the handlers need no services; the parameters are decoded by the tool.
      handler: toolkitHandler(toolkit.handle as unknown as LooseHandle, name, (reason) =>
        new ToolExecutionError({ tool: name, reason })),
      ...(needsApproval === undefined ? {} : { needsApproval }),
      loading: loading ?? "eager",
      ...(options.category === undefined ? {} : { category: options.category }),
      ...(options.source === undefined ? {} : { source: options.source })
    })
  })
