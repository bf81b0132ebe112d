/**
 * What the store writes off the path of the requests that cause it: audit entries, search feedback,
 * and session writes the database did not take at once. A request hands its entry over and goes on;
 * a background writer writes what is held in batches — one transaction and a few statements for
 * many entries — so the database is never between an answer and its client.
 *
 * - **Nothing written twice.** Every entry carries what makes writing it again harmless (an audit
 *   entry its id, a session change is a set operation), so a batch whose commit was not
 *   acknowledged — the connection cut just then — is simply written again.
 * - **Transient is transient.** A lost connection, a server starting up or out of disk
 *   (`StoreError.isTransient`) holds the entries and tries again, at most every second (the first
 *   tries sooner), so write-back starts within about a second of the database answering. One line
 *   is logged when the database goes and one when it is back, with what was held. A batch the server
 *   refuses for what it holds is written entry by entry, and only the refused entries are dropped
 *   (audit entries counted as a gap).
 * - **Held by bytes, kept on disk.** Entries wait in memory up to `heldBytes`. With a journal
 *   (`journal`, a directory), each entry is also appended to it before the request goes on — a
 *   synchronous `write`, so a killed process loses none of it — and synced (`fsync`) every
 *   `journalSync`; beyond `heldBytes` entries wait in the journal only, up to `journalBytes`, and
 *   are read back from it. What fits nowhere is counted, and the count is written as an audit gap.
 * - **Nothing held is lost on a stop.** Closing writes what is held; what the database does not
 *   take stays in the journal, synced, and the next process that opens the journal's directory
 *   writes it (journals of processes that are gone are adopted, at start and every minute; only
 *   those of the same database). Records that cannot be read back (cut short by a power loss before
 *   the last sync, or by a full disk) are skipped, the others written, and a gap says so.
 *
 * `Database.layer` provides it, so every part of the store shares one writer, one journal and one
 * view of whether the database answers.
 *
 * @since 0.2.0
 */
import { Clock, Context, Duration, Effect, Fiber, Queue, Result, Schedule, Schema, Semaphore } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { createHash, randomUUID } from "node:crypto"
import type { Database } from "./Database.js"
import * as Batch from "./internal/batch.js"
import * as Entry from "./internal/entry.js"
import * as Journal from "./internal/journal.js"
import * as Reachability from "./internal/reachability.js"
import { guard, type StoreUnavailable } from "./StoreError.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * How much is held, and where.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** A directory for the journal; none: entries are held in memory only. */
  readonly journal?: string | undefined
  /** The most the journal holds, in bytes; default 1 GiB. */
  readonly journalBytes?: number
  /** The most held in memory, in bytes; default 64 MiB. */
  readonly heldBytes?: number
  /** How often the journal is synced to disk; default 1 second. */
  readonly journalSync?: Duration.Input
}

/**
 * What is held now.
 *
 * @since 0.2.0
 * @category models
 */
export interface Held {
  readonly entries: number
  readonly bytes: number
  readonly audit: number
  readonly session: number
  readonly feedback: number
  /** Entries waiting in the journal only (memory was full). */
  readonly inJournal: boolean
}

/**
 * What `WriteBehind` provides.
 *
 * @since 0.2.0
 * @category models
 */
export interface Service {
  /** This process's id among the instances on the database. */
  readonly instance: string
  /** The journal's directory, if any. */
  readonly journal: string | undefined
  /** Holds an entry to be written; returns its number. Never fails (what fits nowhere is counted). */
  readonly offer: (entry: Entry.Entry) => Effect.Effect<number>
  /** Whether the entry numbered `seq` is written (or was refused, and dropped). */
  readonly isWritten: (seq: number) => Effect.Effect<boolean>
  /** Writes what is held now; fails when the database does not take it. */
  readonly flush: Effect.Effect<void, StoreUnavailable>
  /** What is held now. */
  readonly held: Effect.Effect<Held>
  /** The store's view of whether the database answers (shared by every part of the store). */
  readonly reachability: Reachability.Reachability
  /**
   * Runs an operation on the database now, bounded by its timeout: a failure is reported as the
   * database going away (once), a success as its return when nothing is held.
   */
  readonly direct: <A>(operation: string, effect: Effect.Effect<A, SqlError>) => Effect.Effect<A, StoreUnavailable>
}

/**
 * The store's write-behind queue.
 *
 * @since 0.2.0
 * @category services
 */
export class WriteBehind extends Context.Service<WriteBehind, Service>()("@tool-search/store/WriteBehind") {}

/**
 * The journal's directory could not be opened (or its lock taken).
 *
 * @since 0.2.0
 * @category errors
 */
export class JournalUnavailable extends Schema.TaggedError<JournalUnavailable>()("JournalUnavailable", {
  directory: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `The journal ${this.directory} cannot be opened: ${this.reason}`
  }
}

