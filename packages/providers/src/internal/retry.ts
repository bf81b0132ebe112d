/**
 * Bounded retries of a provider request that failed for a passing reason: a status that says
 * "try again" (408, 409, 429, 500, 502, 503, 504, Anthropic's 529 overloaded) or a transport failure
 * (connection refused or reset, no answer within the timeout). Any other failure — 400, 401, 403,
 * 404, 422, an answer of the wrong shape — fails at once: sending it again cannot fix it.
 *
 * The wait before a retry is what the server asked for (`retry-after-ms`, or `Retry-After` in
 * seconds or as an HTTP date), at most `maxHint`; otherwise an exponential backoff from
 * `baseDelay`, doubling, with ±20% jitter, at most `maxBackoff` per wait. The error after the last
 * attempt is the last attempt's, its message naming the status and how many attempts were made.
 */
import { Duration, Effect, Result, Schedule } from "effect"
import { AiError } from "effect/ai"
import { Headers } from "effect/http"

/** The statuses worth another attempt. */
export const transientStatuses: ReadonlySet<number> = new Set([408, 409, 429, 500, 502, 503, 504, 529])

/** The first backoff; each next one doubles. */
export const baseDelay = Duration.millis(500)
/** The longest backoff between two attempts. */
export const maxBackoff = Duration.seconds(8)
/** The longest wait a server's `Retry-After` gets: a longer one is cut to this. */
export const maxHint = Duration.seconds(60)

/** The response headers a retry reads; the error's HTTP context keeps them (and no other). */
export const hintHeaders = ["retry-after", "retry-after-ms"] as const

/** The HTTP status of a failure, when it was an answer. */
export const statusOf = (error: AiError.AiError): number | undefined => {
  const reason = error.reason
  return "http" in reason ? reason.http?.response?.status : undefined
}

/** Whether another attempt could succeed where this one failed. */
export const isTransient = (error: AiError.AiError): boolean => {
  const status = statusOf(error)
  if (status !== undefined) return transientStatuses.has(status)
  return error.reason._tag === "NetworkError" && error.reason.reason === "TransportError"
}

/** The wait the server asked for, at most `maxHint`; `undefined` when it named none. */
export const hintOf = (error: AiError.AiError, now: number): Duration.Duration | undefined => {
  const reason = error.reason
  const headers = "http" in reason ? reason.http?.response?.headers : undefined
  const text = (name: string): string | undefined => {
    const value = headers?.[name]
    return typeof value === "string" ? value : undefined
  }
  const ms = Number(text("retry-after-ms") ?? Number.NaN)
  if (Number.isFinite(ms) && ms >= 0) return Duration.min(Duration.millis(ms), maxHint)
  const header = text("retry-after")
  if (header === undefined) return undefined
  const parsed = Headers.parseRetryAfter(header)
  return Result.isSuccess(parsed) ? Duration.min(Headers.retryAfterDelay(parsed.success, now), maxHint) : undefined
}

/** The waits between attempts: the server's hint, or the jittered exponential backoff. */
const waits: Schedule.Schedule<Duration.Duration, AiError.AiError> = Schedule.exponential(baseDelay).pipe(
  Schedule.jittered,
  Schedule.setInputType<AiError.AiError>(),
  Schedule.modifyDelay(({ input, duration, now }) =>
    Effect.succeed(hintOf(input, now) ?? Duration.min(duration, maxBackoff))
  )
)

/**
 * The last attempt's error, its message naming the status and the attempts: the reason (and so
 * `_tag`, `isRetryable`, `retryAfter`) is the provider's, unchanged.
 */
export class RetriesExhausted extends AiError.AiError {
  /** How many attempts were made. */
  readonly attempts: number
  constructor(error: AiError.AiError, attempts: number) {
    super({ module: error.module, method: error.method, reason: error.reason })
    this.attempts = attempts
  }
  override get message(): string {
    const status = statusOf(this)
    const what = status === undefined ? "" : `HTTP ${status}, `
    return `${super.message} (${what}gave up after ${this.attempts} attempts)`
  }
}

/**
 * `attempt` once, then up to `retries` times more while it fails for a passing reason; the
 * failure after more than one attempt is a `RetriesExhausted`.
 */
export const withRetries = <A>(
  attempt: Effect.Effect<A, AiError.AiError>,
  retries: number
): Effect.Effect<A, AiError.AiError> => {
  if (retries <= 0) return attempt
  return Effect.suspend(() => {
    let attempts = 0
    return Effect.suspend(() => {
      attempts++
      return attempt
    }).pipe(
      Effect.retry({ schedule: waits, times: retries, while: isTransient }),
      Effect.mapError((error) => attempts > 1 ? new RetriesExhausted(error, attempts) : error)
    )
  })
}
