/**
 * One turn of a member that is an external agent over ACP: the prompt starts with the brief (tasks, flags,
 * current decisions, pending notices), `session/update`s become steps (acp-updates.ts), permission requests become
 * approvals under the member's policy, Stop sends `session/cancel`, and Concord's own turn timeout applies. Concord's
 * harness tools reach the agent as the MCP server `concord`, served inside Concord on the member's gateway socket
 * (mcp/agent-gateway.ts, mcp/app-binding.ts). The agent process is started in agent-start.ts, its session opened in
 * acp-session.ts.
 */
import type { MethodName, Params, Result } from '../../../../shared/contract'
import type { ApprovalPolicy } from '../../harness/members/approval-policy'
import type { Harness } from '../../harness/harness'
import { keyRefOf } from '../../harness/members/members'
import { now } from '../../harness/ids'
import type { StepRow, MemberRow } from '../../harness/rows'
import { turnSteps, writeStep, type TurnSteps } from '../step-writer'
import { deliverBrief } from '../deliver-brief'
import type { MemberHost, TurnOutcome } from '../member-host'
import { openSession, planMode } from './acp-session'
import { AcpUpdates } from './acp-updates'
import type { AgentPool, AgentProcess } from './agent-process'
import { startAgent, type StartedAgent } from './agent-start'
import { turnRepoMcp, type TurnRepoMcp } from './repo-mcp-turn'
import { declinedByCapabilities, declinesConcordMcp, notConnectedAfterTurn } from './declined-tools'
import { agentPresets } from './presets'
import { promptBlocks, type PromptBlock } from './prompt-images'
import type { AcpTurnEnv } from './turn-env'
import type { TurnEngine } from '../turn-engine'
import { sandboxPolicy } from '../turn-tree'
import { bringBack, openRemoteTurn } from '../runner/remote-turn'
import { ToolError } from '../../platform/tool-error'
import type { SandboxPolicy } from '../../platform/sandbox-policy'

/** How long an agent restarted after a cancel may take to exit by itself (see AgentProcess.retire). */
const RETIRE_GRACE_MS = 5_000

/** What an external agent's turns need of the runtime: its process pool, and what its Concord tools reach. */
export interface AcpEngineDeps {
  harness: Harness
  agents: AgentPool
  call<M extends MethodName>(method: M, params: Params<M>): Promise<Result<M>>
  approve(memberId: string, name: string, argumentsText: string): Promise<boolean | null>
  message(from: MemberHost, to: string, text: string, approval: ApprovalPolicy | null): void
  /** Queues a turn that carries the member's pending notices. */
  promptWithNotices(host: MemberHost): void
}

/** The turn engine of a member that is an external agent over ACP. */
export function acpEngine(deps: AcpEngineDeps): TurnEngine {
  return {
    run: async ({ ctx, member, host, start, tree, approval, emitStep, emitDelta }) => {
      // A member on a runner: the turn's tree goes there first (runner/remote-turn.ts).
      const remote = await openRemoteTurn(deps.harness, ctx, member, host.memberId, tree)
      return runAcpTurn(
        {
          ctx,
          member,
          workspaceRoot: tree.root,
          approval,
          emitStep,
          emitDelta,
          agents: deps.agents,
          mcp: {
            harness: deps.harness,
            workspaceId: host.wsId,
            memberId: host.memberId,
            call: (method, params) => deps.call(method, params),
            approve: (name, argumentsText) => deps.approve(host.memberId, name, argumentsText),
            message: (to, text, approval) => deps.message(host, to, text, approval),
          },
          dataDir: deps.harness.registry.dataDir,
          sandbox: askThroughSandbox(sandboxPolicy(deps.harness, ctx, host, tree), member, approval),
          planning: tree.planning === true,
          apiKey: deps.harness.secrets.get(keyRefOf(host.memberId, member)),
          ...(remote && !('error' in remote) ? { remote } : {}),
        },
        host,
        start,
        remote && 'error' in remote ? remote.error : undefined,
      )
    },
    // A notice that came mid-turn and did not go out with a tool result is the agent's next prompt.
    after: ({ ctx, member, host }, outcome) => {
      if ((outcome.status === 'done' || host.stopReason === 'notice') && ctx.store.log.pendingCount(member.id) > 0)
        deps.promptWithNotices(host)
    },
  }
}

