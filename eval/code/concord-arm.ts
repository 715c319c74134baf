/**
 * The code scenario in Concord: the product's harness in-process on a real SQLite file and a real git repository,
 * the workspace in worktree isolation (each started task gets its own tree and branch) and merges `verified` (the
 * default). The human's Merge is tasks.merge; where the base moved under the task, the answer carries its mergeQueue
 * and the real queue (harness/tasks/merge-queue.ts) brings main into its branch, delivers it again and asks for the
 * reports it misses through the real AutoTurns. The scripted tester and reviewer take those automatic turns and
 * report on the new head; the queue then accepts the task again by the queued Merge and lands it. No human action
 * beyond the one Merge click. Only the model loop is replaced: a turn is a scripted member's step.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { MethodName, Params, Result } from '../../shared/contract'
import type { Task } from '../../shared/schemas'
import { dispatch } from '../../electron/main/api/dispatch'
import { harnessHandlers, type Handlers } from '../../electron/main/api/handlers'
import { ensureDataDir } from '../../electron/main/platform/data-dir'
import { EventBus } from '../../electron/main/platform/events/event-bus'
import { Harness } from '../../electron/main/harness/harness'
import { parseId } from '../../electron/main/harness/ids'
import { scheduleMergeQueue } from '../../electron/main/harness/tasks/merge-queue'
import { scheduleBaseCheck } from '../../electron/main/harness/workspace/base-moves'
import { AutoTurns } from '../../electron/main/runtime/auto-turns'
import { plainCipher, SecretStore } from '../../electron/main/platform/secrets/secret-store'
import type { StepRow } from '../../electron/main/store/steps-repo'
import { tokens } from '../tokens'
import { at } from '../at'
import type { CodeArm } from './arm'
import type { CodeScenario } from './scenarios'
import { commitChange, initRepo, treeOf } from './repo'

const settle = async () => {
  for (let i = 0; i < 2; i++) await new Promise((r) => setImmediate(r))
}

/** Rounds of queue pass + members' turns before a merge that never lands counts as unfinished. */
const MAX_ROUNDS = 20

