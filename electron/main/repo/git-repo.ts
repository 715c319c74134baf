/**
 * What Concord itself does with the user's git repository: inspect it when a workspace opens, resolve commits,
 * create and remove task worktrees, keep read-only checkouts for verification, and list the files a turn changed.
 * Every call goes through runOwnGit: no program named by the repository's config ever runs.
 */
import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs'
import path from 'node:path'
import { ApiError } from '../../../shared/errors'
import { runOwnGit } from '../runtime/tools/git'

const SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/

export interface RepoInfo {
  isRepo: boolean
  bare: boolean
  /** The branch checked out in the user's checkout; null when HEAD is detached. */
  branch: string | null
  /** HEAD's commit; null before the first commit. */
  head: string | null
  /** Submodules or LFS in use: worktrees still work, with the limits the README names. */
  submodules: boolean
  lfs: boolean
}

export async function inspectRepo(root: string): Promise<RepoInfo> {
  const inside = await runOwnGit(root, ['rev-parse', '--is-inside-work-tree', '--is-bare-repository'], { allowFailure: true })
  if (inside.code !== 0) return { isRepo: false, bare: false, branch: null, head: null, submodules: false, lfs: false }
  const [work, bare] = inside.stdout.trim().split('\n')
  const branch = (await runOwnGit(root, ['symbolic-ref', '--quiet', '--short', 'HEAD'], { allowFailure: true })).stdout.trim() || null
  const head = await resolveCommit(root, 'HEAD')
  const attrs = existsSync(path.join(root, '.gitattributes')) ? (await runOwnGit(root, ['check-attr', 'filter', '--', '.gitattributes'], { allowFailure: true })).stdout : ''
  return {
    isRepo: work === 'true' || bare === 'true',
    bare: bare === 'true',
    branch,
    head,
    submodules: existsSync(path.join(root, '.gitmodules')),
    lfs: /filter: lfs/.test(attrs) || existsSync(path.join(root, '.git', 'lfs')),
  }
}

