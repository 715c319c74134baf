/**
 * The runtime: one host per member, created on first use; recovery of turns a stopped process left
 * open; message and delegation between members; token usage for the metrics.
 */
import type { MethodName, Params, ParsedParams, Result } from '../../../shared/contract'
import { ApiError } from '../../../shared/errors'
import { makeKey } from '../../../shared/keys'
import type { NoticeSummary, SessionInfo, SessionPage } from '../../../shared/schemas'
import type { EventBus } from '../events/event-bus'
import type { Ctx } from '../harness/context'
import { memberRowOf } from '../harness/context'
import type { Harness } from '../harness/harness'
import { makeId, now, parseId } from '../harness/ids'
import { secretRef } from '../harness/members'
import type { TokenTotals } from '../harness/metrics'
import type { StepRow } from '../store/steps-repo'
import { interruptForNotice, runTurn, stricterApproval, turnTask } from './agent-loop'
import type { ApprovalPolicy } from '../harness/approval-policy'
import { addRule, rulesFor } from '../harness/approval-rules'
import { sandboxStatus } from '../platform/sandbox'
import { refreshHead, treeForTurn, type TurnTree } from '../harness/task-branches'
import { changedFiles, snapshotTree, treeHead } from '../repo/git-repo'
import { toTask } from '../harness/mappers'
import { MemberHost } from './member-host'
import { runAcpTurn } from './acp/acp-turn'
import { AgentPool } from './acp/agent-process'
import { createProvider, warmProvider, type CreateProviderOptions, type ProviderKind } from './providers'
import { toStep } from '../harness/steps'
import { busSink, changeStep, quiet, writeStep, type StepSink } from './step-writer'
import type { TurnOutcome } from './member-host'
import { harnessTools, toolAllowed, type HarnessToolContext } from './tools/harness-tools'
import { repoTools } from './tools/repo-tools'
import { recoverLeftovers } from './recovery'
import { ToolError } from '../platform/tool-error'
import type { SandboxPolicy } from '../platform/sandbox-policy'
import type { ToolDefinition } from './tools/types'
import { workspaceSettings } from '../harness/workspace-settings'
import { requireActiveMember } from '../harness/archive'
import { requeueFailedTurn } from './retry'
import { join } from 'node:path'
import { AutoTurns } from './auto-turns'
import { bindTurnTask, unboundTreeText } from './turn-task'

export interface RuntimeOptions {
  harness: Harness
  bus: EventBus
  call<M extends MethodName>(method: M, params: Params<M>): Promise<Result<M>>
  provider?: CreateProviderOptions
  /** Deal with what a previous process left (see CoreOptions.transient); default true. */
  recover?: boolean
  /** See CoreOptions.taskStartTurns. */
  taskStartTurns?: boolean
}

/** After start, when the first screen is up: the provider SDKs members use are loaded then (see warmProvider). */
const WARM_AFTER_MS = 1500

export class Runtime {
  private readonly hosts = new Map<string, MemberHost>()
  /** External agents over ACP: one process per member, kept across turns. */
  private readonly agents = new AgentPool()
  private readonly recovered = new Set<string>()
  /** member id → the member it is waiting on through `delegate` (to refuse cycles). */
  private readonly waitingOn = new Map<string, string>()
  private readonly tools: ToolDefinition<unknown, HarnessToolContext>[] = [
    ...repoTools(),
    ...harnessTools(),
  ] as ToolDefinition<unknown, HarnessToolContext>[]
  private closed = false
  /** Turns Concord starts itself for flagged members and stale evidence (auto-turns.ts). */
  private readonly autoTurns: AutoTurns

