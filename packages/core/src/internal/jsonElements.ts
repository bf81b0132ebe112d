/**
 * Where the elements of one array of a JSON text start, found in a single pass over the text: the
 * line of each element of the array reached by `path` (object keys from the root; `[]` is a
 * root array). The text must already be valid JSON (`JSON.parse` accepted it), so the scan only
 * tracks nesting, skips strings and counts line breaks: linear in the size of the text, whatever
 * the elements hold (a name that recurs in a later tool no longer confuses it).
 */

const QUOTE = 34
const BACKSLASH = 92
const OPEN_OBJECT = 123
const CLOSE_OBJECT = 125
const OPEN_ARRAY = 91
const CLOSE_ARRAY = 93
const COMMA = 44
const NEWLINE = 10

const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 10 || c === 13

interface Frame {
  readonly array: boolean
  /** The key whose value is being read (objects). */
  key: string | undefined
  /** The next string is a key (objects). */
  expectKey: boolean
  /** The array `path` names. */
  readonly target: boolean
  /** The next non-space character starts an element (arrays). */
  expectElement: boolean
}

/** The offset of the quote closing the string that opens at `start`. */
const stringEnd = (text: string, start: number): number => {
  let at = start + 1
  for (;;) {
    const quote = text.indexOf("\"", at)
    if (quote < 0) return text.length - 1
    let backslashes = 0
    for (let k = quote - 1; text.charCodeAt(k) === BACKSLASH; k--) backslashes++
    if (backslashes % 2 === 0) return quote
    at = quote + 1
  }
}

const keyOf = (raw: string): string => {
  if (!raw.includes("\\")) return raw.slice(1, -1)
  const decoded: unknown = JSON.parse(raw)
  return typeof decoded === "string" ? decoded : raw
}

const isPath = (stack: ReadonlyArray<Frame>, path: ReadonlyArray<string>): boolean =>
  stack.length === path.length && stack.every((frame, i) => !frame.array && frame.key === path[i])

/** The 1-based line on which each element of the array at `path` starts, in order. */
export const elementLines = (text: string, path: ReadonlyArray<string>): Array<number> => {
  const stack: Array<Frame> = []
  let lines: Array<number> = []
  let line = 1
  let counted = 0
  const lineAt = (offset: number): number => {
    for (; counted < offset; counted++) if (text.charCodeAt(counted) === NEWLINE) line++
    return line
  }
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    const top = stack[stack.length - 1]
    if (top !== undefined && top.expectElement && !isSpace(c)) {
      top.expectElement = false
      if (top.target && c !== CLOSE_ARRAY) lines.push(lineAt(i))
    }
    switch (c) {
      case QUOTE: {
        const end = stringEnd(text, i)
        if (top !== undefined && !top.array && top.expectKey) {
          top.key = keyOf(text.slice(i, end + 1))
          top.expectKey = false
        }
        i = end
        break
      }
      case OPEN_OBJECT:
        stack.push({ array: false, key: undefined, expectKey: true, target: false, expectElement: false })
        break
      case OPEN_ARRAY: {
        const target = isPath(stack, path)
        // a repeated key: JSON.parse keeps the last value, so do we
        if (target) lines = []
        stack.push({ array: true, key: undefined, expectKey: false, target, expectElement: true })
        break
      }
      case CLOSE_OBJECT:
      case CLOSE_ARRAY:
        stack.pop()
        break
      case COMMA:
        if (top?.array === true) top.expectElement = true
        else if (top !== undefined) top.expectKey = true
        break
    }
  }
  return lines
}
