/**
 * The strategies' indexes themselves, for the repository's benchmark (`bench/`): BM25F's fields,
 * stock ranker and plain parameters, the hybrid fusion and confidence rule, the semantic text and
 * the regex budget. Not part of the API: `@tool-search/core/internal/bench` resolves only under the
 * `@tool-search/internal` condition (`node --conditions=@tool-search/internal`, and
 * `customConditions` in bench/tsconfig.json), which no application sets.
 *
 * @internal
 */
export * as Bm25fIndex from "./bm25fIndex.js"
export * as HybridIndex from "./hybridIndex.js"
export * as RegexIndex from "./regexIndex.js"
export * as SemanticIndex from "./semanticIndex.js"
