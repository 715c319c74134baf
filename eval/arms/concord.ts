/**
 * The Concord arm: the product's own harness in-process, on a real SQLite file in a temp folder. Edits, proposals
 * and reverts go through the API dispatch (decisions.update, proposals.create/accept, decisions.revert), so the
 * real propagation flags tasks, stales claims and queues notices; the real AutoTurns (runtime/auto-turns.ts) turns
 * them into the messages that start a member's turn; each member's step reads the brief the agent loop would
 * build (runtime/brief.ts buildBrief, pending notices marked delivered as the loop does); acceptance is the real
 * tasks.accept compare-and-set. Only the model loop is replaced: the scripted member (member.ts) is the agent.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { MethodName, Params, Result } from '../../shared/contract'
import { dispatch } from '../../electron/main/api/dispatch'
import { harnessHandlers, type Handlers } from '../../electron/main/api/handlers'
import { ensureDataDir } from '../../electron/main/platform/data-dir'
import { EventBus } from '../../electron/main/platform/events/event-bus'
import { Harness } from '../../electron/main/harness/harness'
import { now, parseId } from '../../electron/main/harness/ids'
import { submitReport } from '../../electron/main/harness/reports/reports'
import { setTaskStatus } from '../../electron/main/harness/tasks/tasks'
import { AutoTurns } from '../../electron/main/runtime/auto-turns'
import { JOIN_MORE } from '../../electron/main/harness/reports/auto-turn-queue'
import { buildBrief } from '../../electron/main/runtime/brief'
import { plainCipher, SecretStore } from '../../electron/main/platform/secrets/secret-store'
import type { StepRow } from '../../electron/main/store/steps-repo'
import type { Scenario, ScenarioChange } from '../scenarios'
import type { ReportRecord, World } from '../world'
import { ArmBase, type Arm, type Ask, type Sabotage, type Seen, type Status } from './arm'
import { at } from '../at'

/** Lets the AutoTurns reactions (microtasks, then a setImmediate slice for reports) run after a write. */
const settle = async () => {
  for (let i = 0; i < 2; i++) await new Promise((r) => setImmediate(r))
}

const DECISION_LINE = /^- D-(\d+) v\d+ \[[a-z]+\] "[^"]*": (.*)$/

/** A task line without what a change adds to it: its flag and the versions the member last aligned with. */
const unmarked = (line: string): string =>
  line
    .replace(/ — (REQUIREMENTS UPDATED|NEEDS ADJUSTMENT|NEEDS RE-VERIFICATION) — .*$/, '')
    .replace(/ \(you last aligned with v\d+\)/g, '')

/** The brief's task section, each line without its status: a line that differs says what a change did to the task. */
const taskLines = (brief: string): string[] => {
  const from = brief.indexOf('\n## Your tasks\n')
  const to = brief.indexOf('\n## ', from + 1)
  return brief
    .slice(from, to < 0 ? undefined : to)
    .split('\n')
    .slice(2)
    .map((l) => l.replace(/^(- T-\d+ \(id [^)]*\)) \[\w+\]/, '$1'))
}

