/**
 * Putting a task's tree back to where it was before a turn (issue 35, "Undo a turn"), with what is there now kept
 * aside. Every call goes through runTreeGit (the OS sandbox, only the tree and Concord's scratch writable, no hook and
 * no program of any config run); the tree's real index is only written at the end, to match the restored HEAD.
 *
 * 1. What is in the tree now (committed or not, untracked files too; ignored files are not touched either way) is
 *    written as a tree through a temporary index into the tree's own object store, and kept as a commit on the
 *    current head under `keptRef` (refs/concord/undone/…): `git checkout <keptRef> -- .` in the tree brings it back.
 * 2. From that temporary index, git moves the work tree to the checkpoint's tree (read-tree -u --reset): files the
 *    turn added go, files it changed or removed come back, uncommitted edits from before the turn included. The
 *    checkpoint's tree is in Concord's snapshot store, read through GIT_ALTERNATE_OBJECT_DIRECTORIES.
 * 3. HEAD (the task's branch) goes back to the checkpoint's commit and the real index to that commit's tree, so what
 *    was uncommitted before the turn is uncommitted again.
 */
import { copyFileSync, existsSync, lstatSync, mkdirSync, rmSync } from 'node:fs'
import path from 'node:path'
import { ApiError } from '../../../shared/errors'
import { runTreeGit, treeConfig } from '../platform/tree-git'
import { treeMidOperation } from './branch-update'
import { snapshotObjects, snapshotTree } from './file-changes'
import { treeHead } from './git-repo'

export interface UndoTreeOptions {
  /** Where the tree was before the turn: its HEAD and everything in it (a tree in the snapshot store). */
  commit: string
  tree: string
  /** Concord's snapshot folder (scratch/<ws>/snapshots): the checkpoint's tree is in its object store. */
  scratch: string
  /** The ref what is there now is kept under, in the tree. */
  keptRef: string
  message: string
  /** Who the kept commit is by (GIT_AUTHOR_*, GIT_COMMITTER_*). */
  env: Record<string, string>
  /** The user's object store, which the tree reads through alternates (read-only in the sandbox). */
  readable: string[]
}

export interface UndoneTree {
  /** The head the tree had before the undo. */
  from: string
  keptCommit: string
  /** `keptRef`, or `keptRef-2`… when a ref of that name was there already (an undo that stopped half-way, say). */
  keptRef: string
  /** The tree is byte for byte the checkpoint's (everything not ignored). */
  exact: boolean
}

const SHA = /^[0-9a-f]{40}$/

export async function undoTree(dir: string, o: UndoTreeOptions): Promise<UndoneTree> {
  if (!SHA.test(o.commit) || !SHA.test(o.tree))
    throw new ApiError('invalid_params', 'the turn’s checkpoint is not a commit')
  const mid = treeMidOperation(dir)
  if (mid)
    throw new ApiError(
      'invalid_transition',
      `the task's tree is in the middle of ${mid}: finish or abort it before undoing a turn`,
      { reason: 'mid_operation' },
    )
  const from = await treeHead(dir)
  if (!from) throw new ApiError('invalid_transition', 'the task’s tree has no commit: there is nothing to undo')
  const store = snapshotObjects(o.scratch)
  mkdirSync(o.scratch, { recursive: true, mode: 0o700 })
  const index = path.join(o.scratch, `undo-${process.pid}-${Math.random().toString(36).slice(2)}.index`)
  const config = await treeConfig(dir)
  const readable = [...o.readable, ...(existsSync(store) ? [store] : [])]
  const git = async (args: string[], env: Record<string, string> = {}, what = args[0]) => {
    const r = await runTreeGit(dir, args, {
      write: true,
      writable: [o.scratch],
      readable,
      env,
      config,
      allowFailure: true,
    })
    if (r.code !== 0)
      throw new ApiError('io_error', `could not undo the turn (git ${what}): ${(r.stderr || r.stdout).trim()}`)
    return r.stdout.trim()
  }
  const temp = { GIT_INDEX_FILE: index }
  try {
    const real = path.join(dir, '.git', 'index')
    // Its stat data spares hashing every unchanged file.
    if (existsSync(real) && lstatSync(real).isFile()) copyFileSync(real, index)
    else await git(['read-tree', from], temp)
    await git(['add', '-A', '--', '.'], temp)
    const now = await git(['write-tree'], temp)
    const keptCommit = await git(['commit-tree', now, '-p', from, '-m', o.message], { ...temp, ...o.env })
    const keptRef = await keepAt(o.keptRef, keptCommit, (args) =>
      runTreeGit(dir, args, { write: true, readable, config, allowFailure: true }),
    )
    await git(['read-tree', '-u', '--reset', o.tree], { ...temp, GIT_ALTERNATE_OBJECT_DIRECTORIES: store })
    await git(['update-ref', '-m', `concord: undo a turn, back to ${o.commit.slice(0, 10)}`, 'HEAD', o.commit, from])
    await git(['read-tree', o.commit])
    await runTreeGit(dir, ['update-index', '-q', '--refresh'], { write: true, readable, config, allowFailure: true })
    const after = await snapshotTree(dir, o.scratch).catch(() => null)
    return { from, keptCommit, keptRef, exact: after === o.tree }
  } finally {
    rmSync(index, { force: true })
  }
}

/** Creates `ref` at `commit`, never moving one that exists (it may hold what an earlier attempt kept): the name used. */
export async function keepAt(
  ref: string,
  commit: string,
  git: (args: string[]) => Promise<{ code: number; stderr: string }>,
): Promise<string> {
  let last = ''
  for (let n = 1; n <= 20; n++) {
    const name = n === 1 ? ref : `${ref}-${n}`
    // An empty old value: created only if it does not exist.
    const r = await git(['update-ref', '-m', 'concord: undo a turn', name, commit, ''])
    if (r.code === 0) return name
    last = r.stderr.trim()
  }
  throw new ApiError('io_error', `could not keep the tree's state aside under ${ref}: ${last}`)
}

/** The commits on `from` that `to` does not have: what an undo took off the branch. */
export async function commitsBetween(dir: string, to: string, from: string, readable: string[]): Promise<string[]> {
  if (to === from) return []
  const r = await runTreeGit(dir, ['rev-list', '--max-count=1000', from, `^${to}`], {
    allowFailure: true,
    sandboxed: true,
    readable,
  })
  return r.code === 0 ? r.stdout.split('\n').filter((l) => SHA.test(l)) : []
}
