/**
 * A gateway session's tool list as the client sees it: what `tools/list` answers (the tools its
 * unit shows now: eager tools, the search tools, the resource tools and `call_tool`, then the loaded
 * tools), what the client was last told, and `list_changed` announcements, sent only when the list
 * differs from what the client knows.
 *
 * @internal
 */
import { type ToolCatalog, Unit } from "@tool-search/core"
import { Duration, Effect, type Scope, Semaphore, Stream } from "effect"
import * as McpTool from "../McpTool.js"
import type { SessionView } from "./SessionView.js"

/** A session's tool list and what its client knows of it. */
export interface SessionToolList {
  /** The tools listed now, recorded as what the client knows (a `tools/list` answer). */
  readonly list: Effect.Effect<ReadonlyArray<McpTool.ListedTool>>
  /** Sends `list_changed` through `send` if the list differs from what the client knows. */
  readonly announce: (send: () => Promise<void>) => Effect.Effect<void>
  /**
   * Announces each catalog change at once, then waits `delay`: changes meanwhile are read as one
   * batch, one announcement (at most one per window). Started at once in the current scope, so
   * every change after the session opened reaches it.
   */
  readonly follow: (
    catalog: ToolCatalog.Service,
    delay: Duration.Input,
    send: () => Promise<void>
  ) => Effect.Effect<void, never, Scope.Scope>
}

/** The list of the session's unit. */
export const make = (view: Pick<SessionView, "inUnit">): Effect.Effect<SessionToolList> =>
  Effect.map(Semaphore.make(1), (lock) => {
    const listed = view.inUnit(Effect.map(Unit.tools, (visible) => visible.map(McpTool.toListed)))
    // What the client was last told (by a listing or an announcement); undefined before it listed.
    let known: string | undefined

    const list = lock.withPermits(1)(Effect.map(listed, (tools) => {
      known = JSON.stringify(tools)
      return tools
    }))

    const announce = (send: () => Promise<void>) =>
      lock.withPermits(1)(Effect.gen(function*() {
        const now = JSON.stringify(yield* listed)
        if (known === undefined || now === known) return
        known = now
        yield* Effect.promise(() => send().catch(() => undefined))
      }))

    const follow = (catalog: ToolCatalog.Service, delay: Duration.Input, send: () => Promise<void>) => {
      const wait = Duration.fromInputUnsafe(delay)
      return Effect.asVoid(catalog.changes.pipe(
        Stream.runForEachArray(() => Effect.andThen(announce(send), Effect.sleep(wait))),
        Effect.forkScoped({ startImmediately: true })
      ))
    }

    return { list, announce, follow }
  })
