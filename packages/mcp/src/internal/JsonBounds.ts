/**
 * Bounds on a JSON value received from a client: how deep it nests and how large it is written as
 * JSON. The walk is iterative (a value nested 100,000 levels deep cannot overflow the stack while
 * it is measured) and stops as soon as a bound is passed, so measuring costs at most the bound.
 *
 * @internal
 */

/** The bounds. */
export interface Bounds {
  readonly maxBytes: number
  readonly maxDepth: number
}

/** Which bound a value passed, with the numbers for the message. */
export type Exceeded =
  | { readonly _tag: "Depth"; readonly maxDepth: number }
  | { readonly _tag: "Bytes"; readonly maxBytes: number; readonly atLeast: number }

/**
 * Checks `value` against `bounds`; `undefined` when it is within them. Sizes are UTF-8 bytes of
 * the value written as compact JSON (within a few bytes for escaped characters).
 */
export const exceeds = (value: unknown, bounds: Bounds): Exceeded | undefined => {
  let bytes = 0
  const stack: Array<readonly [unknown, number]> = [[value, 1]]
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as readonly [unknown, number] // length > 0
    if (typeof current === "string") {
      bytes += Buffer.byteLength(current, "utf8") + 2
    } else if (typeof current === "number" || typeof current === "boolean" || current === null) {
      bytes += String(current).length
    } else if (typeof current === "object") {
      if (depth > bounds.maxDepth) return { _tag: "Depth", maxDepth: bounds.maxDepth }
      if (Array.isArray(current)) {
        bytes += 2 + Math.max(0, current.length - 1)
        for (const item of current) stack.push([item, depth + 1])
      } else {
        const entries = Object.entries(current as Record<string, unknown>)
        bytes += 2 + Math.max(0, entries.length - 1)
        for (const [key, item] of entries) {
          bytes += Buffer.byteLength(key, "utf8") + 3
          stack.push([item, depth + 1])
        }
      }
    }
    if (bytes > bounds.maxBytes) return { _tag: "Bytes", maxBytes: bounds.maxBytes, atLeast: bytes }
  }
  return undefined
}
