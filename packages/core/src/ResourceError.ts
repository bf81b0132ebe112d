/**
 * What can go wrong when the model reads resources: each error is written for the model and names
 * the call that fixes it. `ResourceView` fails with them; the resource tools turn them into tool
 * results.
 *
 * @since 0.2.0
 */
import { Schema } from "effect"
import type { InvalidQuery } from "./Query.js"
import type { ResourceReadError } from "./Resource.js"
import type { SearchFailed } from "./SearchStrategy.js"

/**
 * No resource of that URI (or prompt of that name) exists for this agent. Carries up to three
 * "did you mean" names.
 *
 * @since 0.2.0
 * @category errors
 */
export class UnknownResource extends Schema.TaggedError<UnknownResource>()("UnknownResource", {
  uri: Schema.String,
  suggestions: Schema.Array(Schema.String),
  hint: Schema.String
}) {
  override get message(): string {
    return this.hint
  }
}

/**
 * The resource exists but was not revealed in this unit. The message names the revealing call.
 *
 * @since 0.2.0
 * @category errors
 */
export class ResourceNotRevealed extends Schema.TaggedError<ResourceNotRevealed>()("ResourceNotRevealed", {
  uri: Schema.String,
  hint: Schema.String
}) {
  override get message(): string {
    return this.hint
  }
}

/**
 * Reading the resource's content is not allowed for this agent.
 *
 * @since 0.2.0
 * @category errors
 */
export class ResourceNotPermitted extends Schema.TaggedError<ResourceNotPermitted>()("ResourceNotPermitted", {
  uri: Schema.String
}) {
  override get message(): string {
    return `Resource '${this.uri}' is not permitted for this agent.`
  }
}

/**
 * A request that cannot be served as asked (a prompt passed to `read_resource`, a missing prompt
 * argument, an offset past the end). The message says what to call instead.
 *
 * @since 0.2.0
 * @category errors
 */
export class InvalidResourceRequest extends Schema.TaggedError<InvalidResourceRequest>()("InvalidResourceRequest", {
  tool: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return this.reason
  }
}

/**
 * Why a resource operation refused or failed.
 *
 * @since 0.2.0
 * @category errors
 */
export type ResourceError =
  | UnknownResource
  | ResourceNotRevealed
  | ResourceNotPermitted
  | InvalidResourceRequest
  | ResourceReadError
  | SearchFailed
  | InvalidQuery
