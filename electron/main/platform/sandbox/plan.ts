/**
 * The plan both launchers carry out (bwrap's arguments, the sandbox-exec profile): what is writable, what is shown
 * read-only, what is hidden, and the network, with the path helpers and the order the mounts must come in.
 */
import { realpathSync } from 'node:fs'
import path from 'node:path'

export interface Plan {
  cwd: string
  writable: string[]
  /** Shown read-only even when under a hidden path. */
  readOnly: string[]
  hide: string[]
  network: boolean
  privateTmp: boolean
}

export function real(p: string): string | null {
  try {
    // The system's realpath: one call, where Node's own walks the path with an lstat per part.
    return realpathSync.native(path.resolve(p))
  } catch {
    return null
  }
}

export function uniqueReal(paths: string[]): string[] {
  return [...new Set(paths.map(real).filter((p): p is string => p !== null))]
}

export const within = (p: string, dir: string): boolean =>
  p === dir || p.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep)

/**
 * Mount order matters: a hidden path that contains the workspace (worktrees kept in the data folder) is hidden first
 * and the workspace bound on top; a hidden path inside the workspace is hidden after the workspace is bound.
 */
export function orderedHides(plan: Plan): { before: string[]; after: string[] } {
  const exposed = [...plan.writable, ...plan.readOnly]
  const inExposed = (h: string): boolean => exposed.some((e) => h !== e && within(h, e))
  // A hidden path inside another (a credential folder in the hidden home) is hidden already, unless it is shown again.
  const hide = plan.hide.filter((h) => inExposed(h) || !plan.hide.some((o) => o !== h && within(h, o)))
  const after = hide.filter(inExposed)
  return { before: hide.filter((h) => !after.includes(h)), after }
}

/** The folders shown, outer ones first, so that a folder shown inside another (the read-only `.git`) lands on top. */
export function orderedBinds(plan: Plan): { path: string; writable: boolean }[] {
  const binds = [
    ...plan.writable.map((p) => ({ path: p, writable: true })),
    ...plan.readOnly.map((p) => ({ path: p, writable: false })),
  ]
  const depth = (p: string): number => p.split(path.sep).length
  return binds.sort((x, y) => depth(x.path) - depth(y.path))
}
