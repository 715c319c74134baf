/**
 * What Concord itself does with the user's git repository: inspect it when a workspace opens, resolve commits,
 * make task trees (clones of its own) — their branches come back through branch-sync.ts — keep read-only checkouts for verification.
 * What changed in a tree (uncommitted files, turn snapshots, changed files) is in file-changes.ts.
 * Every call goes through runOwnGit (the user's repository) or runTreeGit (a tree, hostile): no program named by a
 * repository's config ever runs.
 */
import path from 'node:path'
import { ApiError } from '../../../shared/errors'
import { batchCommit, batchTree, closeBatches, restartBatch } from '../platform/git-batch'
import { runOwnGit } from '../platform/own-git'
import { runTreeGit } from '../platform/tree-git'
import { existsSync, lstatSync, mkdirSync, renameSync, rmSync } from 'node:fs'
import { rm } from 'node:fs/promises'

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
  const inside = await runOwnGit(root, ['rev-parse', '--is-inside-work-tree', '--is-bare-repository'], {
    allowFailure: true,
  })
  if (inside.code !== 0) return { isRepo: false, bare: false, branch: null, head: null, submodules: false, lfs: false }
  const [work, bare] = inside.stdout.trim().split('\n')
  const branch =
    (await runOwnGit(root, ['symbolic-ref', '--quiet', '--short', 'HEAD'], { allowFailure: true })).stdout.trim() ||
    null
  const head = await resolveCommit(root, 'HEAD')
  const attrs = existsSync(path.join(root, '.gitattributes'))
    ? (await runOwnGit(root, ['check-attr', 'filter', '--', '.gitattributes'], { allowFailure: true })).stdout
    : ''
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
  if (!validRef(ref)) return null
  // The repository's long-lived cat-file answers a name it knows without a process; rev-parse has the last word.
  const known = await batchCommit(root, ref)
  if (known) return known
  const sha = await revParseCommit(root, ref)
  if (sha) restartBatch(root)
  return sha
}

/** The text of `file` (a path from the root) as committed at `ref`; null when the ref or the file is not there. */
export async function fileAtRef(root: string, ref: string, file: string): Promise<string | null> {
  if (!validRef(ref)) return null
  const r = await runOwnGit(root, ['cat-file', 'blob', `${ref}:${file}`], { allowFailure: true })
  return r.code === 0 ? r.stdout : null
}

/** The tree of the commit `ref` names in the repository at `root` (as resolveCommit: the long-lived cat-file first). */
export async function resolveCommitTree(root: string, ref: string): Promise<string | null> {
  if (!validRef(ref)) return null
  const known = await batchTree(root, ref)
  if (known) return known
  const r = await runOwnGit(root, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{tree}`], {
    allowFailure: true,
  })
  const sha = r.stdout.trim()
  if (r.code !== 0 || !SHA.test(sha)) return null
  restartBatch(root)
  return sha
}

const validRef = (ref: string): boolean =>
  !!ref && !ref.startsWith('-') && !/[\s\x00-\x1f\x7f]/.test(ref) && ref.length <= 256

async function revParseCommit(root: string, ref: string): Promise<string | null> {
  const r = await runOwnGit(root, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`], {
    allowFailure: true,
  })
  const sha = r.stdout.trim()
  return r.code === 0 && SHA.test(sha) ? sha : null
}

