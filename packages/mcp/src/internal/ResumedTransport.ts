/**
 * A Streamable HTTP server transport for a session that was initialized before — by this gateway
 * before it restarted, or by another instance on the same `SessionState` — so that the client's
 * next request, carrying its `mcp-session-id`, is served without a new `initialize`.
 *
 * The SDK's transport accepts requests only after it answered an `initialize` itself; it has no
 * public way to take over a session. This sets the two fields its `initialize` sets (the session
 * id, and that it is initialized), on the SDK version this package pins; a test resumes a session
 * through the official client, so an SDK that moved them is caught there.
 *
 * @internal
 */
import {
  StreamableHTTPServerTransport,
  type StreamableHTTPServerTransportOptions
} from "@modelcontextprotocol/sdk/server/streamableHttp.js"

interface Inner {
  sessionId?: string
  _initialized?: boolean
}

/** A transport serving the existing session `id`. */
export const resumed = (id: string, options: StreamableHTTPServerTransportOptions): StreamableHTTPServerTransport => {
  const transport = new StreamableHTTPServerTransport({ ...options, sessionIdGenerator: () => id })
  const inner = (transport as unknown as { readonly _webStandardTransport?: Inner })._webStandardTransport
  if (inner === undefined || inner._initialized !== false) {
    throw new Error("this version of @modelcontextprotocol/sdk cannot resume a Streamable HTTP session")
  }
  inner.sessionId = id
  inner._initialized = true
  return transport
}
