/**
 * How a count the model asked for (`max_results`, `max`) becomes one the engine honours: the
 * search tools and the resource tools read it the same way.
 *
 * @internal
 */

/**
 * `requested` as a whole number in [1, limit]: numbers and numeric strings are floored and
 * clamped, anything else (absent, `null`, words) gives `fallback`, itself at most `limit`.
 */
export const count = (requested: unknown, fallback: number, limit: number): number => {
  const n = typeof requested === "number"
    ? requested
    : typeof requested === "string" && requested.trim() !== ""
    ? Number(requested)
    : Number.NaN
  if (!Number.isFinite(n)) return Math.min(fallback, limit)
  return Math.min(limit, Math.max(1, Math.floor(n)))
}
