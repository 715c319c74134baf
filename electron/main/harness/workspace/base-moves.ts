/**
 * Concord knows when the base moves (issue 30): the base branch of the user's repository is watched (its ref files,
 * no polling) while the workspace is open and compared with the head last seen at each open, so a move made by
 * Concord's own merge, or by the user's commits, pulls and resets, is noticed within a moment or at the next open.
 * Each move checks every open task with a tree (in progress: its tree's head; delivered and accepted: the delivered
 * commit) against the new head — repo/base-check.ts, all of them in a few sandboxed processes, touching no working
 * tree — off the request path, one check at a time per workspace, and records the answers in one transaction with a
 * `base.moved` event.
 *
 * The rule a move applies, through the readiness every accept and merge reads (rules/readiness.ts):
 * - a delivered or accepted task whose merge would not land exactly the tree its reports checked is not ready
 *   (base_moved); one whose trial merge conflicts is never ready and never merges (merge_conflict);
 * - a task whose merge would land its own tree is not concerned: a fast-forward (or a move back to an ancestor, or
 *   a base change that leaves the tree as it was) concerns nobody;
 * - a task in progress whose files overlap what the base changed is told at its member's next step, in its brief.
 */
import { join } from 'node:path'
import type { BaseOverlap, BaseCheckRow } from '../../store/base-repo'
import { runOwnGit } from '../../platform/own-git'
import { checkManyAgainstBase } from '../../repo/base-check'
import { isOwnTree, treeHead } from '../../repo/git-repo'
import { watchBranchRef } from '../../repo/ref-watch'
import type { Ctx } from '../context'
import type { Harness } from '../harness'
import { now } from '../ids'
import { baseCheckedStatuses, toTasks } from '../mappers'
import { runOnePass, type Pass } from '../one-pass'
import { workspaceSettings } from './workspace-settings'

const SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/

/** task.changed events sent between two turns of the event loop after a check. */
const EMITS_AT_ONCE = 10

/** The statuses whose tasks are checked against the base: they have a tree and are not merged. */
export const checkedStatuses = baseCheckedStatuses

/** A workspace's watch, and its check as a pass: the one running now, and whether another was asked for meanwhile. */
interface Watch extends Pass {
  close: () => void
  /** The branch watched; '' before a watcher is started (a check asked for by a merge alone). */
  branch: string
}

const watches = new Map<Harness, Map<string, Watch>>()
/** Harnesses closed: a check still running when its core closed ends quietly. */
const closed = new WeakSet<Harness>()

/** The base branch's head as git has it now (read fresh, not from a long-lived git). */
export async function baseHead(repo: string, branch: string): Promise<string | null> {
  const r = await runOwnGit(
    repo,
    ['rev-parse', '--verify', '--quiet', '--end-of-options', `refs/heads/${branch}^{commit}`],
    {
      allowFailure: true,
    },
  )
  const sha = r.stdout.trim()
  return r.code === 0 && SHA.test(sha) ? sha : null
}

/**
 * The harness's watches, made on first use with what ends them when it closes, and the one listener that checks a
 * task delivered (or started) on a commit its last check did not see: the base did not move, the task did. Our own
 * task.changed finds the check current and asks for nothing.
 */
function watchesOf(h: Harness): Map<string, Watch> {
  const byWs = watches.get(h)
  if (byWs) return byWs
  const made = new Map<string, Watch>()
  watches.set(h, made)
  const off = h.bus.on((e) => {
    if (e.event !== 'task.changed' || e.payload.readinessOnly) return
    const t = e.payload.task
    if (!t.branch || t.merged || !checkedStatuses.includes(t.status)) return
    const seen = t.base?.commit
    if (t.status === 'in_progress' ? !t.base : t.artifact?.commit && seen !== t.artifact.commit)
      void scheduleBaseCheck(h, t.workspaceId)
  })
  h.onClose(() => {
    closed.add(h)
    off()
    for (const w of made.values()) w.close()
    made.clear()
    watches.delete(h)
  })
  return made
}

function watchOf(h: Harness, wsId: string): Watch {
  const byWs = watchesOf(h)
  let w = byWs.get(wsId)
  if (!w) byWs.set(wsId, (w = { close: () => undefined, branch: '', running: null, again: false }))
  return w
}

