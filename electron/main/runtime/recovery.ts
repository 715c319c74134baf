/** What a previous Concord process left behind in a workspace, dealt with once when this one first opens it. */
import type { Ctx } from '../harness/context'
import { now } from '../harness/ids'
import type { StepRow } from '../store/steps-repo'
import { killRecordedGroup } from '../platform/sandbox'
import { quiet, writeStep } from './step-writer'

/**
 * After a crash: kills the process groups a previous process left running, its commands' and its ACP agents' (only
 * if each is still that process), then marks the turns it left open as interrupted; their steps are kept.
 */
export function recoverLeftovers(ctx: Ctx): void {
  const leftovers = ctx.store.steps.processes()
  for (const p of leftovers) killRecordedGroup(p.pid, p.pgid, p.start_time ?? undefined)
  if (leftovers.length) ctx.store.steps.clearProcesses()
  const open = ctx.store.steps.open()
  if (!open.length) return
  ctx.store.transaction(() => {
    const members = new Map<number, StepRow>()
    for (const s of open) {
      // A call that was waiting for the human is not denied by the human: say what happened.
      const text =
        s.status === 'waiting_approval'
          ? 'Interrupted by a restart of Concord while waiting for approval; it did not run.'
          : undefined
      ctx.store.steps.finish(s.id, { status: 'interrupted', text, ended_at: now() })
      members.set(s.member_id, s)
    }
    // Nobody watches these sessions yet: they are read when they are first shown.
    for (const [memberId, s] of members) {
      writeStep(ctx.store, quiet, {
        member_id: memberId,
        turn_id: s.turn_id,
        task_id: s.task_id,
        kind: 'interrupted',
        status: 'done',
        text: 'Concord stopped while this turn was running; the turn was not finished.',
        started_at: now(),
        ended_at: now(),
      })
    }
  })
}
