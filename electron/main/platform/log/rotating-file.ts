/**
 * An append-only log file that rotates by size: when a line would take it past `maxBytes`, the
 * file becomes `.1` (`.1` becomes `.2`, …, the oldest beyond `keep` is removed) and a new file is
 * started. Writes are synchronous, so a line is on disk when the call returns — an internal error
 * right before a crash is not lost, and a test can read the file at once. Another process that
 * rotated the file meanwhile is noticed (the path no longer names our file) and followed.
 */
import {
  chmodSync,
  closeSync,
  fchmodSync,
  fstatSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs'
import { dirname } from 'node:path'

export interface RotationOptions {
  /** Rotate before a write would take the file past this size. */
  maxBytes: number
  /** Rotated files kept beside the current one. */
  keep: number
}

export class RotatingFile {
  private fd: number
  private closed = false

  constructor(
    readonly path: string,
    private readonly options: RotationOptions,
  ) {
    const dir = dirname(path)
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    if ((statSync(dir).mode & 0o077) !== 0) chmodSync(dir, 0o700)
    this.fd = this.open()
  }

  /** Error messages in the log may name files and members: owner only, like the rest of the data folder. */
  private open(): number {
    const fd = openSync(this.path, 'a', 0o600)
    if ((fstatSync(fd).mode & 0o077) !== 0) fchmodSync(fd, 0o600)
    return fd
  }

  /** True when the path still names the file we hold open. */
  private current(): boolean {
    try {
      return statSync(this.path).ino === fstatSync(this.fd).ino
    } catch {
      return false
    }
  }

  private rotate(): void {
    closeSync(this.fd)
    rmSync(`${this.path}.${this.options.keep}`, { force: true })
    for (let i = this.options.keep - 1; i >= 1; i--) {
      try {
        renameSync(`${this.path}.${i}`, `${this.path}.${i + 1}`)
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
      }
    }
    if (this.options.keep >= 1) renameSync(this.path, `${this.path}.1`)
    else rmSync(this.path, { force: true })
    this.fd = this.open()
  }

  write(line: string): void {
    // A line logged while shutting down has nowhere to go; losing it beats throwing from a logger.
    if (this.closed) return
    if (!this.current()) {
      closeSync(this.fd)
      this.fd = this.open()
    }
    const size = fstatSync(this.fd).size
    if (size > 0 && size + Buffer.byteLength(line) > this.options.maxBytes) this.rotate()
    writeSync(this.fd, line)
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    closeSync(this.fd)
  }
}
