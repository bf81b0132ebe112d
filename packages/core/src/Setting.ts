/**
 * One setting of the library, declared once: its key, the environment variable and command-line
 * flag derived from that key, the `Schema` its value decodes with, its default and its
 * documentation.
 *
 * Each package declares its settings as a table (a record of `Setting`s). The same table gives the
 * `Config` that reads them, the documentation table (`markdownTable`), the flags of a command and
 * one precedence for every source: command-line flags, then a config file, then the environment,
 * then the defaults (`read`).
 *
 * Values are decoded with Effect's `Config.schema`, so `Schema.Int`, `Schema.Literals` or
 * `Schema.BooleanLiterals`-style schemas read from strings and from JSON alike; an unset or empty
 * variable takes its default; an invalid value is a `ConfigError` that `explain` turns into one line
 * naming the variable, the value and what was expected.
 *
 * @since 0.2.0
 */
import { Config, ConfigProvider, type Duration, Effect, Option, type Result, Schema, SchemaIssue } from "effect"
import * as Schemas from "./internal/settingSchemas.js"
import { suggest } from "./internal/suggest.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * What every setting has, whatever the type of its value.
 *
 * @since 0.2.0
 * @category models
 */
export interface Any {
  /** The camelCase key, as a config file writes it (`maxResults`). */
  readonly key: string
  /** The environment variable (`TOOL_SEARCH_MAX_RESULTS`). */
  readonly env: string
  /** The command-line flag, without dashes (`max-results`). */
  readonly flag: string
  /** How a value decodes from its written form (environment, flag, config file). */
  readonly schema: Schema.ConstraintCodec<unknown, unknown>
  /** The value when no source sets it. */
  readonly default: unknown
  /** The accepted values, for people. */
  readonly values: string
  /** The default, as people would write it (may say what it depends on). */
  readonly defaultText: string
  /** What the setting does, in a few words. */
  readonly description: string
  /** The setting as read from the `ConfigProvider` in context: `None` when no source sets it. */
  readonly option: Config.Config<Option.Option<unknown>>
  /** The setting with its default applied. */
  readonly config: Config.Config<unknown>
}

/**
 * A setting whose value is an `A`.
 *
 * @since 0.2.0
 * @category models
 */
export interface Setting<A> extends Any {
  readonly schema: Schema.ConstraintCodec<A, unknown>
  readonly default: A
  readonly option: Config.Config<Option.Option<A>>
  readonly config: Config.Config<A>
}

/**
 * A table of settings, keyed by their camelCase keys.
 *
 * @since 0.2.0
 * @category models
 */
export type Table = Readonly<Record<string, Any>>

/**
 * The values of a table, each `None` when no source set it.
 *
 * @since 0.2.0
 * @category models
 */
export type Options<T extends Table> = { readonly [K in keyof T]: Option.Option<ValueOf<T[K]>> }

/**
 * The values of a table with every default applied.
 *
 * @since 0.2.0
 * @category models
 */
export type Values<T extends Table> = { readonly [K in keyof T]: ValueOf<T[K]> }

/**
 * The type of a setting's value.
 *
 * @since 0.2.0
 * @category models
 */
export type ValueOf<S> = S extends Setting<infer A> ? A : never

// -----------------------------------------------------------------------------
// Constructors
// -----------------------------------------------------------------------------

/** The prefix of every environment variable. */
const PREFIX = "TOOL_SEARCH_"

/**
 * Declares a setting. The environment variable is `TOOL_SEARCH_` plus the key in CONSTANT_CASE,
 * the flag is the key in kebab-case.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = <A>(key: string, options: {
  readonly schema: Schema.ConstraintCodec<A, unknown>
  readonly default: NoInfer<A>
  readonly values: string
  readonly defaultText?: string
  readonly description: string
}): Setting<A> => {
  const env = PREFIX + words(key).map((w) => w.toUpperCase()).join("_")
  const option = Config.option(Config.schema(options.schema, env))
  return {
    key,
    env,
    flag: words(key).join("-"),
    schema: options.schema,
    default: options.default,
    values: options.values,
    defaultText: options.defaultText ?? String(options.default),
    description: options.description,
    option,
    config: Config.map(option, Option.getOrElse(() => options.default))
  }
}

const words = (key: string): Array<string> => key.split(/(?=[A-Z])/).map((w) => w.toLowerCase())

// -----------------------------------------------------------------------------
// Schemas for common values
// -----------------------------------------------------------------------------

/**
 * A boolean: `true/false`, `yes/no`, `on/off`, `1/0`, any case.
 *
 * @since 0.2.0
 * @category schemas
 */
