/**
 * The gateway's own URIs for upstream resources: `tool-search://<server>/<the server's URI>`.
 *
 * A resource keeps its server's URI while no other server (and no other source of the catalog)
 * claims the same URI; when two do, each is listed under its qualified URI instead, and so is any
 * URI an upstream lists in this scheme itself. The form is reversible without a table — the
 * server name has no `/` (`Upstream.NAME_PATTERN`), so everything after the first `/` past it is
 * the original URI, verbatim (templates keep their `{...}` expressions) — and injection-safe: an
 * upstream that lists `tool-search://other/x` gets it qualified with its own name
 * (`tool-search://evil/tool-search://other/x`), so a read always goes back to the server that
 * listed the URI, never to the one it names.
 *
 * @since 0.2.0
 */
import { NAME_PATTERN } from "./Upstream.js"

/**
 * The scheme of qualified URIs.
 *
 * @since 0.2.0
 * @category constants
 */
export const SCHEME = "tool-search"

const PREFIX = `${SCHEME}://`

/**
 * What a qualified URI stands for.
 *
 * @since 0.2.0
 * @category models
 */
export interface Parts {
  readonly server: string
  /** The URI as the server knows it. */
  readonly uri: string
}

/**
 * The qualified URI of a server's URI.
 *
 * @since 0.2.0
 * @category constructors
 */
export const qualify = (server: string, uri: string): string => `${PREFIX}${server}/${uri}`

/**
 * Whether a URI is in the gateway's scheme (case-insensitively, as schemes are).
 *
 * @since 0.2.0
 * @category guards
 */
export const isQualified = (uri: string): boolean => uri.slice(0, PREFIX.length).toLowerCase() === PREFIX

/**
 * The server and original URI of a qualified URI; `undefined` for any other URI, or one whose
 * server part is not a valid server name or whose original is empty.
 *
 * @since 0.2.0
 * @category parsing
 */
export const parse = (uri: string): Parts | undefined => {
  if (!isQualified(uri)) return undefined
  const rest = uri.slice(PREFIX.length)
  const slash = rest.indexOf("/")
  if (slash < 1) return undefined
  const server = rest.slice(0, slash)
  const original = rest.slice(slash + 1)
  return NAME_PATTERN.test(server) && original.length > 0 ? { server, uri: original } : undefined
}

/**
 * The URI to send to `server` for a URI a client gave: the original when it is `server`'s
 * qualified URI, the URI itself otherwise.
 *
 * @since 0.2.0
 * @category parsing
 */
export const originalFor = (server: string, uri: string): string => {
  const parts = parse(uri)
  return parts !== undefined && parts.server === server ? parts.uri : uri
}