  constructor(private readonly o: RuntimeOptions) {
    this.autoTurns = new AutoTurns({
      harness: o.harness,
      call: (method, params) => o.call(method, params),
      queued: (memberId, step) => this.queuedByConcord(memberId, step),
      busy: (memberId) => Boolean(this.hosts.get(memberId)?.abort),
      closing: () => this.closed,
    })
    o.bus.on((e) => this.autoTurns.onEvent(e))
    // A fixed provider (or any member edit) lifts an error state and resumes the inbox.
    o.bus.on((e) => {
      if (e.event === 'member.changed') this.hosts.get(e.payload.member.id)?.resume()
      if (e.event === 'notice.created') this.noticeMidTurn(e.payload.notice)
    })
    // Leftovers of a crash are dealt with at start, not when someone next opens the workspace.
    const kinds = new Set<ProviderKind>()
    for (const w of o.recover === false ? [] : o.harness.listWorkspaces()) {
      try {
        for (const m of this.ctx(w.id).store.members.list()) if (m.provider_kind && !m.agent) kinds.add(m.provider_kind)
        // Once the core is up: the pending notices this process has not acted on (see AutoTurns.resume), and the
        // messages queued when Concord stopped, which run now rather than when someone next opens that chat.
        setImmediate(() => this.resumeInboxes(w.id))
      } catch (err) {
        // An unreadable workspace must not keep the others from starting; its calls report the fault.
        console.error(`could not recover workspace ${w.name} (${w.id}):`, err instanceof Error ? err.message : err)
      }
    }
    // The SDKs its members use load once the first screen is up, not at start and not in the first turn.
    setTimeout(() => kinds.forEach(warmProvider), WARM_AFTER_MS).unref()
    o.bus.on((e) => {
      const provider = e.event === 'member.changed' ? e.payload.member.provider : null
      if (provider && provider.kind !== 'acp') warmProvider(provider.kind)
    })
  }

  private resumeInboxes(wsId: string): void {
    if (this.closed) return
    this.autoTurns.resume(wsId)
    try {
      const ctx = this.o.harness.ctx(wsId)
      for (const m of ctx.store.members.list())
        if (ctx.store.steps.queuedCount(m.id) > 0) this.host(makeId(wsId, 'member', m.id))
    } catch (err) {
      console.error(
        `could not resume the queued messages of workspace ${wsId}:`,
        err instanceof Error ? err.message : err,
      )
    }
  }

  private ctx(wsId: string): Ctx {
    const ctx = this.o.harness.ctx(wsId)
    if (this.o.recover !== false && !this.recovered.has(wsId)) {
      this.recovered.add(wsId)
      recoverLeftovers(ctx)
    }
    return ctx
  }

  host(memberId: string, field = 'memberId'): MemberHost {
    const existing = this.hosts.get(memberId)
    if (existing) return existing
    const { workspaceId } = parseId(memberId, 'member', field)
    const ctx = this.ctx(workspaceId)
    const n = memberRowOf(ctx, memberId, field)
    const host = new MemberHost(workspaceId, n, {
      ctx: () => this.o.harness.ctx(workspaceId),
      onState: (h) => this.o.bus.emit('session.state', { workspaceId, session: h.info() }),
      runTurn: (h, start) => this.turn(h, start),
    })
    this.hosts.set(memberId, host)
    host.kick()
    return host
  }

