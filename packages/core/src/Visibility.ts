/**
 * Which catalog tools and resources exist for an agent at all. A tool outside the visibility policy
 * is never listed, never returned by a search and never executable — for the model it does not
 * exist. Resources (`ResourceCatalog`) are decided by the same policy, by their URI, name and source:
 * a resource outside it is in no table of contents, no sample, no search and cannot be read.
 *
 * Every tool reaches an agent through a source, and who chose the source decides what the agent
 * may see:
 *
 * - `connected`: the user attached the source to this agent (an MCP server, a custom API);
 * - `resource`: the tool exists because a resource is attached (a retrieval tool bound to the
 *   documents the user attached);
 * - `platform`: everything else, the wider catalog (tools without a source included);
 * - `meta`: the search tools themselves, which are not catalog entries and always exist.
 *
 * The agent's **selection** is the tools it names explicitly, the connected and resource-bound
 * tools, and — when exploration is on — the tools of the platform sources on the allow-list. In
 * **strict** mode (the default of `make`) nothing outside the selection exists; otherwise the whole
 * catalog exists and may be searched, and `Permission` still decides what may run. An empty
 * allow-list means "no platform source", never "no connected tool": connected and resource-bound
 * tools bypass the platform gate, because a different party chose them.
 *
 * Existence is one of three separate decisions: how the table of contents shows a tool
 * (`TableOfContents`), whether its schema is sent (activation, in `ToolView`), and whether it may
 * run (`Permission`).
 *
 * With no policy provided the whole catalog exists (`everything`), which is what an application
 * that owns its whole catalog wants.
 *
 * @since 0.1.0
 */
import { Context, Layer } from "effect"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * How a tool reached the agent. `meta` is the search tools, which are not catalog entries.
 *
 * @since 0.1.0
 * @category models
 */
export type SourceKind = "connected" | "resource" | "platform" | "meta"

/**
 * The kind of a catalog tool: every kind but `meta`.
 *
 * @since 0.1.0
 * @category models
 */
export type CatalogKind = Exclude<SourceKind, "meta">

/**
 * What a policy decides on: a catalog tool (`ToolCatalog.Entry`) or a resource
 * (`ResourceCatalog.Entry`, whose id is its URI).
 *
 * @since 0.2.0
 * @category models
 */
export interface Subject {
  readonly id: string
  /** The name it declares. */
  readonly name: string
  /** The name the model sees. */
  readonly modelName: string
  readonly source?: string | undefined
}

/**
 * The visibility settings of one agent.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Nothing outside the selection exists (default `true`). */
  readonly strict: boolean
  /** Tools (and resources) named explicitly: a model name, declared name or id (a resource's URI) each. */
  readonly select: ReadonlyArray<string>
  /** Source ids the user attached to this agent; their tools bypass the platform gate. */
  readonly connected: ReadonlyArray<string>
  /** Source ids of resource-bound tools (a retrieval tool for attached documents). */
  readonly resources: ReadonlyArray<string>
  /** Whether the agent may explore platform sources at all (default `false`). */
  readonly explore: boolean
  /**
   * The platform sources exploration covers: `"*"` (default) for every one, or a list of source
   * ids; an empty list covers none. Ignored while `explore` is off.
   */
  readonly allow: ReadonlyArray<string> | "*"
}

/**
 * A visibility policy: decides existence and classifies each tool or resource.
 *
 * @since 0.2.0
 * @category models
 */
export interface Visibility {
  /** Whether the tool exists for this agent: listed, searchable, executable (subject to `Permission`). */
  readonly includes: (tool: Subject) => boolean
  /** How the tool reached the agent. */
  readonly kindOf: (tool: Subject) => CatalogKind
  /** Whether the tool is in the agent's selection (it exists even in strict mode). */
  readonly selects: (tool: Subject) => boolean
  /** Whether the agent named the tool explicitly (tables of contents show it by name). */
  readonly names: (tool: Subject) => boolean
  /**
   * Whether the agent may know of a source at all — not strict, or connected, resource-bound, or
   * explored: answers name only such sources (a server that is still starting, say), never one the
   * agent cannot see.
   */
  readonly exposes: (source: string) => boolean
  /** The settings the policy was built from. */
  readonly options: Options
}

// -----------------------------------------------------------------------------
// Constructors
// -----------------------------------------------------------------------------

/** Strict, nothing selected, no exploration: only what is named, connected or resource-bound exists. */
const defaults: Options = {
  strict: true,
  select: [],
  connected: [],
  resources: [],
  explore: false,
  allow: "*"
}

/**
 * Builds a policy; every field left out defaults to strict, nothing selected, connected or
 * resource-bound, no exploration, every source allowed (`make().options` are the defaults).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Partial<Options> = {}): Visibility => {
  const o: Options = { ...defaults, ...options }
  const named = new Set(o.select)
  const connected = new Set(o.connected)
  const resources = new Set(o.resources)
  const allowed = o.allow === "*" ? undefined : new Set(o.allow)

  const kindOf = (tool: Subject): CatalogKind =>
    tool.source === undefined
      ? "platform"
      : resources.has(tool.source)
      ? "resource"
      : connected.has(tool.source)
      ? "connected"
      : "platform"
  const names = (tool: Subject): boolean => named.has(tool.modelName) || named.has(tool.name) || named.has(tool.id)
  const explored = (tool: Subject): boolean =>
    o.explore && (allowed === undefined || (tool.source !== undefined && allowed.has(tool.source)))
  const selects = (tool: Subject): boolean => kindOf(tool) !== "platform" || names(tool) || explored(tool)
  const sourceKind = (source: string): CatalogKind =>
    resources.has(source) ? "resource" : connected.has(source) ? "connected" : "platform"
  const exposes = (source: string): boolean =>
    !o.strict || sourceKind(source) !== "platform" || (o.explore && (allowed === undefined || allowed.has(source)))

  return {
    includes: o.strict ? selects : () => true,
    kindOf,
    selects,
    names,
    exposes,
    options: o
  }
}

/**
 * Every tool exists: not strict, nothing connected. The default when no policy is provided.
 *
 * @since 0.1.0
 * @category constructors
 */
export const everything: Visibility = make({ strict: false })

// -----------------------------------------------------------------------------
// Service
// -----------------------------------------------------------------------------

/**
 * The visibility policy in context; `everything` unless one is provided.
 *
 * @since 0.1.0
 * @category services
 */
export const Visibility = Context.Reference<Visibility>("@tool-search/core/Visibility", {
  defaultValue: () => everything
})

/**
 * Provides a policy, or builds one from settings (each defaulting as in `make`: strict).
 *
 * **Example**
 *
 * ```ts
 * // tools of the connected server, and any tool of the platform's "docs" source once searched
 * const program = myTurn.pipe(Effect.provide(Visibility.layer({ connected: ["crm"], explore: true, allow: ["docs"] })))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (policy: Visibility | Partial<Options>): Layer.Layer<never> =>
  Layer.succeed(Visibility, isPolicy(policy) ? policy : make(policy))

const isPolicy = (u: Visibility | Partial<Options>): u is Visibility => typeof (u as Visibility).includes === "function"
