/**
 * The library's errors, each a `Schema.TaggedError` that says what was wrong in its `message`.
 * They are exported at the top level of `@tool-search/core` (not from the modules that fail with
 * them) so that declaration files of code built on the library can name them.
 *
 * @since 0.3.0
 */
import { Schema } from "effect"

/**
 * A catalog file that cannot be read; `line` is 1-based (0 when the file itself is missing).
 *
 * @since 0.1.0
 * @category errors
 */
export class CatalogFileError extends Schema.TaggedError<CatalogFileError>()("CatalogFileError", {
  file: Schema.String,
  line: Schema.Number,
  reason: Schema.String
}) {
  override get message(): string {
    return this.line > 0 ? `${this.file}:${this.line}: ${this.reason}` : `${this.file}: ${this.reason}`
  }
}

/**
 * A tool or resource definition that the catalog (or a model provider) would reject: `kind` says
 * which, `name` is the tool's name or the resource's URI, `reason` what is wrong.
 *
 * @since 0.3.0
 * @category errors
 */
export class InvalidEntry extends Schema.TaggedError<InvalidEntry>()("InvalidEntry", {
  kind: Schema.Literals(["tool", "resource"]),
  name: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `Invalid ${this.kind} '${this.name}': ${this.reason}`
  }
}

/**
 * Another entry of the catalog already has this key: a tool's id (`name` is the tool's name) or a
 * resource's URI (`id` and `name` are the URI).
 *
 * @since 0.3.0
 * @category errors
 */
export class DuplicateEntry extends Schema.TaggedError<DuplicateEntry>()("DuplicateEntry", {
  kind: Schema.Literals(["tool", "resource"]),
  id: Schema.String,
  name: Schema.String
}) {
  override get message(): string {
    return this.kind === "tool"
      ? `Duplicate tool id '${this.id}' (tool '${this.name}'): ids must be unique in a catalog; give one an explicit id`
      : `Duplicate resource URI '${this.id}': URIs must be unique in a catalog`
  }
}

/**
 * A tool handler failed in a way it could not turn into a result; the executor reports it to the model.
 *
 * @since 0.1.0
 * @category errors
 */
export class ToolExecutionError extends Schema.TaggedError<ToolExecutionError>()("ToolExecutionError", {
  tool: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `Tool '${this.tool}' failed: ${this.reason}`
  }
}

/**
 * The arguments of a call do not fit the tool's parameters. The message lists each problem with its
 * path and tells the model to fix the call.
 *
 * @since 0.2.0
 * @category errors
 */
export class InvalidArguments extends Schema.TaggedError<InvalidArguments>()("InvalidArguments", {
  tool: Schema.String,
  issues: Schema.Array(Schema.Struct({ path: Schema.String, message: Schema.String }))
}) {
  override get message(): string {
    const lines = this.issues.map((i) => `- ${i.path === "" ? "arguments" : i.path}: ${i.message}`)
    return `Invalid arguments for '${this.tool}':\n${
      lines.join("\n")
    }\nFix the arguments to match the tool's parameters and call it again.`
  }
}

/**
 * A query that cannot be run; the message tells the model how to fix it.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidQuery extends Schema.TaggedError<InvalidQuery>()("InvalidQuery", {
  query: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return this.reason
  }
}

/**
 * The search backend failed (a model that cannot load, a service that is down): never "0 results".
 *
 * @since 0.1.0
 * @category errors
 */
export class SearchFailed extends Schema.TaggedError<SearchFailed>()("SearchFailed", {
  strategy: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `Search backend '${this.strategy}' failed: ${this.reason}`
  }
}

/**
 * Reading a body or rendering a prompt failed (a missing file, a server that is down, a timeout).
 *
 * @since 0.2.0
 * @category errors
 */
export class ResourceReadError extends Schema.TaggedError<ResourceReadError>()("ResourceReadError", {
  uri: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `Reading resource '${this.uri}' failed: ${this.reason}`
  }
}

/**
 * Why a call of a tool, a resource or a prompt was refused before anything ran: the `hint` is the
 * message, written for the model, naming the call that fixes it.
 */
export class Refused extends Schema.TaggedError<Refused>()("Refused", {
  kind: Schema.Literals(["tool", "resource", "prompt"]),
  name: Schema.String,
  reason: Schema.Literals(["unknown", "not-active", "not-permitted", "invalid-request"]),
  hint: Schema.String
}) {
  override get message(): string {
    return this.hint
  }
}

/**
 * A unit was asked to start with tool ids that no tool this agent may use has.
 */
export class UnknownTools extends Schema.TaggedError<UnknownTools>()("UnknownTools", {
  ids: Schema.Array(Schema.String)
}) {
  override get message(): string {
    return `Unknown tool ids: ${this.ids.join(", ")} (a unit starts with catalog ids, as a turn reports them)`
  }
}

/**
 * A unit's state was used after the unit ended: a programming error, raised as a defect.
 */
export class UnitClosed extends Schema.TaggedError<UnitClosed>()("UnitClosed", {}) {
  override get message(): string {
    return "This state belongs to a turn or fork that has ended"
  }
}