  private async turn(host: MemberHost, start: StepRow) {
    const ctx = this.o.harness.ctx(host.wsId)
    const member = ctx.store.members.get(host.memberRowId)!
    if (!member.agent && (!member.provider_kind || !member.provider_model)) {
      return this.failTurn(ctx, start, `${member.name} has no model provider set: choose one in the member's settings.`)
    }
    const provider = member.agent
      ? null
      : createProvider(
          {
            kind: member.provider_kind!,
            model: member.provider_model!,
            baseURL: member.provider_base_url ?? undefined,
            apiKey: this.o.harness.secrets.get(secretRef(host.memberId)),
          },
          this.o.provider,
        )
    // The tree this turn works in: its task's worktree, a read-only checkout to verify, or the base branch.
    let tree: TurnTree
    try {
      // A message that names exactly one of the member's tasks in progress works on it (turn-task.ts).
      bindTurnTask(ctx, member, start)
      tree = await treeForTurn(this.o.harness, ctx, member.id, turnTask(ctx, member, start))
      const unbound =
        tree.readOnly && tree.taskRowId === null && start.task_id === null
          ? unboundTreeText(ctx, member, tree.description)
          : null
      if (unbound) tree = { ...tree, readOnly: unbound }
    } catch (err) {
      return this.failTurn(
        ctx,
        start,
        `Could not prepare the repository for this turn: ${err instanceof Error ? err.message : String(err)}`,
      )
    }
    const workspaceRoot = tree.root
    const before = tree.readOnly ? null : await this.snapshot(tree, host)
    // A message from a turn under `ask` keeps that policy here: approval cannot be laundered through a member.
    const approval = stricterApproval(member.approval, start.approval)
    const emitStep = this.sink(host.wsId)
    if (!provider) {
      const outcome = await runAcpTurn(
        {
          ctx,
          member,
          workspaceRoot,
          approval,
          emitStep,
          agents: this.agents,
          mcp: {
            harness: this.o.harness,
            workspaceId: host.wsId,
            memberId: host.memberId,
            call: (method, params) => this.o.call(method, params),
            approve: (name, argumentsText) => this.approveExternal(host.memberId, name, argumentsText),
            message: (to, text, approval) => void this.enqueue(to, text, host.memberRowId, null, approval),
          },
          dataDir: this.o.harness.registry.dataDir,
          sandbox: this.sandboxPolicy(ctx, host, tree),
          apiKey: this.o.harness.secrets.get(secretRef(host.memberId)),
          emitDelta: (stepId, text) =>
            this.o.bus.emit('session.delta', {
              workspaceId: host.wsId,
              memberId: host.memberId,
              stepId: makeId(host.wsId, 'step', stepId),
              text,
            }),
        },
        host,
        start,
      )
      await this.recordChanges(ctx, host, start, tree, before)
      // A notice that came mid-turn and did not go out with a tool result is the agent's next prompt.
      if ((outcome.status === 'done' || host.stopReason === 'notice') && ctx.store.log.pendingCount(member.id) > 0)
        this.promptWithNotices(host)
      return outcome
    }
    const outcome = await runTurn(
      {
        ctx,
        member,
        provider,
        workspaceRoot,
        treeDescription: tree.description,
        tools: this.tools.filter((t) => toolAllowed(t.name, member.authority)),
        approval,
        rules: rulesFor(ctx, member.id),
        sandbox: await sandboxStatus(),
        callSetting: {
          readOnlyTree: !!tree.readOnly,
          network: member.network === 1,
          hooks: workspaceSettings(ctx).gitHooks,
        },
        emitStep,
        emitDelta: (stepId, text) =>
          this.o.bus.emit('session.delta', {
            workspaceId: host.wsId,
            memberId: host.memberId,
            stepId: makeId(host.wsId, 'step', stepId),
            text,
          }),
        toolContext: (h, signal, endTurn, sourceStepId) =>
          this.toolContext(h, tree, member.authority, approval, signal, endTurn, sourceStepId),
      },
      host,
      start,
    )
    await this.recordChanges(ctx, host, start, tree, before)
    return outcome
  }

  private sink(wsId: string): StepSink {
    return busSink(this.o.bus, wsId)
  }

  /** A turn that could not start: its error step (the host shows the error state). */
  private failTurn(ctx: Ctx, start: StepRow, text: string): TurnOutcome {
    writeStep(ctx.store, this.sink(ctx.wsId), {
      member_id: start.member_id,
      turn_id: start.id,
      kind: 'error',
      status: 'error',
      text,
      is_error: 1,
      started_at: now(),
      ended_at: now(),
    })
    return { status: 'error', answer: '', error: text }
  }

  /**
   * An external agent hears of a notice at its next Concord tool call (concord mcp appends it), else once its turn
   * ends (see turn()); Concord's own loop at its next model call, after the running command. With "interrupt and
   * re-prompt", a task of its flagged needs_adjustment stops an external agent's turn now, and Concord's loop's
   * running step (its command, its model stream) for a task in progress: that turn goes on, re-planning with the notice.
   */
  private noticeMidTurn(notice: NoticeSummary): void {
    const host = this.hosts.get(notice.memberId)
    if (!host?.abort) return
    const ctx = this.o.harness.ctx(host.wsId)
    const member = ctx.store.members.get(host.memberRowId)
    if (!member?.agent_interrupt) return
    // The event names the first tasks only; the stored notice has them all.
    const all =
      notice.taskCount > notice.taskIds.length
        ? ctx.store.log.notice(parseId(notice.id, 'notice', 'noticeId').n)
        : undefined
    const taskRows = all
      ? (JSON.parse(all.task_ids) as number[])
      : notice.taskIds.map((id) => parseId(id, 'task', 'taskId').n)
    const flagged = taskRows.map((n) => ctx.store.tasks.get(n)).filter((t) => t?.flag === 'needs_adjustment')
    if (member.agent) {
      if (flagged.length) host.interrupt('notice')
    } else if (flagged.some((t) => t?.status === 'in_progress'))
      interruptForNotice(host, parseId(notice.decisionId, 'decision', 'decisionId').n)
  }

