/**
 * A database operation that did not complete while the store was running: the database went away,
 * refused, or did not answer within `TOOL_SEARCH_DATABASE_TIMEOUT`. Opening the database has its
 * own error, `Database.DatabaseUnavailable`.
 *
 * @since 0.2.0
 */
import { Effect, Schema } from "effect"
import type { SqlError } from "effect/sql/SqlError"
import type * as Database from "./Database.js"

/**
 * An operation on the database failed or timed out.
 *
 * @since 0.2.0
 * @category errors
 */
export class StoreUnavailable extends Schema.TaggedError<StoreUnavailable>()("StoreUnavailable", {
  database: Schema.String,
  operation: Schema.String,
  reason: Schema.String,
  /** Whether trying again may succeed (the connection, a timeout); false for a statement the server refused. */
  retryable: Schema.Boolean
}) {
  override get message(): string {
    return `The database ${this.database} did not complete ${this.operation}: ${this.reason}`
  }
}

/**
 * Bounds `effect` by the database's timeout and turns its SQL errors and the timeout into
 * `StoreUnavailable` for `operation`.
 *
 * @since 0.2.0
 * @category constructors
 */
export const guard =
  (database: Database.Service, operation: string) =>
  <A, R>(effect: Effect.Effect<A, SqlError, R>): Effect.Effect<A, StoreUnavailable, R> =>
    effect.pipe(
      Effect.timeout(database.timeout),
      Effect.mapError((e) =>
        new StoreUnavailable({
          database: database.label,
          operation,
          reason: e._tag === "TimeoutError" ? "no answer within the timeout" : describeSqlError(e),
          retryable: e._tag === "TimeoutError" || e.isRetryable || !refusedByServer(e)
        })
      )
    )

/**
 * A SQL error as one line: the driver's message and, when the database said more, what it said
 * (`PgConnection: Query failed: division by zero`).
 *
 * @since 0.2.0
 * @category errors
 */
export const describeSqlError = (error: SqlError): string => {
  const cause: unknown = error.reason.cause
  const detail = cause instanceof Error ? cause.message : undefined
  return detail === undefined || detail === "" || error.message.includes(detail)
    ? error.message
    : `${error.message}: ${detail}`
}

/**
 * Whether the server itself refused the statement (its error carries a SQLSTATE code): trying again
 * would be refused again. Anything else — a lost socket, a client-side failure — may pass on a
 * later try.
 */
const refusedByServer = (error: SqlError): boolean => {
  const cause: unknown = error.reason.cause
  return typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string" &&
    /^[0-9A-Z]{5}$/.test(cause.code)
}
