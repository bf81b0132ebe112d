/**
 * The table of contents of `staged` disclosure: a short map of the deferred tools for the system
 * prompt, so that a model — a weak one included — knows what exists before it searches.
 *
 * Tools are grouped by their own `category`; the engine knows no category names. A tool the agent
 * chose — connected, resource-bound, or named in its selection — is listed by name and marked
 * "(load first)" (it is deferred: its schema arrives through `ToolSearch`); at most
 * `namesPerSource` names per connected or resource source, the rest counted. The wider platform
 * catalog is folded into counts ("(66 more tools, hidden)"), which a search unfolds.
 *
 * The table lists only tools that exist for the agent (`Visibility`) and does not depend on the
 * unit's activation, so the system prompt stays the same for a whole turn and provider prompt
 * caches stay warm. `systemPrompt` wraps it in a template that explains the search tools;
 * it describes the tools and gives no behaviour instructions: the engine decides what is shown,
 * the model decides what to use.
 *
 * Resources (level 1 of resource disclosure) get a section of their own, in every mode: resources
 * grouped by kind and source, those of connected or resource sources (or named in the selection)
 * listed by name with their URI and "(load first)" — `sample_resources` shows them — and the
 * rest folded into counts, as for tools.
 *
 * @since 0.1.0
 */
import { Context, Layer } from "effect"
import type * as Disclosure from "./Disclosure.js"
import * as Internal from "./internal/resourceContents.js"
import * as ToolContents from "./internal/toolContents.js"
import type * as Visibility from "./Visibility.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * A tool listed by name.
 *
 * @since 0.1.0
 * @category models
 */
export interface Named {
  readonly name: string
  /** As much of the description as `detail` asks for; empty for `none`. */
  readonly summary: string
  readonly kind: Visibility.CatalogKind
  readonly source?: string
}

/**
 * One category: the tools listed by name, then how many more are hidden.
 *
 * @since 0.1.0
 * @category models
 */
export interface Group {
  readonly category: string
  readonly named: ReadonlyArray<Named>
  readonly hidden: number
}

/**
 * A table of contents, before rendering.
 *
 * @since 0.1.0
 * @category models
 */
export interface Contents {
  readonly groups: ReadonlyArray<Group>
  /** Categories with only hidden tools beyond `maxFoldedCategories`, as one count. */
  readonly overflow: { readonly categories: number; readonly tools: number }
}

/**
 * What a template receives.
 *
 * @since 0.1.0
 * @category models
 */
export interface TemplateInput {
  /** The rendered table. */
  readonly toc: string
  /** Whether `search_tools` is among the tools sent. */
  readonly searchTools: boolean
}

/**
 * Turns the table into the system-prompt section.
 *
 * @since 0.1.0
 * @category models
 */
export type Template = (input: TemplateInput) => string

/**
 * A resource listed by name.
 *
 * @since 0.2.0
 * @category models
 */
export interface NamedResource {
  readonly name: string
  readonly uri: string
  /** As much of the description as `detail` asks for; empty for `none`. */
  readonly summary: string
}

/**
 * One kind of resources from one source: those listed by name, then how many more are hidden.
 *
 * @since 0.2.0
 * @category models
 */
export interface ResourceGroup {
  readonly kind: string
  readonly source?: string
  readonly named: ReadonlyArray<NamedResource>
  readonly hidden: number
}

/**
 * The resource section of a table of contents, before rendering.
 *
 * @since 0.2.0
 * @category models
 */
export interface ResourceContents {
  readonly groups: ReadonlyArray<ResourceGroup>
  /** Groups with only hidden resources beyond `maxFoldedCategories`, as one count. */
  readonly overflow: { readonly groups: number; readonly resources: number }
}

/**
 * What a resource template receives: the rendered table and the resource tools offered.
 *
 * @since 0.2.0
 * @category models
 */
export interface ResourceTemplateInput {
  readonly toc: string
  readonly tools: ReadonlyArray<string>
}

/**
 * Turns the resource table into its system-prompt section.
 *
 * @since 0.2.0
 * @category models
 */
export type ResourceTemplate = (input: ResourceTemplateInput) => string

/**
 * How tables of contents are built and rendered.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Names listed per connected or resource source; the rest are counted (default 10). */
  readonly namesPerSource: number
  /** What a listed tool shows of its description (default `first-sentence`). */
  readonly detail: Disclosure.DescriptionDetail
  /** The heading of tools that declare no category (default `other`). */
  readonly uncategorized: string
  /** Categories shown with only a count; beyond them, one line counts the rest (default 20). */
  readonly maxFoldedCategories: number
  /** The system-prompt section around the table. */
  readonly template: Template
  /** The system-prompt section around the resource table. */
  readonly resourceTemplate: ResourceTemplate
}

// -----------------------------------------------------------------------------
// Templates
// -----------------------------------------------------------------------------

/**
 * A template from text: `{toc}` is replaced by the table.
 *
 * @since 0.1.0
 * @category templates
 */
export const fromText = (text: string): Template => ({ toc }) => text.split("{toc}").join(toc)

/**
 * The defaults.
 *
 * @since 0.1.0
 * @category settings
 */
const defaults: Options = {
  namesPerSource: 10,
  detail: "first-sentence",
  uncategorized: "other",
  maxFoldedCategories: 20,
  template: ToolContents.defaultTemplate,
  resourceTemplate: Internal.defaultTemplate
}

/**
 * The table-of-contents settings in context; defaults when none were provided.
 *
 * @since 0.1.0
 * @category services
 */
export const TableOfContents = Context.Reference<Options>("@tool-search/core/TableOfContents", {
  defaultValue: () => defaults
})

/**
 * Provides settings, each field defaulting as in `defaults`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Partial<Options>): Layer.Layer<never> =>
  Layer.succeed(TableOfContents, { ...defaults, ...options })