/**
 * The policy `ask` for an agent Concord cannot make ask (askThroughSandbox): what the tree's read-only reason says,
 * so that the turn can tell the human and refuse to start without the OS sandbox.
 */
const ASK_READ_ONLY = 'ask: the agent is not known to ask before it writes'

/**
 * Under `ask`, an agent not known to send permission requests before it writes or runs a command (any custom agent;
 * opencode 1.18 never asks) works in a read-only tree: `ask` is enforced by the sandbox, not by the agent's good
 * will. Chosen over refusing the policy in the member's settings because a read-only tree keeps `ask` useful (the
 * agent still reads, plans, answers and reports) and the human allows writes by choosing `sandboxed` or `auto`.
 */
export function askThroughSandbox(
  sandbox: SandboxPolicy,
  member: MemberRow,
  approval: MemberRow['approval'],
): SandboxPolicy {
  if (approval !== 'ask' || agentPresets[member.agent!].asksBeforeActing || sandbox.readOnlyTree) return sandbox
  return { ...sandbox, readOnlyTree: ASK_READ_ONLY }
}

export async function runAcpTurn(
  env: AcpTurnEnv,
  host: MemberHost,
  start: StepRow,
  remoteError?: string,
): Promise<TurnOutcome> {
  const { store } = env.ctx
  const member = env.member
  const signal = host.abort!.signal
  const remote = env.remote
  // What the agent's calls to Concord's tools act in from now on: this turn's tree, under this turn's policy; on a
  // runner, each call first brings the runner's tree back, so that a report names what the agent has there.
  env.agents.setTurn(host.memberId, {
    root: env.workspaceRoot,
    approval: env.approval,
    sandbox: env.sandbox,
    signal,
    ...(remote ? { beforeTool: () => throwIfFailed(bringBack(remote)) } : {}),
  })
  const steps = turnSteps(store, env.emitStep, { memberRowId: member.id, turnId: start.id, taskId: start.task_id })
  const fail = (text: string): TurnOutcome => {
    steps.insert({ kind: 'error', status: 'error', text, is_error: 1, ended_at: now() })
    return { status: 'error', answer: '', error: text }
  }
  if (remoteError) return fail(remoteError)
  try {
    return await agentTurn(env, host, start, steps, fail)
  } finally {
    // What the agent did on its runner comes back before the turn's changes are recorded.
    const lost = remote ? await bringBack(remote) : null
    if (lost) steps.insert({ kind: 'error', status: 'error', text: lost, is_error: 1, ended_at: now() })
  }
}

/** A tool call that must not run on a tree that could not be brought back. */
async function throwIfFailed(brought: Promise<string | null>): Promise<void> {
  const error = await brought
  if (error) throw new ToolError('runner_failed', error)
}