/**
 * The most entries one batch writes.
 *
 * @since 0.2.0
 * @category constants
 */
export const BATCH_ENTRIES = 500

const BATCH_BYTES = 4 * 1024 * 1024

/**
 * How long the writer waits, once woken, for more to write with what woke it: a call's intent and
 * its outcome usually go together (and the intent is then not written at all).
 */
const LINGER = Duration.millis(25)

const defaultRetry = Schedule.min([Schedule.exponential("50 millis"), Schedule.spaced("1 second")])

// -----------------------------------------------------------------------------
// Implementation
// -----------------------------------------------------------------------------

interface Item {
  readonly seq: number
  /** Undefined for a journal record that does not decode (skipped). */
  readonly entry: Entry.Entry | undefined
  readonly bytes: number
  /** The journal position after it (with a journal). */
  readonly end: Journal.Position | undefined
}

interface Lost {
  from: number
  until: number
  entries: number
  readonly reason: string
}

/** A record of the journal: the entry and its number. */
const record = (seq: number, json: string) => `{"s":${seq},"e":${json}}`

const unrecord = (text: string): { readonly seq: number | undefined; readonly entry: Entry.Entry } | undefined => {
  const match = /^\{"s":(\d+),"e":(.*)\}$/s.exec(text)
  const entry = Entry.decode(match === null ? text : match[2] as string)
  return entry === undefined ? undefined : { seq: match === null ? undefined : Number(match[1]), entry }
}

