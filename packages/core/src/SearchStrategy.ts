/**
 * How deferred tools are ranked for a query. A strategy is a `Layer`, swappable in apps and tests;
 * it builds a `SearchIndex` that the catalog keeps live: every registration adds documents, every
 * removal removes them, so a query never needs a full rebuild and never sees a snapshot.
 *
 * A strategy only ranks. Which tools are candidates (deferred ones, visible to this agent, whose
 * name matches a `+term`) is decided by the caller through `SearchRequest.accept`, and activation
 * is decided by the view.
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"

import type { SearchDocument } from "./SearchDocument.js"

import type { InvalidQuery, SearchFailed } from "./Errors.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * One ranked result.
 *
 * @since 0.1.0
 * @category models
 */
export interface Hit {
  readonly id: string
  /** The strategy's own score: comparable within one strategy's answers only. */
  readonly score: number
  /**
   * How well the hit matches on an absolute scale, 0 to 1, comparable across queries: for BM25F
   * the share of the query's term weight (idf) the tool matches, saturated — of the whole request,
   * or of the clause it matches best when the request has several. Strategies that cannot say
   * leave it out. `ToolSearch` reads it to answer "no good match" (`minScore`).
   */
  readonly strength?: number
}

/**
 * What a strategy is asked.
 *
 * @since 0.1.0
 * @category models
 */
export interface SearchRequest {
  /** The ranking text, as the user or model wrote it. */
  readonly text: string
  /** How many hits to return at most. */
  readonly limit: number
  /** Candidate filter: only ids it accepts may be returned. */
  readonly accept: (id: string) => boolean
}

/**
 * A live index of one catalog's documents. `add` and `remove` run inside the catalog's write step:
 * they must be synchronous and must not fail, which is what makes a registration all-or-nothing.
 * Work that cannot be synchronous (embedding a document) is queued and done by the next `search`.
 *
 * @since 0.1.0
 * @category models
 */
export interface SearchIndex {
  /** Adds or replaces documents (same id replaces). */
  readonly add: (documents: ReadonlyArray<SearchDocument>) => void
  readonly remove: (ids: ReadonlyArray<string>) => void
  /** Hits with score > 0, best first, ties by id. */
  readonly search: (request: SearchRequest) => Effect.Effect<ReadonlyArray<Hit>, SearchFailed | InvalidQuery>
}

// -----------------------------------------------------------------------------
// Service
// -----------------------------------------------------------------------------

/**
 * What a strategy is: a name, and how to make a new, empty index.
 *
 * @since 0.2.0
 * @category models
 */
export interface Service {
  /** A short name for logs, benchmarks and the CLI (`keyword`, `bm25f`, ...). */
  readonly name: string
  /** A new, empty index. */
  readonly makeIndex: Effect.Effect<SearchIndex>
}

/**
 * The ranking strategy of an agent.
 *
 * @since 0.1.0
 * @category services
 */
export class SearchStrategy extends Context.Service<SearchStrategy, Service>()("@tool-search/core/SearchStrategy") {}
