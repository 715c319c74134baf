/**
 * What an undone turn kept aside (refs/concord/undone/… in the task's tree, turn-undo-tree.ts) outlives the tree:
 * before a task's tree is removed (cancelled, merged), each kept ref is brought into the user's repository under the
 * same name — through bringCommit, since the tree is hostile — and created only where no ref of that name is (a
 * suffix otherwise), so `git checkout <ref> -- .` in the user's own checkout brings it back.
 */
import { runOwnGit } from '../platform/own-git'
import { runTreeGit } from '../platform/tree-git'
import { bringCommit, type TransferLimit } from './branch-sync'
import { isOwnTree, objectsOf } from './git-repo'
import { keepAt } from './turn-undo-tree'

const PREFIX = 'refs/concord/undone/'
const KEPT = /^([0-9a-f]{40}) (refs\/concord\/undone\/[A-Za-z0-9._-]+)$/

export interface KeptRefs {
  /** tree ref → the ref in the user's repository that now holds its commit. */
  kept: Record<string, string>
  /** Refs that could not be brought over, with why: the tree must stay. */
  left: { ref: string; reason: string }[]
}

export async function keepUndoneRefs(root: string, dir: string, base: string, limit: TransferLimit): Promise<KeptRefs> {
  const out: KeptRefs = { kept: {}, left: [] }
  if (!isOwnTree(dir)) return out
  const listed = await runTreeGit(dir, ['for-each-ref', '--format=%(objectname) %(refname)', PREFIX], {
    sandboxed: true,
    readable: await objectsOf(root),
    allowFailure: true,
  })
  for (const line of listed.stdout.split('\n').filter(Boolean)) {
    const m = KEPT.exec(line)
    if (!m) continue // a ref an agent made under the prefix that no undo writes: not Concord's to keep
    const [, commit, ref] = m as unknown as [string, string, string]
    try {
      if (!(await bringCommit({ root, dir, ref, head: commit, label: ref, base, limit })))
        throw new Error('its commit does not descend from the task’s base')
      out.kept[ref] = await keptIn(root, ref, commit)
    } catch (err) {
      out.left.push({ ref, reason: (err as Error).message })
    }
  }
  return out
}

/** The ref in the user's repository at `commit`: `ref` itself when it is there already or free, else `ref-2`…. */
async function keptIn(root: string, ref: string, commit: string): Promise<string> {
  const at = await runOwnGit(root, ['rev-parse', '--verify', '--quiet', ref], { allowFailure: true })
  if (at.code === 0 && at.stdout.trim() === commit) return ref
  return keepAt(ref, commit, (args) => runOwnGit(root, args, { allowFailure: true }))
}
