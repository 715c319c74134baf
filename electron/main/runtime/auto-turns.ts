/**
 * The loop closes itself (issue 13): Concord starts a turn for a member that a change concerns instead of the
 * human relaying it. Triggers, and only these:
 * - a notice for a member whose task in progress or delivered is flagged (adjust and acknowledge / re-verify);
 * - a delivery (or a change with no one left to adjust) that leaves a member's report stale (re-verify and report);
 * - with autoDeliver, a passing implementation report by the assignee delivers its task on the report's commit;
 * - with autoChecks, a delivery asks the tester and reviewer for the checks the task requires and lacks (the
 *   message the card's Ask would send: readiness's action, its one home).
 * Each trigger is keyed by what caused it (task + decision version, or task + delivered commit + versions) and
 * claimed once per member in the store, so an auto turn's own results cannot start another for the same change.
 * One auto turn per member at a time: a trigger that finds one still queued joins it.
 */
import type { EventEnvelope, MethodName, Params, Result } from '../../../shared/contract'
import type { NoticeSummary, Report, Task } from '../../../shared/schemas'
import type { Ctx } from '../harness/context'
import type { Harness } from '../harness/harness'
import { makeId, makeKey, now, parseId } from '../harness/ids'
import { readinessOfTask, toNoticeSummary } from '../harness/mappers'
import { workspaceSettings } from '../harness/workspace/workspace-settings'
import { AutoTurnsRepo } from '../store/auto-turns-repo'
import type { MemberRow } from '../store/members-repo'
import type { TaskRow } from '../store/tasks-repo'
import type { WorkspaceStore } from '../store/workspace-store'
import type { StepRow } from '../store/steps-repo'
import { loopTurn } from './loop-share'
import { quiet, writeStep } from './step-writer'

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

interface Deferred {
  wsId: string
  memberRowId: number
  taskRowId: number
  trigger: string
  lines: string[]
  noticeRowId: number
}

const repos = new WeakMap<WorkspaceStore, AutoTurnsRepo>()
function autoTurnsRepo(store: WorkspaceStore): AutoTurnsRepo {
  let r = repos.get(store)
  if (!r) repos.set(store, (r = new AutoTurnsRepo(store.db)))
  return r
}

const short = (sha: string | null) => (sha ? sha.slice(0, 7) : 'its delivered artifact')

export class AutoTurns {
  /** Flag turns for members that were busy: needed only if the notice is still undelivered when the turn ends. */
  private readonly deferred = new Map<string, Deferred[]>()
  /** How many triggers each waiting auto turn carries (one edit can leave hundreds of a member's reports stale). */
  private readonly joined = new Map<number, number>()

