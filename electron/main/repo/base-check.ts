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
import { type GitResult } from '../platform/git-spawn'
import { runTreeGit, treeConfigCall, treeGitCall } from '../platform/tree-git'
import { cachedConfigCall, keepConfig, keptConfigs } from '../platform/tree-config-cache'
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
 * few sandboxed processes (tree-git-batch.ts), in three rounds: the trees' config (what runTreeGit overrides, read
 * again only when it may have changed: tree-config-cache.ts); where
 * each task parted from the base, how far behind it is and the trial merge; then for those behind the files they
 * changed, with the base side's commits once per merge base. What depends on objects alone is asked once (pure).
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
    // The trees (their object stores are in them) are shown by runTreeGitBatch.
    readable: user,
    writable: [scratch],
    processes: PROCESSES,
  }
  // The trees' config (what runTreeGit overrides), read for those whose config files changed since it was last read.
  const trees = valid.map((i) => items[i]!.tree)
  const kept = await keptConfigs(trees)
  const unread = trees.flatMap((_, k) => (kept[k]!.config ? [] : [k]))
  const read = await runTreeGitBatch(
    unread.map((k) => ({ tree: trees[k]!, ...cachedConfigCall(treeConfigCall(trees[k]!)) })),
    { processes: PROCESSES },
  )
  unread.forEach((k, n) => (kept[k]!.config = keepConfig(trees[k]!, kept[k]!.key, read[n]!.stdout)))
  const calls = new Map<number, (args: string[]) => Promise<TreeGitBatchCall>>()
  valid.forEach((i, k) => {
    const tree = items[i]!.tree
    const config = kept[k]!.config!
    calls.set(i, async (args) => ({ tree, ...(await treeGitCall(tree, args, { env: envOf(tree), config })) }))
  })
  const call = (i: number, args: string[]) => calls.get(i)!(args)

  // Where each task parted from the base, how far behind it is, the trial merge, and (once per commit) its own tree.
  // A task checked before on the same commit against an ancestor of this base (since) is asked only the trial merge,
  // when the commits the base gained are none of its history (Since); the others are asked everything.
  const known = (i: number, what: string) => pure.get(`${items[i]!.tree}\0${what}`)
  const treeOf = (i: number) => `${items[i]!.commit}^{tree}`
  const since = new Map<number, Since>()
  for (const i of valid) {
    const prior = sinceOf(known(i, sinceKey(items[i]!.commit)))
    if (prior) since.set(i, prior)
  }
  const groups = sinceGroups(since, base)
  const partingCalls = (i: number) => {
    const { commit } = items[i]!
    return [call(i, ['merge-base', '--all', base, commit]), call(i, ['rev-list', '--count', `${commit}..${base}`])]
  }
  const firstCalls = valid.flatMap((i) => [
    ...(since.has(i) ? [] : partingCalls(i)),
    call(i, ['merge-tree', '--write-tree', '--name-only', '--no-messages', base, items[i]!.commit]),
    ...(known(i, treeOf(i)) === undefined ? [call(i, ['rev-parse', '--verify', '--quiet', treeOf(i)])] : []),
  ])
  // Per group, two calls that read the objects of all its trees: whether its old base is an ancestor of this one and
  // how many commits the base gained (left 0, right n), and how many of those are in none of the tasks' histories.
  const groupCalls = groups.flatMap(({ head, members }) => {
    const [one] = members
    const trees = [...new Set(members.map((i) => items[i]!.tree))]
    const env = {
      GIT_OBJECT_DIRECTORY: store,
      GIT_ALTERNATE_OBJECT_DIRECTORIES: [...trees.map(ownOf), ...user].join(path.delimiter),
    }
    const commits = [...new Set(members.map((i) => items[i]!.commit))]
    const at = async (args: string[]) => ({
      tree: items[one!]!.tree,
      ...(await treeGitCall(items[one!]!.tree, args, { env, config: kept[valid.indexOf(one!)]!.config! })),
    })
    return [
      at(['rev-list', '--count', '--left-right', `${head}...${base}`]),
      at(['rev-list', '--count', base, '--not', head, ...commits]),
    ]
  })
  // What the next round would ask, asked now where it can be foreseen: a task checked before has, when its group's
  // calls agree, the same merge base as then, so the files it changed since and the base side's commits since are
  // known to be wanted (a sandboxed process less on every move of the base; unused when they disagree).
  const aheadLogs = new Map<string, number>()
  const aheadDiffs: number[] = []
  for (const [i, prior] of since) {
    if (prior.head === base && prior.behind === 0) continue
    const key = `${prior.mb}..${base}`
    if (!baseSide.has(key) && !aheadLogs.has(key)) aheadLogs.set(key, i)
    if (known(i, `${prior.mb}\0${items[i]!.commit}`) === undefined) aheadDiffs.push(i)
  }
  const aheadCalls = [
    ...aheadDiffs.map((i) => call(i, diffArgs(since.get(i)!.mb, items[i]!.commit))),
    ...[...aheadLogs].map(([key, i]) => call(i, logArgs(key))),
  ]
  const answers = await runTreeGitBatch(await Promise.all([...firstCalls, ...groupCalls, ...aheadCalls]), {
    ...batch,
    readable: [...user, ...groups.flatMap(({ members }) => members.map((i) => ownOf(items[i]!.tree)))],
  })
  const first = answers.slice(0, firstCalls.length)
  const ahead = answers.slice(firstCalls.length + groupCalls.length)
  aheadDiffs.forEach((i, k) => {
    if (ahead[k]!.code === 0) remember(items[i]!.tree, `${since.get(i)!.mb}\0${items[i]!.commit}`, ahead[k]!.stdout)
  })
  ;[...aheadLogs.keys()].forEach((key, k) => {
    const r = ahead[aheadDiffs.length + k]!
    if (r.code === 0) baseSide.set(key, Promise.resolve(r.stdout))
  })
  // Per task checked before: how many commits the base gained since, or null when it is asked in full (its old base
  // is not an ancestor of this one, or a commit the base gained is in the history of a task of its group).
  const gained = new Map<number, number | null>()
  for (const [i, prior] of since) if (prior.head === base) gained.set(i, 0)
  groups.forEach(({ members }, k) => {
    const [lr, rest] = answers.slice(firstCalls.length + 2 * k, firstCalls.length + 2 * k + 2) as [GitResult, GitResult]
    const [left, right] = lr.stdout.trim().split(/\s+/).map(Number)
    const unseen = Number(rest.stdout.trim())
    const ok = lr.code === 0 && rest.code === 0 && left === 0 && Number.isInteger(right) && unseen === right
    for (const i of members) gained.set(i, ok ? right : null)
  })
  const again = [...since.keys()].filter((i) => gained.get(i) === null)
  const retried = await runTreeGitBatch(await Promise.all(again.flatMap(partingCalls)), batch)
  const parted = new Map<number, { mb: string; behind: number; trial: GitResult; checked: string }>()
  let at = 0
  for (const i of valid) {
    const prior = since.get(i)
    const more = gained.get(i) ?? null
    let mbOut: GitResult | null = null
    let behindOut: GitResult | null = null
    if (!prior) {
      ;[mbOut, behindOut] = first.slice(at, at + 2) as [GitResult, GitResult]
      at += 2
    } else if (more === null) {
      const k = again.indexOf(i)
      ;[mbOut, behindOut] = retried.slice(2 * k, 2 * k + 2) as [GitResult, GitResult]
    }
    const trial = first[at++]!
    let checked = known(i, treeOf(i))
    if (checked === undefined) {
      checked = first[at++]!.stdout.trim()
      if (SHA.test(checked)) remember(items[i]!.tree, treeOf(i), checked)
    }
    let mb: string
    let behind: number
    if (mbOut && behindOut) {
      const bases = mbOut.stdout.split('\n').filter(Boolean)
      mb = bases[0] ?? ''
      if (!SHA.test(mb) || behindOut.code !== 0) continue
      behind = Number(behindOut.stdout.trim()) || 0
      // One merge base: the next check of this commit may build on this one.
      if (bases.length === 1) remember(items[i]!.tree, sinceKey(items[i]!.commit), `${base} ${mb} ${behind}`)
    } else {
      mb = prior!.mb
      behind = prior!.behind + more!
      remember(items[i]!.tree, sinceKey(items[i]!.commit), `${base} ${mb} ${behind}`)
    }
    if (behind === 0) results[i] = { behind, both: [], conflicts: null, landsAsChecked: true, mergeTree: true }
    else parted.set(i, { mb, behind, trial, checked })
  }
  if (!parted.size) return results

  // The files each task changed since it parted (once per merge base and commit), and each first-parent commit of the
  // base since the parting with the files it changed against its first parent: a merge commit of a task counts as
  // that task's change. The base side is read once per merge base, in the first tree that has it.
  const mineOf = (i: number) => `${parted.get(i)!.mb}\0${items[i]!.commit}`
  const diffs = [...parted.keys()].filter((i) => known(i, mineOf(i)) === undefined)
  const logs = new Map<string, number>()
  for (const [i, { mb }] of parted)
    if (!baseSide.has(`${mb}..${base}`) && !logs.has(`${mb}..${base}`)) logs.set(`${mb}..${base}`, i)
  const second = await runTreeGitBatch(
    await Promise.all([
      ...diffs.map((i) => call(i, diffArgs(parted.get(i)!.mb, items[i]!.commit))),
      ...[...logs].map(([key, i]) => call(i, logArgs(key))),
    ]),
    batch,
  )
  const mine = new Map<number, string>()
  diffs.forEach((i, k) => {
    const r = second[k]!
    mine.set(i, r.code === 0 ? r.stdout : '')
    if (r.code === 0) remember(items[i]!.tree, mineOf(i), r.stdout)
  })
  ;[...logs.keys()].forEach((key, k) => {
    const r = second[diffs.length + k]!
    baseSide.set(key, Promise.resolve(r.code === 0 ? r.stdout : ''))
  })
  for (const [i, { mb, behind, trial, checked }] of parted) {
    const own = mine.get(i) ?? known(i, mineOf(i)) ?? ''
    results[i] = fromTrial(behind, bothChanged(own, await baseSide.get(`${mb}..${base}`)!), trial, checked)
  }
  return results
}

