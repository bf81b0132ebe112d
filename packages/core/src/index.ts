/**
 * tool-search core: the tool catalog, search strategies, Scope-bound activation, the read-only
 * view each turn or fork sees, and the search tools the model uses.
 *
 * Read top to bottom: the data (`CatalogTool`, `Query`), the agent-lifetime services
 * (`ToolCatalog`, `SearchStrategy`), the unit-lifetime ones (`Activation`, `ToolView`), the
 * policies (`Disclosure`, `Visibility`, `Permission`), and what the model sees (`MetaTools`).
 *
 * @since 0.1.0
 */

/** A tool as the catalog knows it, its constructors and validation. */
export * as CatalogTool from "./CatalogTool.js"
/** Reading catalog files: JSONL, JSON arrays and MCP `tools/list` results. */
export * as CatalogFile from "./CatalogFile.js"
/** The query language: keywords, `select:`, `+required`. */
export * as Query from "./Query.js"
/** The searchable fields of a tool. */
export * as SearchDocument from "./SearchDocument.js"
/** The ranking strategy service and its live index interface. */
export * as SearchStrategy from "./SearchStrategy.js"
/** The built-in strategies by name. */
export * as Strategies from "./Strategies.js"
/** Weighted keyword matching (the Java core's baseline). */
export * as Keyword from "./strategies/Keyword.js"
/** Tokenization shared by the lexical strategies: identifiers, any script, stemming, Korean, CJK. */
export * as Analyzer from "./Analyzer.js"
/** BM25F on a live inverted index: the default strategy. */
export * as Bm25f from "./strategies/Bm25f.js"
/** Regular expressions over tool names, on a linear-time engine. */
export * as Regex from "./strategies/Regex.js"
/** Embedding similarity through any `EmbeddingModel`. */
export * as Semantic from "./strategies/Semantic.js"
/** BM25F and semantic scores fused. */
export * as Hybrid from "./strategies/Hybrid.js"
/** The offline default `EmbeddingModel` (Universal Sentence Encoder lite), loaded on first use. */
export * as OfflineEmbeddings from "./OfflineEmbeddings.js"
/** Tool vectors kept between searches and runs. */
export * as VectorCache from "./VectorCache.js"
/** Evidence of relevance learnt from use: a search whose hit was then called successfully. */
export * as SearchFeedback from "./SearchFeedback.js"
/** The agent-lifetime tool catalog. */
export * as ToolCatalog from "./ToolCatalog.js"
/** The per-unit activation state. */
export * as Activation from "./Activation.js"
/** The per-unit read-only view: visible tools, search-and-activate, resolve. */
export * as ToolView from "./ToolView.js"
/** Disclosure modes and search tool settings. */
export * as Disclosure from "./Disclosure.js"
/** Which tools exist for an agent. */
export * as Visibility from "./Visibility.js"
/** Permission to run a tool. */
export * as Permission from "./Permission.js"
/** `ToolSearch` as an `effect/ai` tool for your own loop. */
export * as SearchToolkit from "./SearchToolkit.js"
/** The search and discovery tools the model uses. */
export * as MetaTools from "./MetaTools.js"
/** The table of contents of staged disclosure and the system-prompt section around it. */
export * as TableOfContents from "./TableOfContents.js"
/** One setting declared once: variable, flag, schema, default, docs; one precedence for every source. */
export * as Setting from "./Setting.js"
/** Every core setting from the environment through Effect `Config`, and the layer built from it. */
export * as ToolSearchConfig from "./ToolSearchConfig.js"

// Errors, also at the top level so declaration files of dependent code can name them.
export { ActivationClosed } from "./Activation.js"
export { CatalogFileError } from "./CatalogFile.js"
export { InvalidTool, ToolExecutionError } from "./CatalogTool.js"
export { ToolNotPermitted } from "./Permission.js"
export { InvalidQuery } from "./Query.js"
export { SearchFailed } from "./SearchStrategy.js"
export { DuplicateTool } from "./ToolCatalog.js"
export { ToolNotActive, UnknownTool } from "./ToolView.js"
