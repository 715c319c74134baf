/**
 * What a previous Concord process left behind in a workspace, dealt with once when this one first opens it, and at
 * start for every workspace: the processes it left running, the turns it left open, the messages it left queued.
 */
import type { Ctx } from '../harness/context'
import type { Harness } from '../harness/harness'
import { makeId } from '../harness/ids'
import { now } from '../harness/ids'
import type { StepRow } from '../harness/rows'
import type { ProviderKind } from './providers'
import { killRecordedGroup } from '../platform/process-records'
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

/** A workspace's context, its leftovers dealt with at its first use by this process (unless recovery is off). */
export class Recovery {
  private readonly recovered = new Set<string>()

  constructor(
    private readonly harness: Harness,
    private readonly enabled: boolean,
  ) {}

  ctx(wsId: string): Ctx {
    const ctx = this.harness.ctx(wsId)
    if (this.enabled && !this.recovered.has(wsId)) {
      this.recovered.add(wsId)
      recoverLeftovers(ctx)
    }
    return ctx
  }

  /**
   * At start: every workspace's leftovers are dealt with now, not when someone next opens it, and `resume` runs for
   * each once the core is up. Returns the provider kinds its members use (to warm up).
   */
  atStart(resume: (wsId: string) => void): Set<ProviderKind> {
    const kinds = new Set<ProviderKind>()
    for (const w of this.enabled ? this.harness.listWorkspaces() : []) {
      try {
        for (const m of this.ctx(w.id).store.members.list()) if (m.provider_kind && !m.agent) kinds.add(m.provider_kind)
        setImmediate(() => resume(w.id))
      } catch (err) {
        // An unreadable workspace must not keep the others from starting; its calls report the fault.
        console.error(`could not recover workspace ${w.name} (${w.id}):`, err instanceof Error ? err.message : err)
      }
    }
    return kinds
  }
}

/** The messages queued when Concord stopped run now, rather than when someone next opens that chat. */
export function resumeQueued(harness: Harness, wsId: string, host: (memberId: string) => unknown): void {
  try {
    const ctx = harness.ctx(wsId)
    for (const m of ctx.store.members.list())
      if (ctx.store.steps.queuedCount(m.id) > 0) host(makeId(wsId, 'member', m.id))
  } catch (err) {
    console.error(
      `could not resume the queued messages of workspace ${wsId}:`,
      err instanceof Error ? err.message : err,
    )
  }
}