export async function branchExists(root: string, branch: string): Promise<boolean> {
  return (
    (await runOwnGit(root, ['show-ref', '--verify', '--quiet', `refs/heads/${branch}`], { allowFailure: true }))
      .code === 0
  )
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

/**
 * Why a task's tree is a repository of its own (`git clone --shared`), not a `git worktree` of the user's: a linked
 * worktree writes its refs, index and objects in the user's `.git`, so that folder had to be writable inside the
 * agent's sandbox — where the agent could plant hooks the user's next `git checkout` runs, and rewrite its `.git`
 * file to widen the next sandbox. A clone keeps everything it writes in its own `.git`, inside the tree; it reads the
 * user's objects through alternates (read-only in the sandbox) so it costs no copy; and Concord brings the task
 * branch into the user's repository itself (syncTaskBranch), with no program of the tree's config running.
 */
export async function makeTree(root: string, dir: string, branch: string | null, commit: string): Promise<void> {
  mkdirSync(path.dirname(dir), { recursive: true, mode: 0o700 })
  await removeTreeFolder(root, dir)
  // From the data folder, not from inside the user's repository: clone reads no repository's local config then.
  const r = await runOwnGit(path.dirname(dir), ['clone', '--shared', '--no-checkout', '--quiet', '--', root, dir], {
    allowFailure: true,
  })
  if (r.code !== 0)
    throw new ApiError(
      'io_error',
      `could not create the tree for ${branch ?? commit.slice(0, 10)}: ${r.stderr.trim() || 'git clone failed'}`,
    )
  const co = await runTreeGit(
    dir,
    ['checkout', '--quiet', '--force', ...(branch ? ['-B', branch] : ['--detach']), commit],
    { write: true, readable: await objectsOf(root), allowFailure: true },
  )
  if (co.code !== 0)
    throw new ApiError(
      'io_error',
      `could not check out ${commit.slice(0, 10)} in the tree for ${branch ?? 'a checkout'}: ${co.stderr.trim() || 'git checkout failed'}`,
    )
}

const objectStores = new Map<string, string>()

/**
 * The user's object store, which a tree reads through alternates: shown read-only in the sandbox of Concord's own
 * calls on the tree (and, through the turn's policy, of the agent's), since the sandbox hides the home and /tmp.
 */
export async function objectsOf(root: string): Promise<string[]> {
  let dir = objectStores.get(root)
  if (!dir) {
    const common = (
      await runOwnGit(root, ['rev-parse', '--path-format=absolute', '--git-common-dir'], { allowFailure: true })
    ).stdout.trim()
    if (!common) return []
    dir = path.join(common, 'objects')
    objectStores.set(root, dir)
  }
  return [dir]
}

/** True when `dir` is a tree of Concord's own kind: a repository with its own `.git` folder (not a linked worktree). */
export function isOwnTree(dir: string): boolean {
  try {
    const st = lstatSync(path.join(dir, '.git'))
    return st.isDirectory() && !st.isSymbolicLink()
  } catch {
    return false
  }
}

/** True when `dir` is a linked worktree of the user's repository, as Concord made them before trees were clones. */
export function isLinkedWorktree(dir: string): boolean {
  try {
    return lstatSync(path.join(dir, '.git')).isFile()
  } catch {
    return false
  }
}

/**
 * A linked worktree from before turned into a tree of its own in place: the files (committed or not) stay, the
 * `.git` file is replaced by a clone's `.git` folder on the same branch at the same commit, and the user's repository
 * forgets the worktree. Its commits are already in the user's repository (a worktree shares its objects and refs).
 */
export async function convertWorktree(root: string, dir: string, branch: string): Promise<void> {
  closeBatches(dir)
  // The branch as the user's repository has it (a worktree's refs are the repository's): nothing is read through the
  // tree's `.git` file, which an agent may have rewritten.
  const head = await resolveCommit(root, `refs/heads/${branch}`)
  if (!head)
    throw new ApiError(
      'io_error',
      `could not convert the old worktree ${dir}: the branch ${branch} is not in your repository`,
    )
  const fresh = `${dir}.converting`
  rmSync(fresh, { recursive: true, force: true })
  const r = await runOwnGit(path.dirname(dir), ['clone', '--shared', '--no-checkout', '--quiet', '--', root, fresh], {
    allowFailure: true,
  })
  if (r.code !== 0)
    throw new ApiError('io_error', `could not convert the worktree ${dir}: ${r.stderr.trim() || 'git clone failed'}`)
  const readable = await objectsOf(root)
  await runTreeGit(fresh, ['update-ref', `refs/heads/${branch}`, head], { write: true, readable })
  await runTreeGit(fresh, ['symbolic-ref', 'HEAD', `refs/heads/${branch}`], { write: true, readable })
  rmSync(path.join(dir, '.git'), { force: true })
  // Pruned while the folder has no .git: git forgets a worktree whose .git is gone.
  await runOwnGit(root, ['worktree', 'prune'], { allowFailure: true })
  renameSync(path.join(fresh, '.git'), path.join(dir, '.git'))
  rmSync(fresh, { recursive: true, force: true })
  // The index from HEAD, the files untouched: what was uncommitted shows as changed, as before.
  await runTreeGit(dir, ['reset', '--quiet', '--mixed'], { write: true, readable })
}

/** Removes a tree folder; for an old linked worktree also what the user's repository remembers of it. */
async function removeTreeFolder(root: string, dir: string): Promise<void> {
  closeBatches(dir)
  const linked = isLinkedWorktree(dir)
  // Off the event loop: a tree of thousands of files takes a while, and the other tasks' checks start meanwhile.
  await rm(dir, { recursive: true, force: true })
  if (linked) await runOwnGit(root, ['worktree', 'prune'], { allowFailure: true })
}

/** Removes a task's tree (and, if asked, its branch in the user's repository). */
export async function removeTree(root: string, dir: string | null, deleteBranch?: string): Promise<void> {
  if (dir) await removeTreeFolder(root, dir)
  if (deleteBranch) await runOwnGit(root, ['branch', '-D', '--', deleteBranch], { allowFailure: true })
}

/** The commit a tree's HEAD is at, read with its git folder named explicitly (no `.git` file is followed). */
export async function treeHead(dir: string): Promise<string | null> {
  return resolveTreeCommit(dir, 'HEAD')
}

export async function resolveTreeCommit(dir: string, ref: string): Promise<string | null> {
  if (!validRef(ref)) return null
  // A tree of its own: its git folder named explicitly, in the tree's long-lived cat-file (see resolveCommit).
  const own = isOwnTree(dir)
  const known = own ? await batchCommit(dir, ref, true) : null
  if (known) return known
  const sha = await revParseTreeCommit(dir, ref)
  if (sha && own) restartBatch(dir, true)
  return sha
}

async function revParseTreeCommit(dir: string, ref: string): Promise<string | null> {
  const r = await runTreeGit(dir, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`], {
    allowFailure: true,
  })
  const sha = r.stdout.trim()
  return r.code === 0 && SHA.test(sha) ? sha : null
}

/** True when `commit` is `base` or descends from it in the user's repository. */
export async function descendsFrom(root: string, commit: string, base: string): Promise<boolean> {
  return (await runOwnGit(root, ['merge-base', '--is-ancestor', base, commit], { allowFailure: true })).code === 0
}

/** The task's branch created in the user's repository at `base` unless it is there already (a retry). */
export async function createBranchRef(root: string, branch: string, base: string): Promise<void> {
  if (await branchExists(root, branch)) return
  const r = await runOwnGit(root, ['update-ref', '-m', 'concord: task branch', `refs/heads/${branch}`, base, ''], {
    allowFailure: true,
  })
  if (r.code !== 0 && !(await branchExists(root, branch)))
    throw new ApiError(
      'io_error',
      `could not create the branch ${branch}: ${r.stderr.trim() || 'git update-ref failed'}`,
    )
}

/**
 * A detached checkout of `commit` at `dir` for reading and running it (verification, turns without a task): a tree of
 * its own like a task's. An existing one is moved to the commit in place (`checkout --detach` in the same folder),
 * never deleted and made again, so an agent that has the folder mounted keeps a valid mount. Anything a previous run
 * left (build output of commands) is put back; the files are made read-only by the caller's tools.
 */
export async function ensureCheckout(root: string, dir: string, commit: string): Promise<string> {
  if (isOwnTree(dir)) {
    const readable = await objectsOf(root)
    const moved = await runTreeGit(dir, ['checkout', '--quiet', '--force', '--detach', commit], {
      write: true,
      readable,
      allowFailure: true,
    })
    if (moved.code === 0) {
      await runTreeGit(dir, ['clean', '-fdq'], { write: true, readable, allowFailure: true })
      return dir
    }
  }
  await makeTree(root, dir, null, commit)
  return dir
}

/** The person git names for the repository (`user.name`, its own config or the user's), or null when git knows none. */
export async function gitUserName(root: string): Promise<string | null> {
  const r = await runOwnGit(root, ['config', '--get', 'user.name'], { allowFailure: true })
  const name = r.code === 0 ? r.stdout.trim().replace(/\s+/g, ' ') : ''
  return name ? name.slice(0, 200) : null
}
