/**
 * How found tools reach the model: the delivery strategy of a unit decides the tools of each
 * request and how the calls of a response are answered.
 *
 * - `list`: the visible tools, re-read for every request — what a search activates joins the list
 *   of the next request. Every activation changes the request from the tool list on, so a
 *   provider's prefix cache is lost from there.
 * - `result`: the tool list is the one of the unit's first request, plus the `call_tool`
 *   dispatcher, and never changes. Search results carry the found tools' schemas (as they always
 *   do); the model calls them through `call_tool`, which `UnitToolkit` unwraps into the direct call.
 * - `native`: the list is also fixed, and every deferred tool the agent may find is sent with it,
 *   marked `NativeDeferral.DeferLoading`; a search's result references the tools it loaded, and a
 *   provider that supports it (Anthropic) loads them from the reference. Calls are direct.
 * - `code`: the unit runs in code mode (`Unit.Code`): its list holds `ToolSearch` and
 *   `execute_code` and never the tools searches load; `ToolSearch` answers with their TypeScript
 *   declarations and the model calls them from a program, each call through `UnitToolkit` (marked
 *   `via: "execute_code"`). The list is re-read like `list`'s, and stays the same.
 */
import { Disclosure, NativeDeferral, Unit } from "@tool-search/core"
import { Effect, Option, Ref, Schema } from "effect"
import type { Prompt, Toolkit } from "effect/ai"
import type { Definition } from "../TokenCounter.js"
import * as UnitToolkit from "../UnitToolkit.js"
import * as Calls from "./calls.js"

/** The delivery modes. */
export const modes = ["list", "result", "native", "code"] as const

/** A delivery mode. */
export type Mode = (typeof modes)[number]

/** `native` delivery was asked of a language model that cannot defer tools. */
export class DeliveryUnsupported extends Schema.TaggedError<DeliveryUnsupported>()("DeliveryUnsupported", {
  provider: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `native delivery needs a provider that defers tools; ${this.provider} cannot: ${this.reason}. ` +
      "Use result delivery (a fixed tool list and call_tool, on any provider), or an anthropic: model."
  }
}

/** Checks that the language model can take `mode`: `native` needs `NativeDeferral.Support`. */
export const check = (
  mode: Mode,
  support: NativeDeferral.Capability
): Effect.Effect<void, DeliveryUnsupported> =>
  mode !== "native" || support.deferredTools
    ? Effect.void
    : Effect.fail(
      new DeliveryUnsupported({ provider: support.provider, reason: support.reason ?? "it does not say why" })
    )

/** The tools of one request. */
export interface Request {
  /** Sent in full, in this order. */
  readonly tools: ReadonlyArray<Unit.ModelTool>
  /** Sent deferred (`native` only): in the request, out of the model's context until referenced. */
  readonly deferred: ReadonlyArray<Definition>
}

/** The delivery strategy of one unit. */
export interface Delivery {
  readonly mode: Mode
  /** The tools of the unit's next request. */
  readonly request: Effect.Effect<Request, never, Unit.Unit>
  /** The request's tools as an `effect/ai` `Toolkit` whose handler runs each call through the unit's toolkit. */
  readonly toolkitOf: (
    tools: ReadonlyArray<Unit.ModelTool>,
    deferred: ReadonlyArray<Definition>
  ) => Toolkit.WithHandler<Record<string, Calls.AiTool>>
  /** Runs the calls of one response; the tool message that answers them. */
  readonly dispatch: (calls: ReadonlyArray<UnitToolkit.Call>) => Effect.Effect<Prompt.Prompt, never, Unit.Unit>
}

/**
 * The delivery of a unit whose calls run through `toolkit` (the unit offers the dispatcher under
 * `result`).
 */
export const make = (
  mode: Mode,
  toolkit: UnitToolkit.UnitToolkit
): Delivery => {
  const toolkitOf = (tools: ReadonlyArray<Unit.ModelTool>, deferred: ReadonlyArray<Definition>) =>
    Calls.toolkitOf(tools, toolkit.handle, deferred)
  // code: the unit keeps found tools out of its list, so the list re-read is the list kept
  if (mode === "list" || mode === "code") {
    return {
      mode,
      request: Effect.map(toolkit.tools, (tools) => ({ tools, deferred: [] })),
      toolkitOf,
      dispatch: toolkit.resolve
    }
  }
  // result and native: the first request's tools, for the whole unit
  const fixed = Ref.makeUnsafe(Option.none<Request>())
  const first = mode === "result"
    ? Effect.map(toolkit.tools, (tools): Request => ({ tools, deferred: [] }))
    : Effect.zipWith(toolkit.tools, Unit.searchable, (tools, searchable): Request => {
      const sent = new Set(tools.map((t) => t.name))
      return {
        tools,
        deferred: searchable.flatMap((t) =>
          sent.has(t.modelName) ? [] : [{ name: t.modelName, description: t.description, parameters: t.parameters }]
        )
      }
    })
  const request = Effect.flatMap(
    Ref.get(fixed),
    Option.match({
      onSome: Effect.succeed,
      onNone: () => Effect.tap(first, (r) => Ref.set(fixed, Option.some(r)))
    })
  )
  if (mode === "result") return { mode, request, toolkitOf, dispatch: toolkit.resolve }
  return {
    mode,
    request,
    toolkitOf,
    dispatch: (calls) =>
      Effect.zipWith(request, toolkit.run(calls), (sent, outcomes) => {
        const deferred = new Set(sent.deferred.map((t) => t.name))
        const inList = new Set(sent.tools.map((t) => t.name))
        return UnitToolkit.toPrompt(outcomes, (o) => {
          const names = referencesOf(o)
          // reference only what this request deferred; anything else found must already be in the list
          const loads = names.filter((n) => deferred.has(n))
          return loads.length > 0 && names.every((n) => deferred.has(n) || inList.has(n))
            ? NativeDeferral.references(loads)
            : undefined
        })
      })
  }
}

/** The tools a search outcome loaded: what ran `ToolSearch` or `discover_tools` found (browsing loads nothing). */
const referencesOf = (outcome: UnitToolkit.Outcome): ReadonlyArray<string> =>
  outcome.tool?.kind !== "meta" || outcome.isFailure || outcome.tool.name === Disclosure.toolNames.searchTools
    ? []
    : outcome.found ?? []
