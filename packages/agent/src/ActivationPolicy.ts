/**
 * What a new turn starts with. By default (`turn`) nothing carries over: every turn has a fresh,
 * empty activation, as the lifetime of activation is one execution unit. Agents that prefer fewer
 * searches over cold starts choose another policy explicitly:
 *
 * - `session`: everything activated in earlier turns of the session (a `SessionStore` keeps it).
 * - `latest`: only what the previous turn's searches returned.
 * - `history`: rebuilt from the message history's earlier search results — stateless, so any
 *   process can serve the next turn of a conversation.
 *
 * @since 0.1.0
 */
import { Disclosure, type ToolCatalog } from "@tool-search/core"
import { Effect, Option, Predicate, Schema } from "effect"
import type { Prompt } from "effect/ai"
import type { Service as SessionStoreService, State } from "./SessionStore.js"

/**
 * All policies, in documentation order.
 *
 * @since 0.1.0
 * @category constants
 */
export const policies = ["turn", "session", "latest", "history"] as const

/**
 * An activation policy, as `TOOL_SEARCH_ACTIVATION` names it.
 *
 * @since 0.1.0
 * @category models
 */
export type Policy = typeof policies[number]

/**
 * What a turn carried over and what it did, to be recorded.
 *
 * @since 0.1.0
 * @category models
 */
export interface TurnRecord {
  /** Ids active at the end of the turn, in activation order. */
  readonly active: ReadonlyArray<string>
  /** Ids returned by this turn's searches, in order. */
  readonly searched: ReadonlyArray<string>
}

/**
 * The ids a turn starts with.
 *
 * @since 0.1.0
 * @category policy
 */
export const initial = (
  policy: Policy,
  options: {
    readonly sessionId: string | undefined
    readonly prompt: Prompt.Prompt
    readonly store: SessionStoreService
    readonly catalog: ToolCatalog.Service
  }
): Effect.Effect<ReadonlyArray<string>> => {
  const { catalog, prompt, sessionId, store } = options
  switch (policy) {
    case "turn":
      return Effect.succeed([])
    case "history":
      return Effect.succeed(fromHistory(prompt, catalog))
    case "session":
    case "latest":
      if (sessionId === undefined) return Effect.succeed([])
      return Effect.map(store.get(sessionId), (state) =>
        Option.match(state, {
          onNone: () => [],
          onSome: (s) => policy === "session" ? s.accumulated : s.latest
        }))
  }
}

/**
 * Records a finished turn for the next one (a no-op for `turn` and `history`).
 *
 * @since 0.1.0
 * @category policy
 */
export const record = (
  policy: Policy,
  options: {
    readonly sessionId: string | undefined
    readonly store: SessionStoreService
    readonly turn: TurnRecord
  }
): Effect.Effect<void> => {
  const { sessionId, store, turn } = options
  if (sessionId === undefined || policy === "turn" || policy === "history") return Effect.void
  return Effect.flatMap(store.get(sessionId), (previous) => {
    const before = Option.getOrElse(previous, (): State => ({ accumulated: [], latest: [] }))
    return store.put(sessionId, {
      accumulated: [...new Set([...before.accumulated, ...turn.active])],
      latest: [...new Set(turn.searched)]
    })
  })
}

// The answers of the search tools, as the executor records them in the history.
const FunctionsAnswer = Schema.Struct({ functions: Schema.Array(Schema.Struct({ name: Schema.String })) })
const DiscoveryAnswer = Schema.Struct({ tools: Schema.Array(Schema.Struct({ name: Schema.String })) })
const decodeFunctions = Schema.decodeUnknownOption(FunctionsAnswer)
const decodeDiscovery = Schema.decodeUnknownOption(DiscoveryAnswer)

/**
 * The ids that earlier `ToolSearch` / `discover_tools` results in the history loaded, in order.
 * Results are decoded defensively (a provider may hand them back as JSON text); names that no
 * longer resolve are skipped.
 *
 * @since 0.1.0
 * @category policy
 */
export const fromHistory = (
  prompt: Prompt.Prompt,
  catalog: ToolCatalog.Service
): ReadonlyArray<string> => {
  // a search the model ran through `call_tool` (result delivery) is answered under that name
  const dispatched = new Map<string, string>()
  for (const message of prompt.content) {
    if (message.role !== "assistant") continue
    for (const part of message.content) {
      if (part.type !== "tool-call" || part.name !== Disclosure.toolNames.callTool) continue
      const params: unknown = part.params
      if (Predicate.isObject(params) && typeof params["name"] === "string") dispatched.set(part.id, params["name"])
    }
  }
  const ids: Array<string> = []
  for (const message of prompt.content) {
    if (message.role !== "tool") continue
    for (const part of message.content) {
      if (part.type !== "tool-result" || part.isFailure) continue
      const names = namesIn(
        part.name === Disclosure.toolNames.callTool ? dispatched.get(part.id) ?? part.name : part.name,
        part.result
      )
      for (const name of names) {
        const tool = catalog.findByNameUnsafe(name)
        if (tool !== undefined && tool.loading === "deferred") ids.push(tool.id)
      }
    }
  }
  return [...new Set(ids)]
}

const namesIn = (tool: string, result: unknown): ReadonlyArray<string> => {
  const value = typeof result === "string" ? parseJson(result) : result
  if (tool === Disclosure.toolNames.toolSearch) {
    return Option.match(decodeFunctions(value), { onNone: () => [], onSome: (a) => a.functions.map((f) => f.name) })
  }
  if (tool === Disclosure.toolNames.discoverTools) {
    return Option.match(decodeDiscovery(value), { onNone: () => [], onSome: (a) => a.tools.map((t) => t.name) })
  }
  return []
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
