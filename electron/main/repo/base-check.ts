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
import { treeConfigCall, treeGitCall } from '../platform/tree-git'
import { cachedConfigCall, keepConfig, keptConfigs } from '../platform/tree-config-cache'
import type { TreeConfig } from '../platform/tree-git'
import { runTreeGitBatch, type TreeGitBatchCall } from '../platform/tree-git-batch'
import { objectsOf } from './git-repo'
import { bothChanged } from './merge-base-files'
import { remember, recall, SHA, sinceGroups, sinceKey, sinceOf, type Since } from './base-check-memory'

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
  const check = await prepareCheck(root, base, items, valid, scratch, baseSide)
  const { first, gained } = await firstRound(check)
  const parted = await partings(check, first, gained, results)
  if (!parted.size) return results
  await secondRound(check, parted, results)
  return results
}

/** What the rounds of one check share: the tasks, where git reads and writes, each tree's call, what is known. */
interface Check {
  base: string
  items: BaseCheckItem[]
  valid: number[]
  store: string
  user: string[]
  batch: { readable: string[]; writable: string[]; processes: number }
  kept: { config: TreeConfig | null; key: string }[]
  baseSide: BaseSideCache
  /** The tasks checked before on the same commit against an ancestor of this base. */
  since: Map<number, Since>
  call: (i: number, args: string[]) => Promise<TreeGitBatchCall>
  known: (i: number, what: string) => string | undefined
  treeOf: (i: number) => string
}

/** Where a task parted from the base, how far behind it is, the trial merge and the commit's own tree. */
interface Parted {
  mb: string
  behind: number
  trial: GitResult
  checked: string
}

const ownOf = (tree: string) => path.join(tree, '.git', 'objects')

async function prepareCheck(
  root: string,
  base: string,
  items: BaseCheckItem[],
  valid: number[],
  scratch: string,
  baseSide: BaseSideCache,
): Promise<Check> {
  const store = path.join(scratch, 'objects')
  mkdirSync(store, { recursive: true, mode: 0o700 })
  const user = await objectsOf(root)
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
  const kept = await treeConfigs(valid.map((i) => items[i]!.tree))
  const calls = new Map<number, (args: string[]) => Promise<TreeGitBatchCall>>()
  valid.forEach((i, k) => {
    const tree = items[i]!.tree
    const config = kept[k]!.config!
    calls.set(i, async (args) => ({ tree, ...(await treeGitCall(tree, args, { env: envOf(tree), config })) }))
  })
  const known = (i: number, what: string) => recall(items[i]!.tree, what)
  const since = new Map<number, Since>()
  for (const i of valid) {
    const prior = sinceOf(known(i, sinceKey(items[i]!.commit)))
    if (prior) since.set(i, prior)
  }
  return {
    base,
    items,
    valid,
    store,
    user,
    batch,
    kept,
    baseSide,
    since,
    call: (i, args) => calls.get(i)!(args),
    known,
    treeOf: (i) => `${items[i]!.commit}^{tree}`,
  }
}

/** The trees' config (what runTreeGit overrides), read for those whose config files changed since it was last read. */
async function treeConfigs(trees: string[]): Promise<{ config: TreeConfig | null; key: string }[]> {
  const kept = await keptConfigs(trees)
  const unread = trees.flatMap((_, k) => (kept[k]!.config ? [] : [k]))
  const read = await runTreeGitBatch(
    unread.map((k) => ({ tree: trees[k]!, ...cachedConfigCall(treeConfigCall(trees[k]!)) })),
    { processes: PROCESSES },
  )
  unread.forEach((k, n) => (kept[k]!.config = keepConfig(trees[k]!, kept[k]!.key, read[n]!.stdout)))
  return kept
}

/** Where a task parted from the base (its merge bases) and how far behind it is. */
function partingCalls(c: Check, i: number) {
  const { commit } = c.items[i]!
  return [
    c.call(i, ['merge-base', '--all', c.base, commit]),
    c.call(i, ['rev-list', '--count', `${commit}..${c.base}`]),
  ]
}

/**
 * Where each task parted from the base, how far behind it is, the trial merge, and (once per commit) its own tree.
 * A task checked before on the same commit against an ancestor of this base (since) is asked only the trial merge,
 * when the commits the base gained are none of its history (Since); the others are asked everything.
 */