/** The full commit SHA `ref` names in the repository (short SHAs, branches, tags, HEAD), or null. */
export async function resolveCommit(root: string, ref: string): Promise<string | null> {
  if (!ref || ref.startsWith('-') || /[\s\x00-\x1f\x7f]/.test(ref) || ref.length > 256) return null
  const r = await runOwnGit(root, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`], { allowFailure: true })
  const sha = r.stdout.trim()
  return r.code === 0 && SHA.test(sha) ? sha : null
}

export async function branchExists(root: string, branch: string): Promise<boolean> {
  return (await runOwnGit(root, ['show-ref', '--verify', '--quiet', `refs/heads/${branch}`], { allowFailure: true })).code === 0
}

/** `concord/T-3-short-slug`, with a fresh suffix when the name is taken (never overwriting a branch). */
export async function freeBranchName(root: string, taskKey: string, title: string): Promise<string> {
  const slug = title
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .split('-')
    .slice(0, 5)
    .join('-')
    .slice(0, 40)
    .replace(/-+$/, '')
  const base = `concord/${taskKey}${slug ? `-${slug}` : ''}`
  for (let n = 1; ; n++) {
    const name = n === 1 ? base : `${base}-${n}`
    if (!(await branchExists(root, name))) return name
  }
}

/** A new branch at `base` checked out in a new worktree at `dir` (outside the repository, in the data folder). */
export async function addTaskWorktree(root: string, dir: string, branch: string, base: string): Promise<void> {
  mkdirSync(path.dirname(dir), { recursive: true, mode: 0o700 })
  if (existsSync(dir)) rmSync(dir, { recursive: true, force: true })
  const r = await runOwnGit(root, ['worktree', 'add', '--quiet', '-b', branch, dir, base], { allowFailure: true })
  if (r.code !== 0) throw new ApiError('io_error', `could not create the worktree for ${branch}: ${r.stderr.trim() || 'git worktree add failed'}`)
}

/** Re-attaches an existing branch to a worktree (after the folder was removed by hand). */
export async function reattachWorktree(root: string, dir: string, branch: string): Promise<void> {
  await runOwnGit(root, ['worktree', 'prune'], { allowFailure: true })
  mkdirSync(path.dirname(dir), { recursive: true, mode: 0o700 })
  if (existsSync(dir)) rmSync(dir, { recursive: true, force: true })
  const r = await runOwnGit(root, ['worktree', 'add', '--quiet', dir, branch], { allowFailure: true })
  if (r.code !== 0) throw new ApiError('io_error', `could not restore the worktree of ${branch}: ${r.stderr.trim() || 'git worktree add failed'}`)
}

/** Removes a worktree (and, if asked, its branch); prunes what git still remembers of removed ones. */
export async function removeWorktree(root: string, dir: string | null, deleteBranch?: string): Promise<void> {
  if (dir) await runOwnGit(root, ['worktree', 'remove', '--force', '--force', dir], { allowFailure: true })
  if (dir && existsSync(dir)) rmSync(dir, { recursive: true, force: true })
  await runOwnGit(root, ['worktree', 'prune'], { allowFailure: true })
  if (deleteBranch) await runOwnGit(root, ['branch', '-D', '--', deleteBranch], { allowFailure: true })
}

/**
 * A detached checkout of `commit` at `dir` for reading and running it (verification, turns without a task).
 * Reused when it is already there at that commit; the files are made read-only by the caller's tools.
 */
export async function ensureCheckout(root: string, dir: string, commit: string): Promise<string> {
  if (existsSync(path.join(dir, '.git')) && (await resolveCommit(dir, 'HEAD')) === commit) {
    // Put back anything a previous run left (the tools refuse writes; commands could still have left build output).
    await runOwnGit(dir, ['reset', '--quiet', '--hard', commit], { allowFailure: true })
    await runOwnGit(dir, ['clean', '-fdq'], { allowFailure: true })
    return dir
  }
  await runOwnGit(root, ['worktree', 'remove', '--force', '--force', dir], { allowFailure: true })
  if (existsSync(dir)) rmSync(dir, { recursive: true, force: true })
  await runOwnGit(root, ['worktree', 'prune'], { allowFailure: true })
  mkdirSync(path.dirname(dir), { recursive: true, mode: 0o700 })
  const r = await runOwnGit(root, ['worktree', 'add', '--quiet', '--detach', dir, commit], { allowFailure: true })
  if (r.code !== 0) throw new ApiError('io_error', `could not check out ${commit.slice(0, 10)}: ${r.stderr.trim() || 'git worktree add failed'}`)
  return dir
}

export interface FileChange {
  path: string
  status: 'added' | 'modified' | 'deleted' | 'renamed' | 'copied' | 'type_changed'
}

const statusWord: Record<string, FileChange['status']> = { A: 'added', M: 'modified', D: 'deleted', R: 'renamed', C: 'copied', T: 'type_changed' }

/** Tracked and untracked changes in a work tree against its HEAD (what a delivery would leave out). */
export async function uncommittedFiles(dir: string): Promise<string[]> {
  const r = await runOwnGit(dir, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--ignore-submodules=dirty'])
  return r.stdout
    .split('\0')
    .filter((e) => e.length > 3)
    .map((e) => e.slice(3))
}

/**
 * A tree object for the work tree as it is now, committed or not (a temporary index; the real one is untouched), so
 * two snapshots tell exactly what a turn changed.
 */
export async function snapshotTree(dir: string, scratch: string): Promise<string | null> {
  mkdirSync(scratch, { recursive: true, mode: 0o700 })
  const index = path.join(scratch, `snapshot-${process.pid}-${Math.random().toString(36).slice(2)}.index`)
  try {
    const env = { GIT_INDEX_FILE: index }
    // Start from a copy of the real index: its stat data spares hashing every unchanged file.
    const real = (await runOwnGit(dir, ['rev-parse', '--path-format=absolute', '--git-path', 'index'], { allowFailure: true })).stdout.trim()
    if (real && existsSync(real)) copyFileSync(real, index)
    else {
      const head = await resolveCommit(dir, 'HEAD')
      if (head) await runOwnGit(dir, ['read-tree', head], { env, allowFailure: true })
    }
    const add = await runOwnGit(dir, ['add', '-A', '--', '.'], { env, allowFailure: true })
    if (add.code !== 0) return null
    const tree = (await runOwnGit(dir, ['write-tree'], { env, allowFailure: true })).stdout.trim()
    return /^[0-9a-f]{40}$/.test(tree) ? tree : null
  } finally {
    rmSync(index, { force: true })
  }
}

/** The files that differ between two trees or commits, with what happened to each. */
export async function changedFiles(dir: string, from: string, to: string): Promise<FileChange[]> {
  if (from === to) return []
  const r = await runOwnGit(dir, ['diff-tree', '-r', '-z', '--no-commit-id', '--name-status', '-M', from, to], { allowFailure: true })
  if (r.code !== 0) return []
  const parts = r.stdout.split('\0').filter((p) => p.length > 0)
  const out: FileChange[] = []
  for (let i = 0; i < parts.length;) {
    const code = parts[i++] ?? ''
    const kind = statusWord[code.charAt(0)] ?? 'modified'
    if (kind === 'renamed' || kind === 'copied') i++ // the old path
    const path = parts[i++]
    if (path !== undefined) out.push({ path, status: kind })
  }
  return out
}
