/**
 * What Concord itself does with the user's git repository: inspect it when a workspace opens, resolve commits,
 * make task trees (clones of its own) and bring their branches back, keep read-only checkouts for verification.
 * What changed in a tree (uncommitted files, turn snapshots, changed files) is in file-changes.ts.
 * Every call goes through runOwnGit (the user's repository) or runTreeGit (a tree, hostile): no program named by a
 * repository's config ever runs.
 */
import { existsSync, lstatSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import path from 'node:path'
import { ApiError } from '../../../shared/errors'
import { runOwnGit } from '../platform/own-git'
import { runTreeGit } from '../platform/tree-git'
import { batchCommit, batchTree, closeBatches, restartBatch } from '../platform/git-batch'
import { checkBundleObjects } from './bundle-objects'
import { onePerTree } from './one-per-tree'

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

export interface SyncResult {
  /** The tree's head, or null when it has none (or the tree is gone). */
  head: string | null
  /** The head is in the user's repository and the task's branch there points at it. */
  landed: boolean
}

/**
 * Brings a task tree's head into the user's repository as the task's branch. The tree is hostile, so: the bundle is
 * made in a read-only sandbox with no program of the tree's config running (runTreeGit), its objects are checked in a
 * quarantine repository (bundle-objects.ts: `index-pack --strict`, as `fetch <bundle>` does not on every git), the
 * user's repository fetches that file with hooks off, and the only ref written is the
 * task's own branch — and only to a commit that descends from the task's base.
 */
export function syncTaskBranch(
  root: string,
  dir: string,
  branch: string,
  base: string,
  limit: TransferLimit,
): Promise<SyncResult> {
  return onePerTree(path.resolve(dir), () => syncOnce(root, dir, branch, base, limit))
}

async function syncOnce(
  root: string,
  dir: string,
  branch: string,
  base: string,
  limit: TransferLimit,
): Promise<SyncResult> {
  if (!isOwnTree(dir)) return { head: null, landed: false }
  const head = await treeHead(dir)
  if (!head) return { head: null, landed: false }
  const current = await resolveCommit(root, `refs/heads/${branch}`)
  if (current === head) return { head, landed: true }
  const present = (await runOwnGit(root, ['cat-file', '-e', `${head}^{commit}`], { allowFailure: true })).code === 0
  if (!present) {
    const readable = await objectsOf(root)
    const folder = path.join(path.dirname(dir), `.${path.basename(dir)}-${process.pid}.transfer`)
    const file = path.join(folder, 'tree.bundle')
    const quarantine = path.join(path.dirname(dir), `.${path.basename(dir)}-${process.pid}.quarantine`)
    try {
      await writeTreeBundle(dir, folder, file, branch, base, readable, limit)
      // First into a repository of Concord's own that reads the user's objects (alternates) and writes none of them:
      // what the bundle holds is checked there, and only a head on the task's branch goes on to the user's repository.
      if (!(await onTaskBranch(root, quarantine, file, branch, head, base))) return { head, landed: false }
      await fetchBundle(root, file, branch)
    } finally {
      rmSync(folder, { recursive: true, force: true })
      rmSync(quarantine, { recursive: true, force: true })
    }
    if ((await runOwnGit(root, ['cat-file', '-e', `${head}^{commit}`], { allowFailure: true })).code !== 0)
      return { head, landed: false }
  }
  if ((await runOwnGit(root, ['merge-base', '--is-ancestor', base, head], { allowFailure: true })).code !== 0)
    return { head, landed: false }
  const moved = await runOwnGit(
    root,
    ['update-ref', '-m', `concord: ${branch} at its tree's head`, `refs/heads/${branch}`, head, current ?? ''],
    { allowFailure: true },
  )
  if (moved.code !== 0) return { head, landed: (await resolveCommit(root, `refs/heads/${branch}`)) === head }
  return { head, landed: true }
}

/** The most a tree's new commits may weigh when brought over, and the setting that says so (for the refusal). */
export interface TransferLimit {
  bytes: number
  setting: string
}

const mb = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(1)} MB`

/**
 * The tree's commits since `base` written by git itself to `file` (streamed to disk: nothing of it passes through
 * Concord's memory or event loop), in a read-only sandbox where only `folder` is writable. Refused with
 * 'transfer_too_large' before it is written when the objects weigh more than the limit, and after when the bundle does.
 */
async function writeTreeBundle(
  dir: string,
  folder: string,
  file: string,
  branch: string,
  base: string,
  readable: string[],
  limit: TransferLimit,
): Promise<void> {
  const tooLarge = (bytes: number): ApiError =>
    new ApiError(
      'transfer_too_large',
      `${branch}'s new commits weigh ${mb(bytes)}, over the ${mb(limit.bytes)} a tree may bring into your repository (the workspace setting ${limit.setting}): remove the large files from those commits, or raise ${limit.setting}`,
      { bytes, limit: limit.bytes, setting: limit.setting },
    )
  const usage = await runTreeGit(dir, ['rev-list', '--objects', '--disk-usage', 'HEAD', `^${base}`], {
    sandboxed: true,
    readable,
    allowFailure: true,
  })
  const weight = Number(usage.stdout.trim())
  if (usage.code === 0 && Number.isFinite(weight) && weight > limit.bytes) throw tooLarge(weight)
  rmSync(folder, { recursive: true, force: true })
  mkdirSync(folder, { recursive: true, mode: 0o700 })
  const bundle = await runTreeGit(dir, ['bundle', 'create', '--quiet', file, 'HEAD', `^${base}`], {
    readable,
    writable: [folder],
    allowFailure: true,
  })
  if (bundle.code !== 0 || !existsSync(file))
    throw new ApiError(
      'io_error',
      `could not read the commits of ${branch} from its tree: ${bundle.stderr.trim() || `exit code ${bundle.code}`}`,
    )
  const size = statSync(file).size
  if (size > limit.bytes) throw tooLarge(size)
}