async function firstRound(c: Check): Promise<{ first: GitResult[]; gained: Map<number, number | null> }> {
  const { base, items, known, treeOf } = c
  const groups = sinceGroups(c.since, base)
  const firstCalls = c.valid.flatMap((i) => [
    ...(c.since.has(i) ? [] : partingCalls(c, i)),
    c.call(i, ['merge-tree', '--write-tree', '--name-only', '--no-messages', base, items[i]!.commit]),
    ...(known(i, treeOf(i)) === undefined ? [c.call(i, ['rev-parse', '--verify', '--quiet', treeOf(i)])] : []),
  ])
  const groupCalls = groups.flatMap((group) => groupCallsOf(c, group))
  const ahead = aheadOf(c)
  const aheadCalls = [
    ...ahead.diffs.map((i) => c.call(i, diffArgs(c.since.get(i)!.mb, items[i]!.commit))),
    ...[...ahead.logs].map(([key, i]) => c.call(i, logArgs(key))),
  ]
  const answers = await runTreeGitBatch(await Promise.all([...firstCalls, ...groupCalls, ...aheadCalls]), {
    ...c.batch,
    readable: [...c.user, ...groups.flatMap(({ members }) => members.map((i) => ownOf(items[i]!.tree)))],
  })
  keepAhead(c, ahead, answers.slice(firstCalls.length + groupCalls.length))
  const gained = gainedOf(c, groups, answers.slice(firstCalls.length, firstCalls.length + groupCalls.length))
  return { first: answers.slice(0, firstCalls.length), gained }
}

/**
 * Per group, two calls that read the objects of all its trees: whether its old base is an ancestor of this one and
 * how many commits the base gained (left 0, right n), and how many of those are in none of the tasks' histories.
 */
function groupCallsOf(c: Check, { head, members }: { head: string; members: number[] }) {
  const { items, base } = c
  const [one] = members
  const trees = [...new Set(members.map((i) => items[i]!.tree))]
  const env = {
    GIT_OBJECT_DIRECTORY: c.store,
    GIT_ALTERNATE_OBJECT_DIRECTORIES: [...trees.map(ownOf), ...c.user].join(path.delimiter),
  }
  const commits = [...new Set(members.map((i) => items[i]!.commit))]
  const at = async (args: string[]) => ({
    tree: items[one!]!.tree,
    ...(await treeGitCall(items[one!]!.tree, args, { env, config: c.kept[c.valid.indexOf(one!)]!.config! })),
  })
  return [
    at(['rev-list', '--count', '--left-right', `${head}...${base}`]),
    at(['rev-list', '--count', base, '--not', head, ...commits]),
  ]
}

/**
 * What the next round would ask, asked now where it can be foreseen: a task checked before has, when its group's
 * calls agree, the same merge base as then, so the files it changed since and the base side's commits since are
 * known to be wanted (a sandboxed process less on every move of the base; unused when they disagree).
 */
function aheadOf(c: Check): { logs: Map<string, number>; diffs: number[] } {
  const logs = new Map<string, number>()
  const diffs: number[] = []
  for (const [i, prior] of c.since) {
    if (prior.head === c.base && prior.behind === 0) continue
    const key = `${prior.mb}..${c.base}`
    if (!c.baseSide.has(key) && !logs.has(key)) logs.set(key, i)
    if (c.known(i, `${prior.mb}\0${c.items[i]!.commit}`) === undefined) diffs.push(i)
  }
  return { logs, diffs }
}

function keepAhead(c: Check, ahead: { logs: Map<string, number>; diffs: number[] }, answers: GitResult[]): void {
  ahead.diffs.forEach((i, k) => {
    const r = answers[k]!
    if (r.code === 0) remember(c.items[i]!.tree, `${c.since.get(i)!.mb}\0${c.items[i]!.commit}`, r.stdout)
  })
  ;[...ahead.logs.keys()].forEach((key, k) => {
    const r = answers[ahead.diffs.length + k]!
    if (r.code === 0) c.baseSide.set(key, Promise.resolve(r.stdout))
  })
}

/**
 * Per task checked before: how many commits the base gained since, or null when it is asked in full (its old base
 * is not an ancestor of this one, or a commit the base gained is in the history of a task of its group).
 */
