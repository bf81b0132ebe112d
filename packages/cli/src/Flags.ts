/**
 * Flags shared by the commands, and the one way a flag gets a default: `withDefault` writes the
 * default into the flag's help line, so `--help` shows every default (a test checks that no
 * command calls `Flag.withDefault` directly).
 *
 * @since 0.2.0
 */
import { Strategies } from "@tool-search/core"
import { Flag } from "effect/cli"

/**
 * Gives a flag its description and its default, shown in `--help` as `(default: …)`.
 *
 * @since 0.2.0
 * @category combinators
 */
export const withDefault =
  <const B>(value: B, description: string, shown: string = String(value)) =>
  <A>(self: Flag.Flag<A>): Flag.Flag<A | B> =>
    self.pipe(Flag.withDescription(`${description} (default: ${shown})`), Flag.withDefault(value))

/**
 * A boolean flag, off unless given.
 *
 * @since 0.2.0
 * @category constructors
 */
export const toggle = (name: string, description: string): Flag.Flag<boolean> =>
  Flag.Boolean(name).pipe(withDefault(false, description))

/**
 * A text flag given any number of times, none included, whose help line says when one is needed
 * (`needed`: `at least one server from --upstream or --config`) instead of `(required)`.
 *
 * @since 0.2.0
 * @category constructors
 */
export const repeatable = (name: string, description: string, needed: string): Flag.Flag<ReadonlyArray<string>> =>
  Flag.String(name).pipe(Flag.withDescription(`${description} (optional; ${needed}; repeat for more)`), Flag.atLeast(0))

/**
 * `--catalog <file>`: a catalog file, or `-` for standard input.
 *
 * @since 0.2.0
 * @category flags
 */
export const catalog = (name = "catalog"): Flag.Flag<string> =>
  Flag.String(name).pipe(
    Flag.withDescription("catalog file: JSONL, JSON array or MCP tools/list; '-' reads standard input")
  )

/**
 * `--strategy`: the search strategy.
 *
 * @since 0.2.0
 * @category flags
 */
export const strategy = Flag.Literals("strategy", Strategies.names).pipe(
  withDefault(Strategies.defaultName, "search strategy")
)

/**
 * `--sanitize-names`: rewrite names providers would reject instead of failing.
 *
 * @since 0.2.0
 * @category flags
 */
export const sanitizeNames = toggle(
  "sanitize-names",
  "rewrite tool names that providers would reject (e.g. 'getPM2.5Level') instead of failing"
)

/**
 * `--skip-invalid`: load a catalog with bad tools, listing each one left out on stderr.
 *
 * @since 0.2.0
 * @category flags
 */
export const skipInvalid = toggle(
  "skip-invalid",
  "leave out tools that cannot be loaded (each is listed on stderr) instead of failing"
)

/**
 * `--json`: one JSON object on stdout.
 *
 * @since 0.2.0
 * @category flags
 */
export const json = toggle("json", "print one JSON object")
