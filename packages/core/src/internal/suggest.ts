/**
 * "Did you mean": names close to one a model got wrong, for the corrective messages of unknown
 * tools and unknown resources.
 *
 * @internal
 */

/** Up to three names close to `name`: containment first, then small edit distances. */
export const suggest = (name: string, names: ReadonlyArray<string>): ReadonlyArray<string> => {
  const target = name.toLowerCase()
  const budget = Math.max(2, Math.floor(target.length / 3))
  const scored: Array<readonly [string, number]> = []
  for (const candidate of new Set(names)) {
    const lower = candidate.toLowerCase()
    if (lower === target) continue
    const contained = target.length >= 3 && (lower.includes(target) || target.includes(lower))
    const distance = contained ? 0 : editDistance(target, lower, budget)
    if (contained || distance <= budget) {
      scored.push([candidate, contained ? Math.abs(lower.length - target.length) / 100 : distance])
    }
  }
  scored.sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0]))
  return scored.slice(0, 3).map(([n]) => n)
}

/** Levenshtein distance, giving up (returning `budget + 1`) once it exceeds `budget`. */
const editDistance = (a: string, b: string, budget: number): number => {
  if (Math.abs(a.length - b.length) > budget) return budget + 1
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    let best = i
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      const value = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost)
      current.push(value)
      best = Math.min(best, value)
    }
    if (best > budget) return budget + 1
    previous = current
  }
  return previous[b.length] ?? budget + 1
}
