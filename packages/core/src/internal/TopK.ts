/**
 * A bounded selection of the best hits, shared by the strategies.
 *
 * @internal
 */
import type { Hit } from "../SearchStrategy.js"

/**
 * Keeps the best `limit` hits of a stream of scores without sorting everything: a bounded
 * selection that stays cheap when a query matches most of a large catalog.
 */
export class TopK {
  // Parallel arrays, best first: no object per offer, and ids are compared only on equal scores.
  private readonly ids: Array<string> = []
  private readonly scores: Array<number> = []
  constructor(readonly limit: number) {}
  /** Whether `offer(id, score)` would keep the hit now: lets callers skip costly checks first. */
  wouldKeep(id: string, score: number): boolean {
    if (this.limit <= 0 || !(score > 0)) return false
    const n = this.ids.length
    if (n < this.limit) return true
    return this.before(id, score, n - 1)
  }
  /** Offers one scored id. */
  offer(id: string, score: number): void {
    if (!this.wouldKeep(id, score)) return
    const ids = this.ids
    const scores = this.scores
    if (ids.length === this.limit) {
      ids.pop()
      scores.pop()
    }
    let i = ids.length
    while (i > 0 && this.before(id, score, i - 1)) i--
    ids.splice(i, 0, id)
    scores.splice(i, 0, score)
  }
  /** Whether (id, score) ranks before the kept hit at `i`. */
  private before(id: string, score: number, i: number): boolean {
    const other = this.scores[i] as number // callers pass an index inside the arrays
    return score > other || (score === other && id < (this.ids[i] as string))
  }
  /** The kept hits, best first. */
  result(): ReadonlyArray<Hit> {
    return this.ids.map((id, i) => ({ id, score: this.scores[i] as number }))
  }
}