  /** Queues a turn that carries the member's pending notices (in the brief every prompt starts with). */
  private promptWithNotices(host: MemberHost): void {
    const { store } = this.o.harness.ctx(host.wsId)
    if (store.steps.queuedCount(host.memberRowId) > 0) return // the next queued message carries them anyway
    const text =
      'A decision your work depends on changed while you were working: read the notices in the brief above, adjust your work, then acknowledge the task.'
    writeStep(store, this.sink(host.wsId), {
      member_id: host.memberRowId,
      kind: 'notice',
      status: 'queued',
      text,
      started_at: now(),
    })
  }

  private snapshotDir(host: MemberHost): string {
    return join(this.o.harness.registry.dataDir, 'scratch', host.wsId, 'snapshots')
  }

  /** The tree as it is (committed or not) and the commit it is at. */
  private async snapshot(tree: TurnTree, host: MemberHost): Promise<{ tree: string; commit: string | null } | null> {
    const snap = await snapshotTree(tree.root, this.snapshotDir(host)).catch(() => null)
    return snap ? { tree: snap, commit: await treeHead(tree.root).catch(() => null) } : null
  }

  /** The files this turn changed in its tree, on the turn's last step (and the task's head as it is now). */
  private async recordChanges(
    ctx: Ctx,
    host: MemberHost,
    start: StepRow,
    tree: TurnTree,
    before: { tree: string; commit: string | null } | null,
  ): Promise<void> {
    if (tree.taskRowId !== null) await refreshHead(this.o.harness, ctx, tree.taskRowId).catch(() => undefined)
    if (!before) return
    const after = await this.snapshot(tree, host)
    if (!after) return
    const changes = await changedFiles(tree.root, before.tree, after.tree, this.snapshotDir(host)).catch(() => [])
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
    changeStep(ctx.store, this.sink(host.wsId), last.id, (s) => s.setChanges(last.id, stored))
    if (tree.taskRowId !== null) {
      // The task card's head moved with the turn's commits.
      const task = ctx.store.tasks.get(tree.taskRowId)
      if (task) this.o.bus.emit('task.changed', { workspaceId: host.wsId, task: toTask(host.wsId, ctx.store, task) })
    }
  }

  private toolContext(
    host: MemberHost,
    tree: TurnTree,
    authority: HarnessToolContext['authority'],
    approval: ApprovalPolicy,
    signal: AbortSignal,
    endTurn: (reason: string) => void,
    sourceStepId: string,
  ): HarnessToolContext {
    const ctx = this.o.harness.ctx(host.wsId)
    return {
      workspaceRoot: tree.root,
      signal,
      sandbox: this.sandboxPolicy(ctx, host, tree),
      onProcess: (info) => {
        const id = ctx.store.steps.addProcess(null, info.pid, info.pgid, info.startTime ?? null, now())
        return () => ctx.store.steps.removeProcess(id)
      },
      workspaceId: host.wsId,
      memberId: host.memberId,
      authority,
      call: (method, params) => this.o.call(method, params),
      brief: () => host.lastBrief ?? { text: '', decisionVersions: new Map() },
      stepText: (stepId) => {
        const m = /-s(\d+)$/.exec(stepId)
        const row = m ? ctx.store.steps.get(Number(m[1])) : undefined
        return row && row.member_id === host.memberRowId && stepId.startsWith(host.wsId) ? row.text : null
      },
      message: async (to, text) => {
        this.enqueue(to, text, host.memberRowId, null, approval)
      },
      delegate: (to, task, sig) => this.delegate(host, to, task, sig, approval),
      endTurn,
      sourceStepId,
    }
  }

