/**
 * Splitting a body into passages for search: on headings first, then on paragraphs, so a passage
 * is a piece of one section that a person would quote.
 *
 * A block is a run of non-blank lines; an ATX heading (`# Title` … `###### Title`) is a block of
 * its own and starts a new passage; a fenced code block (```` ``` ````, `~~~`) is one block, blank
 * lines and `#` lines included. Consecutive blocks of one section join until a passage reaches
 * `target` characters; a block longer than `max` is cut at a sentence end, else at a space, else
 * anywhere (never inside a surrogate pair). Every passage records the path of the headings above
 * it. Passages are in order, do not overlap, are at most `max` long and together cover every
 * non-blank character of the text.
 *
 * @internal
 */

/** One passage: where it is in the text, and the headings above it. */
export interface Span {
  readonly offset: number
  readonly length: number
  /** The headings above the passage, outermost first, joined by ` › `; empty before the first heading. */
  readonly heading: string
}

/** Passage sizes, in characters. */
export interface Sizes {
  /** A passage stops growing once it reaches this size. */
  readonly target: number
  /** No passage is longer (at least 2: one character may take two code units). */
  readonly max: number
}

/** The defaults: about a paragraph or two. */
export const defaultSizes: Sizes = { target: 800, max: 1_600 }

interface Block {
  readonly start: number
  readonly end: number
  /** Present for heading lines: the level and the cleaned title. */
  readonly heading?: { readonly level: number; readonly title: string }
}

const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*#*[ \t]*$/
const FENCE = /^ {0,3}(`{3,}|~{3,})/
const MAX_TITLE = 200
const MAX_HEADING_LINE = 300

/** The passages of `text`. */
export const split = (text: string, sizes: Sizes = defaultSizes): ReadonlyArray<Span> => {
  const max = Math.max(2, Math.floor(sizes.max)) // room for one character of two code units
  const target = Math.max(1, Math.min(max, Math.floor(sizes.target)))
  const out: Array<Span> = []
  const path: Array<{ readonly level: number; readonly title: string }> = []
  let heading = ""
  let start = -1
  let end = -1

  const flush = () => {
    if (start >= 0) out.push({ offset: start, length: end - start, heading })
    start = -1
  }

  for (const block of blocks(text)) {
    if (block.heading !== undefined) {
      flush()
      while (path.length > 0 && (path[path.length - 1]?.level ?? 0) >= block.heading.level) path.pop()
      if (block.heading.title !== "") path.push(block.heading)
      heading = path.map((h) => h.title).join(" › ")
    }
    if (block.end - block.start > max) {
      flush()
      for (const piece of cut(text, block.start, block.end, target, max)) {
        out.push({ offset: piece.start, length: piece.end - piece.start, heading })
      }
      continue
    }
    if (start >= 0 && (end - start >= target || block.end - start > max)) flush()
    if (start < 0) start = block.start
    end = block.end
  }
  flush()
  return out
}

/** The blocks of `text`: heading lines, fenced code, and runs of other non-blank lines. */
const blocks = function*(text: string): Generator<Block> {
  let start = -1
  let end = -1
  let fence: string | undefined
  let at = 0
  while (at <= text.length) {
    const newline = text.indexOf("\n", at)
    const lineEnd = newline < 0 ? text.length : newline
    const line = text.slice(at, lineEnd)
    const contentEnd = at + line.trimEnd().length
    const blank = line.trim() === ""
    if (fence !== undefined) {
      end = Math.max(end, contentEnd)
      if (line.trimStart().startsWith(fence)) fence = undefined
    } else if (blank) {
      if (start >= 0) yield { start, end }
      start = -1
    } else {
      const opening = FENCE.exec(line)
      // a heading is a short line: the bound also keeps the pattern linear on hostile input
      const heading = opening === null && line.length <= MAX_HEADING_LINE ? HEADING.exec(line) : null
      if (heading !== null) {
        if (start >= 0) yield { start, end }
        start = -1
        const title = (heading[2] ?? "").replace(/\s+/g, " ").trim().slice(0, MAX_TITLE)
        yield { start: at + line.search(/\S/), end: contentEnd, heading: { level: heading[1]?.length ?? 1, title } }
      } else {
        if (start < 0) start = at + line.search(/\S/)
        end = contentEnd
        if (opening !== null) fence = opening[1]?.slice(0, 3)
      }
    }
    if (newline < 0) break
    at = newline + 1
  }
  if (start >= 0) yield { start, end }
}

/** Cuts `[start, end)` into pieces of at most `max`, preferring sentence ends, then spaces. */
const cut = (
  text: string,
  start: number,
  end: number,
  target: number,
  max: number
): ReadonlyArray<{ readonly start: number; readonly end: number }> => {
  const pieces: Array<{ start: number; end: number }> = []
  let at = start
  while (at < end) {
    // skip the whitespace a previous cut left at the start
    while (at < end && /\s/.test(text[at] as string)) at++
    if (at >= end) break
    if (end - at <= max) {
      pieces.push({ start: at, end })
      break
    }
    const window = text.slice(at, at + max)
    const floor = Math.max(1, Math.floor(target / 2))
    let stop = lastMatch(window, /[.!?。！？](?=\s)/g, floor, 1)
    if (stop < 0) stop = lastMatch(window, /\s/g, floor, 0)
    if (stop < 0) stop = max
    let pieceEnd = at + stop
    const code = text.charCodeAt(pieceEnd - 1)
    if (code >= 0xd800 && code <= 0xdbff && pieceEnd - 1 > at) pieceEnd-- // keep a surrogate pair whole
    const trimmed = at + text.slice(at, pieceEnd).trimEnd().length
    pieces.push({ start: at, end: trimmed })
    at = pieceEnd
  }
  return pieces
}

/** The end (index + `extra`) of the last match of `pattern` in `window` at or after `floor`, or -1. */
const lastMatch = (window: string, pattern: RegExp, floor: number, extra: number): number => {
  let found = -1
  for (const match of window.matchAll(pattern)) {
    if (match.index >= floor) found = match.index + extra
  }
  return found
}
