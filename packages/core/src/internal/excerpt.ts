/**
 * Short excerpts of a text for the model: the window of about `width` characters holding the most
 * distinct query words, cut at word boundaries, whitespace collapsed, `…` where text was left out.
 * Without a query (or when no word is found), the beginning of the text.
 *
 * @internal
 */

const MAX_TERMS = 32
const MAX_HITS_PER_TERM = 200

/** The words of a query, lower-cased, two characters or more, each once. */
export const termsOf = (query: string): ReadonlyArray<string> => {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]{2,}/gu) ?? []
  return [...new Set(words)].slice(0, MAX_TERMS)
}

/** An excerpt of `text` of about `width` characters around the words of `query`. */
export const excerpt = (text: string, query: string | undefined, width: number): string => {
  const size = Math.max(20, Math.floor(width))
  if (text.length <= size) return collapse(text)
  const start = query === undefined ? 0 : bestWindow(text, termsOf(query), size)
  let from = start
  let to = Math.min(text.length, from + size)
  // cut at word boundaries (within a short distance), never mid-word when avoidable
  if (from > 0) {
    const space = text.slice(from, Math.min(to, from + 30)).search(/\s/)
    if (space >= 0) from += space + 1
  }
  if (to < text.length) {
    const tail = text.slice(Math.max(from, to - 30), to)
    const space = tail.search(/\s\S*$/)
    if (space >= 0) to = Math.max(from, to - 30) + space
  }
  return `${from > 0 ? "…" : ""}${collapse(text.slice(from, to))}${to < text.length ? "…" : ""}`
}

/** The start of the window of `size` characters holding the most distinct terms (earliest on ties). */
const bestWindow = (text: string, terms: ReadonlyArray<string>, size: number): number => {
  if (terms.length === 0) return 0
  const lower = text.toLowerCase()
  const hits: Array<{ readonly at: number; readonly term: number }> = []
  terms.forEach((term, i) => {
    let at = lower.indexOf(term)
    for (let n = 0; at >= 0 && n < MAX_HITS_PER_TERM; n++) {
      hits.push({ at, term: i })
      at = lower.indexOf(term, at + term.length)
    }
  })
  if (hits.length === 0) return 0
  hits.sort((a, b) => a.at - b.at)
  // two pointers over the hits: the window [hits[left].at, hits[left].at + size) with most distinct terms
  const counts = new Array<number>(terms.length).fill(0)
  let distinct = 0
  let best = { distinct: 0, at: 0 }
  let right = 0
  for (let left = 0; left < hits.length; left++) {
    const from = (hits[left] as { at: number }).at
    while (right < hits.length && (hits[right] as { at: number }).at + 1 <= from + size) {
      const t = (hits[right] as { term: number }).term
      if (counts[t] === 0) distinct++
      counts[t] = (counts[t] ?? 0) + 1
      right++
    }
    if (distinct > best.distinct) best = { distinct, at: from }
    const t = (hits[left] as { term: number }).term
    counts[t] = (counts[t] ?? 1) - 1
    if (counts[t] === 0) distinct--
  }
  // a little context before the first word
  return Math.max(0, Math.min(best.at - Math.floor(size / 5), text.length - size))
}

const collapse = (text: string): string => text.replace(/\s+/g, " ").trim()
