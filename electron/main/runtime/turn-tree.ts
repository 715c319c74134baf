/**
 * The tree a turn works in: chosen before it starts (its task's worktree, a read-only checkout to verify, or the base
 * branch), what the member's commands and agent may touch in it, and what the turn changed there, recorded after.
 */
import { join } from 'node:path'
import type { EventBus } from '../platform/events/event-bus'
import type { Ctx } from '../harness/context'
import type { Harness } from '../harness/harness'
import { toTask } from '../harness/mappers'
import { refreshHead } from '../harness/workspace/task-branches'
import { treeForTurn, type TurnTree } from '../harness/workspace/turn-trees'
import { workspaceSettings } from '../harness/workspace/workspace-settings'
import type { SandboxPolicy } from '../platform/sandbox-policy'
import { changedFiles, snapshotTree } from '../repo/file-changes'
import { treeHead } from '../repo/git-repo'
import type { MemberRow, StepRow } from '../harness/rows'
import type { MemberHost } from './member-host'
import { busSink, changeStep } from './step-writer'
import { bindTurnTask, turnTask, unboundTreeText } from './turn-task'

/** The tree as it is (committed or not) and the commit it is at. */
export type TreeSnapshot = { tree: string; commit: string | null }

/** The turn's tree; a message that names exactly one of the member's tasks in progress works on it (turn-task.ts). */
export async function prepareTree(harness: Harness, ctx: Ctx, member: MemberRow, start: StepRow): Promise<TurnTree> {
  bindTurnTask(ctx, member, start)
  const tree = await treeForTurn(harness, ctx, member.id, turnTask(ctx, member, start))
  const unbound =
    tree.readOnly && tree.taskRowId === null && start.task_id === null
      ? unboundTreeText(ctx, member, tree.description)
      : null
  return unbound ? { ...tree, readOnly: unbound } : tree
}

/** What a member's commands may touch: its own scratch home, the workspace's variables, network only if allowed. */
export function sandboxPolicy(harness: Harness, ctx: Ctx, host: MemberHost, tree: TurnTree): SandboxPolicy {
  const member = ctx.store.members.get(host.memberRowId)
  const settings = workspaceSettings(ctx)
  const dataDir = harness.registry.dataDir
  return {
    dataDir,
    network: member?.network === 1,
    env: settings.commandEnv,
    scratchDir: join(dataDir, 'scratch', host.wsId, `m${host.memberRowId}`),
    gitHooks: settings.gitHooks,
    ...(tree.readOnly ? { readOnlyTree: tree.readOnly } : {}),
    ...(tree.readable ? { readable: tree.readable } : {}),
    // A shared workspace's tree is the user's checkout: its .git is read-only in the sandbox (platform/sandbox/spawn.ts treeGitDir).
    ...(settings.isolation === 'shared' ? { userCheckout: true } : {}),
  }
}

const snapshotDir = (harness: Harness, wsId: string) => join(harness.registry.dataDir, 'scratch', wsId, 'snapshots')

/** The tree as it is now; null when it cannot be read (the turn's changes are then not recorded). */
export async function snapshot(harness: Harness, wsId: string, tree: TurnTree): Promise<TreeSnapshot | null> {
  const snap = await snapshotTree(tree.root, snapshotDir(harness, wsId)).catch(() => null)
  return snap ? { tree: snap, commit: await treeHead(tree.root).catch(() => null) } : null
}

/**
 * Where the task's tree is as the turn starts (its HEAD, and everything in it as `before` snapshotted it), on the
 * turn's first step: what sessions.undoTurn puts back (harness/tasks/turn-undo.ts). Only a turn in its task's own
 * tree, writable, gets one.
 */
export function recordCheckpoint(
  bus: EventBus,
  ctx: Ctx,
  start: StepRow,
  tree: TurnTree,
  before: TreeSnapshot | null,
): void {
  if (tree.taskRowId === null || tree.readOnly || !before?.commit) return
  const branch = ctx.store.branches.get(tree.taskRowId)
  if (!branch) return
  const checkpoint = { task: tree.taskRowId, commit: before.commit, tree: before.tree, base: branch.base_commit }
  changeStep(ctx.store, busSink(bus, ctx.wsId), start.id, () => ctx.store.turnUndo.setCheckpoint(start.id, checkpoint))
}

/** The files this turn changed in its tree, on the turn's last step (and the task's head as it is now). */
export async function recordChanges(
  harness: Harness,
  bus: EventBus,
  ctx: Ctx,
  start: StepRow,
  tree: TurnTree,
  before: TreeSnapshot | null,
): Promise<void> {
  if (tree.taskRowId !== null) await refreshHead(harness, ctx, tree.taskRowId).catch(() => undefined)
  if (!before) return
  const after = await snapshot(harness, ctx.wsId, tree)
  if (!after) return
  const changes = await changedFiles(tree.root, before.tree, after.tree, snapshotDir(harness, ctx.wsId)).catch(() => [])
  if (!changes.length) return
  const last = ctx.store.steps.lastOfTurn(start.id)
  if (!last) return
  // The two trees are kept so the turn's own diff can be shown later (sessions.changes), with the commits the tree
  // was at before and after, which are what the diff is named by.
  const stored = JSON.stringify({
    from: before.tree,
    to: after.tree,
    fromCommit: before.commit,
    toCommit: after.commit,
    files: changes,
  })
  changeStep(ctx.store, busSink(bus, ctx.wsId), last.id, (s) => s.setChanges(last.id, stored))
  if (tree.taskRowId !== null) {
    // The task card's head moved with the turn's commits.
    const task = ctx.store.tasks.get(tree.taskRowId)
    if (task) bus.emit('task.changed', { workspaceId: ctx.wsId, task: toTask(ctx.wsId, ctx.store, task) })
  }
}