/** The turn once its tree is where the agent works: the agent started, the repository's servers, the session. */
async function agentTurn(
  env: AcpTurnEnv,
  host: MemberHost,
  start: StepRow,
  steps: TurnSteps,
  fail: (text: string) => TurnOutcome,
): Promise<TurnOutcome> {
  const member = env.member

  const askReadOnly = env.sandbox?.readOnlyTree === ASK_READ_ONLY
  const started = await startAgent(env, host)
  if ('error' in started) return fail(started.error)
  const label = agentPresets[member.agent!].label
  if (askReadOnly && !started.sandboxed) {
    started.agent.kill()
    return fail(
      `${label} was not started: under the approval policy ask, Concord keeps the tree of an agent that is not known to ask before it writes read-only, and without the OS sandbox (${started.notSandboxed ?? 'none here'}) it cannot. Choose sandboxed or auto in the member's settings, or run Concord where the sandbox works.`,
    )
  }
  if (askReadOnly && started.fresh) {
    steps.insert({
      kind: 'notice',
      status: 'done',
      text: `${label} works in a read-only tree under the approval policy ask: Concord cannot make it ask before it writes a file or runs a command that changes one (it may never send a permission request). It can still read, answer and report. To let it write, choose sandboxed or auto in its settings.`,
      ended_at: now(),
    })
  }
  if (started.fresh && !started.sandboxed) {
    steps.insert({
      kind: 'notice',
      status: 'done',
      text: `${agentPresets[member.agent!].label} runs not sandboxed: ${started.notSandboxed ?? 'no OS sandbox is available'}.${env.remote ? '' : ' It can read and write anything your user can.'}`,
      ended_at: now(),
    })
  }
  // The repository's MCP servers run in the member's own sandbox, not the agent's read-only tree of `ask`: Concord asks
  // before each of their calls itself (repo-mcp-turn.ts).
  const repoPolicy = askReadOnly ? { ...env.sandbox!, readOnlyTree: undefined } : env.sandbox
  const repoMcp = repoPolicy ? await turnRepoMcp(env, host, started, repoPolicy) : null
  try {
    return await sessionTurn(env, host, start, started, repoMcp, steps, fail)
  } finally {
    await repoMcp?.close()
  }
}

/** The turn in its session: opened (with the repository's servers), prompted, and what its end says. */
async function sessionTurn(
  env: AcpTurnEnv,
  host: MemberHost,
  start: StepRow,
  started: StartedAgent,
  repoMcp: TurnRepoMcp | null,
  steps: TurnSteps,
  fail: (text: string) => TurnOutcome,
): Promise<TurnOutcome> {
  const label = agentPresets[env.member.agent!].label
  const signal = host.abort!.signal
  const session = await openSession(env, {
    ...started,
    sessionMcp: [...started.sessionMcp, ...(repoMcp?.entries ?? [])],
  })
  if ('error' in session) return fail(session.error)
  // A server that did not start this turn is said every turn; the rest once per session.
  for (const text of repoMcp?.notices ?? [])
    if (session.fresh || text.endsWith('(mcp_server_failed)'))
      steps.insert({ kind: 'notice', status: 'done', text, ended_at: now() })
  await planMode(env, started.agent, session.sessionId)
  // A new agent process in a new session: its first turn says plainly when Concord's tools do not reach it.
  const firstTurn = started.fresh && session.fresh
  const declined = firstTurn && declinesConcordMcp(started.agent.init)
  if (declined) steps.insert({ kind: 'notice', status: 'done', text: declinedByCapabilities(label), ended_at: now() })

  const prompt = promptBlocks(env, start, turnPrompt(env, host, start, steps, session.fresh), started.agent.init, steps)
  const updates = new AcpUpdates(
    env,
    host,
    steps,
    started.sandboxed ? { available: true } : { available: false, reason: started.notSandboxed },
    signal,
  )
  updates.repoTools = repoMcp?.tools ?? []
  const outcome = await promptLoop(
    { env, host, start, agent: started.agent, steps, updates, fail },
    session.sessionId,
    prompt,
  )
  if (firstTurn && !declined && outcome.status === 'done') {
    const text = await notConnectedAfterTurn(started, label)
    if (text) steps.insert({ kind: 'notice', status: 'done', text, ended_at: now() })
  }
  return outcome
}

