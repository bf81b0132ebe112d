/**
 * What makes the demo's fake answers reproducible: a stopped clock and values derived from the
 * call itself (hashes of its canonical JSON), never randomness, I/O or the real time.
 *
 * @since 0.2.0
 */
import { CatalogTool } from "@tool-search/core"
import { Predicate } from "effect"

/**
 * The instant the demo's clock is stopped at, so time-dependent answers never change.
 *
 * @since 0.2.0
 * @category constants
 */
export const DEMO_NOW = "2025-06-02T09:30:00Z"

/**
 * A tool call's parameters, as the handler sees them.
 *
 * @since 0.2.0
 * @category models
 */
export type Params = Readonly<Record<string, unknown>>

/**
 * JSON with sorted keys, so `{a, b}` and `{b, a}` hash alike.
 *
 * @since 0.2.0
 * @category data
 */
export const canonical = (u: unknown): string => {
  if (Array.isArray(u)) return `[${u.map(canonical).join(",")}]`
  if (Predicate.isObject(u)) {
    return `{${Object.keys(u).sort().map((k) => `${JSON.stringify(k)}:${canonical(u[k])}`).join(",")}}`
  }
  return JSON.stringify(u) ?? "null"
}

/**
 * A stable 8-hex-digit tag of a call, for fake ids.
 *
 * @since 0.2.0
 * @category data
 */
export const tag = (...parts: ReadonlyArray<unknown>): string => CatalogTool.hash(canonical(parts))

/**
 * A stable number in [min, max] derived from a seed.
 *
 * @since 0.2.0
 * @category data
 */
export const pick = (seed: string, min: number, max: number): number =>
  min + (parseInt(CatalogTool.hash(seed).slice(0, 6), 16) % (max - min + 1))

/**
 * A string parameter, or `fallback`.
 *
 * @since 0.2.0
 * @category data
 */
export const text = (params: Params, key: string, fallback = ""): string => {
  const value = params[key]
  return typeof value === "string" ? value : fallback
}

/**
 * A number parameter, or `fallback`.
 *
 * @since 0.2.0
 * @category data
 */
export const count = (params: Params, key: string, fallback: number): number => {
  const value = params[key]
  return typeof value === "number" ? value : fallback
}
