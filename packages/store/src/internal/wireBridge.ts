/**
 * PGlite behind `@effect/sql-pg`: a `Duplex` that carries the PostgreSQL wire protocol the client
 * writes to the embedded backend (`execProtocolRaw`) and its answers back. The client cannot tell
 * it from a socket, so the embedded engine and a PostgreSQL server share one driver, one dialect,
 * one set of migrations and one type mapping.
 *
 * The backend is one PostgreSQL session, so the client is given one connection at a time and every
 * call is serialized. Each new connection starts by clearing what an earlier one may have left
 * (an open transaction after an interruption, prepared statements), so a reconnect never inherits
 * half of someone else's work. Requests the backend cannot serve are answered here: SSL and GSS
 * encryption are declined, cancel requests dropped (a call in progress runs to completion), and a
 * Terminate message ends the stream instead of ending the embedded backend.
 *
 * @internal
 */
import type { PGlite } from "@electric-sql/pglite"
import { Duplex } from "node:stream"

/** One embedded backend: serialized raw protocol calls. */
export interface Backend {
  /** Sends complete frontend messages; resolves with the backend's answer. */
  readonly run: (frames: Uint8Array) => Promise<Uint8Array>
  /** Ends what an earlier connection left open: the backend is fresh for a new one. */
  readonly reset: () => Promise<void>
}

/** The largest message accepted from the client (the driver's own default limit). */
const MAX_MESSAGE = 16 * 1024 * 1024

const SSL_REQUEST = 80877103
const GSS_REQUEST = 80877104
const CANCEL_REQUEST = 80877102
const TERMINATE = 0x58 // 'X'

/** Serializes every call to `db`. */
export const backend = (db: PGlite): Backend => {
  let chain: Promise<unknown> = Promise.resolve()
  const serial = <A>(f: () => Promise<A>): Promise<A> => {
    const next = chain.then(f, f)
    chain = next.catch(() => undefined)
    return next
  }
  // Sync ends an unfinished extended-protocol exchange; ROLLBACK an open transaction (a warning
  // when there is none); DISCARD ALL the prepared statements and session state.
  const resetFrames = Buffer.concat([sync(), simpleQuery("ROLLBACK"), simpleQuery("DISCARD ALL")])
  return {
    run: (frames) => serial(() => db.execProtocolRaw(frames)),
    reset: () => serial(() => db.execProtocolRaw(resetFrames)).then(() => undefined)
  }
}

/** A connection to `backend`, for `PgClient`'s `stream` option. */
export const connect = (backend: Backend): Duplex => {
  let started = false
  let ended = false
  let pending: Buffer = Buffer.alloc(0)

  const duplex: Duplex = new Duplex({
    read() {},
    write(chunk: Buffer, _encoding, callback) {
      if (ended) return callback()
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
      const frames = take()
      if (typeof frames === "string") return callback(new Error(frames))
      if (frames.length === 0) return callback()
      const answer = started
        ? backend.run(frames)
        : startup(frames)
      answer.then(
        (out) => {
          if (!ended && out.length > 0) duplex.push(Buffer.from(out.buffer, out.byteOffset, out.byteLength))
          callback()
        },
        (e: unknown) => callback(e instanceof Error ? e : new Error(String(e)))
      )
    },
    final(callback) {
      end()
      callback()
    },
    destroy(error, callback) {
      ended = true
      callback(error)
    }
  })

  const end = () => {
    if (ended) return
    ended = true
    duplex.push(null)
  }

  /** The first message: a startup packet, or a request answered here. */
  const startup = (frame: Buffer): Promise<Uint8Array> => {
    const code = frame.readInt32BE(4)
    if (code === SSL_REQUEST || code === GSS_REQUEST) return Promise.resolve(Buffer.from("N"))
    if (code === CANCEL_REQUEST) {
      end()
      return Promise.resolve(new Uint8Array(0))
    }
    started = true
    return backend.reset().then(() => backend.run(frame))
  }

  /** Complete messages at the front of `pending` (the startup phase: one at a time), or an error. */
  const take = (): Buffer | string => {
    if (!started) {
      if (pending.length < 8) return Buffer.alloc(0)
      const length = pending.readInt32BE(0)
      if (length < 8 || length > MAX_MESSAGE) return `invalid startup message length ${length}`
      if (pending.length < length) return Buffer.alloc(0)
      const frame = pending.subarray(0, length)
      pending = pending.subarray(length)
      return frame
    }
    let offset = 0
    while (pending.length - offset >= 5) {
      const type = pending[offset]
      const length = pending.readInt32BE(offset + 1)
      if (length < 4 || length > MAX_MESSAGE) return `invalid message length ${length}`
      if (pending.length - offset < 1 + length) break
      if (type === TERMINATE) {
        const frames = pending.subarray(0, offset)
        pending = Buffer.alloc(0)
        end()
        return frames
      }
      offset += 1 + length
    }
    const frames = pending.subarray(0, offset)
    pending = pending.subarray(offset)
    return frames
  }

  return duplex
}

const sync = (): Buffer => Buffer.from([0x53, 0, 0, 0, 4])

const simpleQuery = (text: string): Buffer => {
  const body = Buffer.from(`${text}\0`, "utf8")
  const header = Buffer.alloc(5)
  header[0] = 0x51 // 'Q'
  header.writeInt32BE(4 + body.length, 1)
  return Buffer.concat([header, body])
}
