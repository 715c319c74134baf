/**
 * Merged tasks and a decision's change (issue 30, "follow-ups that do not pile up"). A merged task is not reopened
 * (its tree is gone, its code is in the base branch) and keeps the content it was merged on: its link is never
 * re-pinned. A follow-up task brings its code in line, one per merged task and decision at a time:
 * - behind the new content with no follow-up open: one is created (followUps: create) or offered (offer);
 * - behind it with one open: nothing new; the open one is flagged like any linked task, and its title and spec
 *   (while still the ones Concord wrote) name the new version;
 * - at the new content again (a revert, or any edit back to it) with follow-ups open: they are obsolete. With
 *   followUps: create, those nobody started (to do or blocked, no tree) are cancelled by the change; the others,
 *   and all of them with offer, are offered for cancellation (tasks.setStatus cancels them, removing the tree).
 * A merged follow-up supersedes its merged task for the decision: the base branch has the follow-up's code.
 * Runs inside the change's transaction, before the dependents are flagged (a cancelled follow-up is not flagged).
 */
import type { FollowUpMode, Impact } from '../../../../shared/schemas'
import type { Implementer } from '../../store/follow-ups-repo'
import type { TaskRow } from '../../store/tasks-repo'
import type { Ctx } from '../context'
import { makeId, makeKey } from '../ids'
import { createFollowUp, followUpText, type ChangedDecision } from '../tasks/follow-up'

export interface FollowUpOutcome {
  /** The merged tasks left behind with no follow-up open: each got one (create) or is offered one (offer). */
  behind: number[]
  /** Follow-ups created by the change, in the order of `behind` (create only). */
  created: number[]
  obsolete: NonNullable<Impact['obsoleteFollowUps']>
  /** Follow-ups whose rows the change wrote: cancelled as obsolete, or carried (retitled) to the new version. */
  changed: number[]
}

const mergedText = (key: string, mode: FollowUpMode) =>
  `${key} is merged: the base branch has its code; ${mode === 'create' ? 'a follow-up task will be created' : 'a follow-up task is offered'}`

/**
 * What a preview (or, with followUps: offer, the edit's answer) says of the merged tasks an edit leaves behind: the
 * follow-ups the edit creates, or offers.
 */
export function mergedTasksOf(ws: string, merged: number[], mode: FollowUpMode): Pick<Impact, 'mergedTasks'> {
  if (!merged.length) return {}
  return {
    mergedTasks: merged.map((n) => ({
      taskId: makeId(ws, 'task', n),
      key: makeKey('task', n),
      text: mergedText(makeKey('task', n), mode),
      followUp: mode,
    })),
  }
}

/** An open follow-up still titled as Concord wrote it for the version its link is on gets the new version's text. */
function carryForward(ctx: Ctx, i: Implementer, decision: ChangedDecision, at: string): number[] {
  const { store } = ctx
  const carried: number[] = []
  for (const f of i.openFollowUps) {
    const row = store.tasks.get(f)!
    const link = store.tasks.links(f).find((l) => l.decision_id === decision.id)
    const was = link && store.decisions.revision(decision.id, link.pinned_version)
    if (!was) continue
    const old = followUpText(i.task, { id: decision.id, version: was.version, statement: was.statement })
    if (row.title !== old.title || row.spec !== old.spec) continue
    store.tasks.update({ ...row, ...followUpText(i.task, decision), updated_at: at })
    carried.push(f)
  }
  return carried
}

/** Cancels a follow-up nobody started (no branch, no tree: nothing to remove) and records why. */
function cancelUnstarted(ctx: Ctx, f: TaskRow, i: Implementer, decisionId: number, at: string): boolean {
  if ((f.status !== 'todo' && f.status !== 'blocked') || ctx.store.branches.get(f.id)) return false
  ctx.store.tasks.update({ ...f, status: 'cancelled', updated_at: at })
  ctx.store.log.appendEvent(
    'task.status',
    { taskId: f.id, from: f.status, to: 'cancelled', obsoleteFollowUpOf: i.task.id, decisionId },
    at,
  )
  return true
}

/** What the change to content `to` does to the merged tasks implementing the decision and their follow-ups. */
export function applyFollowUps(
  ctx: Ctx,
  decision: ChangedDecision,
  to: string,
  mode: FollowUpMode,
  at: string,
): FollowUpOutcome {
  const { store, wsId } = ctx
  const out: FollowUpOutcome = { behind: [], created: [], obsolete: [], changed: [] }
  const dkey = makeKey('decision', decision.id)
  for (const i of store.followUps.implementers(decision.id, to)) {
    const mkey = makeKey('task', i.task.id)
    if (i.pinnedFingerprint === to) {
      for (const n of i.openFollowUps) {
        const f = store.tasks.get(n)!
        const cancelled = mode === 'create' && cancelUnstarted(ctx, f, i, decision.id, at)
        if (cancelled) out.changed.push(n)
        const fkey = makeKey('task', n)
        out.obsolete.push({
          taskId: makeId(wsId, 'task', n),
          key: fkey,
          mergedTaskId: makeId(wsId, 'task', i.task.id),
          mergedKey: mkey,
          cancelled,
          text: `${fkey} is obsolete: ${dkey} is back to what ${mkey} was merged on (v${i.pinnedVersion}); ${cancelled ? 'the change cancels it' : 'cancelling it is offered'}`,
        })
      }
    } else if (i.openFollowUps.length) out.changed.push(...carryForward(ctx, i, decision, at))
    else out.behind.push(i.task.id)
  }
  if (mode === 'create') out.created = out.behind.map((n) => createFollowUp(ctx, store.tasks.get(n)!, decision, to, at))
  return out
}
