/**
 * The automatic turns' records: each trigger is claimed once per member in the store, with its queued message in one
 * transaction, so an auto turn's own results cannot start another for the same change. One auto turn per member at a
 * time: a trigger that finds one still queued joins it. Who is woken is auto-turn-triggers.ts; when, the runtime's.
 */
import type { NoticeSummary } from '../../../../shared/schemas'
import type { Ctx } from '../context'
import { now } from '../ids'
import { toNoticeSummary } from '../mappers'
import { AutoTurnsRepo } from '../../store/auto-turns-repo'
import { budgetState, HELD_BY_BUDGET } from '../workspace/money'
import { workspaceSettings } from '../workspace/workspace-settings'
import type { MemberRow, StepRow, WorkspaceStore } from '../rows'

/** Triggers spelled out in one waiting auto turn; the rest are summed up by JOIN_MORE. */
export const JOIN_SPELLED = 12
export const JOIN_MORE =
  'More changes concern you than fit here: the notices in your brief list every task and report; re-verify each that is stale.'

const repos = new WeakMap<WorkspaceStore, AutoTurnsRepo>()
function autoTurnsRepo(store: WorkspaceStore): AutoTurnsRepo {
  let r = repos.get(store)
  if (!r) repos.set(store, (r = new AutoTurnsRepo(store.db)))
  return r
}

/** A member Concord can start a turn for: it has a model or an agent, and is not archived. */
export function canWork(m: MemberRow): boolean {
  if ((m as { archived_at?: string | null }).archived_at) return false
  return Boolean(m.agent || (m.provider_kind && m.provider_model))
}

/** The member of this row can take a turn (it exists, has a model or an agent, is not archived). */
export function memberCanWork(ctx: Ctx, memberRowId: number): boolean {
  const member = ctx.store.members.get(memberRowId)
  return Boolean(member && canWork(member))
}

/** The workspace's database is still open (a workspace closed meanwhile, or Concord stopping, closes it). */
export function workspaceOpen(ctx: Ctx): boolean {
  return ctx.store.db.open
}

/** The notices still pending for every member, as if just created (resumed after a restart). */
export function* pendingNotices(ctx: Ctx): Generator<NoticeSummary, void, void> {
  for (const m of ctx.store.members.list())
    for (const row of ctx.store.log.notices(m.id, true)) yield toNoticeSummary(ctx.wsId, ctx.store, row)
}

/** A queued step as it is now (announced to its member's host), if its workspace is still open. */
export function queuedStepRow(ctx: Ctx, stepId: number): StepRow | undefined {
  return workspaceOpen(ctx) ? ctx.store.steps.get(stepId) : undefined
}

/** An automatic delivery happened (the figure counts them). */
export function countAutoDelivery(ctx: Ctx): void {
  ctx.store.log.bump('auto_deliveries')
}

/** The workspace spent its budget: Concord starts no automatic turn (the human's messages still go through). */
export function budgetReached(ctx: Ctx): boolean {
  return budgetState(ctx, workspaceSettings(ctx))?.reached === true
}

/**
 * The member's next queued step to run. While the workspace's budget is spent, Concord's own turns already queued
 * (before it was reached) are passed over: held, each counted once on the Figures tab (`held`: the steps counted
 * already), run when the budget is raised; the human's messages still go through.
 */
export function nextTurnStep(ctx: Ctx, memberRowId: number, held: Set<number>): StepRow | undefined {
  const next = ctx.store.steps.nextQueued(memberRowId)
  if (!next || !budgetReached(ctx)) return next
  const unheld = autoTurnsRepo(ctx.store).nextNotAuto(memberRowId)
  if (unheld?.id !== next.id && !held.has(next.id)) {
    held.add(next.id)
    ctx.store.log.bump(HELD_BY_BUDGET)
  }
  return unheld
}

/**
 * Queues the turn (or joins the member's auto turn still waiting), once per member and trigger: the step's id and
 * whether its text changed (a change to announce), or null when the trigger had its turn already or the workspace's
 * budget is spent (the trigger is not claimed then: its notice stays pending, resumed at the next start). `joined` counts the
 * triggers each waiting turn carries (one edit can leave hundreds of a member's reports stale).
 */
export function queueAutoTurn(
  ctx: Ctx,
  joined: Map<number, number>,
  w: { memberRowId: number; taskRowId: number; trigger: string; lines: string[] },
): { id: number; changed: boolean } | null {
  if (budgetReached(ctx)) {
    // Said on the Figures tab: how many turns the budget held (their notices stay pending).
    ctx.store.log.bump(HELD_BY_BUDGET)
    return null
  }
  const repo = autoTurnsRepo(ctx.store)
  const steps = ctx.store.steps
  return ctx.store.transaction(() => {
    const claim = repo.claim(w.memberRowId, w.taskRowId, w.trigger, now())
    if (claim === null) return null
    const waiting = repo.queuedStep(w.memberRowId)
    const text = w.lines.join('\n\n')
    let id: number
    let changed = true
    if (waiting !== undefined) {
      id = waiting
      // The first few are spelled out; past them one line says the rest are in the notices of its brief, so a
      // message that joins hundreds of triggers stays short and each join costs the same.
      const n = (joined.get(id) ?? 1) + 1
      joined.set(id, n)
      if (n <= JOIN_SPELLED) steps.setText(id, `${steps.get(id)!.text}\n\n${text}`)
      else if (n === JOIN_SPELLED + 1) steps.setText(id, `${steps.get(id)!.text}\n\n${JOIN_MORE}`)
      else changed = false
    } else {
      // Announced by the runtime when its job is done.
      id = steps.insert({
        member_id: w.memberRowId,
        kind: 'message',
        status: 'queued',
        text,
        from_member_id: null,
        task_id: w.taskRowId,
        started_at: now(),
      })
    }
    repo.setStep(claim, id)
    ctx.store.log.bump('auto_turns')
    return { id, changed }
  })
}
