import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import { Tiktoken } from "js-tiktoken/lite"
import ranks from "js-tiktoken/ranks/o200k_base"
import { TokenCounter } from "../src/index.js"

/** Text of the kinds a request holds: words, numbers, JSON punctuation, runs of spaces and newlines, other scripts, special-token text. */
const text = fc.array(
  fc.oneof(
    fc.constantFrom(
      " ",
      "  ",
      "   ",
      "\n",
      "\n\n",
      " \n ",
      "\t",
      "\r\n",
      "<|endoftext|>",
      "'s",
      "'T",
      "{\"",
      "\":",
      "},"
    ),
    fc.constantFrom(
      "svc0",
      "create",
      "Invoice",
      "ÀÉÎ",
      "日本語の",
      "данные",
      "🙂",
      "123",
      "4567",
      "3.14",
      "_id",
      "a-b"
    ),
    fc.string({ maxLength: 6 }),
    fc.string({ unit: "grapheme", maxLength: 4 })
  ),
  { maxLength: 30 }
).map((parts) => parts.join(""))

describe("TokenCounter.o200k", () => {
  const reference = new Tiktoken(ranks)

  it.effect("counts exactly what js-tiktoken encodes, text by text (each piece is counted once and cached)", () =>
    Effect.gen(function*() {
      const counter = yield* TokenCounter.TokenCounter
      fc.assert(
        fc.property(text, (t) => counter.count(t) === reference.encode(t, [], []).length),
        { numRuns: 2_000 }
      )
      // the same texts again, now from the cache
      const again = "svc0 create a Invoice  in  service svc0.\n\n{\"id\": 123} <|endoftext|> 日本語の"
      assert.strictEqual(counter.count(again), reference.encode(again, [], []).length)
      assert.strictEqual(counter.count(again), reference.encode(again, [], []).length)
      assert.strictEqual(counter.count(""), 0)
    }).pipe(Effect.provide(TokenCounter.o200k)))
})
