/**
 * The library's spans, emitted when they go somewhere: tracing is enabled (`References.TracerEnabled`)
 * and a tracer other than Effect's built-in one is installed (`@effect/opentelemetry`, a test's
 * recording tracer). Without one, a span is an object nothing reads, and on the executor's hot path
 * (a turn, each iteration, each tool call, each search) Effect's spans cost about 75 µs an iteration:
 * each one replaces the fiber's context twice and rebuilds its cache. Every span of tool-search goes
 * through `span`, so the rule holds on every surface (agent, gateway, code mode, resources).
 *
 * The choice is made where the span starts, from the fiber's context: a tracer installed for one
 * turn traces that turn.
 *
 * @since 0.3.0
 */
import { Effect, type Fiber, References, Tracer } from "effect"

/**
 * What a span carries: its attributes (a function is called only when the span is emitted).
 *
 * @since 0.3.0
 * @category models
 */
export interface Options {
  readonly attributes?: Record<string, unknown> | (() => Record<string, unknown>)
}

/**
 * Whether spans started on `fiber` go anywhere: tracing enabled and a tracer installed.
 *
 * @since 0.3.0
 * @category predicates
 */
export const isTracing = (fiber: Fiber.Fiber<unknown, unknown>): boolean =>
  fiber.getRef(References.TracerEnabled) && fiber.getRef(Tracer.Tracer) !== Tracer.nativeTracer

/**
 * Runs `self` in a span named `name` when a tracer is installed; otherwise runs it as it is.
 *
 * **Example**
 *
 * ```ts
 * const turn = step.pipe(Tracing.span("my-app.turn", { attributes: () => ({ session: id }) }))
 * ```
 *
 * @since 0.3.0
 * @category combinators
 */
export const span: {
  (name: string, options?: Options): <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  <A, E, R>(self: Effect.Effect<A, E, R>, name: string, options?: Options): Effect.Effect<A, E, R>
} = function() {
  if (typeof arguments[0] === "string") {
    const [name, options] = arguments as unknown as [string, Options | undefined]
    return <A, E, R>(self: Effect.Effect<A, E, R>) => spanned(self, name, options)
  }
  const [self, name, options] = arguments as unknown as [Effect.Effect<unknown, unknown, unknown>, string, Options?]
  return spanned(self, name, options)
} as never

const spanned = <A, E, R>(self: Effect.Effect<A, E, R>, name: string, options: Options | undefined) =>
  Effect.withFiber((fiber) => {
    if (!isTracing(fiber)) return self
    const attributes = typeof options?.attributes === "function" ? options.attributes() : options?.attributes
    // no stack trace: capturing one costs more than the span itself
    return Effect.withSpan(self, name, {
      captureStackTrace: false,
      ...(attributes === undefined ? {} : { attributes })
    })
  })

/**
 * Adds attributes to the current span, when spans are emitted (`annotateCurrentSpan`, under the same
 * rule as `span`); `values` is called only then.
 *
 * @since 0.3.0
 * @category combinators
 */
export const annotate = (values: () => Record<string, unknown>): Effect.Effect<void> =>
  Effect.withFiber((fiber) => isTracing(fiber) ? Effect.annotateCurrentSpan(values()) : Effect.void)