/** Every prompt starts with the brief; notices pending now are delivered with it. */
function turnPrompt(env: AcpTurnEnv, host: MemberHost, start: StepRow, steps: TurnSteps, fresh: boolean): string {
  const { store } = env.ctx
  const member = env.member
  const brief = deliverBrief(env.ctx, member, steps)
  host.lastBrief = brief
  const from = start.from_member_id !== null ? store.members.get(start.from_member_id)?.name : null
  const intro = fresh
    ? `You are ${member.name}, the ${member.role} of a team coordinated by Concord. Concord's tools (server "concord": get_brief, list_decisions, get_decision, submit_report, acknowledge_task, ask_human, ...) act on the team's decisions, tasks and reports; when the brief disagrees with earlier messages, the brief wins.${member.instructions.trim() ? `\n\n${member.instructions.trim()}` : ''}\n\n`
    : ''
  // A turn Concord started itself to deliver notices (see Runtime.promptWithNotices) says so instead of quoting a person.
  const heading = start.kind === 'notice' ? 'From Concord' : from ? `Message from ${from}` : 'Message from the human'
  // An image-only message is not an empty section: the images follow the text (prompt-images.ts).
  const n = start.images ?? 0
  const body = start.text.trim() || (n ? `(${n === 1 ? 'An image' : `${n} images`}, no text.)` : start.text)
  return `${intro}${brief.text}\n\n## ${heading}\n${body}`
}

/** What a prompt and its end are handled with. */
interface PromptTurn {
  env: AcpTurnEnv
  host: MemberHost
  start: StepRow
  agent: AgentProcess
  steps: TurnSteps
  updates: AcpUpdates
  fail: (text: string) => TurnOutcome
}

/**
 * The prompt and its end: the agent's answer, a crash, Concord's turn timeout, a cancel (Stop, or a notice that
 * interrupts), or a denial that ended the agent's turn.
 */
async function promptLoop(turn: PromptTurn, sessionId: string, prompt: PromptBlock[]): Promise<TurnOutcome> {
  const { env, host, agent, updates } = turn
  const signal = host.abort!.signal
  host.approveExternal = updates.approveExternal
  updates.sessionId = sessionId
  const detach = agent.attach(sessionId, {
    update: (n) => {
      updates.onUpdate(n.update)
    },
    permission: updates.onPermission,
  })
  const timeoutMs = env.turnTimeoutMs ?? env.member.agent_turn_timeout_s * 1000
  let timeout: TurnTimeout | undefined
  const cancel = () => {
    void agent.conn.agent.notify('session/cancel', { sessionId }).catch(() => {})
  }
  const onAbort = () => cancel()
  signal.addEventListener('abort', onAbort, { once: true })
  try {
    const answer = agent.conn.agent.request('session/prompt', { sessionId, prompt })
    timeout = turnTimeout(timeoutMs, cancel)
    const res = await Promise.race([answer, agent.exited.then((why) => ({ crashed: why })), timeout.expired])
    if ('crashed' in res) {
      updates.closeModel()
      agent.sessionId = null
      return turn.fail(stoppedText(turn, res.crashed))
    }
    if ('timedOut' in res) return timedOut(turn, timeoutMs)
    return await answered(turn, res)
  } catch (err) {
    return await failed(turn, err)
  } finally {
    timeout?.clear()
    host.approveExternal = null
    signal.removeEventListener('abort', onAbort)
    detach()
    updates.finishOpen(signal.aborted || timeout?.fired === true)
    updates.settleCost(turn.start.id)
  }
}

interface TurnTimeout {
  /** Resolves when the timeout fires (the prompt has been cancelled then). */
  expired: Promise<{ timedOut: true }>
  readonly fired: boolean
  clear(): void
}

/** Concord's turn timeout, started now: when it fires, the prompt is cancelled. */
function turnTimeout(ms: number, cancel: () => void): TurnTimeout {
  let timer: NodeJS.Timeout | undefined
  let fired = false
  const expired = new Promise<{ timedOut: true }>((resolveTimeout) => {
    timer = setTimeout(() => {
      fired = true
      cancel()
      resolveTimeout({ timedOut: true })
    }, ms)
  })
  return {
    expired,
    get fired() {
      return fired
    },
    clear: () => clearTimeout(timer),
  }
}

/** An agent that exited during the turn, with the end of what it wrote to stderr. */
function stoppedText({ env, agent }: PromptTurn, why: string): string {
  return `${agentPresets[env.member.agent!].label} stopped during the turn (${why})${agent.stderrTail ? `: ${agent.stderrTail.slice(-1500)}` : ''}. Send a message to restart it.`
}