  constructor(private readonly env: AutoTurnsEnv) {}

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
  }

  /** Work in arrival order; a job is a function, or a generator that yields after each unit (a turn, a task). */
  private readonly jobs: { run: () => Iterator<unknown> | undefined; it?: Iterator<unknown>; what: string }[] = []
  private pumping = false
  /** The turns the running job queued or joined, told to their members when it is done (see done). */
  private readonly toNotify = new Map<string, { ctx: Ctx; stepId: number }>()

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
      if (!ctx.store.db.open) continue
      const step = ctx.store.steps.get(stepId)
      if (step) this.env.queued(memberId, step)
    }
  }

  /**
   * After a restart: the notices still pending are acted on again, as if just created. A flag turn a busy member
   * was owed lived in this process's memory only; the turns that did start are claimed, so none starts twice.
   */
  resume(wsId: string): void {
    const ctx = this.ctx(wsId)
    // Closed again before this ran (a short-lived process, a test): nothing to resume.
    if (!ctx?.store.db.open) return
    try {
      for (const m of ctx.store.members.list())
        for (const row of ctx.store.log.notices(m.id, true))
          this.schedule(() => this.onNotice(toNoticeSummary(ctx.wsId, ctx.store, row)), 'a pending notice')
    } catch (err) {
      console.error('automatic turns after a restart failed:', err instanceof Error ? err.message : err)
    }
  }

  private ctx(wsId: string): Ctx | null {
    try {
      const ctx = this.env.harness.ctx(wsId)
      return workspaceSettings(ctx).autoTurns ? ctx : null
    } catch {
      return null // a workspace closed or removed meanwhile
    }
  }

  /** A generator: the pump runs it a turn (or a task of the report scan) at a time. */
  private *onNotice(notice: NoticeSummary): Generator<void, void, void> {
    const ctx = this.ctx(notice.workspaceId)
    if (!ctx) return
    const memberRow = parseId(notice.memberId, 'member', 'memberId').n
    const noticeRowId = parseId(notice.id, 'notice', 'noticeId').n
    // The event names only the first tasks and reports: every one of them is in the stored notice.
    const row = ctx.store.log.notice(noticeRowId)
    if (!row) return
    const taskRows = JSON.parse(row.task_ids) as number[]
    // A member in a turn reads the notice at its next model call; a turn is owed only if that call never comes.
    const busy = this.env.busy(notice.memberId)
    const flagTurn = (taskRowId: number, lines: string[]) => {
      const trigger = `flag:${taskRowId}:${notice.decisionId}:v${notice.decisionVersion}`
      if (!busy) {
        this.start(ctx, memberRow, taskRowId, trigger, lines)
        return
      }
      const list = this.deferred.get(notice.memberId) ?? []
      list.push({ wsId: ctx.wsId, memberRowId: memberRow, taskRowId, trigger, lines, noticeRowId })
      this.deferred.set(notice.memberId, list)
    }
    const dk = makeKey('decision', parseId(notice.decisionId, 'decision', 'decisionId').n)
    const head = `${dk} changed (now v${notice.decisionVersion})`
    const member = ctx.store.members.get(memberRow)
    // A member that cannot take a turn (no model, archived) gets none: neither its tasks nor its reports are read.
    // Every other author whose report the edit left behind has a notice of its own, and its own scan.
    if (!member || !canWork(member)) return
    for (let i = 0; i < taskRows.length; i += TASK_PAGE) {
      for (const task of ctx.store.tasks.getMany(taskRows.slice(i, i + TASK_PAGE))) {
        if (task.assignee_id !== memberRow) continue
        const tk = makeKey('task', task.id)
        if (task.status === 'in_progress' && task.flag === 'needs_adjustment') {
          flagTurn(task.id, [
            head,
            `${tk} is in progress and needs adjustment: read the notice in your brief, adjust your work to the current decisions, commit, then acknowledge ${tk}.`,
          ])
        } else if (task.status === 'delivered' && task.flag === 'needs_reverification') {
          flagTurn(task.id, [
            head,
            `${tk} was delivered on ${short(task.artifact_commit)} and needs re-verification: check it against the current decisions. If it no longer holds, move it back to in progress, adjust, commit, acknowledge ${tk} and submit an implementation report on the new commit; otherwise acknowledge it and report.`,
          ])
        } else continue
        yield
      }
      // Concord is closing: what is left waits for the next start (the notice is still pending).
      if (!ctx.store.db.open) return
    }
    // Its stale reports: re-verified now only where no one has an adjustment to make first (see staleAuthors).
    // A slice of reports at a time (one edit can stale 10,000 reports), once per task: each task's acceptance check
    // reads its reports, so a large edit never holds streaming or other requests behind it.
    if (ctx.store.log.reportCount(row) === 0) return
    const seen = new Set<number>()
    // A slice is the reports after the last one read (the notice's list, or derived from its edit a page at a time).
    for (let after = 0; ;) {
      if (!ctx.store.db.open) return
      const slice = ctx.store.log.reportIds(row, after, REPORT_PAGE)
      const tasks = ctx.store.reports
        .heads(slice)
        .map((h) => h.task_id)
        .filter((t) => !seen.has(t) && seen.add(t))
      for (const task of ctx.store.tasks.getMany([...new Set(tasks)])) {
        if (task.status !== 'delivered') continue
        if (!ctx.store.db.open) return
        this.staleAuthors(ctx, task, head)
        yield
      }
      if (slice.length < REPORT_PAGE) return
      after = slice.at(-1)!
      yield
    }
  }

  /** The busy member's turn ended: the flag turns whose notice it did not read in that turn start now. */
  private *flushDeferred(memberId: string): Generator<void, void, void> {
    const list = this.deferred.get(memberId)
    this.deferred.delete(memberId)
    for (const d of list ?? []) {
      const ctx = this.ctx(d.wsId)
      if (ctx && ctx.store.log.notice(d.noticeRowId)?.delivered_at === null)
        this.start(ctx, d.memberRowId, d.taskRowId, d.trigger, d.lines)
      yield
    }
  }

  private onTask(t: Task): void {
    if (t.status !== 'delivered') return
    this.askForChecks(t)
    const ctx = this.ctx(t.workspaceId)
    const task = ctx?.store.tasks.get(parseId(t.id, 'task', 'taskId').n)
    if (ctx && task)
      this.staleAuthors(ctx, task, `${makeKey('task', task.id)} was delivered on ${short(task.artifact_commit)}`)
  }

  /**
   * autoChecks: each required report the delivered task has none of is asked of the member readiness names for it
   * (its action: who, and the text the card's Ask sends), once per task, kind and delivered artifact.
   */
  private askForChecks(t: Task): void {
    let ctx: Ctx
    try {
      ctx = this.env.harness.ctx(t.workspaceId)
    } catch {
      return
    }
    if (!workspaceSettings(ctx).autoChecks) return
    const task = ctx.store.tasks.get(parseId(t.id, 'task', 'taskId').n)
    if (!task || task.status !== 'delivered') return
    for (const r of readinessOfTask(ctx.wsId, ctx.store, task).reasons) {
      if (r.code !== 'evidence_missing' || r.reportId !== null || !r.action?.memberId) continue
      const memberRow = parseId(r.action.memberId, 'member', 'memberId').n
      // The assignee checking its own work is no check: the card asks the human to pick who.
      if (memberRow === task.assignee_id) continue
      const artifact = task.artifact_commit ?? task.artifact_digest
      this.start(ctx, memberRow, task.id, `check:${task.id}:${r.reportKind}:${artifact}`, [r.action.text])
    }
  }

  /**
   * The authors of the task's required reports that no longer support it re-verify the delivered artifact, once it
   * is settled: delivered, and re-aligned by its assignee (before that they would check a commit about to change).
   */
  private staleAuthors(ctx: Ctx, task: TaskRow, head: string): void {
    if (task.status !== 'delivered') return
    const links = ctx.store.tasks.links(task.id)
    // Until its assignee has re-aligned it (acknowledged: links re-pinned), the delivered commit may still change.
    if (task.assignee_id !== null && links.some((l) => l.pinned_fingerprint !== l.current_fingerprint)) return
    const byReport = new Map<number, string[]>()
    for (const r of readinessOfTask(ctx.wsId, ctx.store, task).reasons) {
      if (r.code !== 'evidence_stale' || !r.reportId) continue
      const n = parseId(r.reportId, 'report', 'reportId').n
      byReport.set(n, [...(byReport.get(n) ?? []), r.message])
    }
    const tk = makeKey('task', task.id)
    const versions = links.map((l) => `${l.decision_id}v${l.current_version}`).join(',')
    for (const [n, messages] of byReport) {
      const report = ctx.store.reports.get(n)!
      // The human's own report is theirs to redo; the assignee's own is part of its re-alignment.
      if (report.author_id === null || (report.author_id === task.assignee_id && report.kind === 'implementation'))
        continue
      const rk = makeKey('report', n)
      this.start(
        ctx,
        report.author_id,
        task.id,
        `stale:${task.id}:${n}:${task.artifact_commit ?? task.artifact_digest}:${versions}`,
        [
          head,
          `Your ${rk} (${report.kind}) no longer supports ${tk}: ${messages.join('; ')}. Re-verify ${tk} on ${short(task.artifact_commit)} against the current decisions and submit a new ${report.kind} report.`,
        ],
      )
    }
  }

  /**
   * autoDeliver: a report that makes its task offer a delivery (readiness's deliverOn: the assignee's passing
   * implementation report on a commit, still current) delivers it there, as the card's button would.
   */
  private async onReport(report: Report): Promise<void> {
    if (report.kind !== 'implementation') return
    let ctx: Ctx
    try {
      ctx = this.env.harness.ctx(report.workspaceId)
    } catch {
      return
    }
    if (!workspaceSettings(ctx).autoDeliver) return
    const task = ctx.store.tasks.get(parseId(report.taskId, 'task', 'taskId').n)
    const offer = task && readinessOfTask(ctx.wsId, ctx.store, task).deliverOn
    if (!task || offer?.reportId !== report.id) return
    try {
      await this.env.call('tasks.setStatus', {
        taskId: report.taskId,
        status: 'delivered',
        artifact: { commit: offer.commit },
        actorId: report.authorId ?? undefined,
      })
      ctx.store.log.bump('auto_deliveries')
    } catch (err) {
      // A blocker or a move someone made meanwhile: the card still offers the delivery.
      console.error(
        `automatic delivery of ${makeKey('task', task.id)} on ${report.key} failed:`,
        err instanceof Error ? err.message : err,
      )
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
    const member = ctx.store.members.get(memberRowId)
    if (!member || !canWork(member)) return null
    const memberId = makeId(wsId, 'member', memberRowId)
    const before = this.toNotify.get(memberId)
    const stepId = this.start(ctx, memberRowId, taskRowId, trigger, lines)
    const told = this.toNotify.get(memberId)
    // Told now unless a running job queued it first (it tells it when done).
    if (told && !before) {
      this.toNotify.delete(memberId)
      const step = ctx.store.steps.get(told.stepId)
      if (step) this.env.queued(memberId, step)
    }
    return { stepId }
  }

  /** Queues the turn (or joins the member's auto turn still waiting), once per member and trigger. */
  private start(ctx: Ctx, memberRowId: number, taskRowId: number, trigger: string, lines: string[]): number | null {
    const member = ctx.store.members.get(memberRowId)
    if (!member || !canWork(member)) return null
    const repo = autoTurnsRepo(ctx.store)
    const stepId = ctx.store.transaction(() => {
      const claim = repo.claim(memberRowId, taskRowId, trigger, now())
      if (claim === null) return null
      const waiting = repo.queuedStep(memberRowId)
      const text = lines.join('\n\n')
      let id: number
      let changed = true
      if (waiting !== undefined) {
        id = waiting
        // The first few are spelled out; past them one line says the rest are in the notices of its brief, so a
        // message that joins hundreds of triggers stays short and each join costs the same.
        const n = (this.joined.get(id) ?? 1) + 1
        this.joined.set(id, n)
        if (n <= JOIN_SPELLED) ctx.store.steps.setText(id, `${ctx.store.steps.get(id)!.text}\n\n${text}`)
        else if (n === JOIN_SPELLED + 1) ctx.store.steps.setText(id, `${ctx.store.steps.get(id)!.text}\n\n${JOIN_MORE}`)
        else changed = false
      } else {
        // Announced when the job is done (see done()).
        id = writeStep(ctx.store, quiet, {
          member_id: memberRowId,
          kind: 'message',
          status: 'queued',
          text,
          from_member_id: null,
          task_id: taskRowId,
          started_at: now(),
        })
      }
      repo.setStep(claim, id)
      ctx.store.log.bump('auto_turns')
      return { id, changed }
    })
    if (stepId?.changed) this.toNotify.set(makeId(ctx.wsId, 'member', memberRowId), { ctx, stepId: stepId.id })
    return stepId?.id ?? null
  }
}

/** The longest run of automatic-turn work before the loop serves anything else. */
const SLICE_MS = 4
/** Tasks of a notice read at a time; reports of a notice's scan read at a time. */
const TASK_PAGE = 100
const REPORT_PAGE = 50

/** Triggers spelled out in one waiting auto turn; the rest are summed up by JOIN_MORE. */
export const JOIN_SPELLED = 12
export const JOIN_MORE =
  'More changes concern you than fit here: the notices in your brief list every task and report; re-verify each that is stale.'

/** A member Concord can start a turn for: it has a model or an agent, and is not archived. */
function canWork(m: MemberRow): boolean {
  if ((m as { archived_at?: string | null }).archived_at) return false
  return Boolean(m.agent || (m.provider_kind && m.provider_model))
}