/** The files a commit changed since its merge base with the base. */
const diffArgs = (mb: string, commit: string) => ['diff', '--name-only', '--no-renames', '--no-ext-diff', mb, commit]

/** The base side's first-parent commits in `range` (mb..base), each with the files it changed. */
const logArgs = (range: string) => [
  'log',
  '--first-parent',
  '--diff-merges=first-parent',
  '--no-renames',
  '--name-only',
  '--format=%x01%H',
  range,
]

/**
 * What git answered about objects alone (a commit's tree; the files a commit changed since a merge base), per tree:
 * the same names always name the same content, so a check after the next move asks only what the move changed.
 */
const pure = new Map<string, string>()
const PURE_MAX = 20_000

function remember(tree: string, what: string, answer: string): void {
  if (pure.size >= PURE_MAX) pure.clear()
  pure.set(`${tree}\0${what}`, answer)
}

/**
 * A commit's last check: the base it was checked against, its one merge base with it and how far behind it was. A
 * later base H that descends from that one (every commit of the old base is in H) and gained none of the commit's own
 * history has the same merge base (the commits both reach are the same), and is behind by the commits H gained more.
 */
interface Since {
  head: string
  mb: string
  behind: number
}

const sinceKey = (commit: string) => `since\0${commit}`

function sinceOf(kept: string | undefined): Since | null {
  const [head = '', mb = '', behind = ''] = (kept ?? '').split(' ')
  return SHA.test(head) && SHA.test(mb) && /^\d+$/.test(behind) ? { head, mb, behind: Number(behind) } : null
}

