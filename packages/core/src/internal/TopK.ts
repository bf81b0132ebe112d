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
  private readonly ids: Array<string>
  private readonly scores: Float64Array
  private size = 0
  constructor(readonly limit: number) {
    const n = Math.max(0, Math.floor(limit))
    this.ids = new Array<string>(n)
    this.scores = new Float64Array(n)
  }
  /**
   * The least score a hit needs to be kept now, whatever its id (a tie may still lose on the id):
   * 0 until `limit` hits are kept. Callers skip lower scores without even looking the id up.
   */
  floor(): number {
    return this.size < this.limit ? 0 : (this.scores[this.size - 1] as number)
  }
  /** Whether `offer(id, score)` would keep the hit now: lets callers skip costly checks first. */
  wouldKeep(id: string, score: number): boolean {
    if (this.limit <= 0 || !(score > 0)) return false
    return this.size < this.limit || this.before(id, score, this.size - 1)
  }
  /** Offers one scored id. */
  offer(id: string, score: number): void {
    if (!this.wouldKeep(id, score)) return
    let i = this.size === this.limit ? this.size - 1 : this.size++
    while (i > 0 && this.before(id, score, i - 1)) {
      this.scores[i] = this.scores[i - 1] as number
      this.ids[i] = this.ids[i - 1] as string
      i--
    }
    this.scores[i] = score
    this.ids[i] = id
  }
  /** Whether (id, score) ranks before the kept hit at `i`. */
  private before(id: string, score: number, i: number): boolean {
    const other = this.scores[i] as number // callers pass an index of a kept hit
    return score > other || (score === other && id < (this.ids[i] as string))
  }
  /** The kept hits, best first. */
  result(): ReadonlyArray<Hit> {
    const out: Array<Hit> = []
    for (let i = 0; i < this.size; i++) out.push({ id: this.ids[i] as string, score: this.scores[i] as number })
    return out
  }
}

/** Sorts hits best first, ties broken by id so results are deterministic. */
export const byScore = (a: Hit, b: Hit): number => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
