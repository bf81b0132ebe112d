/**
 * tool-search providers: `effect/ai` language and embedding models over the providers' HTTP APIs,
 * and the settings that choose them.
 *
 * The modules, by category:
 *
 * - **wire** — `OpenAiChatCompletions`, `AnthropicMessages`
 * - **models** — `OpenAiLanguageModel`, `AnthropicLanguageModel`, `OpenAiEmbeddingModel`
 * - **settings** — `ProviderConfig`, `Providers`
 * - **errors** — every error class, also at the top level
 *
 * Everything else is in `internal/` and is not part of the API.
 *
 * @since 0.2.0
 */

// -----------------------------------------------------------------------------
// Wire
// -----------------------------------------------------------------------------

/**
 * The Chat Completions wire format and its mapping to `effect/ai`'s parts.
 *
 * @since 0.2.0
 * @category wire
 */
export * as OpenAiChatCompletions from "./OpenAiChatCompletions.js"

/**
 * The Anthropic Messages wire format and its mapping to `effect/ai`'s parts.
 *
 * @since 0.2.0
 * @category wire
 */
export * as AnthropicMessages from "./AnthropicMessages.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * OpenAI Chat Completions as a `LanguageModel`: OpenAI and every OpenAI-compatible server.
 *
 * @since 0.2.0
 * @category models
 */
export * as OpenAiLanguageModel from "./OpenAiLanguageModel.js"

/**
 * Anthropic Messages as a `LanguageModel`, with prompt-cache breakpoints.
 *
 * @since 0.2.0
 * @category models
 */
export * as AnthropicLanguageModel from "./AnthropicLanguageModel.js"

/**
 * The OpenAI embeddings API, which OpenAI and OpenAI-compatible servers (Ollama, vLLM, TEI) speak.
 *
 * @since 0.2.0
 * @category models
 */
export * as OpenAiEmbeddingModel from "./OpenAiEmbeddingModel.js"

// -----------------------------------------------------------------------------
// Settings
// -----------------------------------------------------------------------------

/**
 * The providers' settings: model, server, keys, budgets, embeddings.
 *
 * @since 0.2.0
 * @category settings
 */
export * as ProviderConfig from "./ProviderConfig.js"

/**
 * Language and embedding models built from the settings.
 *
 * @since 0.2.0
 * @category settings
 */
export * as Providers from "./Providers.js"

// -----------------------------------------------------------------------------
// Errors, also at the top level so that declaration files of dependent code can name them
// -----------------------------------------------------------------------------

export {
  /**
   * `TOOL_SEARCH_MODEL` is not set.
   *
   * @since 0.2.0
   * @category errors
   */
  ModelNotConfigured
} from "./Providers.js"
