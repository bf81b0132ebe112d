/**
 * Progress of long work on stderr. Work that ends within a second prints nothing; longer work
 * prints what it is doing after one second, then once a second with how far it got when known.
 * stdout stays the command's answer.
 *
 * @since 0.2.0
 */
import { Console, Duration, Effect, Fiber } from "effect"

/**
 * Where the work reports how far it got.
 *
 * @since 0.2.0
 * @category models
 */
export interface Reporter {
  readonly update: (done: number, total: number) => void
}

/**
 * How long work runs before its progress is shown, and the interval between lines.
 *
 * @since 0.2.0
 * @category constants
 */
export const interval: Duration.Duration = Duration.seconds(1)

/**
 * Runs `work`, showing `label` (and the reporter's last `done/total`) on stderr while it lasts
 * longer than `interval`.
 *
 * @since 0.2.0
 * @category combinators
 */
export const during = <A, E, R>(
  label: string,
  work: (reporter: Reporter) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> =>
  Effect.suspend(() => {
    let last: { readonly done: number; readonly total: number } | undefined
    const reporter: Reporter = { update: (done, total) => void (last = { done, total }) }
    const line = Effect.suspend(() =>
      Console.error(`tool-search: ${label}${last === undefined ? "" : ` ${last.done}/${last.total}`}…`)
    )
    const ticker = Effect.sleep(interval).pipe(Effect.andThen(line), Effect.forever)
    return Effect.flatMap(
      Effect.forkChild(ticker),
      (fiber) => Effect.ensuring(work(reporter), Fiber.interrupt(fiber))
    )
  })
