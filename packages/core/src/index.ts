/**
 * tool-search core: the tool catalog, search strategies, Scope-bound activation, the read-only
 * view each turn or fork sees, the tools the model uses to find others, and resources disclosed
 * in levels.
 *
 * The modules, by category, in the order a reader meets them:
 *
 * - **tools** — `CatalogTool`, `ToolSpec`, `CatalogFile`, `ToolArguments`
 * - **search** — `Query`, `SearchDocument`, `SearchStrategy`, `Strategies`, `Analyzer`, `Keyword`,
 *   `Bm25f`, `Regex`, `Semantic`, `Hybrid`, `OfflineEmbeddings`, `VectorCache`, `SearchFeedback`
 * - **units** (the catalog and what one turn or fork sees) — `ToolCatalog`, `Unit`
 * - **policies** — `Disclosure`, `Visibility`, `Permission`
 * - **observability** — `Tracing`
 * - **model-facing** — `TableOfContents`, `SearchToolkit`, `NativeDeferral`
 * - **resources** — `Resource`, `ResourceFile`, `ResourceCatalog`, `ResourceDisclosure`
 * - **audit** — `AuditRecord` (types only)
 * - **settings** — `Setting`, `ToolSearchConfig`, `ResourceConfig`
 * - **errors** — every error class, at the top level only (`InvalidEntry`, `Refused`, …), so that
 *   declaration files of dependent code can name them
 *
 * Everything else is in `internal/` and is not part of the API.
 *
 * @since 0.1.0
 */

// -----------------------------------------------------------------------------
// Tools
// -----------------------------------------------------------------------------

/**
 * A tool as the catalog knows it: its model, names, validation and constructors.
 *
 * @since 0.1.0
 * @category tools
 */
export * as CatalogTool from "./CatalogTool.js"

/**
 * The wire form of a tool (catalog files, MCP `tools/list`), decoded; MCP's annotations codec.
 *
 * @since 0.2.0
 * @category tools
 */
export * as ToolSpec from "./ToolSpec.js"

/**
 * Reading catalog files: JSON Lines, JSON arrays and MCP `tools/list` results.
 *
 * @since 0.1.0
 * @category tools
 */
export * as CatalogFile from "./CatalogFile.js"

/**
 * A tool call's arguments, bounded and checked against the tool's JSON Schema before it runs.
 *
 * @since 0.2.0
 * @category tools
 */
export * as ToolArguments from "./ToolArguments.js"

// -----------------------------------------------------------------------------
// Search
// -----------------------------------------------------------------------------

/**
 * The query language: keywords, `select:`, `+required`.
 *
 * @since 0.1.0
 * @category search
 */
export * as Query from "./Query.js"

/**
 * The searchable fields of a tool.
 *
 * @since 0.1.0
 * @category search
 */
export * as SearchDocument from "./SearchDocument.js"

/**
 * The ranking strategy service and its live index interface.
 *
 * @since 0.1.0
 * @category search
 */
export * as SearchStrategy from "./SearchStrategy.js"

/**
 * The built-in strategies by name.
 *
 * @since 0.1.0
 * @category search
 */
export * as Strategies from "./Strategies.js"

/**
 * Tokenization shared by the lexical strategies: identifiers, any script, stemming, Korean, CJK.
 *
 * @since 0.1.0
 * @category search
 */
export * as Analyzer from "./Analyzer.js"

/**
 * Weighted keyword matching (the Java core's baseline).
 *
 * @since 0.1.0
 * @category search
 */
export * as Keyword from "./strategies/Keyword.js"

/**
 * BM25F on a live inverted index: the default strategy.
 *
 * @since 0.1.0
 * @category search
 */
export * as Bm25f from "./strategies/Bm25f.js"

/**
 * Regular expressions over tool names, on a linear-time engine.
 *
 * @since 0.1.0
 * @category search
 */
export * as Regex from "./strategies/Regex.js"

/**
 * Embedding similarity through any `EmbeddingModel`.
 *
 * @since 0.1.0
 * @category search
 */
export * as Semantic from "./strategies/Semantic.js"

/**
 * BM25F and semantic scores fused.
 *
 * @since 0.1.0
 * @category search
 */
export * as Hybrid from "./strategies/Hybrid.js"

/**
 * The offline default `EmbeddingModel` (Universal Sentence Encoder lite), loaded on first use.
 *
 * @since 0.1.0
 * @category search
 */
export * as OfflineEmbeddings from "./OfflineEmbeddings.js"

/**
 * Tool vectors kept between searches and runs: in memory, or in files through `FileSystem`.
 *
 * @since 0.1.0
 * @category search
 */
export * as VectorCache from "./VectorCache.js"

/**
 * Evidence of relevance learnt from use: a search whose hit was then called successfully.
 *
 * @since 0.2.0
 * @category search
 */
export * as SearchFeedback from "./SearchFeedback.js"

