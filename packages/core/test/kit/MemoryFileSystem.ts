// An in-memory `FileSystem` for core tests: files as bytes, symbolic links, folders implied by the
// files under them, and paths that refuse every write. Deterministic, nothing touches the disk.
import { ByteSize, Effect, FileSystem, Layer, Option, Path, PlatformError } from "effect"

/** The contents of a memory file system, which tests may inspect and change while it is in use. */
export interface Disk {
  readonly files: Map<string, Uint8Array>
  /** A link and where it points; a path under a link resolves through it. */
  readonly links: Map<string, string>
  /** Paths under which every write fails (a read-only mount, a file where a folder should be). */
  readonly readOnly: Set<string>
}

/** A disk holding `files` (text or bytes). */
export const disk = (files: Record<string, string | Uint8Array> = {}): Disk => ({
  files: new Map(
    Object.entries(files).map(([path, content]) => [
      path,
      typeof content === "string" ? new TextEncoder().encode(content) : content
    ])
  ),
  links: new Map(),
  readOnly: new Set()
})

/** The text of a file of `disk`, if there is one. */
export const text = (disk: Disk, path: string): string | undefined => {
  const bytes = disk.files.get(path)
  return bytes === undefined ? undefined : new TextDecoder().decode(bytes)
}

const failure = (tag: "NotFound" | "PermissionDenied", method: string, path: string) =>
  PlatformError.systemError({ _tag: tag, module: "FileSystem", method, pathOrDescriptor: path })

const info = (type: FileSystem.File.Type, size: number): FileSystem.File.Info => ({
  type,
  mtime: Option.none(),
  atime: Option.none(),
  birthtime: Option.none(),
  dev: 0n,
  ino: Option.none(),
  mode: 0o644,
  nlink: Option.none(),
  uid: Option.none(),
  gid: Option.none(),
  rdev: Option.none(),
  size: ByteSize.bytes(size),
  blksize: Option.none(),
  blocks: Option.none()
})

/** A `FileSystem` over `disk`. */
export const fileSystem = (disk: Disk): FileSystem.FileSystem => {
  const resolve = (path: string): string => {
    let current = path
    for (let hops = 0; hops < 10; hops++) {
      const link = [...disk.links.keys()].find((l) => current === l || current.startsWith(`${l}/`))
      if (link === undefined) return current
      current = (disk.links.get(link) as string) + current.slice(link.length)
    }
    return current
  }
  const isDirectory = (path: string) => [...disk.files.keys()].some((f) => f.startsWith(`${path}/`))
  const writable = (path: string) => ![...disk.readOnly].some((p) => path === p || path.startsWith(`${p}/`))
  const read = (method: string, path: string) => {
    const bytes = disk.files.get(resolve(path))
    return bytes === undefined ? Effect.fail(failure("NotFound", method, path)) : Effect.succeed(bytes)
  }
  return FileSystem.makeNoop({
    exists: (path) => Effect.sync(() => disk.files.has(resolve(path)) || isDirectory(resolve(path))),
    realPath: (path) => {
      const real = resolve(path)
      return disk.files.has(real) || isDirectory(real)
        ? Effect.succeed(real)
        : Effect.fail(failure("NotFound", "realPath", path))
    },
    stat: (path) => {
      const real = resolve(path)
      const bytes = disk.files.get(real)
      if (bytes !== undefined) return Effect.succeed(info("File", bytes.length))
      return isDirectory(real) ? Effect.succeed(info("Directory", 0)) : Effect.fail(failure("NotFound", "stat", path))
    },
    readFile: (path) => read("readFile", path),
    readFileString: (path) => Effect.map(read("readFileString", path), (bytes) => new TextDecoder().decode(bytes)),
    makeDirectory: (path) =>
      writable(path) ? Effect.void : Effect.fail(failure("PermissionDenied", "makeDirectory", path)),
    writeFile: (path, data, options) => {
      if (!writable(path)) return Effect.fail(failure("PermissionDenied", "writeFile", path))
      return Effect.sync(() => {
        const before = options?.flag === "a" ? disk.files.get(path) ?? new Uint8Array() : new Uint8Array()
        const after = new Uint8Array(before.length + data.length)
        after.set(before)
        after.set(data, before.length)
        disk.files.set(path, after)
      })
    }
  })
}

/** `fileSystem(disk)` and the POSIX `Path`, as one layer. */
export const layer = (disk: Disk): Layer.Layer<FileSystem.FileSystem | Path.Path> =>
  Layer.merge(Layer.succeed(FileSystem.FileSystem, fileSystem(disk)), Path.layer)