/**
 * Builds the writer over the database in context; its background writer, journal sync and orphan
 * adoption belong to the scope, and closing it writes what is held (or leaves it in the journal).
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (
  database: Database["Service"],
  sql: SqlClient,
  options: Options = {}
) =>
  Effect.gen(function*() {
    const heldLimit = Math.max(1024, options.heldBytes ?? 64 * 1024 * 1024)
    const directory = options.journal
    // journals are the database's: a directory shared by gateways of several databases mixes none
    const scope = createHash("sha256").update(database.label).digest("hex").slice(0, 12)
    const journal = directory === undefined ? undefined : yield* Effect.try({
      try: () => Journal.open(directory, { maxBytes: Math.max(1024 * 1024, options.journalBytes ?? 1024 ** 3), scope }),
      catch: (e) => new JournalUnavailable({ directory, reason: e instanceof Error ? e.message : String(e) })
    })
    const instance = journal?.instance ?? `${process.pid}-${randomUUID().slice(0, 8)}`
    const reachability = yield* Reachability.make(
      database.label,
      "Requests go on; what the store writes is held" +
        (journal === undefined ? " in memory" : ` (journal ${journal.directory})`) +
        " and written back as soon as the database answers (tried every second)"
    )

    const queue: Array<Item> = [] // in memory, oldest first
    let queuedBytes = 0
    /** Set while entries wait in the journal only: where reading them back resumes. */
    let spilled: Journal.Position | undefined
    let nextSeq = 1
    let writtenSeq = 0
    let dirty = false
    const lost = new Map<string, Lost>() // by reason
    const wake = yield* Queue.sliding<void>(1)

    const countLost = (entry: Entry.Entry, reason: string) => {
      // a gap that is itself lost is not counted again (nothing could be written for it either)
      if (!Entry.isAudit(entry) || entry._tag === "Gap") return
      const l = lost.get(reason)
      const at = Entry.timeOf(entry)
      if (l === undefined) lost.set(reason, { from: at, until: at, entries: 1, reason })
      else {
        l.from = Math.min(l.from, at)
        l.until = Math.max(l.until, at)
        l.entries++
      }
    }

    const enqueue = (seq: number, entry: Entry.Entry): void => {
      const json = Entry.encode(entry)
      const bytes = json.length + 16
      // with a journal, appended first: a killed process loses none of it
      const end = journal?.append(record(seq, json))
      if (end !== undefined) {
        dirty = true
        if (spilled !== undefined || queuedBytes + bytes > heldLimit) {
          // memory is full: the journal holds it, and it is read back from there, in order
          if (spilled === undefined) {
            spilled = { segment: end.segment, offset: end.offset - Buffer.byteLength(Journal.line(record(seq, json))) }
          }
          return
        }
      } else if (queuedBytes + bytes > heldLimit) {
        // no journal, or it is full or cannot be written (a full disk): memory is all there is
        countLost(
          entry,
          journal === undefined
            ? "the database was unreachable and more was held than the memory holds"
            : `the database was unreachable, the memory full, and the journal (${journal.directory}) full or not writable`
        )
        return
      }
      queue.push({ seq, entry, bytes, end })
      queuedBytes += bytes
    }

    const offer = (entry: Entry.Entry): Effect.Effect<number> =>
      Effect.sync(() => {
        const seq = nextSeq++
        enqueue(seq, entry)
        Queue.offerUnsafe(wake, undefined)
        return seq
      })

    /** The next batch: from memory, or read back from the journal. */
    const nextBatch = (): ReadonlyArray<Item> => {
      if (queue.length > 0) {
        const batch: Array<Item> = []
        let bytes = 0
        for (const item of queue) {
          if (batch.length >= BATCH_ENTRIES || (batch.length > 0 && bytes + item.bytes > BATCH_BYTES)) break
          batch.push(item)
          bytes += item.bytes
        }
        return batch
      }
      if (spilled === undefined || journal === undefined) return []
      const records = journal.read(spilled, BATCH_BYTES).slice(0, BATCH_ENTRIES)
      if (records.length === 0) {
        spilled = undefined // caught up: new entries go to memory again
        return []
      }
      return records.map((r) => {
        const read = unrecord(r.json)
        return { seq: read?.seq ?? 0, entry: read?.entry, bytes: r.json.length, end: r.next }
      })
    }

    /** Marks a batch written: out of memory, or past in the journal; acknowledged in the journal. */
    const done = (batch: ReadonlyArray<Item>) => {
      const last = batch[batch.length - 1]
      if (last === undefined) return
      if (queue[0] === batch[0]) {
        queue.splice(0, batch.length)
        for (const item of batch) queuedBytes -= item.bytes
      } else {
        spilled = last.end
      }
      for (const item of batch) writtenSeq = Math.max(writtenSeq, item.seq)
      if (journal !== undefined && last.end !== undefined) journal.ack(last.end)
    }

    // Audit entries need no transaction: each insert is whole, and writing one again adds nothing;
    // feedback and session changes read before they write, so they get one.
    const transaction = (entries: ReadonlyArray<Entry.Entry>) =>
      guard(database, `writing ${entries.length} held entr${entries.length === 1 ? "y" : "ies"}`)(
        entries.every(Entry.isAudit)
          ? Batch.write({ sql, instance }, entries)
          : sql.withTransaction(Batch.write({ sql, instance }, entries))
      )

    /** Writes one batch; a batch the server refuses is written entry by entry and the refused are dropped. */
    const writeBatch = (batch: ReadonlyArray<Item>): Effect.Effect<void, StoreUnavailable> =>
      Effect.gen(function*() {
        const entries = batch.flatMap((i) => i.entry === undefined ? [] : [i.entry])
        const result = yield* Effect.result(transaction(entries))
        if (Result.isSuccess(result)) return
        if (result.failure.retryable) return yield* result.failure
        for (const entry of entries) {
          const one = yield* Effect.result(transaction([entry]))
          if (Result.isFailure(one)) {
            if (one.failure.retryable) return yield* one.failure
            yield* Effect.logError(`Store: ${one.failure.message}; the ${Entry.kindOf(entry)} entry is dropped`)
            countLost(entry, `refused by the database: ${one.failure.reason}`)
          }
        }
      })

    /** An audit gap for what was lost, held like any entry. */
    const gaps = Effect.gen(function*() {
      if (lost.size === 0) return
      const now = yield* Clock.currentTimeMillis
      const all = [...lost.values()]
      lost.clear()
      for (const l of all) {
        yield* offer({
          _tag: "Gap",
          id: `gap-${instance}-${randomUUID()}`,
          at: now,
          lostFrom: l.from,
          lostUntil: l.until,
          entries: l.entries,
          reason: l.reason
        })
      }
    })

    const summary = () => {
      const h = heldNow()
      return h.entries === 0 ? "" : `writing ${describeHeld(h)}`
    }

    // one writer at a time: the background writer and a caller's `flush` never write the same batch twice
    const writing = yield* Semaphore.make(1)
    /** Writes until nothing is held; fails at the first batch the database does not take. */
    const drain: Effect.Effect<void, StoreUnavailable> = writing.withPermits(1)(Effect.gen(function*() {
      for (;;) {
        const batch = nextBatch()
        if (batch.length === 0) {
          if (lost.size === 0) return
          yield* gaps
          continue
        }
        // what was held when the database answered again, for the line that says so
        const held = (yield* reachability.reachable) ? "" : summary()
        yield* writeBatch(batch).pipe(Effect.tapError(reachability.lost))
        done(batch)
        yield* reachability.back(() => held)
      }
    }))

    const heldNow = (): Held => {
      const counts = { audit: 0, session: 0, feedback: 0 }
      for (const item of queue) if (item.entry !== undefined) counts[Entry.kindOf(item.entry)]++
      return {
        entries: queue.length,
        bytes: queuedBytes,
        ...counts,
        inJournal: spilled !== undefined
      }
    }

    // The background writer: whenever something is held, write it, retrying until the database takes it.
    const writer = yield* Effect.forkScoped(Effect.forever(
      Queue.take(wake).pipe(
        // a moment for what comes with it: under load batches fill by themselves; a lone entry waits this long
        Effect.andThen(Effect.sleep(LINGER)),
        Effect.andThen(drain.pipe(Effect.retry(defaultRetry))),
        Effect.catchCause((cause) => Effect.logError("Store: the background writer failed", cause))
      )
    ))
    // The journal: synced on a timer; journals of processes that are gone adopted at start and every minute.
    if (journal !== undefined) {
      const syncEvery = Duration.fromInputUnsafe(options.journalSync ?? "1 second")
      yield* Effect.forkScoped(Effect.forever(
        Effect.sleep(syncEvery).pipe(Effect.andThen(Effect.sync(() => {
          if (!dirty) return
          dirty = false
          journal.sync()
        })))
      ))
      const adopt = Effect.gen(function*() {
        for (const orphan of Journal.adoptOrphans(journal.directory, scope)) {
          let adopted = 0
          let lastAt: number | undefined
          for (const text of orphan.records) {
            const read = unrecord(text)
            if (read === undefined) continue
            enqueue(nextSeq++, read.entry)
            lastAt = Entry.timeOf(read.entry)
            adopted++
          }
          journal.sync()
          orphan.remove()
          if (orphan.damaged !== undefined) {
            const now = yield* Clock.currentTimeMillis
            yield* offer({
              _tag: "Gap",
              id: `gap-${orphan.instance}-${orphan.damaged.segment}-${orphan.damaged.offset}`,
              at: now,
              lostFrom: lastAt ?? orphan.damaged.modified,
              lostUntil: Math.max(lastAt ?? 0, orphan.damaged.modified),
              entries: null,
              reason: `${orphan.damaged.lines} record(s) of the journal of an earlier process (${orphan.instance}) ` +
                `could not be read (cut short by a crash before they were synced, or by a full disk): what they held ` +
                `is lost; the ${adopted} others were written`
            })
          }
          if (adopted > 0) {
            yield* Effect.logInfo(
              `Store: ${adopted} entries an earlier process held (journal ${journal.directory}) are being written`
            )
          }
          Queue.offerUnsafe(wake, undefined)
        }
      }).pipe(Effect.catchCause((cause) => Effect.logError("Store: adopting earlier journals failed", cause)))
      yield* adopt
      yield* Effect.forkScoped(Effect.forever(Effect.sleep("1 minute").pipe(Effect.andThen(adopt))))
    }

    // Closing: write what is held; what the database does not take stays in the journal for the next process.
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        yield* Fiber.interrupt(writer)
        const result = yield* Effect.result(drain)
        const h = heldNow()
        if (journal !== undefined) journal.close()
        if (Result.isSuccess(result) && h.entries === 0 && !h.inJournal) return
        const reason = Result.isFailure(result) ? ` (${result.failure.reason})` : ""
        yield* journal === undefined
          ? Effect.logError(
            `Store: closing with ${describeHeld(h)} not written to ${database.label}${reason}: they are lost ` +
              "(a journal, TOOL_SEARCH_JOURNAL, would have kept them)"
          )
          : Effect.logWarning(
            `Store: closing with ${describeHeld(h)} not written to ${database.label}${reason}: they stay in the ` +
              `journal ${journal.directory}, and the next process that opens it writes them`
          )
      })
    )

    const direct = <A>(operation: string, effect: Effect.Effect<A, SqlError>) =>
      guard(database, operation)(effect).pipe(
        Effect.tapError(reachability.lost),
        // a read that passes while writes are held does not say the database is back: the writer does
        Effect.tap(() => queue.length === 0 && spilled === undefined ? reachability.back(() => "") : Effect.void)
      )

    return WriteBehind.of({
      instance,
      journal: journal?.directory,
      offer,
      isWritten: (seq) => Effect.sync(() => seq <= writtenSeq),
      flush: drain,
      held: Effect.sync(heldNow),
      reachability,
      direct
    })
  })

/**
 * What is held, in words: `1,204 entries (1,200 audit, 4 session)`.
 *
 * @since 0.2.0
 * @category models
 */
export const describeHeld = (held: Held): string => {
  const parts = (["audit", "session", "feedback"] as const).filter((k) => held[k] > 0).map((k) =>
    `${held[k].toLocaleString("en-US")} ${k}`
  )
  const count = `${held.entries.toLocaleString("en-US")} entr${held.entries === 1 ? "y" : "ies"}`
  return `${count}${parts.length > 0 ? ` (${parts.join(", ")})` : ""}${
    held.inJournal ? " and more in the journal" : ""
  }`
}