/** The bundle's commits fetched (no ref written) into `into`. */
async function fetchBundle(into: string, file: string, branch: string): Promise<void> {
  const fetched = await runOwnGit(
    into,
    [
      '-c',
      'transfer.fsckObjects=true',
      '-c',
      'fetch.fsckObjects=true',
      'fetch',
      '--quiet',
      '--no-tags',
      '--no-write-fetch-head',
      '--no-recurse-submodules',
      file,
      'HEAD',
    ],
    { allowFailure: true },
  )
  if (fetched.code !== 0)
    throw new ApiError(
      'io_error',
      `could not bring ${branch} into your repository: ${fetched.stderr.trim() || `exit code ${fetched.code}`}`,
    )
}

/**
 * Whether the bundle's `head` descends from `base`, decided in a bare repository made at `quarantine` that borrows
 * the user's objects read-only: the tree's own history (its grafts, replace refs) has no say, and nothing of the
 * bundle is in the user's repository yet.
 */
async function onTaskBranch(
  root: string,
  quarantine: string,
  file: string,
  branch: string,
  head: string,
  base: string,
) {
  const objects = await objectsOf(root)
  rmSync(quarantine, { recursive: true, force: true })
  const made = await runOwnGit(path.dirname(quarantine), ['init', '--quiet', '--bare', quarantine], {
    allowFailure: true,
  })
  if (made.code !== 0)
    throw new ApiError('io_error', `could not check the tree's commits: ${made.stderr.trim() || 'git init failed'}`)
  writeFileSync(path.join(quarantine, 'objects', 'info', 'alternates'), objects.map((o) => `${o}\n`).join(''))
  await checkBundleObjects(quarantine, file, branch)
  return (await runOwnGit(quarantine, ['merge-base', '--is-ancestor', base, head], { allowFailure: true })).code === 0
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
