/**
 * A bound on requests in flight, fair by construction: at most `running` run at once, at most
 * `waiting` more wait for a place (first come, first served), and any further request is refused at
 * once with a `Refused` naming the bound and its setting — a client that floods its own gate waits
 * or is refused, and never takes the places of another gate (another session, another principal).
 *
 * @internal
 */
import { Effect, Schema, Semaphore } from "effect"

/**
 * A request refused because its gate was full.
 *
 * @internal
 */
export class Refused extends Schema.TaggedError<Refused>()("Refused", { reason: Schema.String }) {
  override get message(): string {
    return this.reason
  }
}

/** A gate. */
export interface CallGate {
  /** Runs `effect` when a place is free; refused at once when every place, running or waiting, is taken. */
  readonly run: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | Refused, R>
  /** Requests admitted now (running and waiting). */
  readonly admitted: () => number
}

/** A gate of `running` places and `waiting` more; `what` names it in refusals (`this session (maxSessionCalls 8, maxQueuedCalls 32)`). */
export const make = (running: number, waiting: number, what: string): CallGate => {
  const semaphore = Semaphore.makeUnsafe(Math.max(1, running))
  const capacity = Math.max(1, running) + Math.max(0, waiting)
  let admitted = 0
  return {
    run: <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.suspend((): Effect.Effect<A, E | Refused, R> => {
        if (admitted >= capacity) {
          return Effect.fail(
            new Refused({
              reason: `too many requests in flight for ${what}: ${running} running and ${waiting} waiting; ` +
                "retry when one has finished"
            })
          )
        }
        admitted++
        return semaphore.withPermits(1)(effect).pipe(Effect.ensuring(Effect.sync(() => void admitted--)))
      }),
    admitted: () => admitted
  }
}

/** A gate that admits everything (no bound configured). */
export const unbounded: CallGate = { run: (effect) => effect, admitted: () => 0 }