// -----------------------------------------------------------------------------
// Catalog and execution units
// -----------------------------------------------------------------------------

/**
 * The agent-lifetime tool catalog: registration, model names, the live index.
 *
 * @since 0.1.0
 * @category units
 */
export * as ToolCatalog from "./ToolCatalog.js"

/**
 * One execution unit — a turn or a fork: what it activated and revealed, what the model sees now,
 * the search and resource tools, the children it supervises. Reached only with `Unit` in `R`.
 *
 * @since 0.3.0
 * @category units
 */
export * as Unit from "./Unit.js"

// -----------------------------------------------------------------------------
// Policies
// -----------------------------------------------------------------------------

/**
 * What the model is shown: the disclosure mode and the search tools' defaults.
 *
 * @since 0.1.0
 * @category policies
 */
export * as Disclosure from "./Disclosure.js"

/**
 * Which tools and resources exist for an agent.
 *
 * @since 0.1.0
 * @category policies
 */
export * as Visibility from "./Visibility.js"

/**
 * Permission to run a tool.
 *
 * @since 0.1.0
 * @category policies
 */
export * as Permission from "./Permission.js"

// -----------------------------------------------------------------------------
// Observability
// -----------------------------------------------------------------------------

/**
 * The library's spans, emitted when a tracer is installed.
 *
 * @since 0.3.0
 * @category observability
 */
export * as Tracing from "./Tracing.js"

// -----------------------------------------------------------------------------
// What the model sees
// -----------------------------------------------------------------------------

/**
 * The table of contents of staged disclosure and the system-prompt section around it.
 *
 * @since 0.1.0
 * @category model-facing
 */
export * as TableOfContents from "./TableOfContents.js"

/**
 * Deferral on an existing `effect/ai` Toolkit, and `ToolSearch` alone as an `effect/ai` tool.
 *
 * @since 0.1.0
 * @category model-facing
 */
export * as SearchToolkit from "./SearchToolkit.js"

/**
 * Deferred tools sent the provider's way (Anthropic's `defer_loading`), and which providers can.
 *
 * @since 0.2.0
 * @category model-facing
 */
export * as NativeDeferral from "./NativeDeferral.js"

// -----------------------------------------------------------------------------
// Resources
// -----------------------------------------------------------------------------

/**
 * A resource: a document, collection, policy, graph or prompt the model reads, and its reader.
 *
 * @since 0.2.0
 * @category resources
 */
export * as Resource from "./Resource.js"

/**
 * Resource files: JSON Lines or a JSON array of resources, bodies inline or in files beside it.
 *
 * @since 0.2.0
 * @category resources
 */
export * as ResourceFile from "./ResourceFile.js"

/**
 * The agent-lifetime resource catalog, with live metadata and passage indexes.
 *
 * @since 0.2.0
 * @category resources
 */
export * as ResourceCatalog from "./ResourceCatalog.js"

/**
 * What the resource tools show and read: result counts, snippet and read lengths.
 *
 * @since 0.2.0
 * @category resources
 */
export * as ResourceDisclosure from "./ResourceDisclosure.js"

// -----------------------------------------------------------------------------
// Audit
// -----------------------------------------------------------------------------

/**
 * The audit record of a gateway session (types only): what `@tool-search/mcp` writes and
 * `@tool-search/store` keeps.
 *
 * @since 0.3.0
 * @category audit
 */
export * as AuditRecord from "./AuditRecord.js"

// -----------------------------------------------------------------------------
// Settings
// -----------------------------------------------------------------------------

/**
 * One setting declared once: variable, flag, schema, default, docs; one precedence for every source.
 *
 * @since 0.2.0
 * @category settings
 */
export * as Setting from "./Setting.js"

/**
 * The core settings as a `Setting` table, read through `Config`, and the layer built from them.
 *
 * @since 0.1.0
 * @category settings
 */
export * as ToolSearchConfig from "./ToolSearchConfig.js"

/**
 * The resource settings as a `Setting` table.
 *
 * @since 0.2.0
 * @category settings
 */
export * as ResourceConfig from "./ResourceConfig.js"

// -----------------------------------------------------------------------------
// Errors
// -----------------------------------------------------------------------------

export * from "./Errors.js"

// -----------------------------------------------------------------------------
// Types named for declaration files
// -----------------------------------------------------------------------------

export type {
  /**
   * The tool a unit sends and how it runs (`Unit.ModelTool`), a meta tool's output (`Unit.Output`),
   * a call (`Unit.Call`): named here so that declaration files of dependent code can name them.
   *
   * @since 0.3.0
   * @category units
   */
  Call,
  ModelTool,
  Output
} from "./internal/unit/model.js"

export type {
  /**
   * The identifier of the unit capability in `R` (`Unit.Unit`). A type only: there is no value to
   * yield, keep or provide.
   *
   * @since 0.3.0
   * @category units
   */
  UnitService
} from "./internal/unit/service.js"
