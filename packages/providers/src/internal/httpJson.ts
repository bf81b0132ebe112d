/**
 * The HTTP side every provider shares: POST a JSON body, bounded in time and in response size,
 * decode the answer with a `Schema`, and turn every failure into the `AiError` that `effect/ai`
 * expects — a transport failure or a timeout is a `NetworkError`, an error status is the reason
 * `AiError.reasonFromHttpStatus` gives it (with the provider's own message), a body too large or
 * not of the expected shape is an `InvalidResponseError`.
 *
 * Nothing from the server is trusted: the body is read up to `maxResponseBytes` and no further,
 * error messages are cut to a few hundred characters, a request that takes longer than
 * `timeout` is interrupted (the fetch is aborted), and a redirect is an error rather than a
 * second request that would carry the key elsewhere.
 *
 * A transient failure (429, 503, 529 and the like; a transport failure or timeout) is tried again a bounded number
 * of times, in one place for every provider: `retry.ts`.
 */
import { Duration, Effect, Option, Redacted, Schema, Stream } from "effect"
import { AiError } from "effect/ai"
import { FetchHttpClient, Headers, type HttpClient, HttpClientRequest, type HttpClientResponse } from "effect/http"
import * as Retry from "./retry.js"

/** Retries of a transient failure when the options name none: three attempts in all. */
export const defaultRetries = 2

/** Where and how a provider is called. */
export interface Endpoint {
  /** The provider, as errors name it (the `module` of every `AiError`). */
  readonly module: string
  /** The API root, without a trailing slash (`https://api.openai.com/v1`). */
  readonly baseUrl: string
  /** Headers of every request; secrets stay redacted until the request is built. */
  readonly headers: Readonly<Record<string, string | Redacted.Redacted<string>>>
  /** The longest a request may take, body included. */
  readonly timeout: Duration.Input
  /** The largest response body read; a larger one is an `InvalidResponseError`. */
  readonly maxResponseBytes: number
  /** Retries of a transient failure (429, 503, transport…), after the first attempt; 0 for none. */
  readonly retries: number
}

/** The bounds a user may set on a model's requests, each optional (the model has its defaults). */
export interface Limits {
  /** The longest one request may take, body included. */
  readonly timeout?: Duration.Input
  /** The largest response body read. */
  readonly maxResponseBytes?: number
  /** Retries of a transient failure (408, 409, 429, 500, 502–504, 529, transport) after the first attempt (default 2). */
  readonly retries?: number
}

/** `options`' limits, with the model's defaults where unset. */
export const limitsOf = (
  options: Limits,
  defaults: { readonly timeout: Duration.Input; readonly maxResponseBytes: number }
): Pick<Endpoint, "timeout" | "maxResponseBytes" | "retries"> => ({
  timeout: options.timeout ?? defaults.timeout,
  maxResponseBytes: options.maxResponseBytes ?? defaults.maxResponseBytes,
  retries: options.retries ?? defaultRetries
})

/**
 * The endpoint of an OpenAI-compatible server: `baseUrl` without its trailing slashes, the key (if
 * any) as `Authorization: Bearer`.
 */
export const bearerEndpoint = (options: {
  readonly module: string
  readonly baseUrl: string
  readonly apiKey?: Redacted.Redacted<string> | undefined
  readonly timeout: Duration.Input
  readonly maxResponseBytes: number
  readonly retries: number
}): Endpoint => ({
  module: options.module,
  baseUrl: options.baseUrl.replace(/\/+$/, ""),
  headers: options.apiKey === undefined
    ? {}
    : { authorization: Redacted.make(`Bearer ${Redacted.value(options.apiKey)}`) },
  timeout: options.timeout,
  maxResponseBytes: options.maxResponseBytes,
  retries: options.retries
})

/** One request. */
export interface Post<A> {
  /** The `effect/ai` method this serves (`generateText`, `embedMany`), for errors. */
  readonly method: string
  /** Appended to the base URL (`/chat/completions`). */
  readonly path: string
  readonly body: unknown
  /** The wire shape of a successful answer. */
  readonly schema: Schema.Codec<A, unknown>
}

