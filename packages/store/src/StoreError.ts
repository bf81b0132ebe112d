/**
 * A database operation that did not complete while the store was running: the database went away,
 * refused, or did not answer within `TOOL_SEARCH_DATABASE_TIMEOUT`. Opening the database has its
 * own error, `Database.DatabaseUnavailable`.
 *
 * What may pass is told apart from what will not (`retryable`): a lost connection, a server that
 * is starting up, shutting down or out of resources (a full disk, too many connections), a
 * serialization failure or a deadlock are transient, and the store holds the write and tries again;
 * a statement the server refuses for what it says (a constraint, a privilege, bad data) would be
 * refused again, and is not retried.
 *
 * @since 0.2.0
 */
import { Effect, Schema } from "effect"
import { isSqlError, type SqlError } from "effect/sql/SqlError"
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
  /** Whether trying again may succeed (the connection, a timeout, a passing server state); false for a refusal. */
  retryable: Schema.Boolean
}) {
  override get message(): string {
    return `The database ${this.database} did not complete ${this.operation}: ${this.reason}`
  }
}

/**
 * Bounds `effect` by the database's timeout and turns its SQL errors, the timeout, and a
 * transaction that could not even be rolled back (its connection is gone) into `StoreUnavailable`
 * for `operation`.
 *
 * @since 0.2.0
 * @category constructors
 */
export const guard =
  (database: Pick<Database.Service, "label" | "timeout">, operation: string) =>
  <A, R>(effect: Effect.Effect<A, SqlError, R>): Effect.Effect<A, StoreUnavailable, R> =>
    effect.pipe(
      // `withTransaction` dies when its rollback fails: the connection was lost inside the transaction
      Effect.catchDefect((defect) => isSqlError(defect) ? Effect.fail(defect) : Effect.die(defect)),
      Effect.timeout(database.timeout),
      Effect.mapError((e) =>
        new StoreUnavailable({
          database: database.label,
          operation,
          reason: e._tag === "TimeoutError" ? "no answer within the timeout" : describeSqlError(e),
          retryable: e._tag === "TimeoutError" || isTransient(e)
        })
      )
    )

/**
 * A SQL error as one line: the driver's message and, when the database said more, what it said
 * (`PgConnection: Query failed: division by zero`), with its SQLSTATE code when it gave one.
 *
 * @since 0.2.0
 * @category errors
 */
export const describeSqlError = (error: SqlError): string => {
  const cause: unknown = error.reason.cause
  const detail = cause instanceof Error ? cause.message : undefined
  const code = sqlState(error)
  const text = detail === undefined || detail === "" || error.message.includes(detail)
    ? error.message
    : `${error.message}: ${detail}`
  return code === undefined ? text : `${text} (SQLSTATE ${code})`
}

/**
 * The SQLSTATE code the server gave with the error, if it gave one.
 *
 * @since 0.2.0
 * @category errors
 */
export const sqlState = (error: SqlError): string | undefined => {
  const cause: unknown = error.reason.cause
  return typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string" &&
      /^[0-9A-Z]{5}$/.test(cause.code)
    ? cause.code
    : undefined
}

/**
 * SQLSTATE codes of passing server states, by class or exact code: connection exceptions (08),
 * insufficient resources (53: a full disk, out of memory, too many connections), the server
 * shutting down, crashed or starting up (57P01–57P03, 57P05 an idle session ended), a cancelled
 * statement (57014), a serialization failure or deadlock (40001, 40P01), a lock not available
 * (55P03), a system I/O error (58xxx), a transaction ended by an idle timeout (25P03).
 */
const TRANSIENT_CLASSES = ["08", "53", "58"]
const TRANSIENT_CODES = new Set(["57P01", "57P02", "57P03", "57P05", "57014", "40001", "40P01", "55P03", "25P03"])

/**
 * Whether trying `error` again may succeed: the server is away or in a passing state, or the
 * driver lost the connection. A statement the server refused for what it says is not transient.
 *
 * @since 0.2.0
 * @category errors
 */
export const isTransient = (error: SqlError): boolean => {
  const code = sqlState(error)
  if (code === undefined) return true // no answer from the server: the socket, the driver, a timeout
  return TRANSIENT_CLASSES.includes(code.slice(0, 2)) || TRANSIENT_CODES.has(code)
}