export class ConcordArm extends ArmBase implements Arm {
  readonly name = 'concord' as const
  private readonly root = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'concord-eval-'))
  private readonly bus = new EventBus()
  private harness!: Harness
  private autoTurns!: AutoTurns
  private closed = false
  private wsId = ''
  private memberIds: string[] = []
  private decisionIds: string[] = []
  private decisionVersions: number[] = []
  private taskIds: string[] = []
  private readonly taskIndex = new Map<string, number>()
  private readonly statuses: Status[]
  /** Automatic turns queued for each member (steps the runtime would run), oldest first. */
  private readonly inbox: StepRow[][]
  /** What each member's brief showed last: decision line per decision, and the versions (its report's basis). */
  private readonly lastLines: Map<number, string>[]
  private readonly lastVersions: Map<string, number>[]
  /** The task lines of each member's last brief (statuses aside). */
  private readonly lastTasks: Set<string>[]
  /** `decision row:version` → the scenario change that made that version. */
  private readonly changeOf = new Map<string, number>()
  private readonly reportIds = new Map<number, string>()
  private readonly reportByKey = new Map<string, ReportRecord>()

  constructor(
    scenario: Scenario,
    world: World,
    private readonly sabotage?: Sabotage,
  ) {
    super(scenario, world)
    this.statuses = scenario.tasks.map(() => 'todo')
    this.inbox = scenario.members.map(() => [])
    this.lastLines = scenario.members.map(() => new Map<number, string>())
    this.lastVersions = scenario.members.map(() => new Map<string, number>())
    this.lastTasks = scenario.members.map(() => new Set<string>())
  }

  private invoke<M extends MethodName>(method: M, params: Params<M>): Promise<Result<M>> {
    return dispatch(this.handlers, method, params) as Promise<Result<M>>
  }
  private handlers!: Handlers

  private ctx() {
    return this.harness.ctx(this.wsId)
  }

  async setup(): Promise<void> {
    const dataDir = join(this.root, 'data')
    const repoDir = join(this.root, 'repo')
    mkdirSync(repoDir)
    ensureDataDir(dataDir)
    this.harness = new Harness({
      dataDir,
      bus: this.bus,
      secrets: new SecretStore(join(dataDir, 'secrets.json'), plainCipher),
    })
    // Only the harness methods are called; the runtime's (sessions.*) are not part of the experiment.
    const h = this.harness
    this.handlers = {
      ...(harnessHandlers({ harness: h }) as unknown as Handlers),
      // The workspace folder is not a git repository, where the product resolves a full SHA to itself after asking
      // git whether the folder is one (a process per call: 80% of this arm's time). The same harness functions
      // are called, with the SHA as given; nothing else of these two handlers applies to a non-git folder.
      'tasks.setStatus': (p) => setTaskStatus(h.ctxOf('task', p.taskId, 'taskId'), p),
      'reports.submit': (p) => submitReport(h.ctxOf('task', p.taskId, 'taskId'), p),
    }
    this.autoTurns = new AutoTurns({
      harness: this.harness,
      call: (m, p) => this.invoke(m, p),
      queued: (memberId, step) => {
        // A trigger that joins a waiting turn hands the same step over again.
        const box = this.inbox[this.memberIds.indexOf(memberId)]
        if (box && !box.some((s) => s.id === step.id)) box.push(step)
      },
      busy: () => false,
      closing: () => this.closed,
    })
    this.bus.on((e) => {
      this.autoTurns.onEvent(e)
      if (e.event === 'task.changed') {
        const i = this.taskIndex.get(e.payload.task.id)
        if (i !== undefined) this.statuses[i] = e.payload.task.status
      }
    })
    const s = this.scenario
    const ws = await this.invoke('workspaces.open', { repoPath: repoDir, isolation: 'shared' })
    this.wsId = ws.id
    // A delivery's first checks are how work is handed out: the scenario's tester and reviewer check a delivery on
    // their own in every arm (eval/member.ts), so Concord's automatic ask (autoChecks) would count in this arm only.
    await this.invoke('workspaces.update', { workspaceId: ws.id, autoChecks: false })
    for (const m of s.members) {
      // A model on record makes the member one Concord starts turns for; no call ever reaches it (no runtime here).
      const member = await this.invoke('members.create', {
        workspaceId: ws.id,
        name: m.name,
        role: m.role,
        authority: m.authority,
        provider: { kind: 'openai-compatible', model: 'scripted-member', baseURL: 'http://127.0.0.1:9/v1' },
      })
      this.memberIds.push(member.id)
    }
    for (const d of s.decisions) {
      const dec = await this.invoke('decisions.create', {
        workspaceId: ws.id,
        title: d.title,
        statement: d.statement,
        rationale: d.rationale,
      })
      this.decisionIds.push(dec.id)
      this.decisionVersions.push(dec.version)
    }
    for (const t of s.tasks) {
      const task = await this.invoke('tasks.create', {
        workspaceId: ws.id,
        title: t.title,
        assigneeId: at(this.memberIds, t.assignee),
        decisionIds: t.decisions.map((d) => at(this.decisionIds, d)),
        blockedBy: t.blockedBy.map((b) => at(this.taskIds, b)),
        requiredReports: ['test', 'review'],
      })
      this.taskIndex.set(task.id, this.taskIds.length)
      this.taskIds.push(task.id)
    }
    // What every member knew when the work was handed out is not coordination: only later changes count.
    s.members.forEach((_, m) =>
      s.decisions.forEach((d, i) =>
        at(this.lastLines, m).set(i, `- D-${i + 1} v1 [accepted] "${d.title}": ${d.statement}`),
      ),
    )
    await settle()
    const ctx = this.ctx()
    this.memberIds.forEach((id, m) => {
      const row = ctx.store.members.get(parseId(id, 'member', 'memberId').n)!
      this.lastTasks[m] = new Set(taskLines(buildBrief(ctx, row, []).text))
    })
  }

  private recordVersion(d: number, version: number, change: number): void {
    this.decisionVersions[d] = version
    this.changeOf.set(`${parseId(at(this.decisionIds, d), 'decision', 'decisionId').n}:${version}`, change)
  }

  async applyChange(index: number, c: ScenarioChange): Promise<void> {
    const decisionId = at(this.decisionIds, c.decision)
    const expectedVersion = at(this.decisionVersions, c.decision)
    const statement = c.statement ?? at(this.world.versions, c.decision)[0]
    const reason = `scenario change ${index + 1}`
    let version: number
    if (this.sabotage === 'concord-skip-flags') {
      // Broken propagation: every change recorded as editorial, so nothing is flagged, staled or noticed.
      version = (
        await this.invoke('decisions.update', { decisionId, expectedVersion, statement, editorial: true, reason })
      ).decision.version
    } else if (c.kind === 'revert') {
      version = (await this.invoke('decisions.revert', { decisionId, toVersion: 1, expectedVersion, reason })).decision
        .version
    } else if (c.kind === 'proposal') {
      const p = await this.invoke('proposals.create', {
        decisionId,
        statement,
        reason,
        actorId: at(this.memberIds, c.proposer!),
      })
      version = (await this.invoke('proposals.accept', { proposalId: p.id })).decision.version
    } else {
      version = (
        await this.invoke('decisions.update', {
          decisionId,
          expectedVersion,
          statement,
          editorial: c.kind === 'editorial',
          reason,
        })
      ).decision.version
    }
    this.recordVersion(c.decision, version, index)
    await settle()
    // The edit's event carries a compact impact (first items): the board is read again for revoked acceptances.
    for (const t of await this.invoke('tasks.list', { workspaceId: this.wsId })) {
      const i = this.taskIndex.get(t.id)
      if (i !== undefined) this.statuses[i] = t.status
    }
  }

  async accept(task: number): Promise<boolean> {
    try {
      await this.invoke('tasks.accept', { taskId: at(this.taskIds, task) })
    } catch (err) {
      const code = (err as { code?: string }).code
      if (code !== 'evidence_stale' && code !== 'evidence_missing') throw err
      if (this.sabotage !== 'concord-skip-gate') return false
      // Broken gate: the refused task is written accepted anyway.
      const ctx = this.ctx()
      const row = ctx.store.tasks.get(parseId(at(this.taskIds, task), 'task', 'taskId').n)!
      ctx.store.tasks.update({ ...row, status: 'accepted', flag: null, updated_at: now() })
      this.statuses[task] = 'accepted'
    }
    await settle()
    return true
  }

  async undoAcceptance(task: number): Promise<void> {
    await this.invoke('tasks.setStatus', { taskId: at(this.taskIds, task), status: 'in_progress' })
    await settle()
  }

  wakes(member: number): boolean {
    return at(this.inbox, member).length > 0 || at(this.relays, member).length > 0
  }

  async context(member: number): Promise<Seen> {
    await settle()
    const ctx = this.ctx()
    const row = ctx.store.members.get(parseId(at(this.memberIds, member), 'member', 'memberId').n)!
    // As the agent loop does before each model call: the pending notices go into the brief and are delivered.
    const pending = ctx.store.log.notices(row.id, true)
    const brief = buildBrief(ctx, row, pending)
    if (pending.length) ctx.store.log.markDelivered(row.id, pending.at(-1)!.id, now())
    // The brief is the member's whole context (only what a change altered in it counts as coordination).
    const seen: Seen = { readings: new Map(), asks: [], text: [brief.text] }
    // A notice counts as the brief shows it (without the statement the brief's decision lines already carry).
    pending.forEach((n, i) => this.count('notice', brief.noticeTexts[i] ?? n.text))
    for (const n of pending) {
      const change = this.changeOf.get(`${n.decision_id}:${n.decision_version}`)
      if (change !== undefined) this.reach(member, change)
    }
    const last = at(this.lastLines, member)
    for (const line of brief.text.split('\n')) {
      const m = DECISION_LINE.exec(line)
      if (!m) continue
      const d = Number(m[1]) - 1
      seen.readings.set(d, m[2]!)
      if (last.get(d) !== line) this.count('brief', line)
      last.set(d, line)
    }
    this.lastVersions[member] = brief.decisionVersions
    // Task lines a change altered (a flag, "you last aligned with v1", a revoked acceptance showing the task again)
    // count too; a status the member or the human set is the board, free in every arm.
    // A line that only lost its markers (the member acknowledged, the flag cleared) is the member's own doing: free.
    const tasksNow = taskLines(brief.text)
    const before = new Set([...at(this.lastTasks, member)].map(unmarked))
    for (const line of tasksNow)
      if (!at(this.lastTasks, member).has(line) && !(unmarked(line) === line && before.has(line)))
        this.count('brief', line)
    this.lastTasks[member] = new Set(tasksNow)
    // The automatic turns Concord queued for the member: their message is what starts the turn.
    for (const step of at(this.inbox, member).splice(0)) {
      const text = ctx.store.steps.get(step.id)?.text ?? step.text ?? ''
      this.count('turn', text)
      seen.text.push(text)
      ctx.store.steps.setStatus(step.id, 'done')
      seen.asks.push(...(await this.asksIn(member, text, brief.text)))
    }
    this.takeRelays(member, seen)
    return seen
  }

  /** The asks an automatic turn's message carries (the trigger lines of runtime/auto-turns.ts). */
  private async asksIn(member: number, text: string, brief: string): Promise<Ask[]> {
    const asks: Ask[] = []
    for (const m of text.matchAll(/T-(\d+) is in progress and needs adjustment/g))
      asks.push({ kind: 'adjust', task: Number(m[1]) - 1, staleDecisions: null })
    for (const m of text.matchAll(/T-(\d+) was delivered on \S+ and needs re-verification/g))
      asks.push({ kind: 'recheck-delivery', task: Number(m[1]) - 1, staleDecisions: null })
    for (const m of text.matchAll(/Your (R-\d+) \(\w+\) no longer supports T-(\d+)/g)) {
      asks.push({
        kind: 'reverify',
        task: Number(m[2]) - 1,
        staleDecisions: this.staleDecisions(this.reportByKey.get(m[1]!)),
      })
    }
    if (text.includes(JOIN_MORE)) {
      // More triggers than the message spells out: the member goes through its brief's flagged tasks and its
      // reports the harness shows stale, as the message says.
      for (const m of brief.matchAll(
        /^- T-(\d+) \(id [^)]*\) \[(\w+)\] .* — (NEEDS ADJUSTMENT|NEEDS RE-VERIFICATION)/gm,
      )) {
        const task = Number(m[1]) - 1
        if (!asks.some((a) => a.task === task))
          asks.push({ kind: m[3] === 'NEEDS ADJUSTMENT' ? 'adjust' : 'recheck-delivery', task, staleDecisions: null })
      }
      const stale = await this.invoke('reports.page', {
        workspaceId: this.wsId,
        authorId: at(this.memberIds, member),
        stale: true,
        limit: 500,
      })
      for (const r of stale.items) {
        const rec = this.reportByKey.get(r.key)
        if (
          rec &&
          at(this.statuses, rec.task) === 'delivered' &&
          !asks.some((a) => a.kind === 'reverify' && a.task === rec.task)
        )
          asks.push({ kind: 'reverify', task: rec.task, staleDecisions: this.staleDecisions(rec) })
      }
    }
    return asks
  }

  /** The decisions of the report's stale claims, as the harness shows them (reports.get). */
  private staleDecisions(r: ReportRecord | undefined): number[] | null {
    const id = r && this.reportIds.get(r.n)
    if (!id) return null
    return this.harnessReport(id)
      .claims.filter((c) => c.state === 'stale')
      .flatMap((c) => c.decisionIds.map((d) => this.decisionIds.indexOf(d)))
  }

  private harnessReport(id: string) {
    return this.handlers['reports.get']({ reportId: id }) as Result<'reports.get'>
  }

  status(task: number): Status {
    return at(this.statuses, task)
  }

  private async setStatus(member: number, task: number, status: Status, sha?: string): Promise<void> {
    await this.invoke('tasks.setStatus', {
      taskId: at(this.taskIds, task),
      status,
      artifact: sha ? { commit: sha } : undefined,
      actorId: at(this.memberIds, member),
    })
    await settle()
  }

  start(member: number, task: number): Promise<void> {
    return this.setStatus(member, task, 'in_progress')
  }

  deliver(member: number, task: number, sha: string): Promise<void> {
    return this.setStatus(member, task, 'delivered', sha)
  }

  reopen(member: number, task: number): Promise<void> {
    return this.setStatus(member, task, 'in_progress')
  }

  async acknowledge(member: number, task: number): Promise<void> {
    await this.invoke('tasks.acknowledge', { taskId: at(this.taskIds, task), actorId: at(this.memberIds, member) })
    await settle()
  }

  async report(member: number, r: ReportRecord): Promise<void> {
    const versions = at(this.lastVersions, member)
    const decisions = at(this.scenario.tasks, r.task).decisions
    const out = await this.invoke('reports.submit', {
      taskId: at(this.taskIds, r.task),
      authorId: at(this.memberIds, member),
      kind: r.kind,
      verdict: r.verdict,
      artifact: { commit: r.sha },
      basis: decisions.map((d) => ({
        decisionId: at(this.decisionIds, d),
        version: versions.get(at(this.decisionIds, d)) ?? at(this.decisionVersions, d),
      })),
      claims: decisions.map((d) => ({
        text: `T-${r.task + 1} does what D-${d + 1} requires`,
        decisionIds: [at(this.decisionIds, d)],
      })),
    })
    this.reportIds.set(r.n, out.id)
    this.reportByKey.set(out.key, r)
    await settle()
  }

  async close(): Promise<void> {
    this.closed = true
    await settle()
    this.harness.close()
    rmSync(this.root, { recursive: true, force: true })
  }
}
