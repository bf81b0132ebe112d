/**
 * What a gateway session's request must pass before it does any work: a place among the
 * session's `maxSessionCalls` (waiting in its queue of `maxQueuedCalls`), then one among its
 * principal's. A request beyond either bound is answered at once with the JSON-RPC error -32000
 * naming the bound and its setting; other sessions and principals are not affected.
 *
 * @internal
 */
import { Effect } from "effect"
import type { Options } from "../Gateway.js"
import * as CallGate from "./CallGate.js"
import { JsonRpcError } from "./Calls.js"
import type { SessionTenant } from "./SessionTenant.js"

/** The JSON-RPC code of a request refused because its session or principal has too many in flight. */
export const BUSY = -32000

/** Runs one request of a session once admitted; a refusal is the JSON-RPC error to send (a defect the SDK answers). */
export const make = (
  settings: Pick<Options, "maxSessionCalls" | "maxQueuedCalls">,
  tenant: SessionTenant | undefined
) => {
  const places = CallGate.make(
    settings.maxSessionCalls,
    settings.maxQueuedCalls,
    `this session (maxSessionCalls ${settings.maxSessionCalls}, maxQueuedCalls ${settings.maxQueuedCalls})`
  )
  return <A, R>(effect: Effect.Effect<A, never, R>): Effect.Effect<A, never, R> =>
    places.run(tenant === undefined ? effect : tenant.calls.run(effect)).pipe(
      Effect.catch((refused) => Effect.die(new JsonRpcError(BUSY, refused.reason, undefined)))
    )
}