export const Boolean: Schema.ConstraintCodec<boolean, unknown> = Schemas.booleanOr([])

/**
 * An integer of at least `minimum`, and at most `maximum` when given.
 *
 * @since 0.3.0
 * @category schemas
 */
export const Int = (minimum: number, maximum?: number): Schema.ConstraintCodec<number, unknown> =>
  Schema.Int.check(
    maximum === undefined ? Schema.isGreaterThanOrEqualTo(minimum) : Schema.isBetween({ minimum, maximum })
  )

/**
 * One of `choices`.
 *
 * @since 0.2.0
 * @category schemas
 */
export const Choice = <const L extends ReadonlyArray<string>>(choices: L): Schema.ConstraintCodec<L[number], unknown> =>
  Schema.Literals(choices)

/**
 * A list: comma-separated, items trimmed, empty items dropped. `*` is refused: list the names.
 * (A config file's JSON array reaches it joined by commas, see `read`.)
 *
 * @since 0.2.0
 * @category schemas
 */
export const List: Schema.ConstraintCodec<ReadonlyArray<string>, unknown> = Schemas.List

/**
 * A positive, finite duration, written as `Duration` reads it (`30 seconds`, `5 minutes`).
 *
 * @since 0.2.0
 * @category schemas
 */
export const PositiveDuration: Schema.ConstraintCodec<Duration.Duration, unknown> = Schemas.PositiveDuration

/**
 * A value read from its written form by `parse` (the value, or the reason it was refused) and
 * written back by `format`.
 *
 * @since 0.2.0
 * @category schemas
 */
export const fromString: <A>(
  to: Schema.Codec<A>,
  parse: (raw: string) => Result.Result<A, string>,
  format: (value: A) => string
) => Schema.Codec<A, string> = Schemas.fromString

// -----------------------------------------------------------------------------
// Reading
// -----------------------------------------------------------------------------

/**
 * Every setting of a table, `None` when unset: the input of a package's own defaults and checks
 * across settings.
 *
 * @since 0.2.0
 * @category reading
 */
export const options = <T extends Table>(table: T): Config.Config<Options<T>> =>
  Config.all(Object.fromEntries(Object.entries(table).map(([k, s]) => [k, s.option]))) as unknown as Config.Config<
    Options<T>
  >

/**
 * Every setting of a table with its default applied.
 *
 * @since 0.2.0
 * @category reading
 */
export const values = <T extends Table>(table: T): Config.Config<Values<T>> =>
  Config.all(Object.fromEntries(Object.entries(table).map(([k, s]) => [k, s.config]))) as unknown as Config.Config<
    Values<T>
  >

/**
 * The sources of settings besides the defaults: `flags` and `file` are keyed by setting key
 * (`maxResults`); `environment` replaces the `ConfigProvider` in context.
 *
 * @since 0.3.0
 * @category reading
 */
export interface Sources {
  readonly flags?: Readonly<Record<string, unknown>>
  readonly file?: Readonly<Record<string, unknown>>
  readonly environment?: Readonly<Record<string, string>>
}

/** The `ConfigProvider` of `read`'s precedence over `sources`. */
const provider = (tables: ReadonlyArray<Table>, sources: Sources): Effect.Effect<ConfigProvider.ConfigProvider> =>
  Effect.map(Effect.service(ConfigProvider.ConfigProvider), (current) => {
    const byEnv = (values: Readonly<Record<string, unknown>> | undefined) => {
      const out: Record<string, unknown> = {}
      if (values === undefined) return out
      for (const table of tables) {
        for (const setting of Object.values(table)) {
          const value = values[setting.key]
          // every setting reads its written form: a JSON array is a comma-separated list
          if (value !== undefined) out[setting.env] = Array.isArray(value) ? value.join(",") : value
        }
      }
      return out
    }
    const explicit = (values: Readonly<Record<string, unknown>> | undefined) =>
      ConfigProvider.fromUnknown(byEnv(values), { preserveEmptyStrings: true })
    const env = sources.environment === undefined ? current : ConfigProvider.fromEnv({ env: sources.environment })
    return explicit(sources.flags).pipe(
      ConfigProvider.orElse(explicit(sources.file)),
      ConfigProvider.orElse(env)
    )
  })

