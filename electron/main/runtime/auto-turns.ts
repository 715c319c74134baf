/**
 * The loop closes itself (issue 13): Concord starts a turn for a member that a change concerns instead of the
 * human relaying it. Who is woken, with what message and under what trigger is the harness's policy
 * (harness/reports/auto-turn-triggers.ts; its claims and queued steps auto-turn-queue.ts); here it is carried out:
 * when (after the emitting call's answer, a slice at a time), and the members told of their queued turns.
 */
import type { EventEnvelope, MethodName, Params, Result } from '../../../shared/contract'
import type { NoticeSummary, Report, Task } from '../../../shared/schemas'
import type { Ctx } from '../harness/context'
import type { Harness } from '../harness/harness'
import { makeId, makeKey, parseId } from '../harness/ids'
import { memberCanWork, pendingNotices, queueAutoTurn, queuedStepRow } from '../harness/reports/auto-turn-queue'
import { countAutoDelivery, workspaceOpen } from '../harness/reports/auto-turn-queue'
import {
  autoCtx,
  autoDelivery,
  deliveryWakes,
  noticeUnread,
  noticeWakes,
  type Wake,
} from '../harness/reports/auto-turn-triggers'
import type { StepRow } from '../harness/rows'
import { loopTurn } from './loop-share'

export interface AutoTurnsEnv {
  harness: Harness
  call<M extends MethodName>(method: M, params: Params<M>): Promise<Result<M>>
  /** A queued step is in the member's inbox: show it and let the host pick it up (never lifting an error state). */
  queued(memberId: string, step: StepRow): void
  /** The member is in a turn now (its notices reach it at its next model call). */
  busy(memberId: string): boolean
  /** Concord is stopping: no turn is started now (the next start resumes what is owed, see resume). */
  closing(): boolean
}

/** A flag turn owed to a member that was busy: started if its notice is still unread when the turn ends. */
interface Deferred extends Wake {
  wsId: string
  noticeRowId: number
}

/** The longest run of automatic-turn work before the loop serves anything else. */
const SLICE_MS = 4

export class AutoTurns {
  /** Flag turns for members that were busy: needed only if the notice is still undelivered when the turn ends. */
  private readonly deferred = new Map<string, Deferred[]>()
  /** How many triggers each waiting auto turn carries (one edit can leave hundreds of a member's reports stale). */
  private readonly joined = new Map<number, number>()
  /** Work in arrival order; a job is a function, or a generator that yields after each unit (a turn, a task). */
  private readonly jobs: { run: () => Iterator<unknown> | undefined; it?: Iterator<unknown>; what: string }[] = []
  private pumping = false
  /** The turns the running job queued or joined, told to their members when it is done (see done). */
  private readonly toNotify = new Map<string, { ctx: Ctx; stepId: number }>()

  constructor(private readonly env: AutoTurnsEnv) {}

  private readonly ctxOf = (wsId: string) => this.env.harness.ctx(wsId)

  /**
   * Subscribed to the bus. Nothing runs in the emitting call's tick: the work is queued and done after its answer
   * is written (a later loop turn, loopTurn), a slice of at most SLICE_MS at a time (see pump), so an edit that flags a thousand
   * tasks answers as fast as with automatic turns off. What is owed is never only in this queue: the edit's notices
   * are stored in its transaction and still pending, and resume acts on them again after a restart; each turn is
   * claimed with its queued message in one transaction (start).
   */
  onEvent(e: EventEnvelope): void {
    if (this.env.closing()) return
    if (
      e.event === 'session.state' &&
      e.payload.session.state === 'idle' &&
      this.deferred.has(e.payload.session.memberId)
    ) {
      const memberId = e.payload.session.memberId
      this.schedule(() => this.flushDeferred(memberId), 'a deferred automatic turn')
      return
    }
    if (e.event === 'notice.created') this.schedule(() => this.onNotice(e.payload.notice), e.event)
    // A task.changed that only brings new readiness (a report came in) is not a delivery or a re-alignment.
    else if (e.event === 'task.changed' && !e.payload.readinessOnly)
      this.schedule(() => {
        this.onTask(e.payload.task)
        return undefined
      }, e.event)
    else if (e.event === 'report.submitted') this.schedule(() => void this.onReport(e.payload.report), e.event)
    // The notices a spent budget left pending are acted on again, as after a restart.
    else if (e.event === 'workspace.settings' && e.payload.budgetFreed) this.resume(e.payload.workspaceId)
  }

  private schedule(run: () => Iterator<unknown> | undefined, what: string): void {
    this.jobs.push({ run, what })
    if (this.pumping) return
    this.pumping = true
    void loopTurn().then(() => this.pump())
  }

  /** Runs queued work for at most SLICE_MS, then lets the loop serve everything else before the next slice. */
  private pump(): void {
    const t0 = performance.now()
    while (this.jobs.length && performance.now() - t0 < SLICE_MS) {
      // Concord is stopping: what is left waits for the next start (pending notices are resumed).
      if (this.env.closing()) this.jobs.length = 0
      const job = this.jobs[0]
      if (!job) break
      try {
        if (!job.it) {
          const r = job.run()
          if (!r) {
            this.done()
            continue
          }
          job.it = r
        }
        if (job.it.next().done) this.done()
      } catch (err) {
        this.done()
        // A workspace closed meanwhile (its database with it) is not a failure: its pending notices resume later.
        if (!(err instanceof TypeError && /database connection is not open/.test(err.message)))
          console.error(`automatic turn for ${job.what} failed:`, err instanceof Error ? err.message : err)
      }
    }
    // The next slice gets a loop turn of its own, not shared with a turn's preparation (loop-share.ts).
    if (this.jobs.length) void loopTurn().then(() => this.pump())
    else this.pumping = false
  }