/** Error bodies are read up to this size, then cut: they only feed a message. */
const ERROR_BODY_BYTES = 64 * 1024
/** Messages taken from the server are cut to this length. */
const MESSAGE_CHARS = 500

/**
 * Posts `body` to the endpoint and decodes the answer; a transient failure is tried again, up to
 * `endpoint.retries` times (`Retry`).
 */
export const post = <A>(
  client: HttpClient.HttpClient,
  endpoint: Endpoint,
  request: Post<A>
): Effect.Effect<A, AiError.AiError> => Retry.withRetries(postOnce(client, endpoint, request), endpoint.retries)

/** One attempt: the request, bounded in time, and its answer decoded. */
const postOnce = <A>(
  client: HttpClient.HttpClient,
  endpoint: Endpoint,
  request: Post<A>
): Effect.Effect<A, AiError.AiError> => {
  const url = `${endpoint.baseUrl}${request.path}`
  const fail = (reason: AiError.AiErrorReason) =>
    Effect.fail(AiError.make({ module: endpoint.module, method: request.method, reason }))
  const headers = Object.fromEntries(
    Object.entries(endpoint.headers).map(([k, v]) => [k, Redacted.isRedacted(v) ? Redacted.value(v) : v])
  )
  return HttpClientRequest.post(url).pipe(
    HttpClientRequest.setHeaders(headers),
    HttpClientRequest.acceptJson,
    HttpClientRequest.bodyJson(request.body),
    Effect.mapError((error) =>
      AiError.make({
        module: endpoint.module,
        method: request.method,
        reason: new AiError.NetworkError({
          reason: "EncodeError",
          method: "POST",
          url,
          description: `the request cannot be written as JSON: ${cut(String(error.cause))}`
        })
      })
    ),
    Effect.flatMap(client.execute),
    Effect.flatMap((response) =>
      response.status >= 200 && response.status < 300
        ? decodeSuccess(response, endpoint, request, fail)
        : Effect.flatMap(readBody(response, ERROR_BODY_BYTES), ({ text }) => fail(statusReason(response, text)))
    ),
    Effect.catchTag("HttpClientError", (error) => {
      const reason = error.reason
      return reason._tag === "TransportError" || reason._tag === "EncodeError" || reason._tag === "InvalidUrlError"
        ? fail(
          new AiError.NetworkError({
            reason: reason._tag,
            method: reason.request.method,
            url: reason.request.url,
            description: reason.description ?? describeCause(reason.cause),
            cause: error
          })
        )
        : fail(new AiError.InvalidResponseError({ description: cut(error.message) }))
    }),
    Effect.timeoutOrElse({
      duration: endpoint.timeout,
      orElse: () =>
        fail(
          new AiError.NetworkError({
            reason: "TransportError",
            method: "POST",
            url,
            description: `no answer within ${Duration.format(Duration.fromInputUnsafe(endpoint.timeout))}`
          })
        )
    }),
    // A redirect is an answer, never followed: following it could carry the key to another host
    // (fetch drops `Authorization` across origins, but not `x-api-key`).
    Effect.provideService(FetchHttpClient.RequestInit, { redirect: "manual" })
  )
}

const decodeSuccess = <A>(
  response: HttpClientResponse.HttpClientResponse,
  endpoint: Endpoint,
  request: Post<A>,
  fail: (reason: AiError.AiErrorReason) => Effect.Effect<never, AiError.AiError>
) =>
  Effect.gen(function*() {
    const tooLarge = () =>
      fail(
        new AiError.InvalidResponseError({
          description: `the response body exceeds ${endpoint.maxResponseBytes} bytes`,
          http: { response: { status: response.status, headers: {} } }
        })
      )
    const declared = Number(Option.getOrUndefined(Headers.get(response.headers, "content-length")))
    if (Number.isFinite(declared) && declared > endpoint.maxResponseBytes) return yield* tooLarge()
    const body = yield* readBody(response, endpoint.maxResponseBytes)
    if (body.truncated) return yield* tooLarge()
    return yield* Schema.decodeUnknownEffect(Schema.fromJsonString(request.schema))(body.text).pipe(
      Effect.catchTag("SchemaError", (error) =>
        fail(
          new AiError.InvalidResponseError({
            description: `the ${endpoint.module} answer has an unexpected shape: ${cut(error.message)}`,
            http: { response: { status: response.status, headers: {} }, body: cut(body.text) }
          })
        ))
    )
  })

