/**
 * Splitting a command line into words the way a POSIX shell does, without running a shell:
 * `--upstream "fs=npx -y server-filesystem '/my docs'"` starts `npx` with three arguments.
 *
 * What is supported: blanks separate words; `'single quotes'` keep everything literally;
 * `"double quotes"` keep everything except `\"`, `\\`, `\$`, `` \` `` and a backslash-newline;
 * a backslash outside quotes escapes the next character; quoted and unquoted parts next to each
 * other form one word (`a"b c"` is `ab c`); `''` is an empty word.
 *
 * What is not: no variable, tilde or glob expansion (`$HOME` stays `$HOME`) and no operators.
 * An unquoted `|`, `&`, `;`, `<`, `>`, `(` or `)` is an error rather than a silently different
 * command: wrap such a line in `sh -c '...'` when a shell is really wanted.
 *
 * @since 0.1.0
 */
import { Result, Schema } from "effect"

/**
 * A command line that cannot be split; `position` is the 0-based offset of the problem.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidCommandLine extends Schema.TaggedError<InvalidCommandLine>()("InvalidCommandLine", {
  input: Schema.String,
  position: Schema.Number,
  reason: Schema.String
}) {
  override get message(): string {
    return `Invalid command line ${JSON.stringify(this.input)} at offset ${this.position}: ${this.reason}`
  }
}

const BLANK = new Set([" ", "\t", "\n", "\r"])
const OPERATORS = new Set(["|", "&", ";", "<", ">", "(", ")"])
/** Characters a backslash escapes inside double quotes; before any other it stays a backslash. */
const DOUBLE_QUOTE_ESCAPES = new Set(["\"", "\\", "$", "`"])

/**
 * Splits a command line into words.
 *
 * @since 0.1.0
 * @category parsing
 */
export const split = (input: string): Result.Result<ReadonlyArray<string>, InvalidCommandLine> => {
  const words: Array<string> = []
  let word = ""
  // A word exists once any part of it was read, even an empty quoted one: `''` is a word.
  let inWord = false
  const fail = (position: number, reason: string) => Result.fail(new InvalidCommandLine({ input, position, reason }))
  let i = 0
  while (i < input.length) {
    const c = input[i] as string // i < input.length
    if (BLANK.has(c)) {
      if (inWord) words.push(word)
      word = ""
      inWord = false
      i++
    } else if (c === "'") {
      const end = input.indexOf("'", i + 1)
      if (end < 0) return fail(i, "unterminated single quote")
      word += input.slice(i + 1, end)
      inWord = true
      i = end + 1
    } else if (c === "\"") {
      const start = i
      i++
      let closed = false
      while (i < input.length) {
        const d = input[i] as string
        if (d === "\"") {
          closed = true
          i++
          break
        }
        if (d === "\\" && i + 1 < input.length) {
          const next = input[i + 1] as string
          if (next === "\n") {
            i += 2 // a line continuation disappears
            continue
          }
          if (DOUBLE_QUOTE_ESCAPES.has(next)) {
            word += next
            i += 2
            continue
          }
        }
        word += d
        i++
      }
      if (!closed) return fail(start, "unterminated double quote")
      inWord = true
    } else if (c === "\\") {
      if (i + 1 >= input.length) return fail(i, "a backslash at the end escapes nothing")
      const next = input[i + 1] as string
      if (next !== "\n") {
        word += next
        inWord = true
      }
      i += 2
    } else if (OPERATORS.has(c)) {
      return fail(i, `shell operator '${c}' is not supported: quote it, or run the line with sh -c '...'`)
    } else {
      word += c
      inWord = true
      i++
    }
  }
  if (inWord) words.push(word)
  return Result.succeed(words)
}

/**
 * Quotes one word so that `split` gives it back unchanged (single quotes, `'\''` for a quote).
 *
 * @since 0.1.0
 * @category formatting
 */
export const quote = (word: string): string =>
  word !== "" && /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`

/**
 * Joins words into a command line that `split` turns back into the same words.
 *
 * @since 0.1.0
 * @category formatting
 */
export const join = (words: ReadonlyArray<string>): string => words.map(quote).join(" ")
