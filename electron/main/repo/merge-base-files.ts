/**
 * The files a task's commit changed since it parted from the base, and those both sides changed, read in the task's
 * tree with the user's objects (sandboxed, allowed to fail: no shared history is an answer).
 */
import path from 'node:path'
import { runTreeGit } from '../platform/tree-git'
import { SHA } from './base-check-memory'
import { objectsOf } from './git-repo'

/**
 * Where the commit parted from the base, read in the task's tree with the user's objects: a function giving the files
 * changed from there to a commit (null when git cannot tell), or null when the two share no history.
 */
async function sincePartingPoint(
  root: string,
  tree: string,
  base: string,
  commit: string,
): Promise<((to: string) => Promise<string[] | null>) | null> {
  if (!SHA.test(base) || !SHA.test(commit)) return null
  const user = await objectsOf(root)
  const own = path.join(tree, '.git', 'objects')
  const calls = {
    env: { GIT_ALTERNATE_OBJECT_DIRECTORIES: user.join(path.delimiter) },
    readable: [own, ...user],
    sandboxed: true,
    allowFailure: true,
  }
  const mb = (await runTreeGit(tree, ['merge-base', base, commit], calls)).stdout.trim()
  if (!SHA.test(mb)) return null
  return (to) =>
    runTreeGit(tree, ['diff', '--name-only', '--no-renames', '--no-ext-diff', mb, to], calls).then((r) =>
      r.code === 0 ? r.stdout.split('\n').filter(Boolean) : null,
    )
}

/** The files a commit changed since it parted from the base (what merging it brings): the merge preview's side. */
export async function changedSinceBase(root: string, tree: string, base: string, commit: string): Promise<string[]> {
  const changedTo = await sincePartingPoint(root, tree, base, commit)
  return (await changedTo?.(commit)) ?? []
}

/**
 * The files both the commit and the base changed since they parted (the targeted rule of task-update.ts: none in
 * common means an update leaves the task's own diff as it was). null when git cannot tell (no shared history).
 */
export async function filesInCommon(
  root: string,
  tree: string,
  base: string,
  commit: string,
): Promise<string[] | null> {
  const changedTo = await sincePartingPoint(root, tree, base, commit)
  if (!changedTo) return null
  const [mine, theirs] = await Promise.all([changedTo(commit), changedTo(base)])
  if (!mine || !theirs) return null
  const set = new Set(theirs)
  return mine.filter((f) => set.has(f))
}

/** Files both sides changed, each with the base-side commits that changed it, sorted by file. */
export function bothChanged(own: string, log: string): { file: string; commits: string[] }[] {
  const mine = new Set(own.split('\n').filter(Boolean))
  const byFile = new Map<string, string[]>()
  for (const chunk of log.split('\x01').filter(Boolean)) {
    const [sha = '', ...files] = chunk.split('\n').filter(Boolean)
    for (const f of files) if (mine.has(f)) byFile.set(f, [...(byFile.get(f) ?? []), sha.trim()])
  }
  return [...byFile].sort(([a], [b]) => a.localeCompare(b)).map(([file, commits]) => ({ file, commits }))
}
