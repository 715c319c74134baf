/**
 * A task's commit against the base branch's head, as git sees it, without touching any working tree: how far behind,
 * the files both sides changed since they parted (with the base-side commits that changed each), and the trial merge
 * (`git merge-tree --write-tree`, git ≥ 2.38) — whether it conflicts and whether it lands exactly the commit's own
 * tree. Every call runs in the task's tree through runTreeGit, in the OS sandbox with no program of any config run;
 * the only thing written is the trial merge's objects, into Concord's scratch object store (the tree stays as it is).
 * On a git without `merge-tree --write-tree` the trial merge is not known: conflicts are null, and a commit that is
 * behind counts as not landing as checked (the careful answer).
 */
import { mkdirSync } from 'node:fs'
import path from 'node:path'
import { runTreeGit, treeConfig } from '../platform/git'
import { objectsOf } from './git-repo'

const SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/

export interface BaseCheckResult {
  behind: number
  /** Files both sides changed since the merge base, each with the base-side (first-parent) commits that changed it. */
  both: { file: string; commits: string[] }[]
  /** Paths the trial merge conflicts in; null when it merges cleanly or git cannot trial-merge (mergeTree false). */
  conflicts: string[] | null
  /** Merging the commit lands exactly its own tree: what its reports checked. */
  landsAsChecked: boolean
  /** git could trial-merge (merge-tree --write-tree). */
  mergeTree: boolean
}

/**
 * What one check of many tasks against one base shares: the base side's commits since a merge base are the same for
 * every task that parted from main there (most of them), so they are read once per merge base.
 */
export type BaseSideCache = Map<string, Promise<string>>

/** null: the commit or the base is not readable from the tree, or they share no history. */
export async function checkAgainstBase(
  root: string,
  tree: string,
  base: string,
  commit: string,
  scratch: string,
  baseSide: BaseSideCache = new Map(),
): Promise<BaseCheckResult | null> {
  if (!SHA.test(base) || !SHA.test(commit)) return null
  const store = path.join(scratch, 'objects')
  mkdirSync(store, { recursive: true, mode: 0o700 })
  const user = await objectsOf(root)
  const own = path.join(tree, '.git', 'objects')
  const config = await treeConfig(tree)
  // Reads: the tree's objects and the user's (the base's commits); the trial merge writes its objects to `store` only.
  const calls = {
    env: { GIT_OBJECT_DIRECTORY: store, GIT_ALTERNATE_OBJECT_DIRECTORIES: [own, ...user].join(path.delimiter) },
    readable: [own, ...user],
    writable: [scratch],
    allowFailure: true,
    config,
  }
  const git = (args: string[]) => runTreeGit(tree, args, calls)
  const mb = (await git(['merge-base', base, commit])).stdout.trim()
  if (!SHA.test(mb)) return null
  const behindOut = await git(['rev-list', '--count', `${commit}..${base}`])
  if (behindOut.code !== 0) return null
  const behind = Number(behindOut.stdout.trim()) || 0
  if (behind === 0) return { behind, both: [], conflicts: null, landsAsChecked: true, mergeTree: true }

  // The task's side, the base's side and the trial merge do not depend on each other: asked at once.
  const ownP = git(['diff', '--name-only', '--no-renames', '--no-ext-diff', mb, commit])
  const trialP = git(['merge-tree', '--write-tree', '--name-only', '--no-messages', base, commit])
  const own_ = await ownP
  const mine = new Set(own_.stdout.split('\n').filter(Boolean))
  // Each first-parent commit of the base since the parting, with the files it changed against its first parent: a
  // merge commit of a task counts as that task's change.
  const key = `${mb}..${base}`
  let log = baseSide.get(key)
  if (!log) {
    log = git([
      'log',
      '--first-parent',
      '--diff-merges=first-parent',
      '--no-renames',
      '--name-only',
      '--format=%x01%H',
      key,
    ]).then((r) => (r.code === 0 ? r.stdout : ''))
    baseSide.set(key, log)
  }
  const byFile = new Map<string, string[]>()
  for (const chunk of (await log).split('\x01').filter(Boolean)) {
    const [sha = '', ...files] = chunk.split('\n').filter(Boolean)
    for (const f of files) if (mine.has(f)) byFile.set(f, [...(byFile.get(f) ?? []), sha.trim()])
  }
  const both = [...byFile].sort(([a], [b]) => a.localeCompare(b)).map(([file, commits]) => ({ file, commits }))

  const trial = await trialP
  const lines = trial.stdout.split('\n').filter((l) => l.length > 0)
  if (trial.code === 0 && SHA.test(lines[0] ?? '')) {
    const checked = (await git(['rev-parse', '--verify', '--quiet', `${commit}^{tree}`])).stdout.trim()
    return { behind, both, conflicts: null, landsAsChecked: lines[0] === checked, mergeTree: true }
  }
  if (trial.code === 1 && SHA.test(lines[0] ?? ''))
    return { behind, both, conflicts: [...new Set(lines.slice(1))], landsAsChecked: false, mergeTree: true }
  // An older git (usage error) or a failure: the merge is not known, and a commit behind the base is not as checked.
  return { behind, both, conflicts: null, landsAsChecked: false, mergeTree: false }
}

/** The files a commit changed since it parted from the base (what merging it brings): the merge preview's side. */
export async function changedSinceBase(root: string, tree: string, base: string, commit: string): Promise<string[]> {
  if (!SHA.test(base) || !SHA.test(commit)) return []
  const user = await objectsOf(root)
  const own = path.join(tree, '.git', 'objects')
  const calls = {
    env: { GIT_ALTERNATE_OBJECT_DIRECTORIES: user.join(path.delimiter) },
    readable: [own, ...user],
    sandboxed: true,
    allowFailure: true,
  }
  const mb = (await runTreeGit(tree, ['merge-base', base, commit], calls)).stdout.trim()
  if (!SHA.test(mb)) return []
  const r = await runTreeGit(tree, ['diff', '--name-only', '--no-renames', '--no-ext-diff', mb, commit], calls)
  return r.code === 0 ? r.stdout.split('\n').filter(Boolean) : []
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
  const diff = (to: string) =>
    runTreeGit(tree, ['diff', '--name-only', '--no-renames', '--no-ext-diff', mb, to], calls).then((r) =>
      r.code === 0 ? r.stdout.split('\n').filter(Boolean) : null,
    )
  const [mine, theirs] = await Promise.all([diff(commit), diff(base)])
  if (!mine || !theirs) return null
  const set = new Set(theirs)
  return mine.filter((f) => set.has(f))
}