  /** What a member's commands may touch: its own scratch home, the workspace's variables, network only if allowed. */
  private sandboxPolicy(ctx: Ctx, host: MemberHost, tree: TurnTree): SandboxPolicy {
    const member = ctx.store.members.get(host.memberRowId)
    const settings = workspaceSettings(ctx)
    const dataDir = this.o.harness.registry.dataDir
    return {
      dataDir,
      network: member?.network === 1,
      env: settings.commandEnv,
      scratchDir: join(dataDir, 'scratch', host.wsId, `m${host.memberRowId}`),
      gitHooks: settings.gitHooks,
      ...(tree.readOnly ? { readOnlyTree: tree.readOnly } : {}),
      ...(tree.readable ? { readable: tree.readable } : {}),
      // A shared workspace's tree is the user's checkout: its .git is read-only in the sandbox (sandbox.ts treeGitDir).
      ...(settings.isolation === 'shared' ? { userCheckout: true } : {}),
    }
  }

  private enqueue(
    memberId: string,
    text: string,
    fromMemberRowId: number | null,
    taskId: string | null | undefined,
    approval: ApprovalPolicy | null = null,
  ): { host: MemberHost; stepId: number } {
    const host = this.host(memberId)
    const ctx = this.o.harness.ctx(host.wsId)
    requireActiveMember(ctx, host.memberRowId)
    const task = taskId ? ctx.store.tasks.get(parseId(taskId, 'task', 'taskId').n) : undefined
    if (taskId && (!task || parseId(taskId, 'task', 'taskId').workspaceId !== host.wsId))
      throw new ApiError('not_found', `taskId: task ${taskId} does not exist`)
    const stepId = writeStep(ctx.store, this.sink(host.wsId), {
      member_id: host.memberRowId,
      kind: fromMemberRowId === null ? 'user' : 'message',
      status: 'queued',
      text,
      from_member_id: fromMemberRowId,
      task_id: task?.id ?? null,
      approval,
      started_at: now(),
    })
    host.resume()
    this.o.bus.emit('session.state', { workspaceId: host.wsId, session: host.info() })
    return { host, stepId }
  }

  /**
   * A task moved to in progress: its assignee gets a turn on it, a message from Concord naming the task with its
   * spec and acceptance criteria, unless the workspace says not to, the assignee moved it itself (it is working
   * on it already) or cannot work (no model, archived).
   */
  startTask(wsId: string, taskRowId: number, actorId: string | undefined): void {
    if (this.closed || this.o.taskStartTurns === false) return
    try {
      const ctx = this.o.harness.ctx(wsId)
      if (!workspaceSettings(ctx).startAgentOnTaskStart) return
      const task = ctx.store.tasks.get(taskRowId)
      if (!task || task.status !== 'in_progress' || task.assignee_id === null) return
      const member = ctx.store.members.get(task.assignee_id)
      if (!member || member.archived_at || !(member.agent || (member.provider_kind && member.provider_model))) return
      const memberId = makeId(wsId, 'member', member.id)
      if (actorId === memberId) return
      const parts = [`Start ${makeKey('task', task.id)}: ${task.title}`]
      if (task.spec.trim()) parts.push(task.spec.trim())
      if (task.acceptance_criteria.trim()) parts.push(`Acceptance criteria:\n${task.acceptance_criteria.trim()}`)
      writeStep(ctx.store, this.sink(wsId), {
        member_id: member.id,
        kind: 'message',
        status: 'queued',
        text: parts.join('\n\n'),
        from_member_id: null,
        task_id: task.id,
        started_at: now(),
      })
      this.wake(this.host(memberId))
    } catch (err) {
      // The move stands; the card still lets the human start the conversation.
      console.error(
        `could not start the turn for task ${taskRowId} of workspace ${wsId}:`,
        err instanceof Error ? err.message : err,
      )
    }
  }

  /** A turn Concord queued (auto-turns.ts): shown in the session now, picked up when the member is free. */
  private queuedByConcord(memberId: string, step: StepRow): void {
    if (this.closed) return
    const host = this.host(memberId)
    this.sink(host.wsId)(step)
    this.wake(host)
  }