/** Tasks in a group's calls at most (their trees' object folders are named in one variable). */
const GROUP_MAX = 64

/**
 * The tasks checked before against another base, grouped by that base, GROUP_MAX at most per group (this base
 * itself needs no git call).
 */
function sinceGroups(since: Map<number, Since>, base: string): { head: string; members: number[] }[] {
  const byHead = new Map<string, number[]>()
  for (const [i, { head }] of since) if (head !== base) byHead.set(head, [...(byHead.get(head) ?? []), i])
  return [...byHead].flatMap(([head, all]) => {
    const out: { head: string; members: number[] }[] = []
    for (let k = 0; k < all.length; k += GROUP_MAX) out.push({ head, members: all.slice(k, k + GROUP_MAX) })
    return out
  })
}

/** Files both sides changed, each with the base-side commits that changed it, sorted by file. */
function bothChanged(own: string, log: string): BaseCheckResult['both'] {
  const mine = new Set(own.split('\n').filter(Boolean))
  const byFile = new Map<string, string[]>()
  for (const chunk of log.split('\x01').filter(Boolean)) {
    const [sha = '', ...files] = chunk.split('\n').filter(Boolean)
    for (const f of files) if (mine.has(f)) byFile.set(f, [...(byFile.get(f) ?? []), sha.trim()])
  }
  return [...byFile].sort(([a], [b]) => a.localeCompare(b)).map(([file, commits]) => ({ file, commits }))
}

/** The answer from the trial merge (`merge-tree --write-tree`) and the commit's own tree. */
function fromTrial(behind: number, both: BaseCheckResult['both'], trial: GitResult, checked: string): BaseCheckResult {
  const lines = trial.stdout.split('\n').filter((l) => l.length > 0)
  if (trial.code === 0 && SHA.test(lines[0] ?? ''))
    return { behind, both, conflicts: null, landsAsChecked: lines[0] === checked, mergeTree: true }
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