/** Reads at most `limit` bytes of the body; `truncated` when there was more. */
const readBody = (response: HttpClientResponse.HttpClientResponse, limit: number) =>
  Effect.suspend(() => {
    const chunks: Array<Uint8Array> = []
    let size = 0
    let truncated = false
    return Stream.runForEachWhile(response.stream, (chunk) =>
      Effect.sync(() => {
        if (size + chunk.length > limit) {
          chunks.push(chunk.subarray(0, limit - size))
          size = limit
          truncated = true
          return false
        }
        chunks.push(chunk)
        size += chunk.length
        return true
      })).pipe(
        Effect.map(() => {
          const bytes = new Uint8Array(size)
          let at = 0
          for (const c of chunks) {
            bytes.set(c, at)
            at += c.length
          }
          return { text: new TextDecoder().decode(bytes), truncated }
        })
      )
  })

/** The provider's own error message, when its body has the usual `{ error: { message } }` shape. */
const ErrorBody = Schema.Struct({
  error: Schema.optional(Schema.Union([
    Schema.String,
    Schema.Struct({
      message: Schema.optional(Schema.String),
      type: Schema.optional(Schema.NullOr(Schema.String)),
      code: Schema.optional(Schema.NullOr(Schema.Union([Schema.String, Schema.Number])))
    })
  ])),
  message: Schema.optional(Schema.String)
})
const decodeErrorBody = Schema.decodeUnknownOption(Schema.fromJsonString(ErrorBody))

const statusReason = (response: HttpClientResponse.HttpClientResponse, text: string): AiError.AiErrorReason => {
  const parsed = Option.getOrUndefined(decodeErrorBody(text))
  const error = parsed?.error
  const message = typeof error === "string" ? error : error?.message ?? parsed?.message
  const kind = typeof error === "object" ? error.type ?? error.code ?? undefined : undefined
  const description = message === undefined
    ? `HTTP ${response.status}${text.trim() === "" ? "" : `: ${cut(text.trim())}`}`
    : `${cut(message)}${kind === undefined ? "" : ` (${kind})`}`
  // the error keeps the headers a retry reads, and no other
  const headers = Object.fromEntries(Retry.hintHeaders.flatMap((name) => {
    const value = Option.getOrUndefined(Headers.get(response.headers, name))
    return value === undefined ? [] : [[name, cut(value)]]
  }))
  const http = { response: { status: response.status, headers }, body: cut(text) }
  if (response.status === 429) {
    const seconds = Number(headers["retry-after"])
    return new AiError.RateLimitError({
      http,
      ...(Number.isFinite(seconds) && seconds >= 0 ? { retryAfter: Duration.seconds(seconds) } : {})
    })
  }
  return AiError.reasonFromHttpStatus({ status: response.status, http, description })
}

/** What a transport failure says: fetch wraps the system error (`ECONNREFUSED`) in its own. */
const describeCause = (cause: unknown): string => {
  const parts: Array<string> = []
  for (let c = cause, depth = 0; c instanceof Error && depth < 3; c = c.cause, depth++) {
    const code = "code" in c && typeof c.code === "string" ? ` (${c.code})` : ""
    parts.push(`${c.message}${code}`)
  }
  return parts.length === 0 ? "the request failed" : cut(parts.join(": "))
}

/** Cuts text from the server to a length fit for a message. */
export const cut = (text: string): string => text.length > MESSAGE_CHARS ? `${text.slice(0, MESSAGE_CHARS)}…` : text