  /** A turn queued for the member is picked up when it is free (an error state stays). */
  private wake(host: MemberHost): void {
    host.kick()
    this.o.bus.emit('session.state', { workspaceId: host.wsId, session: host.info() })
  }

  private async delegate(
    from: MemberHost,
    to: string,
    task: string,
    signal: AbortSignal,
    approval: ApprovalPolicy,
  ): Promise<string> {
    // Refuse a wait cycle: following who waits on whom from the target must not lead back here.
    for (let m: string | undefined = to; m; m = this.waitingOn.get(m)) {
      if (m === from.memberId)
        throw new ToolError('delegation_cycle', `${to} is (indirectly) waiting on you; delegating to it would deadlock`)
    }
    const { host, stepId } = this.enqueue(to, task, from.memberRowId, null, approval)
    this.waitingOn.set(from.memberId, to)
    try {
      const outcome = await new Promise<Awaited<ReturnType<MemberHost['whenTurnEnds']>>>((resolve, reject) => {
        const onAbort = () => reject(new ToolError('aborted', 'interrupted while waiting for the delegated member'))
        if (signal.aborted) return onAbort()
        signal.addEventListener('abort', onAbort, { once: true })
        void host.whenTurnEnds(stepId).then((o) => {
          signal.removeEventListener('abort', onAbort)
          resolve(o)
        })
      })
      const name = this.o.harness.ctx(host.wsId).store.members.get(host.memberRowId)?.name ?? to
      if (outcome.status === 'done') return `${name} answered:\n${outcome.answer}`
      return `${name}'s turn ended without an answer (${outcome.status}${outcome.error ? `: ${outcome.error}` : ''}).`
    } finally {
      this.waitingOn.delete(from.memberId)
    }
  }

  send(p: ParsedParams<'sessions.send'>): Result<'sessions.send'> {
    if (this.closed) throw new ApiError('busy', 'Concord is shutting down')
    const { host, stepId } = this.enqueue(p.memberId, p.text, null, p.taskId)
    return {
      stepId: makeId(host.wsId, 'step', stepId),
      queued: this.o.harness.ctx(host.wsId).store.steps.queuedCount(host.memberRowId),
    }
  }

  get(p: ParsedParams<'sessions.get'>): SessionPage {
    const host = this.host(p.memberId)
    const store = this.o.harness.ctx(host.wsId).store
    const limit = p.limit ?? 100
    const start = store.members.get(host.memberRowId)?.session_start ?? 0
    const rows = store.steps.page(host.memberRowId, p.before ?? Number.MAX_SAFE_INTEGER, limit + 1, start)
    const hasMore = rows.length > limit
    const steps = (hasMore ? rows.slice(1) : rows).map((r) => toStep(host.wsId, r))
    return { ...host.info(), steps, hasMore }
  }

  list(workspaceId: string): SessionInfo[] {
    const ctx = this.ctx(workspaceId)
    return ctx.store.members.list().map((m) => this.host(makeId(workspaceId, 'member', m.id)).info())
  }

  /**
   * Starts a new conversation for a member whose history keeps failing: earlier steps stay in the store
   * and the export, out of the view. Messages still queued move into the new conversation.
   */
  reset(memberId: string): SessionInfo {
    const host = this.host(memberId)
    if (host.abort)
      throw new ApiError(
        'invalid_transition',
        `${memberId} is working; interrupt it before starting a new conversation`,
      )
    const { store } = this.o.harness.ctx(host.wsId)
    const moved = store.transaction(() => {
      const queued: StepRow[] = []
      for (let q = store.steps.nextQueued(host.memberRowId); q; q = store.steps.nextQueued(host.memberRowId)) {
        queued.push(q)
        store.steps.remove(q.id)
      }
      store.members.setSessionStart(host.memberRowId, store.steps.lastId(host.memberRowId))
      // Re-inserted after the new start, in their order; the old ids are remembered for delegation waiters.
      return queued.map((q) => {
        const { id: _old, ...rest } = q
        return [q.id, writeStep(store, quiet, rest)] as const
      })
    })
    for (const [from, to] of moved) host.renameTurn(from, to)
    this.o.bus.emit('session.reset', { workspaceId: host.wsId, memberId })
    host.resume()
    return host.info()
  }

