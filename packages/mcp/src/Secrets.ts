/**
 * What the gateway keeps to itself: the environment a server it starts gets, and the credentials
 * that may sit in a URL of a log line.
 *
 * - **Environment.** A server the gateway starts over stdio gets `baseEnvironment` — the variables
 *   a process needs to run (`PATH`, `HOME`, `USER`, the locale, ...) read from the gateway's
 *   environment — plus the `env` its own configuration gives it, and nothing else: never the
 *   gateway's settings (`TOOL_SEARCH_*`: the database URL with its password, model keys, the bearer
 *   token) nor any other secret of the process that starts it. A local agent's `--upstream`
 *   servers (`run`, `chat`: no configuration to give them variables) get `inheritedEnvironment`:
 *   the process's environment without tool-search's own settings and keys.
 * - **URLs in log lines.** `redact` hides the user information of a URL (`postgres://u:***@db`,
 *   `https://***@host`) and the values of query parameters named like credentials (`?token=***`,
 *   `api_key`, `secret`, `signature`, ...); the gateway's logger passes every line through it, so
 *   an upstream URL, the OTLP endpoint or an error quoting either never shows a credential.
 *
 * @since 0.3.0
 */

/**
 * The variables a server inherits from the gateway's environment: what a process needs to run,
 * never a credential.
 *
 * @since 0.3.0
 * @category environment
 */
export const BASE_VARIABLES: ReadonlyArray<string> = process.platform === "win32"
  ? [
    "APPDATA",
    "HOMEDRIVE",
    "HOMEPATH",
    "LOCALAPPDATA",
    "PATH",
    "PATHEXT",
    "PROCESSOR_ARCHITECTURE",
    "SYSTEMDRIVE",
    "SYSTEMROOT",
    "TEMP",
    "TMP",
    "USERNAME",
    "USERPROFILE",
    "WINDIR"
  ]
  : ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR"]

/**
 * The base environment of a server, from `env` (default: this process's): `BASE_VARIABLES` only,
 * and none whose value looks like a function definition (shell function exports).
 *
 * @since 0.3.0
 * @category environment
 */
export const baseEnvironment = (
  env: Readonly<Record<string, string | undefined>> = process.env
): Record<string, string> =>
  Object.fromEntries(
    BASE_VARIABLES.flatMap((name) => {
      const value = env[name]
      return value === undefined || value.startsWith("()") ? [] : [[name, value]]
    })
  )

/**
 * The variables that are tool-search's own settings or keys: every `TOOL_SEARCH_*` variable (the
 * database URL, the bearer token, model settings), and the model keys its providers read.
 *
 * @since 0.3.0
 * @category environment
 */
export const isOwn = (name: string): boolean =>
  name.startsWith("TOOL_SEARCH_") || name === "OPENAI_API_KEY" || name === "ANTHROPIC_API_KEY"

/**
 * This process's environment without its own settings and keys (`isOwn`, and the names in
 * `alsoOwn`): for the servers a local agent (`tool-search run`, `chat`) starts from the command
 * line, which have no configuration of their own to give them variables.
 *
 * @since 0.3.0
 * @category environment
 */
export const inheritedEnvironment = (
  alsoOwn: ReadonlyArray<string> = [],
  env: Readonly<Record<string, string | undefined>> = process.env
): Record<string, string> =>
  Object.fromEntries(
    Object.entries(env).flatMap(([name, value]) =>
      value === undefined || isOwn(name) || alsoOwn.includes(name) ? [] : [[name, value]]
    )
  )

/** A URL's user information: `scheme://user:password@` or `scheme://token@`. */
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#@:"\\]*)(?::[^\s/?#@"\\]*)?@/gi

/** A query parameter named like a credential, and its value. */
const SECRET_PARAM =
  /([?&;][^=&\s"\\#]*(?:token|key|secret|password|passwd|pwd|auth|sig|signature|credential|session)[^=&\s"\\#]*=)([^&\s"\\#]+)/gi

/**
 * `text` with the credentials of every URL in it hidden: the password of its user information
 * (or the whole of it when there is no password: a token), and the values of query parameters
 * named like credentials.
 *
 * @since 0.3.0
 * @category redaction
 */
export const redact = (text: string): string =>
  text
    .replace(USERINFO, (_, scheme: string, user: string, offset: number, all: string) =>
      all.slice(offset).slice(scheme.length + user.length).startsWith(":") ? `${scheme}${user}:***@` : `${scheme}***@`)
    .replace(SECRET_PARAM, "$1***")
