/**
 * Text from a file, a server or a model made safe to print on a terminal (the implementation of
 * `CatalogFile.printable`).
 *
 * @internal
 */

// C0 and C1 controls, DEL, line and paragraph separators, and the bidirectional overrides that
// can make a terminal show text other than what the file holds.
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g
// The same, but a line feed (`\n`) stays a line break; a carriage return, which can overwrite what
// a terminal shows on its line, is still escaped.
const UNPRINTABLE_BUT_LF =
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g

/** See `CatalogFile.printable`. */
export const printable = (
  text: string,
  max = 300,
  options: { readonly lineBreaks?: boolean } = {}
): string => {
  let cut = text.length > max ? text.slice(0, max) : text
  // never split a surrogate pair
  if (cut.length < text.length && /[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1)
  const escaped = cut.replace(
    options.lineBreaks === true ? UNPRINTABLE_BUT_LF : UNPRINTABLE,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`
  )
  return cut.length < text.length ? `${escaped}… (${text.length - cut.length} more characters)` : escaped
}
