/**
 * A task's commit against the base branch's head, as git sees it, without touching any working tree: how far behind,
 * the files both sides changed since they parted (with the base-side commits that changed each), and the trial merge
 * (`git merge-tree --write-tree`, git ≥ 2.38) — whether it conflicts and whether it lands exactly the commit's own
 * tree. Every call is runTreeGit's on the task's tree (treeGitCall: no program of any config runs), run with the
 * other tasks' calls in a few sandboxed processes (tree-git-batch.ts); the only thing written is the trial merge's
 * objects, into Concord's scratch object store (the trees stay as they are).
 * On a git without `merge-tree --write-tree` the trial merge is not known: conflicts are null, and a commit that is
 * behind counts as not landing as checked (the careful answer).
 */
import { mkdirSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import path from 'node:path'
import { runTreeGit, treeConfigCall, treeConfigOf, treeGitCall, type GitResult } from '../platform/git'
import { runTreeGitBatch, type TreeGitBatchCall } from '../platform/tree-git-batch'
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
  const [one] = await checkManyAgainstBase(root, base, [{ tree, commit }], scratch, baseSide)
  return one ?? null
}

/** A task's tree and the commit of it checked. */
export interface BaseCheckItem {
  tree: string
  commit: string
}

/** Processes side by side for one check of many tasks: the machine's cores, a few at most. */
const PROCESSES = Math.max(1, Math.min(4, availableParallelism()))

/**
 * Many tasks against one base, the answers in order (see checkAgainstBase). Every git call of every task runs in a
 * few sandboxed processes (tree-git-batch.ts), in three rounds: the trees' config (what runTreeGit overrides), then
 * where each task parted from the base and how far behind it is, then for those behind their files, the trial merge
 * and their own tree, with the base side's commits once per merge base.
 */
export async function checkManyAgainstBase(
  root: string,
  base: string,
  items: BaseCheckItem[],
  scratch: string,
  baseSide: BaseSideCache = new Map(),
): Promise<(BaseCheckResult | null)[]> {
  const results: (BaseCheckResult | null)[] = items.map(() => null)
  const valid = SHA.test(base) ? items.flatMap((it, i) => (SHA.test(it.commit) ? [i] : [])) : []
  if (!valid.length) return results
  const store = path.join(scratch, 'objects')
  mkdirSync(store, { recursive: true, mode: 0o700 })
  const user = await objectsOf(root)
  const ownOf = (tree: string) => path.join(tree, '.git', 'objects')
  // Reads: the tree's objects and the user's (the base's commits); the trial merge writes its objects to `store` only.
  const envOf = (tree: string) => ({
    GIT_OBJECT_DIRECTORY: store,
    GIT_ALTERNATE_OBJECT_DIRECTORIES: [ownOf(tree), ...user].join(path.delimiter),
  })
  const batch = {
    readable: [...new Set([...valid.map((i) => ownOf(items[i]!.tree)), ...user])],
    writable: [scratch],
    processes: PROCESSES,
  }
  const configs = await runTreeGitBatch(
    valid.map((i) => ({ tree: items[i]!.tree, ...treeConfigCall(items[i]!.tree) })),
    { processes: PROCESSES },
  )
  const calls = new Map<number, (args: string[]) => Promise<TreeGitBatchCall>>()
  valid.forEach((i, k) => {
    const tree = items[i]!.tree
    const config = treeConfigOf(configs[k]!.stdout)
    calls.set(i, async (args) => ({ tree, ...(await treeGitCall(tree, args, { env: envOf(tree), config })) }))
  })
  const call = (i: number, args: string[]) => calls.get(i)!(args)

  const first = await runTreeGitBatch(
    await Promise.all(
      valid.flatMap((i) => [
        call(i, ['merge-base', base, items[i]!.commit]),
        call(i, ['rev-list', '--count', `${items[i]!.commit}..${base}`]),
      ]),
    ),
    batch,
  )
  const parted = new Map<number, { mb: string; behind: number }>()
  valid.forEach((i, k) => {
    const mb = first[2 * k]!.stdout.trim()
    const behindOut = first[2 * k + 1]!
    if (!SHA.test(mb) || behindOut.code !== 0) return
    const behind = Number(behindOut.stdout.trim()) || 0
    if (behind === 0) results[i] = { behind, both: [], conflicts: null, landsAsChecked: true, mergeTree: true }
    else parted.set(i, { mb, behind })
  })
  if (!parted.size) return results

  // Each first-parent commit of the base since the parting, with the files it changed against its first parent: a
  // merge commit of a task counts as that task's change. Read once per merge base, in the first tree that has it.
  const logs = new Map<string, number>()
  for (const [i, { mb }] of parted)
    if (!baseSide.has(`${mb}..${base}`) && !logs.has(`${mb}..${base}`)) logs.set(`${mb}..${base}`, i)
  const behindOnes = [...parted.keys()]
  const second = await runTreeGitBatch(
    await Promise.all([
      ...behindOnes.flatMap((i) => {
        const { commit } = items[i]!
        return [
          call(i, ['diff', '--name-only', '--no-renames', '--no-ext-diff', parted.get(i)!.mb, commit]),
          call(i, ['merge-tree', '--write-tree', '--name-only', '--no-messages', base, commit]),
          call(i, ['rev-parse', '--verify', '--quiet', `${commit}^{tree}`]),
        ]
      }),
      ...[...logs].map(([key, i]) =>
        call(i, [
          'log',
          '--first-parent',
          '--diff-merges=first-parent',
          '--no-renames',
          '--name-only',
          '--format=%x01%H',
          key,
        ]),
      ),
    ]),
    batch,
  )
  ;[...logs.keys()].forEach((key, k) => {
    const r = second[3 * behindOnes.length + k]!
    baseSide.set(key, Promise.resolve(r.code === 0 ? r.stdout : ''))
  })
  for (const [k, i] of behindOnes.entries()) {
    const { mb, behind } = parted.get(i)!
    const [own, trial, checked] = second.slice(3 * k, 3 * k + 3) as [GitResult, GitResult, GitResult]
    results[i] = fromTrial(behind, bothChanged(own, await baseSide.get(`${mb}..${base}`)!), trial, checked)
  }
  return results
}

/** Files both sides changed, each with the base-side commits that changed it, sorted by file. */
function bothChanged(own: GitResult, log: string): BaseCheckResult['both'] {
  const mine = new Set(own.stdout.split('\n').filter(Boolean))
  const byFile = new Map<string, string[]>()
  for (const chunk of log.split('\x01').filter(Boolean)) {
    const [sha = '', ...files] = chunk.split('\n').filter(Boolean)
    for (const f of files) if (mine.has(f)) byFile.set(f, [...(byFile.get(f) ?? []), sha.trim()])
  }
  return [...byFile].sort(([a], [b]) => a.localeCompare(b)).map(([file, commits]) => ({ file, commits }))
}

/** The answer from the trial merge (`merge-tree --write-tree`) and the commit's own tree. */
function fromTrial(
  behind: number,
  both: BaseCheckResult['both'],
  trial: GitResult,
  checked: GitResult,
): BaseCheckResult {
  const lines = trial.stdout.split('\n').filter((l) => l.length > 0)
  if (trial.code === 0 && SHA.test(lines[0] ?? ''))
    return { behind, both, conflicts: null, landsAsChecked: lines[0] === checked.stdout.trim(), mergeTree: true }
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