  /** The Restart of a member in error: a fresh agent process (the next turn loads the session where it can), the queue resumed. */
  restart(memberId: string): SessionInfo {
    const host = this.host(memberId)
    if (host.abort)
      throw new ApiError('invalid_transition', `${memberId} is working; interrupt it before restarting it`)
    this.agents.stop(memberId)
    host.resume()
    return host.info()
  }

  /** A `concord mcp` call that needs approval, from the agent of a turn Concord runs; null when none runs. */
  approveExternal(memberId: string, name: string, argumentsText: string): Promise<boolean | null> {
    const ask = this.hosts.get(memberId)?.approveExternal
    return ask ? ask(name, argumentsText) : Promise.resolve(null)
  }

  interrupt(memberId: string): SessionInfo {
    const host = this.host(memberId)
    host.interrupt()
    return host.info()
  }

  approve(p: ParsedParams<'sessions.approve'>): SessionInfo {
    const host = this.host(p.memberId)
    if (!host.approve(p.callId, p.allow, p.reason))
      throw new ApiError('not_found', `callId: no call ${p.callId} is waiting for approval`)
    return host.info()
  }

  /** Allow, and from now on allow the same kind of call without asking: a rule for the member or the team. */
  allowAlways(p: ParsedParams<'sessions.allowAlways'>): Result<'sessions.allowAlways'> {
    const host = this.host(p.memberId)
    const pending = host.approvals.get(p.callId)
    if (!pending) throw new ApiError('not_found', `callId: no call ${p.callId} is waiting for approval`)
    const suggestion = pending.suggestion ?? { tool: pending.name }
    const ctx = this.o.harness.ctx(host.wsId)
    const rule = addRule(
      ctx,
      p.scope === 'team' ? null : p.memberId,
      p.rule ?? { effect: 'allow', tool: suggestion.tool, commandPrefix: suggestion.commandPrefix ?? null },
    )
    host.approve(p.callId, true)
    return { session: host.info(), rule }
  }

  tokens(workspaceId: string): TokenTotals {
    const ctx = this.ctx(workspaceId)
    return {
      perMember: ctx.store.steps.usageByMember().map((u) => ({
        memberId: makeId(workspaceId, 'member', u.member_id),
        input: u.input,
        output: u.output,
        unreported: u.unreported,
      })),
      perTask: ctx.store.steps.usageByTask().map((u) => ({
        taskId: makeId(workspaceId, 'task', u.task_id),
        input: u.input,
        output: u.output,
        unreported: u.unreported,
      })),
    }
  }

  // ── Archive and retry (issue 13) ──────────────────────────────────────────────────────────────
  /** Work of a member only its host sees (a turn between two steps, an approval waiting), for members.archive. */
  activity(memberId: string): string | null {
    const host = this.hosts.get(memberId)
    if (host?.approvals.size) return 'an approval is waiting'
    return host?.abort ? 'a turn is running' : null
  }

  /** Runs a failed turn again from its message (see retry.ts); an agent gets a fresh process, as with Restart. */
  retry(memberId: string): SessionInfo {
    const host = this.host(memberId)
    if (host.abort)
      throw new ApiError('invalid_transition', `${memberId} is working; wait for its turn to end before retrying`)
    const { store } = this.o.harness.ctx(host.wsId)
    const { stepId, moved } = requeueFailedTurn(
      store,
      host.memberRowId,
      store.members.get(host.memberRowId)?.name ?? memberId,
    )
    for (const [from, to] of moved) host.renameTurn(from, to)
    this.agents.stop(memberId)
    // Moved messages have new ids: the view reloads; otherwise the one new step is enough.
    if (moved.length) this.o.bus.emit('session.reset', { workspaceId: host.wsId, memberId })
    else this.sink(host.wsId)(store.steps.get(stepId)!)
    host.resume()
    return host.info()
  }
  // ── end of archive and retry ─────────────────────────────────────────────────────────────────

  /** Interrupts every running turn (their steps are recorded as interrupted). */
  async close(): Promise<void> {
    this.closed = true
    for (const h of this.hosts.values()) h.stop()
    const deadline = Date.now() + 2000
    while ([...this.hosts.values()].some((h) => h.abort) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10))
    await this.agents.close()
  }
}