export class ConcordCodeArm implements CodeArm {
  private readonly root = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'concord-eval-code-'))
  readonly repo = join(this.root, 'repo')
  private readonly dataDir = join(this.root, 'data')
  private readonly bus = new EventBus()
  private harness!: Harness
  private handlers!: Handlers
  private autoTurns!: AutoTurns
  private closed = false
  private wsId = ''
  private implementerIds: string[] = []
  private testerId = ''
  private reviewerId = ''
  private taskIds: string[] = []
  /** Member id → the automatic turns Concord queued for it, oldest first. */
  private readonly inbox = new Map<string, StepRow[]>()
  /** Turns taken before the first merge are the first checks, not rework. */
  private merging = false
  reworkTurns = 0
  readonly baseMoveInterventions = 0
  tokens = 0

  constructor(
    private readonly s: CodeScenario,
    private readonly opts: { merges?: 'verified' | 'as-accepted' } = {},
  ) {}

  private invoke<M extends MethodName>(method: M, params: Params<M>): Promise<Result<M>> {
    return dispatch(this.handlers, method, params) as Promise<Result<M>>
  }

  async setup(): Promise<void> {
    initRepo(this.repo, this.s.files)
    ensureDataDir(this.dataDir)
    const h = new Harness({
      dataDir: this.dataDir,
      bus: this.bus,
      secrets: new SecretStore(join(this.dataDir, 'secrets.json'), plainCipher),
    })
    this.harness = h
    this.autoTurns = new AutoTurns({
      harness: h,
      call: (m, p) => this.invoke(m, p),
      queued: (memberId, step) => {
        const box = this.inbox.get(memberId) ?? []
        if (!box.some((st) => st.id === step.id)) box.push(step)
        this.inbox.set(memberId, box)
      },
      busy: () => false,
      closing: () => this.closed,
    })
    this.handlers = harnessHandlers({
      harness: h,
      queueTurn: (ws, member, task, trigger, lines) => this.autoTurns.queueFor(ws, member, task, trigger, lines),
    }) as unknown as Handlers
    this.bus.on((e) => this.autoTurns.onEvent(e))
    const ws = await this.invoke('workspaces.open', { repoPath: this.repo, isolation: 'worktree' })
    this.wsId = ws.id
    if (this.opts.merges) await this.invoke('workspaces.update', { workspaceId: ws.id, merges: this.opts.merges })
    const member = (name: string, role: string) =>
      this.invoke('members.create', {
        workspaceId: ws.id,
        name,
        role,
        authority: 'proposer',
        // A model on record makes the member one Concord starts turns for; no call ever reaches it.
        provider: { kind: 'openai-compatible', model: 'scripted-member', baseURL: 'http://127.0.0.1:9/v1' },
      })
    for (let i = 0; i < this.s.implementers; i++)
      this.implementerIds.push((await member(`Impl${i + 1}`, 'implementer')).id)
    this.testerId = (await member('Tess', 'tester')).id
    this.reviewerId = (await member('Rev', 'reviewer')).id
    for (const t of this.s.tasks) {
      const task = await this.invoke('tasks.create', {
        workspaceId: ws.id,
        title: t.title,
        assigneeId: at(this.implementerIds, t.implementer),
        requiredReports: ['test', 'review'],
      })
      this.taskIds.push(task.id)
    }
  }

  private get(task: number): Promise<Task> {
    return this.invoke('tasks.get', { taskId: at(this.taskIds, task) })
  }

  async deliver(task: number): Promise<void> {
    const t = at(this.s.tasks, task)
    const id = at(this.taskIds, task)
    const actorId = at(this.implementerIds, t.implementer)
    const started = await this.invoke('tasks.setStatus', { taskId: id, status: 'in_progress', actorId })
    commitChange(join(this.dataDir, 'worktrees', this.wsId, started.key), task, t.title, t.files)
    await this.invoke('tasks.setStatus', { taskId: id, status: 'delivered', actorId })
    await settle()
  }

  /** A report of the kind on the task's delivered head, unless one is there already. */
  private async report(task: number, kind: 'test' | 'review'): Promise<boolean> {
    const t = await this.get(task)
    const head = t.artifact?.commit
    if (t.status !== 'delivered' || !head) return false
    const reports = await this.invoke('reports.list', { taskId: t.id })
    if (reports.some((r) => r.kind === kind && r.artifact.commit === head)) return false
    await this.invoke('reports.submit', {
      taskId: t.id,
      authorId: kind === 'test' ? this.testerId : this.reviewerId,
      kind,
      // The scripted tester and reviewer: the change does what its task asks, so both pass.
      verdict: 'pass',
      artifact: { commit: head },
      summary: `${kind} passed on ${head.slice(0, 7)}`,
      claims: [],
    })
    await settle()
    return true
  }

  async check(): Promise<void> {
    for (let task = 0; task < this.s.tasks.length; task++)
      for (const kind of ['test', 'review'] as const) await this.report(task, kind)
    await scheduleBaseCheck(this.harness, this.wsId)
    // The turns Concord queued meanwhile (a delivery's) are the first checks above, done: nothing else to take.
    await this.takeTurns()
  }

  async accept(task: number): Promise<void> {
    await this.invoke('tasks.accept', { taskId: at(this.taskIds, task) })
    await settle()
  }

  /**
   * The members' automatic turns: each takes the turns queued for it, one turn each, and re-checks what they ask
   * for (the tester and the reviewer report on the task's new head; an implementer reads that its branch was
   * brought up to date, with nothing to resolve: the merge was clean). Returns how many turns were taken.
   */
  private async takeTurns(): Promise<number> {
    let turns = 0
    const ctx = this.harness.ctx(this.wsId)
    for (const [memberId, box] of this.inbox) {
      for (const step of box.splice(0)) {
        turns++
        const text = ctx.store.steps.get(step.id)?.text ?? step.text
        ctx.store.steps.setStatus(step.id, 'done')
        if (!this.merging) continue
        this.reworkTurns++
        this.tokens += tokens(text)
        const kind = memberId === this.testerId ? 'test' : memberId === this.reviewerId ? 'review' : null
        if (!kind) continue
        for (let task = 0; task < this.s.tasks.length; task++)
          if (text.includes(`T-${task + 1} `) || step.task_id === parseId(at(this.taskIds, task), 'task', 'taskId').n)
            await this.report(task, kind)
      }
    }
    return turns
  }

  async merge(task: number): Promise<boolean> {
    this.merging = true
    const answer = await this.invoke('tasks.merge', { taskId: at(this.taskIds, task) })
    if (answer.merged) return true
    // Queued: the queue works, the members take the turns it asks for, until it lands.
    for (let round = 0; round < MAX_ROUNDS; round++) {
      await settle()
      await scheduleMergeQueue(this.harness, this.wsId)
      if ((await this.get(task)).merged) return true
      await settle()
      if (!(await this.takeTurns()) && !this.harness.ctx(this.wsId).store.mergeQueue.list().length) break
    }
    return Boolean((await this.get(task)).merged)
  }

  mainTree(): string {
    return treeOf(this.repo, 'main')
  }

  async testedCommits(): Promise<string[]> {
    const out: string[] = []
    for (const id of this.taskIds)
      for (const r of await this.invoke('reports.list', { taskId: id }))
        if (r.kind === 'test' && r.verdict === 'pass' && r.artifact.commit) out.push(r.artifact.commit)
    return out
  }

  async close(): Promise<void> {
    this.closed = true
    await settle()
    this.harness.close()
    rmSync(this.root, { recursive: true, force: true })
  }
}