  /**
   * The job is done: the members it queued (or joined) a turn for are told now, once each. Told at once, a member
   * would start its turn between two slices and the job's later triggers would queue a second turn behind it.
   */
  private done(): void {
    this.jobs.shift()
    const queued = [...this.toNotify]
    this.toNotify.clear()
    for (const [memberId, { ctx, stepId }] of queued) {
      const step = queuedStepRow(ctx, stepId)
      if (step) this.env.queued(memberId, step)
    }
  }

  /**
   * After a restart: the notices still pending are acted on again, as if just created. A flag turn a busy member
   * was owed lived in this process's memory only; the turns that did start are claimed, so none starts twice.
   */
  resume(wsId: string): void {
    const ctx = autoCtx(this.ctxOf, wsId)
    // Closed again before this ran (a short-lived process, a test): nothing to resume.
    if (!ctx || !workspaceOpen(ctx)) return
    try {
      for (const notice of pendingNotices(ctx)) this.schedule(() => this.onNotice(notice), 'a pending notice')
    } catch (err) {
      console.error('automatic turns after a restart failed:', err instanceof Error ? err.message : err)
    }
  }

  /** A generator: the pump runs it a turn (or a task of the report scan) at a time. */
  private *onNotice(notice: NoticeSummary): Generator<void, void, void> {
    const ctx = autoCtx(this.ctxOf, notice.workspaceId)
    if (!ctx) return
    // A member in a turn reads the notice at its next model call; a turn is owed only if that call never comes.
    const busy = this.env.busy(notice.memberId)
    for (const wakes of noticeWakes(ctx, notice)) {
      for (const w of wakes) {
        if (w.noticeRowId === undefined || !busy) this.start(ctx, w)
        else {
          const list = this.deferred.get(notice.memberId) ?? []
          list.push({ ...w, wsId: ctx.wsId, noticeRowId: w.noticeRowId })
          this.deferred.set(notice.memberId, list)
        }
      }
      yield
    }
  }

  /** The busy member's turn ended: the flag turns whose notice it did not read in that turn start now. */
  private *flushDeferred(memberId: string): Generator<void, void, void> {
    const list = this.deferred.get(memberId)
    this.deferred.delete(memberId)
    for (const d of list ?? []) {
      const ctx = autoCtx(this.ctxOf, d.wsId)
      if (ctx && noticeUnread(ctx, d.noticeRowId)) this.start(ctx, d)
      yield
    }
  }

  private onTask(t: Task): void {
    for (const { ctx, wakes } of deliveryWakes(this.ctxOf, t)) for (const w of wakes) this.start(ctx, w)
  }

  /** autoDeliver: the delivery the report offers is made, as the card's button would. */
  private async onReport(report: Report): Promise<void> {
    const offer = autoDelivery(this.ctxOf, report)
    if (!offer) return
    try {
      await this.env.call('tasks.setStatus', {
        taskId: report.taskId,
        status: 'delivered',
        artifact: { commit: offer.commit },
        actorId: report.authorId ?? undefined,
      })
      countAutoDelivery(offer.ctx)
    } catch (err) {
      // A blocker or a move someone made meanwhile: the card still offers the delivery.
      const task = makeKey('task', parseId(report.taskId, 'task', 'taskId').n)
      console.error(`automatic delivery of ${task} on ${report.key} failed:`, err instanceof Error ? err.message : err)
    }
  }

  /**
   * A turn a use case asks for (tasks.updateBranch: the assignee resolves a conflict, or tests an update), whatever
   * the autoTurns setting: the user asked for it. Queued now and told to its member at once; null when the member
   * cannot take a turn. stepId null: this trigger had its turn already.
   */
  queueFor(
    wsId: string,
    memberRowId: number,
    taskRowId: number,
    trigger: string,
    lines: string[],
  ): { stepId: number | null } | null {
    if (this.env.closing()) return null
    const ctx = this.env.harness.ctx(wsId)
    if (!memberCanWork(ctx, memberRowId)) return null
    const memberId = makeId(wsId, 'member', memberRowId)
    const before = this.toNotify.get(memberId)
    const stepId = this.start(ctx, { memberRowId, taskRowId, trigger, lines })
    const told = this.toNotify.get(memberId)
    // Told now unless a running job queued it first (it tells it when done).
    if (told && !before) {
      this.toNotify.delete(memberId)
      const step = queuedStepRow(ctx, told.stepId)
      if (step) this.env.queued(memberId, step)
    }
    return { stepId }
  }

  /** Queues the turn (or joins the member's auto turn still waiting), once per member and trigger. */
  private start(ctx: Ctx, w: Wake): number | null {
    if (!memberCanWork(ctx, w.memberRowId)) return null
    const step = queueAutoTurn(ctx, this.joined, w)
    if (step?.changed) this.toNotify.set(makeId(ctx.wsId, 'member', w.memberRowId), { ctx, stepId: step.id })
    return step?.id ?? null
  }
}