function gainedOf(c: Check, groups: { members: number[] }[], answers: GitResult[]): Map<number, number | null> {
  const gained = new Map<number, number | null>()
  for (const [i, prior] of c.since) if (prior.head === c.base) gained.set(i, 0)
  groups.forEach(({ members }, k) => {
    const [lr, rest] = answers.slice(2 * k, 2 * k + 2) as [GitResult, GitResult]
    const [left, right] = lr.stdout.trim().split(/\s+/).map(Number)
    const unseen = Number(rest.stdout.trim())
    const ok = lr.code === 0 && rest.code === 0 && left === 0 && Number.isInteger(right) && unseen === right
    for (const i of members) gained.set(i, ok ? right : null)
  })
  return gained
}

/**
 * Each task's parting, from the first round's answers or (for a task checked before whose base moved otherwise) asked
 * again; a task not behind is answered at once, the others are returned for the second round.
 */
async function partings(
  c: Check,
  first: GitResult[],
  gained: Map<number, number | null>,
  results: (BaseCheckResult | null)[],
): Promise<Map<number, Parted>> {
  const { items, known, treeOf } = c
  const again = [...c.since.keys()].filter((i) => gained.get(i) === null)
  const retried = await runTreeGitBatch(await Promise.all(again.flatMap((i) => partingCalls(c, i))), c.batch)
  const parted = new Map<number, Parted>()
  let at = 0
  for (const i of c.valid) {
    const prior = c.since.get(i)
    const more = gained.get(i) ?? null
    let asked: [GitResult, GitResult] | null = null
    if (!prior) {
      asked = first.slice(at, at + 2) as [GitResult, GitResult]
      at += 2
    } else if (more === null) {
      const k = again.indexOf(i)
      asked = retried.slice(2 * k, 2 * k + 2) as [GitResult, GitResult]
    }
    const trial = first[at++]!
    let checked = known(i, treeOf(i))
    if (checked === undefined) {
      checked = first[at++]!.stdout.trim()
      if (SHA.test(checked)) remember(items[i]!.tree, treeOf(i), checked)
    }
    const where = asked ? partedAt(c, i, asked) : { mb: prior!.mb, behind: prior!.behind + more! }
    if (!where) continue
    // Built on the last check: the next check of this commit may build on this one.
    if (!asked) remember(items[i]!.tree, sinceKey(items[i]!.commit), `${c.base} ${where.mb} ${where.behind}`)
    const { mb, behind } = where
    if (behind === 0) results[i] = { behind, both: [], conflicts: null, landsAsChecked: true, mergeTree: true }
    else parted.set(i, { mb, behind, trial, checked })
  }
  return parted
}

/** The merge base and how far behind, from git's answers; null when there is no shared history. */
function partedAt(c: Check, i: number, [mbOut, behindOut]: [GitResult, GitResult]) {
  const bases = mbOut.stdout.split('\n').filter(Boolean)
  const mb = bases[0] ?? ''
  if (!SHA.test(mb) || behindOut.code !== 0) return null
  const behind = Number(behindOut.stdout.trim()) || 0
  // One merge base: the next check of this commit may build on this one.
  if (bases.length === 1) remember(c.items[i]!.tree, sinceKey(c.items[i]!.commit), `${c.base} ${mb} ${behind}`)
  return { mb, behind }
}

/**
 * The files each task changed since it parted (once per merge base and commit), and each first-parent commit of the
 * base since the parting with the files it changed against its first parent: a merge commit of a task counts as
 * that task's change. The base side is read once per merge base, in the first tree that has it.
 */
async function secondRound(c: Check, parted: Map<number, Parted>, results: (BaseCheckResult | null)[]) {
  const { items, base, baseSide } = c
  const mineOf = (i: number) => `${parted.get(i)!.mb}\0${items[i]!.commit}`
  const diffs = [...parted.keys()].filter((i) => c.known(i, mineOf(i)) === undefined)
  const logs = new Map<string, number>()
  for (const [i, { mb }] of parted)
    if (!baseSide.has(`${mb}..${base}`) && !logs.has(`${mb}..${base}`)) logs.set(`${mb}..${base}`, i)
  const second = await runTreeGitBatch(
    await Promise.all([
      ...diffs.map((i) => c.call(i, diffArgs(parted.get(i)!.mb, items[i]!.commit))),
      ...[...logs].map(([key, i]) => c.call(i, logArgs(key))),
    ]),
    c.batch,
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
    const own = mine.get(i) ?? c.known(i, mineOf(i)) ?? ''
    results[i] = fromTrial(behind, bothChanged(own, await baseSide.get(`${mb}..${base}`)!), trial, checked)
  }
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