/**
 * Reads `config` in the one precedence of every source: `flags`, then `file`, then the environment
 * (the `ConfigProvider` in context, or `environment` when given), then the defaults (which the
 * settings apply). Absent or `undefined` entries of `flags` and `file` fall through to the next
 * source, while an explicit empty string is a value (`--allow ""`).
 *
 * @since 0.2.0
 * @category reading
 */
export const read = <A>(
  config: Config.Config<A>,
  tables: ReadonlyArray<Table>,
  sources: Sources
): Effect.Effect<A, Config.ConfigError> => Effect.flatMap(provider(tables, sources), (p) => config.parse(p))

/**
 * Checks the values one source gives (flags, a config file) before they join the precedence, so
 * that an error names the source's own spelling: `label(setting)` (e.g. `--max-results` or
 * `gateway.json: maxResults`) instead of the environment variable.
 *
 * @since 0.2.0
 * @category reading
 */
export const check = (
  tables: ReadonlyArray<Table>,
  values: Readonly<Record<string, unknown>>,
  label: (setting: Any) => string
): Effect.Effect<void, Config.ConfigError> =>
  Effect.forEach(
    tables.flatMap((t) => Object.values(t)),
    (setting) => {
      const raw = values[setting.key]
      if (raw === undefined) return Effect.void
      const value = Array.isArray(raw) ? raw.join(",") : raw
      const shown = `${label(setting)}=${JSON.stringify(value)}`
      return Config.schema(setting.schema as Schema.ConstraintCodec<unknown, unknown>, shown).parse(
        ConfigProvider.fromUnknown({ [shown]: value }, { preserveEmptyStrings: true })
      ).pipe(Effect.asVoid)
    },
    { discard: true }
  )

// -----------------------------------------------------------------------------
// Errors
// -----------------------------------------------------------------------------

/**
 * A configuration error as one line for people: the variable (or key) and what was expected.
 *
 * @since 0.2.0
 * @category errors
 */
export const explain = (error: Config.ConfigError): string => {
  const cause = error.cause
  if (!Schema.isSchemaError(cause)) return error.message
  const issue = cause.issue
  if (issue._tag !== "Pointer") return firstLine(formatter(issue))
  return `${issue.path.map(String).join(".")}: ${firstLine(formatter(issue.issue))}`
}

/**
 * A `ConfigError` naming `name` with `reason`, for checks across settings.
 *
 * @since 0.2.0
 * @category errors
 */
export const invalid = (name: string, reason: string): Config.ConfigError =>
  new Config.ConfigError(
    new Schema.SchemaError(new SchemaIssue.Pointer([name], new SchemaIssue.InvalidValue({ message: reason })))
  )

const formatter = SchemaIssue.makeFormatterDefault()
const firstLine = (text: string): string => text.split("\n")[0] ?? ""

// -----------------------------------------------------------------------------
// Documentation
// -----------------------------------------------------------------------------

/**
 * The documentation table of settings, in Markdown: variable, flag, config-file key, values, default,
 * description.
 *
 * @since 0.2.0
 * @category documentation
 */
export const markdownTable = (tables: ReadonlyArray<Table>): string => {
  const escape = (s: string) => s.replaceAll("|", "\\|")
  const rows = tables.flatMap((t) => Object.values(t)).map((s) =>
    `| \`${s.env}\` | \`--${s.flag}\` | \`${s.key}\` | ${escape(s.values)} | ${escape(s.defaultText)} | ${
      escape(s.description)
    } |`
  )
  return ["| variable | flag | file key | values | default | what it does |", "|---|---|---|---|---|---|", ...rows]
    .join(
      "\n"
    )
}

/**
 * The key of `known` closest to a misspelt `key` (containment first, then small edit distances),
 * for a config file's "did you mean"; `undefined` when none is close.
 *
 * @since 0.2.0
 * @category reading
 */
export const closestKey = (key: string, known: ReadonlyArray<string>): string | undefined => suggest(key, known)[0]
