/**
 * What an audit entry may hold: text PostgreSQL accepts (no NUL), bounded, and payloads as bounded
 * JSON for `jsonb`.
 *
 * @internal
 */

/** The largest payload kept whole, in characters of JSON; a larger one keeps a preview. */
export const MAX_PAYLOAD = 16_384

const MAX_TEXT = 4_096
const MAX_NAMES = 1_000

/** Text PostgreSQL can hold (no NUL), bounded. */
export const text = (value: string, max = MAX_TEXT): string => {
  const clean = value.includes("\0") ? value.replaceAll("\0", "\uFFFD") : value
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean
}

/** At most `MAX_NAMES` names, each bounded. */
export const names = (values: ReadonlyArray<string>): ReadonlyArray<string> =>
  values.slice(0, MAX_NAMES).map((v) => text(v))

/** A payload as JSON text for `jsonb`: bounded (`MAX_PAYLOAD`), and with no `\u0000`. */
export const payload = (value: unknown): string | null => {
  if (value === undefined) return null
  let json: string
  try {
    json = JSON.stringify(value) ?? "null"
  } catch {
    json = JSON.stringify(String(value))
  }
  json = json.replaceAll("\\u0000", "\\ufffd")
  return json.length <= MAX_PAYLOAD
    ? json
    : JSON.stringify({ truncated: true, characters: json.length, preview: text(json, 1_024) })
}
