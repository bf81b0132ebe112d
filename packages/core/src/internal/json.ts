/**
 * Reading JSON text from files without throwing: one document (`parse`) or JSON Lines (`lines`),
 * each answer saying what went wrong where. Catalog files and resource files both read this way.
 *
 * @internal
 */

/** A parsed JSON value, or the parser's reason for refusing the text. */
export type Parsed =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: string }

/**
 * `JSON.parse` without throwing. A deeply nested document overflows the parser's stack: that
 * `RangeError` is reported like any malformed text.
 */
export const parse = (text: string): Parsed => {
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) }
  }
}

/** One non-empty line of a JSON Lines text (1-based), parsed. */
export type Line = Parsed & { readonly line: number }

/** The non-empty lines of a JSON Lines text, each parsed on its own. */
export const lines = (text: string): Array<Line> => {
  const out: Array<Line> = []
  const raw = text.split(/\r?\n/)
  for (let i = 0; i < raw.length; i++) {
    const line = (raw[i] as string).trim() // i < raw.length
    if (line.length > 0) out.push({ ...parse(line), line: i + 1 })
  }
  return out
}
