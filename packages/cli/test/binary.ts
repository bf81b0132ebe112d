import { spawn } from "node:child_process"

/** The built `tool-search` binary (`npm test` builds it first). */
export const bin = new URL("../bin/tool-search.js", import.meta.url).pathname

/** What one run of the binary did. */
export interface Run {
  /** The exit code, or `null` when a signal ended it. */
  readonly status: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Options of `runBinary`. */
export interface Options {
  /** Written to standard input, which is then closed. */
  readonly input?: string
  readonly env?: Readonly<Record<string, string>>
  /** The working directory (default: the test's). */
  readonly cwd?: string
  /** Called with stderr as it grows, and a function that sends the process a signal. */
  readonly onStderr?: (stderr: string, kill: (signal: NodeJS.Signals) => void) => void
}

/**
 * Runs the real binary as a user would, to completion (a generous safety timeout, never an
 * assertion on time).
 */
export const runBinary = (args: ReadonlyArray<string>, options: Options = {}): Promise<Run> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { PATH: process.env["PATH"] ?? "", ...options.env },
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      stdio: ["pipe", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    const timer = setTimeout(() => child.kill("SIGKILL"), 120_000)
    child.stdout.on("data", (chunk: Buffer) => void (stdout += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
      options.onStderr?.(stderr, (signal) => child.kill(signal))
    })
    child.on("error", reject)
    child.on("close", (status) => {
      clearTimeout(timer)
      resolve({ status, stdout, stderr })
    })
    if (options.input !== undefined) child.stdin.end(options.input)
    else if (options.onStderr === undefined) child.stdin.end()
  })
