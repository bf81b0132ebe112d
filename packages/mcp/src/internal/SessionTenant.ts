/**
 * The principal a gateway session belongs to, as the session sees it: its policy narrows the
 * visibility and permission policies in context (what its sessions see and may use), its search
 * feedback is kept apart unless shared, and its requests in flight across all its sessions are
 * bounded by one gate (`maxPrincipalCalls`, or the principal's own `maxCalls`).
 *
 * @internal
 */
import { Permission, SearchFeedback, Visibility } from "@tool-search/core"
import { Effect, Option, type Redacted } from "effect"
import type { Recorder } from "../GatewayAudit.js"
import * as Principal from "../Principal.js"
import * as CallGate from "./CallGate.js"
import { Sources } from "./GatewaySources.js"

/** A principal's share of the gateway. */
export interface SessionTenant {
  /** The principal's name (logs, the audit trail). */
  readonly principal: string
  /** The principal's requests in flight, across its sessions. */
  readonly calls: CallGate.CallGate
  /** `recorder`, with every entry naming the principal. */
  readonly audited: (recorder: Recorder) => Recorder
  /** Opens a session of the principal: its policies and feedback in context. */
  readonly within: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

/** The share of `principal`; `maxCalls` and `shareFeedback` are the gateway's defaults for it. */
export const make = (
  principal: Principal.Principal,
  defaults: { readonly maxCalls: number; readonly shareFeedback: boolean }
): SessionTenant => {
  const { policy } = principal
  const maxCalls = policy.maxCalls ?? defaults.maxCalls
  const share = policy.shareFeedback ?? defaults.shareFeedback
  // one narrowed policy per base policy, so that listings cached per policy are shared by its sessions
  const visibilities = new WeakMap<Visibility.Visibility, Visibility.Visibility>()
  const permissions = new WeakMap<Permission.Permission, Permission.Permission>()
  const feedbacks = new WeakMap<SearchFeedback.Service, SearchFeedback.Service>()
  return {
    principal: principal.name,
    audited: (recorder) => ({
      ...recorder,
      reveal: (entry) => recorder.reveal({ ...entry, principal: principal.name }),
      intent: (entry) => recorder.intent({ ...entry, principal: principal.name }),
      call: (entry) => recorder.call({ ...entry, principal: principal.name })
    }),
    calls: CallGate.make(maxCalls, maxCalls * 4, `principal '${principal.name}' (maxPrincipalCalls ${maxCalls})`),
    within: (effect) =>
      Effect.gen(function*() {
        const sources = Option.getOrUndefined(yield* Sources)
        const servers = new Set(sources?.servers.map((s) => s.name) ?? [])
        const declared = (id: string) => sources?.origin(id)?.tool
        const baseVisibility = yield* Visibility.Visibility
        const basePermission = yield* Permission.Permission
        const baseFeedback = yield* SearchFeedback.SearchFeedback
        let visibility = visibilities.get(baseVisibility)
        if (visibility === undefined) {
          visibility = Principal.visibility(baseVisibility, policy, servers, declared)
          visibilities.set(baseVisibility, visibility)
        }
        let permission = permissions.get(basePermission)
        if (permission === undefined) {
          permission = Principal.permission(basePermission, policy, servers, declared)
          permissions.set(basePermission, permission)
        }
        let feedback = feedbacks.get(baseFeedback)
        if (feedback === undefined) {
          // kept under the principal's own name: it never moves another principal's ranking
          feedback = share ? baseFeedback : {
            ...baseFeedback,
            record: (evidence) => baseFeedback.record({ ...evidence, catalog: `${evidence.catalog}@${principal.name}` })
          }
          feedbacks.set(baseFeedback, feedback)
        }
        return yield* effect.pipe(
          Effect.provideService(Visibility.Visibility, visibility),
          Effect.provideService(Permission.Permission, permission),
          Effect.provideService(SearchFeedback.SearchFeedback, feedback)
        )
      })
  }
}

/** A principal's share of the gateway: the principal, its tenant, and its session quota. */
export interface Share {
  readonly principal: Principal.Principal
  readonly tenant: SessionTenant
  /** Sessions it may hold. */
  readonly quota: number
}

/**
 * The share of each principal, by token, and of the one principal of a gateway without tokens
 * (`anonymous`: every client is one trust domain, feedback shared).
 */
export const forPrincipals = (
  principals: ReadonlyArray<Principal.Principal>,
  defaults: { readonly maxCalls: number; readonly maxSessions: number; readonly shareFeedback: boolean }
): {
  readonly byToken: ReadonlyArray<Share & { readonly token: Redacted.Redacted<string> }>
  readonly anonymous: Share
} => {
  const share = (principal: Principal.Principal, shareFeedback: boolean): Share => ({
    principal,
    tenant: make(principal, { maxCalls: defaults.maxCalls, shareFeedback }),
    quota: principal.policy.maxSessions ?? defaults.maxSessions
  })
  return {
    byToken: principals.flatMap((p) => {
      const shared = share(p, defaults.shareFeedback)
      return p.tokens.map((token) => ({ ...shared, token }))
    }),
    anonymous: share(Principal.make(Principal.ANONYMOUS, []), true)
  }
}