function timedOut(turn: PromptTurn, timeoutMs: number): TurnOutcome {
  const { env, agent, updates } = turn
  updates.closeModel()
  // An agent that does not stop when cancelled is stopped: the next turn starts it again.
  agent.kill()
  agent.sessionId = null
  const limit = timeoutMs % 60_000 === 0 ? `${timeoutMs / 60_000} min` : `${Math.round(timeoutMs / 1000)} s`
  return turn.fail(
    `${agentPresets[env.member.agent!].label} did not finish within Concord's turn timeout (${limit}); it was stopped. Its model endpoint may be down. Send a message to start it again, or raise the timeout in the member's settings.`,
  )
}

/** The agent answered the prompt: its turn is done, or it ended on a cancel (Stop, a notice, or a Deny). */
async function answered(turn: PromptTurn, res: { stopReason: string }): Promise<TurnOutcome> {
  const { env, host, agent, steps, updates } = turn
  const preset = agentPresets[env.member.agent!]
  const signal = host.abort!.signal
  const usage = (res as { usage?: { inputTokens?: number; outputTokens?: number } }).usage
  updates.closeModel(usage)
  // The human's Deny (with its reason) reaches the agent as Concord's next prompt: ACP carries no reason.
  if (updates.denials.length && !signal.aborted) {
    queueDenials(turn)
    // Codex ends its turn on a reject: that is the Deny of one call, not the human stopping the turn.
    if (res.stopReason === 'cancelled') {
      if (!preset.survivesCancel) await agent.retire(RETIRE_GRACE_MS)
      return { status: 'done', answer: updates.answer }
    }
  }
  if (res.stopReason === 'cancelled' || signal.aborted) {
    // Measured with claude-agent-acp 0.23: after a cancel, the next prompt in that process ends at once with the
    // cancelled query's leftover result (also after session/load). So such an agent is restarted; the next turn
    // loads the session where the agent can, or opens a new one.
    if (!preset.survivesCancel) await agent.retire(RETIRE_GRACE_MS)
    steps.insert({ kind: 'interrupted', status: 'done', text: interruptedText[host.stopReason], ended_at: now() })
    return { status: 'interrupted', answer: '' }
  }
  return { status: 'done', answer: updates.answer }
}

/** The calls the human denied this turn, queued as the notice that is the agent's next prompt. */
function queueDenials({ env, start, updates }: PromptTurn): void {
  const { denials } = updates
  const text = `The human denied ${denials.length === 1 ? 'a call' : `${denials.length} calls`} of your last turn; it did not run:\n${denials.map((d) => `- ${d}`).join('\n')}\nContinue without it; do not retry it unchanged.`
  writeStep(env.ctx.store, env.emitStep, {
    member_id: env.member.id,
    kind: 'notice',
    status: 'queued',
    text,
    task_id: start.task_id,
    started_at: now(),
  })
}

/** The prompt failed: a crash when the agent has exited, else the error as it came. */
async function failed(turn: PromptTurn, err: unknown): Promise<TurnOutcome> {
  const { env, agent, updates } = turn
  updates.closeModel()
  // The connection closes a moment before the exit is reported: a dead agent is a crash, with its reason.
  const why = await agent.exitReason(2000)
  if (why) {
    agent.sessionId = null
    return turn.fail(stoppedText(turn, why))
  }
  return turn.fail(
    `${agentPresets[env.member.agent!].label} failed the turn: ${err instanceof Error ? err.message : String(err)}${agent.stderrTail ? `\n${agent.stderrTail.slice(-1500)}` : ''}`,
  )
}

const interruptedText: Record<MemberHost['stopReason'], string> = {
  human: 'The turn was interrupted by the human.',
  shutdown: 'The turn was interrupted by a restart of Concord.',
  notice: 'The turn was interrupted by Concord: a task it works on needs adjustment (the notice follows).',
}