/**
 * Starts watching the workspace's base branch (once; a changed base branch restarts it) and checks the tasks now:
 * what moved while Concord was closed is noticed here. Returns the check's promise (the open does not wait for it).
 */
export function watchBase(h: Harness, ctx: Ctx): Promise<void> {
  const settings = workspaceSettings(ctx)
  if (settings.isolation !== 'worktree' || !settings.baseBranch) return Promise.resolve()
  const w = watchOf(h, ctx.wsId)
  if (w.branch !== settings.baseBranch) {
    w.close()
    const branch = (w.branch = settings.baseBranch)
    w.close = () => undefined
    void watchBranchRef(h.workspace(ctx.wsId).repoPath, branch, () => void scheduleBaseCheck(h, ctx.wsId)).then(
      (close) => {
        if (w.branch === branch && !closed.has(h)) w.close = close
        else close()
      },
      // Closed meanwhile, or git gone: the next open compares the head again.
      () => undefined,
    )
  }
  return scheduleBaseCheck(h, ctx.wsId)
}

/**
 * A check of the workspace's tasks against the base, off the caller's path: one at a time per workspace; asked for
 * while one runs, it runs once more after it. Never throws (a failure is logged: the next move checks again).
 */
export function scheduleBaseCheck(h: Harness, wsId: string): Promise<void> {
  return runOnePass(h, wsId, watchOf(h, wsId), {
    closed: () => closed.has(h),
    run: (ctx) => checkBase(h, ctx),
    failed: (err) => {
      if (!closedStore(err)) console.error('checking the tasks against the base branch failed:', err)
    },
  })
}

const closedStore = (err: unknown) => err instanceof Error && /not open|closed|does not exist/i.test(err.message)

/** The check itself (scheduleBaseCheck runs it): every open task with a tree against the base branch's head. */
export async function checkBase(h: Harness, ctx: Ctx): Promise<void> {
  const settings = workspaceSettings(ctx)
  const branch = settings.baseBranch
  if (settings.isolation !== 'worktree' || !branch) return
  const repo = h.workspace(ctx.wsId).repoPath
  const head = await baseHead(repo, branch)
  if (!head) return
  const scratch = join(h.registry.dataDir, 'scratch', ctx.wsId, 'base')
  const branches = ctx.store.branches.list()
  // A merge being recorded (tasks.merge: landed, its tree going) counts as merged, with the commit it made.
  const mergedBy = new Map(
    branches.flatMap((b) => {
      const made = b.merged_commit ?? mergingCommit(b.merging)
      return made ? [[made, b.task_id] as const] : []
    }),
  )
  const asked = await tasksToCheck(ctx, branches, head, branch)
  const found = await checkManyAgainstBase(repo, head, asked, scratch)
  const results: BaseCheckRow[] = []
  for (const [k, { task, commit }] of asked.entries()) {
    const check = found[k]
    if (check) results.push(toBaseRow(task.id, commit, check, { branch, head }, mergedBy))
  }
  results.sort((a, b) => a.task_id - b.task_id)
  if (!ctx.store.db.open) return
  const changed = recordChecks(ctx, results, { branch, head }, mergedBy)
  await emitChanged(h, ctx, changed)
}

type BranchRow = ReturnType<Ctx['store']['branches']['list']>[number]

/**
 * What each open task is checked on: a task in progress its tree's head, the others their delivered commit. A task
 * whose last check saw the same base and commit is not checked again.
 */
async function tasksToCheck(ctx: Ctx, branches: BranchRow[], head: string, branch: string) {
  const open = branches.filter(
    (b) => !b.merged_commit && !b.merging && b.worktree && b.state === 'ready' && isOwnTree(b.worktree),
  )
  const rows = new Map(ctx.store.tasks.getMany(open.map((b) => b.task_id)).map((t) => [t.id, t]))
  const before = ctx.store.base.among(open.map((b) => b.task_id))
  const asked = await Promise.all(
    open.map(async (b) => {
      const task = rows.get(b.task_id)
      if (!task || !checkedStatuses.includes(task.status)) return null
      const commit =
        task.status !== 'in_progress' && task.artifact_commit ? task.artifact_commit : await treeHead(b.worktree!)
      if (!commit) return null
      const old = before.get(task.id)
      if (old && old.base_head === head && old.task_commit === commit && old.base_branch === branch) return null
      return { task, tree: b.worktree!, commit }
    }),
  )
  return asked.filter((a) => a !== null)
}

