/**
 * The offline embedding model of tool-search, as its own package so that `@tool-search/core` does
 * not carry its weights: install it next to the core to use the `semantic` and `hybrid` strategies
 * without a network or a key.
 *
 * @since 0.2.0
 */

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * The Universal Sentence Encoder lite as an `effect/ai` `EmbeddingModel`, loaded on first use.
 *
 * @since 0.2.0
 * @category models
 */
export * as OfflineEmbeddings from "./OfflineEmbeddings.js"
