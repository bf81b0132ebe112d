/**
 * The schemas of `Setting` that read a value from its written form: booleans with their usual
 * spellings, comma-separated lists, `*`.
 *
 * @internal
 */
import { Duration, Effect, Option, Result, Schema, SchemaGetter, SchemaIssue } from "effect"

const TRUE = new Set(["true", "yes", "on", "1", "y"])
const FALSE = new Set(["false", "no", "off", "0", "n"])

/** A boolean (`true/false`, `yes/no`, `on/off`, `1/0`, any case), or one of `words` (e.g. `auto`). */
export function booleanOr<const W extends ReadonlyArray<string>>(
  words: W
): Schema.ConstraintCodec<boolean | W[number], unknown> {
  type Value = boolean | W[number]
  const expected = `Expected ${[...words, "true", "false"].join(", ").replace(/, (?=[^,]*$)/, " or ")}`
  return fromString<Value>(
    Schema.Union([Schema.Boolean, ...words.map((w) => Schema.Literal(w))]),
    (raw) => {
      const v = raw.trim().toLowerCase()
      const word = words.find((w) => w === v)
      if (word !== undefined) return Result.succeed(word)
      if (TRUE.has(v)) return Result.succeed(true)
      if (FALSE.has(v)) return Result.succeed(false)
      return Result.fail(`${expected} (yes/no, on/off, 1/0 also work)`)
    },
    String
  )
}

/**
 * A list: comma-separated, items trimmed, empty items dropped. `*` is refused: list the names.
 * (A config file's JSON array reaches it joined by commas, see `provider`.)
 */
export const List: Schema.ConstraintCodec<ReadonlyArray<string>, unknown> = fromString<ReadonlyArray<string>>(
  Schema.Array(Schema.String),
  (raw) => {
    const items = splitList(raw)
    return items.includes("*") ? Result.fail("'*' is not a name here: list the names") : Result.succeed(items)
  },
  (items) => items.join(",")
)

/**
 * `*` alone (everything), or a list as `List` reads it.
 */
export const ListOrAll: Schema.ConstraintCodec<ReadonlyArray<string> | "*", unknown> = fromString<
  ReadonlyArray<string> | "*"
>(
  Schema.Union([Schema.Literal("*"), Schema.Array(Schema.String)]),
  (raw): Result.Result<ReadonlyArray<string> | "*", string> => {
    const items = splitList(raw)
    if (items.length === 1 && items[0] === "*") return Result.succeed("*")
    return items.includes("*") ? Result.fail("'*' stands alone: either '*' or a list") : Result.succeed(items)
  },
  (value) => value === "*" ? "*" : value.join(",")
)

/**
 * A value read from its written form by `parse` (the value, or the reason it was refused) and
 * written back by `format`.
 */
export function fromString<A>(
  to: Schema.Codec<A>,
  parse: (raw: string) => Result.Result<A, string>,
  format: (value: A) => string
): Schema.Codec<A, string> {
  return Schema.String.pipe(
    Schema.decodeTo(to, {
      decode: SchemaGetter.transformEffect((raw: string): Effect.Effect<A, SchemaIssue.Issue> =>
        Result.match(parse(raw), {
          onSuccess: Effect.succeed,
          onFailure: (message) => Effect.fail(new SchemaIssue.InvalidValue({ message }))
        })
      ),
      encode: SchemaGetter.transform(format)
    })
  )
}

/** A positive, finite duration written as `Duration` reads it (`30 seconds`, `5 minutes`). */
export const PositiveDuration: Schema.ConstraintCodec<Duration.Duration, unknown> = fromString<Duration.Duration>(
  Schema.Duration,
  (raw) => {
    const d = Schema.decodeUnknownOption(Schema.DurationFromString)(raw.trim())
    return Option.isSome(d) && Duration.isFinite(d.value) && Duration.toMillis(d.value) > 0
      ? Result.succeed(d.value)
      : Result.fail("Expected a positive duration, e.g. 30 seconds or 5 minutes")
  },
  (d) => `${Duration.toMillis(d)} millis`
)

const splitList = (raw: string): Array<string> => raw.split(",").map((s) => s.trim()).filter((s) => s !== "")

/** When tools are deferred: `always`, `never`, or `auto:N` (`auto` alone: `fallback`) as the number N. */
export const Defer = (fallback: number): Schema.ConstraintCodec<"always" | "never" | number, unknown> =>
  fromString<"always" | "never" | number>(
    Schema.Union([Schema.Literals(["always", "never"]), Schema.Int]),
    (raw) => {
      const v = raw.trim().toLowerCase()
      if (v === "always" || v === "never") return Result.succeed(v)
      if (v === "auto") return Result.succeed(fallback)
      const n = /^auto:(\d{1,6})$/.exec(v)?.[1]
      return n === undefined
        ? Result.fail("Expected always, never, auto or auto:N (N tools or more are deferred)")
        : Result.succeed(Number(n))
    },
    (value) => typeof value === "number" ? `auto:${value}` : value
  )

/** A finite number from `minimum` to `maximum`. */
export const NumberBetween = (minimum: number, maximum: number): Schema.Codec<number> =>
  Schema.Finite.check(Schema.isBetween({ minimum, maximum }))
