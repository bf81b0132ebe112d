/**
 * tool-search core: the tool catalog, search strategies, Scope-bound activation, the read-only
 * view each turn or fork sees, and the search tools the model uses.
 *
 * Read top to bottom: the data (`CatalogTool`, `Query`), the agent-lifetime services
 * (`ToolCatalog`, `SearchStrategy`), the unit-lifetime ones (`Activation`, `ToolView`), the
 * policies (`Disclosure`, `Visibility`, `Permission`), what the model sees (`MetaTools`), and
 * resources disclosed in levels (`Resource`, `ResourceCatalog`, `RevealedResources`,
 * `ResourceView`, `ResourceTools`).
 *
 * @since 0.1.0
 */

/** A tool as the catalog knows it, its constructors and validation. */
export * as CatalogTool from "./CatalogTool.js"
/** The wire form of a tool (files, MCP `tools/list`), decoded; MCP's annotations codec. */
export * as ToolSpec from "./ToolSpec.js"
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
/** A tool call's arguments, bounded and checked against the tool's JSON Schema before it runs. */
export * as ToolArguments from "./ToolArguments.js"
/** The search and discovery tools the model uses. */
export * as MetaTools from "./MetaTools.js"
/** A resource: a document, collection, policy, graph or prompt the model reads, and its reader. */
export * as Resource from "./Resource.js"
/** Resource files: JSON Lines or a JSON array of resources, bodies inline or in files beside it. */
export * as ResourceFile from "./ResourceFile.js"
/** The agent-lifetime resource catalog, with live metadata and passage indexes. */
export * as ResourceCatalog from "./ResourceCatalog.js"
/** The per-unit set of revealed resources. */
export * as RevealedResources from "./RevealedResources.js"
/** What can go wrong reading resources, each error naming the call that fixes it. */
export * as ResourceError from "./ResourceError.js"
/** The per-unit resource view: sample, search, read, get_prompt, and the resource tools. */
export * as ResourceView from "./ResourceView.js"
/** What the resource tools show and read: result counts, snippet and read lengths. */
export * as ResourceDisclosure from "./ResourceDisclosure.js"
/** The resource tools the model uses: descriptions, schemas, answers, corrective messages. */
export * as ResourceTools from "./ResourceTools.js"
/** The resource settings, declared once as a `Setting` table. */
export * as ResourceConfig from "./ResourceConfig.js"
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
export { InvalidResource, ResourceReadError } from "./Resource.js"
export { DuplicateResource } from "./ResourceCatalog.js"
export { InvalidResourceRequest, ResourceNotPermitted, ResourceNotRevealed, UnknownResource } from "./ResourceError.js"
export { ResourceFileError } from "./ResourceFile.js"
export { RevealedResourcesClosed } from "./RevealedResources.js"
export { SearchFailed } from "./SearchStrategy.js"
export { InvalidArguments } from "./ToolArguments.js"
export { DuplicateTool } from "./ToolCatalog.js"
export { ToolNotActive, UnknownTool } from "./ToolView.js"
