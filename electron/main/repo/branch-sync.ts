/** A task tree's head brought into the user's repository as the task's branch: bundled in a read-only sandbox, its objects checked in a quarantine repository, and only the task's own ref written, only to a descendant of its base. */
import path from 'node:path'
import { ApiError } from '../../../shared/errors'
import { runOwnGit } from '../platform/own-git'
import { runTreeGit } from '../platform/tree-git'
import { checkBundleObjects } from './bundle-objects'
import { isOwnTree, objectsOf, resolveCommit, treeHead } from './git-repo'
import { onePerTree } from './one-per-tree'
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs'

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
  return onePerTree(path.resolve(dir), () => syncOnce({ root, dir, branch, base, limit }))
}

async function syncOnce({
  root,
  dir,
  branch,
  base,
  limit,
}: {
  root: string
  dir: string
  branch: string
  base: string
  limit: TransferLimit
}): Promise<SyncResult> {
  if (!isOwnTree(dir)) return { head: null, landed: false }
  const head = await treeHead(dir)
  if (!head) return { head: null, landed: false }
  const current = await resolveCommit(root, `refs/heads/${branch}`)
  if (current === head) return { head, landed: true }
  if (!(await bringCommit({ root, dir, ref: 'HEAD', head, label: branch, base, limit }))) return { head, landed: false }
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

/**
 * Brings the commit `head` that `ref` names in the tree (and what it needs since `base`) into the user's repository,
 * writing no ref there: bundled in a read-only sandbox, checked in a quarantine repository, fetched with hooks off,
 * and only when it descends from `base`. True when the user's repository has the commit.
 */
export async function bringCommit(o: {
  root: string
  dir: string
  ref: string
  head: string
  /** What the commits are, for messages: the task's branch, or the ref. */
  label: string
  base: string
  limit: TransferLimit
}): Promise<boolean> {
  const { root, dir, head, base } = o
  const has = async () =>
    (await runOwnGit(root, ['cat-file', '-e', `${head}^{commit}`], { allowFailure: true })).code === 0
  if (await has()) return true
  const readable = await objectsOf(root)
  const folder = path.join(path.dirname(dir), `.${path.basename(dir)}-${process.pid}.transfer`)
  const file = path.join(folder, 'tree.bundle')
  const quarantine = path.join(path.dirname(dir), `.${path.basename(dir)}-${process.pid}.quarantine`)
  try {
    await writeTreeBundle(dir, folder, file, o, readable)
    // First into a repository of Concord's own that reads the user's objects (alternates) and writes none of them:
    // what the bundle holds is checked there, and only a head on the task's branch goes on to the user's repository.
    if (!(await onTaskBranch(root, quarantine, file, o.label, head, base))) return false
    await fetchBundle(root, file, o.ref, o.label)
  } finally {
    rmSync(folder, { recursive: true, force: true })
    rmSync(quarantine, { recursive: true, force: true })
  }
  return has()
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
  { ref, label: branch, base, limit }: { ref: string; label: string; base: string; limit: TransferLimit },
  readable: string[],
): Promise<void> {
  const tooLarge = (bytes: number): ApiError =>
    new ApiError(
      'transfer_too_large',
      `${branch}'s new commits weigh ${mb(bytes)}, over the ${mb(limit.bytes)} a tree may bring into your repository (the workspace setting ${limit.setting}): remove the large files from those commits, or raise ${limit.setting}`,
      { bytes, limit: limit.bytes, setting: limit.setting },
    )
  const usage = await runTreeGit(dir, ['rev-list', '--objects', '--disk-usage', ref, `^${base}`], {
    sandboxed: true,
    readable,
    allowFailure: true,
  })
  const weight = Number(usage.stdout.trim())
  if (usage.code === 0 && Number.isFinite(weight) && weight > limit.bytes) throw tooLarge(weight)
  rmSync(folder, { recursive: true, force: true })
  mkdirSync(folder, { recursive: true, mode: 0o700 })
  const bundle = await runTreeGit(dir, ['bundle', 'create', '--quiet', file, ref, `^${base}`], {
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
async function fetchBundle(into: string, file: string, ref: string, branch: string): Promise<void> {
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
      ref,
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
