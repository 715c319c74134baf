/**
 * Confines the paths a tool touches to one workspace folder.
 *
 * `resolveInWorkspace` turns a model-supplied relative path into an absolute, real (symlink-free) path inside the
 * workspace, or throws a ToolError:
 * - `path_outside_workspace`: absolute paths, NUL bytes, `..` escapes, and symlinks (anywhere along the path, including
 *   dangling ones) whose real target lies outside the workspace;
 * - `path_forbidden`: writes (opts.write) into git internals (any `.git` path segment);
 * - `not_found`: opts.mustExist and nothing is there;
 * - `invalid_arguments`: not a string.
 */
import { lstat, readlink, realpath } from 'node:fs/promises'
import path from 'node:path'
import { ToolError } from '../../platform/tool-error'

export interface ResolveOptions {
  /** Throw `not_found` when the path does not exist. */
  mustExist?: boolean
  /** The caller is about to write: also refuse `.git` internals. */
  write?: boolean
}

const MAX_SYMLINK_HOPS = 40

/** Real path of the workspace root (the root itself may legitimately be reached through a symlink). */
async function realRoot(root: string): Promise<string> {
  try {
    return await realpath(root)
  } catch {
    throw new ToolError('workspace_missing', `Workspace folder does not exist: ${root}`)
  }
}

function isErrno(err: unknown, ...codes: string[]): boolean {
  return typeof err === 'object' && err !== null && codes.includes((err as NodeJS.ErrnoException).code ?? '')
}

/**
 * Real path of `p` even when (a suffix of) it does not exist yet: symlinks are followed, including dangling ones, so a
 * later create through a symlink is judged by where it would really land.
 */
async function realish(p: string, hops = 0): Promise<string> {
  if (hops > MAX_SYMLINK_HOPS) throw new ToolError('path_outside_workspace', 'Too many levels of symbolic links.')
  try {
    return await realpath(p)
  } catch (err) {
    if (isErrno(err, 'ELOOP')) throw new ToolError('path_outside_workspace', 'Too many levels of symbolic links.')
    if (!isErrno(err, 'ENOENT', 'ENOTDIR')) throw err
  }
  // Something along the way is missing. Is `p` itself a (dangling) symlink?
  try {
    const st = await lstat(p)
    if (st.isSymbolicLink()) {
      const target = await readlink(p)
      const parentReal = await realish(path.dirname(p), hops + 1)
      return await realish(path.resolve(parentReal, target), hops + 1)
    }
  } catch (err) {
    if (err instanceof ToolError) throw err
    if (!isErrno(err, 'ENOENT', 'ENOTDIR')) throw err
  }
  const parent = path.dirname(p)
  if (parent === p) return p
  return path.join(await realish(parent, hops + 1), path.basename(p))
}

function isInside(root: string, p: string): boolean {
  const rel = path.relative(root, p)
  return rel === '' || (!rel.startsWith('..' + path.sep) && rel !== '..' && !path.isAbsolute(rel))
}

function touchesGitInternals(rel: string): boolean {
  return rel.split(/[\\/]+/).some((seg) => seg.toLowerCase() === '.git')
}

/** Workspace-relative display form of an absolute path inside the workspace ('.' for the root, '/' separators). */
export function toWorkspaceRelative(root: string, abs: string): string {
  const rel = path.relative(root, abs)
  return rel === '' ? '.' : rel.split(path.sep).join('/')
}

/** Real path of the workspace root (what `resolveInWorkspace` measures against). */
export function workspaceRealRoot(root: string): Promise<string> {
  return realRoot(root)
}

export async function resolveInWorkspace(root: string, relPath: string, opts: ResolveOptions = {}): Promise<string> {
  if (typeof relPath !== 'string') throw new ToolError('invalid_arguments', 'path must be a string.')
  if (relPath.includes('\0')) throw new ToolError('path_outside_workspace', 'Path contains a NUL byte.')
  if (path.isAbsolute(relPath) || /^[A-Za-z]:[\\/]/.test(relPath) || relPath.startsWith('\\')) {
    throw new ToolError(
      'path_outside_workspace',
      `Absolute paths are not allowed (${JSON.stringify(relPath)}); use a path relative to the workspace root.`,
    )
  }
  const rootReal = await realRoot(root)
  const lexical = path.resolve(rootReal, relPath === '' ? '.' : relPath)
  if (!isInside(rootReal, lexical)) {
    throw new ToolError('path_outside_workspace', `Path ${JSON.stringify(relPath)} escapes the workspace.`)
  }
  if (opts.write && touchesGitInternals(path.relative(rootReal, lexical))) {
    throw new ToolError('path_forbidden', `Writing inside .git is not allowed (${JSON.stringify(relPath)}).`)
  }
  let real: string
  try {
    real = await realish(lexical)
  } catch (err) {
    if (err instanceof ToolError) throw err
    throw new ToolError('path_error', `Cannot resolve ${JSON.stringify(relPath)}: ${(err as Error).message}`)
  }
  if (!isInside(rootReal, real)) {
    throw new ToolError(
      'path_outside_workspace',
      `Path ${JSON.stringify(relPath)} resolves (through a symbolic link) outside the workspace.`,
    )
  }
  if (opts.write && touchesGitInternals(path.relative(rootReal, real))) {
    throw new ToolError('path_forbidden', `Writing inside .git is not allowed (${JSON.stringify(relPath)}).`)
  }
  if (opts.mustExist) {
    try {
      await lstat(real)
    } catch {
      throw new ToolError('not_found', `No such file or directory: ${relPath}`)
    }
  }
  return real
}
