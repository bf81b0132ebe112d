/**
 * The checks a resource passes before the catalog takes it (`Resource.validate`): a URI with a
 * scheme, single-line names within bounds, a MIME type, a size, exactly one of a body and a
 * prompt, unique prompt arguments, and templates declared as such.
 *
 * @internal
 */
import { Effect } from "effect"
import type { Resource } from "../Resource.js"
import * as UriTemplate from "./uriTemplate.js"

/** The bounds the checks enforce (`Resource.limits`). */
export interface Limits {
  readonly uri: number
  readonly name: number
  readonly title: number
  readonly kind: number
  readonly source: number
  readonly description: number
  readonly mimeType: number
  readonly promptArguments: number
}

// a scheme, then anything without whitespace or control characters
const URI_PATTERN = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s\u0000-\u001f\u007f]*$/
const MIME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*(\s*;.*)?$/
const ARGUMENT_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/
const CONTROL = /[\u0000-\u001f\u007f]/

/** The resource with its name and kind trimmed, or the reason it is refused and the URI (or name) to name it by. */
export const validate = (
  resource: Resource,
  limits: Limits
): Effect.Effect<Resource, { readonly uri: string; readonly reason: string }> => {
  const label = typeof resource.uri === "string" && resource.uri.length > 0
    ? resource.uri.slice(0, 120)
    : String(resource.name).slice(0, 120)
  const fail = (reason: string) => Effect.fail({ uri: label, reason })
  if (typeof resource.uri !== "string" || resource.uri.length === 0) return fail("the URI is empty")
  if (resource.uri.length > limits.uri) return fail(`the URI is longer than ${limits.uri} characters`)
  if (!URI_PATTERN.test(resource.uri)) {
    return fail("the URI needs a scheme ('file:', 'https:', 'docs:'...) and no spaces or control characters")
  }
  const name = singleLine(resource.name)
  if (name === undefined || name.length === 0) return fail("the name is empty")
  if (name.length > limits.name) return fail(`the name is longer than ${limits.name} characters`)
  const kind = singleLine(resource.kind) || "document"
  if (kind.length > limits.kind) return fail(`the kind is longer than ${limits.kind} characters`)
  if (resource.title !== undefined && (singleLine(resource.title)?.length ?? Infinity) > limits.title) {
    return fail(`the title is longer than ${limits.title} characters`)
  }
  if (resource.source !== undefined && (resource.source.length > limits.source || CONTROL.test(resource.source))) {
    return fail(`the source must be one line of at most ${limits.source} characters`)
  }
  if (typeof resource.description !== "string") return fail("the description must be a string")
  if (resource.description.length > limits.description) {
    return fail(`the description is longer than ${limits.description} characters`)
  }
  if (
    resource.mimeType !== undefined &&
    (resource.mimeType.length > limits.mimeType || !MIME_PATTERN.test(resource.mimeType))
  ) {
    return fail("the MIME type must look like 'type/subtype'")
  }
  if (resource.size !== undefined && !(Number.isSafeInteger(resource.size) && resource.size >= 0)) {
    return fail("the size must be a non-negative integer")
  }
  if ((resource.read === undefined) === (resource.prompt === undefined)) {
    return fail("a resource has either a reader (a body) or a prompt, not both and not neither")
  }
  if (resource.template && resource.prompt !== undefined) return fail("a prompt cannot be a URI template")
  if (resource.template) {
    const compiled = UriTemplate.compile(resource.uri)
    if (typeof compiled === "string") return fail(`bad URI template: ${compiled}`)
  } else if (resource.prompt === undefined && UriTemplate.isTemplate(resource.uri)) {
    return fail("the URI holds a '{...}' expression: declare the resource as a template")
  }
  if (resource.prompt !== undefined) {
    const args = resource.prompt.arguments
    if (args.length > limits.promptArguments) return fail(`a prompt takes at most ${limits.promptArguments} arguments`)
    const seen = new Set<string>()
    for (const arg of args) {
      if (!ARGUMENT_PATTERN.test(arg.name)) {
        return fail(`prompt argument '${arg.name.slice(0, 64)}' must match ${ARGUMENT_PATTERN.source}`)
      }
      if (seen.has(arg.name)) return fail(`prompt argument '${arg.name}' is declared twice`)
      seen.add(arg.name)
    }
  }
  return Effect.succeed({ ...resource, name, kind })
}

const singleLine = (text: unknown): string | undefined =>
  typeof text === "string" ? text.replace(/\s+/g, " ").trim() : undefined