type BaseCheck = NonNullable<Awaited<ReturnType<typeof checkManyAgainstBase>>[number]>

/** One task's check as kept: the files both sides changed grouped by the merged task that changed them on the base side. */
function toBaseRow(
  taskId: number,
  commit: string,
  check: BaseCheck,
  base: { branch: string; head: string },
  mergedBy: Map<string, number>,
): BaseCheckRow {
  const groups = new Map<number | null, string[]>()
  for (const { file, commits } of check.both) {
    // A file is the merged tasks' that changed it on the base side, or "main's" (the user's own commits).
    const by = new Set(commits.map((c) => mergedBy.get(c) ?? null))
    for (const t of by) groups.set(t, [...(groups.get(t) ?? []), file])
  }
  // The merged tasks in task order, then the other commits.
  const overlaps: BaseOverlap[] = [...groups]
    .sort(([a], [b]) => (a ?? Infinity) - (b ?? Infinity))
    .map(([taskId, files]) => ({ taskId, files }))
  return {
    task_id: taskId,
    base_branch: base.branch,
    base_head: base.head,
    task_commit: commit,
    behind: check.behind,
    overlaps: JSON.stringify(overlaps),
    conflicts: check.conflicts ? JSON.stringify(check.conflicts) : null,
    lands_as_checked: check.landsAsChecked ? 1 : 0,
    merge_tree: check.mergeTree ? 1 : 0,
    checked_at: now(),
  }
}

/** The checks written in one transaction, and the base's move logged once; the tasks whose check changed. */
function recordChecks(
  ctx: Ctx,
  results: BaseCheckRow[],
  { branch, head }: { branch: string; head: string },
  mergedBy: Map<string, number>,
): number[] {
  const seen = ctx.store.base.seen(branch)
  return ctx.store.transaction(() => {
    const out: number[] = []
    for (const r of results) {
      const old = ctx.store.base.get(r.task_id)
      ctx.store.base.upsert(r)
      if (!old || differs(old, r)) out.push(r.task_id)
    }
    if (seen !== head) {
      ctx.store.base.setSeen(branch, head, now())
      if (seen) {
        const concerned = results.filter((r) => !r.lands_as_checked || r.conflicts).map((r) => r.task_id)
        ctx.store.log.appendEvent(
          'base.moved',
          { branch, from: seen, to: head, mergedTaskId: mergedBy.get(head) ?? null, concerned },
          now(),
        )
        ctx.store.log.bump('base_moves')
      }
    }
    return out
  })
}

/**
 * The cards' events, a few at a time with the loop free between them: a move that concerns 50 tasks does not hold
 * every other request for the time 50 task reads take. Each few read together (toTasks: one statement per table for
 * them all, not per task).
 */
async function emitChanged(h: Harness, ctx: Ctx, changed: number[]): Promise<void> {
  for (let i = 0; i < changed.length; i += EMITS_AT_ONCE) {
    if (i > 0) await new Promise((r) => setImmediate(r))
    if (closed.has(h) || !ctx.store.db.open) return
    const rows = ctx.store.tasks.getMany(changed.slice(i, i + EMITS_AT_ONCE))
    for (const task of toTasks(ctx.wsId, ctx.store, rows)) ctx.emit('task.changed', { workspaceId: ctx.wsId, task })
  }
}

/** The commit a merge under way made, once it has landed (its record then names it). */
function mergingCommit(merging: string | null): string | null {
  if (!merging) return null
  try {
    const merged = (JSON.parse(merging) as { merged?: unknown }).merged
    return typeof merged === 'string' ? merged : null
  } catch {
    return null
  }
}

/** What the card and readiness show changed (not merely the time of the check). */
function differs(a: BaseCheckRow, b: BaseCheckRow): boolean {
  return (
    a.behind !== b.behind ||
    a.overlaps !== b.overlaps ||
    a.conflicts !== b.conflicts ||
    a.lands_as_checked !== b.lands_as_checked ||
    a.task_commit !== b.task_commit ||
    a.base_head !== b.base_head
  )
}
