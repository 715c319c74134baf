/**
 * One turn of a member that is an external agent over ACP: the prompt starts with the brief (tasks, flags,
 * current decisions, pending notices), `session/update`s become steps (text streams as deltas, tool calls and
 * plans as their own steps), permission requests become approvals under the member's policy, Stop sends
 * `session/cancel`, and Concord's own turn timeout applies. Concord's harness tools reach the agent as the MCP server
 * `concord`, served inside Concord on the member's gateway socket (mcp/agent-gateway.ts, mcp/app-binding.ts).
 */
import { accessSync, constants, existsSync, mkdirSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { delimiter, isAbsolute, join, relative, resolve } from 'node:path'
import type {
  ContentBlock,
  McpServer,
  PermissionOption,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionUpdate,
} from '@agentclientprotocol/sdk'
import type { McpGateway } from '../mcp/agent-gateway'
import { appBinding, type AppBindingEnv } from '../mcp/app-binding'
import type { Ctx } from '../../harness/context'
import { makeId, now } from '../../harness/ids'
import type { MemberRow } from '../../store/members-repo'
import type { StepRow } from '../../store/steps-repo'
import { TEXT_FLUSH_MS } from '../../harness/steps'
import { turnSteps, writeStep, type StepSink } from '../step-writer'
import { buildBrief } from '../brief'
import type { MemberHost, TurnOutcome } from '../member-host'
import { envRefusal, scratchPaths } from '../../platform/command-env'
import { sandboxedAgentSpawn, sandboxStatus } from '../../platform/sandbox'
import type { ProcessInfo, SandboxPolicy } from '../../platform/sandbox-policy'
import { AgentStartError, type AgentPool, type AgentProcess } from './agent-process'
import { toolArgs, toolResultText, type AcpToolCall } from './tool-steps'
import { agentCommand, agentPresets, notInstalledText } from './presets'
import { describeAcpCall, needsHuman, suggestedRule } from '../../harness/approval-policy'
import { rulesFor } from '../../harness/approval-rules'
import { MCP_TOOL_NAMES } from '../mcp/tool-names'

const START_TIMEOUT_MS = 60_000
/** How long an agent restarted after a cancel may take to exit by itself (see AgentProcess.retire). */
const RETIRE_GRACE_MS = 5_000

export interface AcpTurnEnv {
  ctx: Ctx
  member: MemberRow
  /** The folder the agent works in (the task's worktree once worktrees exist). */
  workspaceRoot: string
  dataDir: string
  sandbox?: SandboxPolicy
  approval: MemberRow['approval']
  agents: AgentPool
  /** What Concord's MCP tools for this agent need of the runtime (the turn's tree and policy are added here). */
  mcp: Omit<AppBindingEnv, 'turn'>
  apiKey?: string
  turnTimeoutMs?: number
  emitStep: StepSink
  emitDelta(stepId: number, text: string): void
}

/**
 * The agent's environment: an allow-list, the member's own variables and key; never Concord's or other members'
 * secrets. Also the folders of its own state, which its sandbox leaves writable.
 */
function agentEnv(env: AcpTurnEnv): { vars: Record<string, string>; stateDirs: string[] } {
  const m = env.member
  const preset = agentPresets[m.agent!]
  const out: Record<string, string> = {}
  for (const k of [
    'PATH',
    'HOME',
    'USER',
    'LOGNAME',
    'LANG',
    'LC_ALL',
    'TERM',
    'TMPDIR',
    'SHELL',
    'SYSTEMROOT',
    'APPDATA',
    'LOCALAPPDATA',
  ]) {
    const v = process.env[k]
    if (v !== undefined) out[k] = v
  }
  const stateDirs: string[] = []
  if (m.agent_isolated_home) {
    const home = join(env.dataDir, 'agents', env.ctx.wsId, `m${m.id}`)
    for (const v of preset.homeVariables) {
      const dir = v === 'HOME' ? home : join(home, `.${v.toLowerCase()}`)
      mkdirSync(dir, { recursive: true, mode: 0o700 })
      out[v] = dir
    }
    stateDirs.push(home)
  } else {
    // The user's own login: the agent's folders in the real home stay writable (the rest of the home does not).
    for (const f of preset.stateFiles) {
      const p = join(homedir(), f)
      if (!f.endsWith('.json')) mkdirSync(p, { recursive: true, mode: 0o700 })
      stateDirs.push(p)
    }
  }
  // The member's own variables were checked when saved (members.create/update: envRefusal); one saved before a rule
  // existed (LD_PRELOAD, NODE_OPTIONS, a secret-looking name, HOME) is left out. They reach only the agent inside its
  // sandbox: bwrap and the agent's program are found on Concord's own path, not on this PATH (sandboxedAgentSpawn).
  const own = Object.entries(JSON.parse(m.agent_env) as Record<string, string>).filter(
    ([k, v]) => envRefusal(k, v) === null,
  )
  Object.assign(out, preset.env, Object.fromEntries(own))
  if (env.apiKey && preset.keyVariable) out[preset.keyVariable] = env.apiKey
  return { vars: out, stateDirs }
}

/** Whether `command` names a program that can be run (a path, or a name found on PATH). */
function findProgram(command: string, pathVar: string | undefined): boolean {
  const runnable = (p: string) => {
    try {
      accessSync(p, constants.X_OK)
      return statSync(p).isFile()
    } catch {
      return false
    }
  }
  if (isAbsolute(command) || command.includes('/')) return runnable(resolve(command))
  return (pathVar ?? '').split(delimiter).some((d) => d && runnable(join(d, command)))
}

const contentText = (c: ContentBlock): string =>
  c.type === 'text' ? c.text : c.type === 'resource_link' ? c.uri : `[${c.type}]`

/**
 * The option that answers this one call. Allow is allow_once (an "Always allow" is Concord's own rule, so removing it
 * in the member's settings takes effect); Deny is a reject that is not an abort of the whole turn where the agent
 * offers one (Codex names its turn-ending reject "abort"), else reject_once.
 */
export function pickOption(options: PermissionOption[], allow: boolean): RequestPermissionResponse {
  const aborts = (o: PermissionOption) => /abort|cancel/i.test(`${o.optionId} ${o.name}`)
  const kinds = allow ? ['allow_once', 'allow_always'] : ['reject_once', 'reject_always']
  const byKind = (k: string) => options.filter((x) => x.kind === k)
  const o = allow
    ? kinds.map((k) => byKind(k)[0]).find(Boolean)
    : (kinds.flatMap(byKind).find((x) => !aborts(x)) ?? kinds.map((k) => byKind(k)[0]).find(Boolean))
  return o ? { outcome: { outcome: 'selected', optionId: o.optionId } } : { outcome: { outcome: 'cancelled' } }
}

export async function runAcpTurn(env: AcpTurnEnv, host: MemberHost, start: StepRow): Promise<TurnOutcome> {
  const { store } = env.ctx
  const member = env.member
  const preset = agentPresets[member.agent!]
  const signal = host.abort!.signal
  // What the agent's calls to Concord's tools act in from now on: this turn's tree, under this turn's policy.
  env.agents.setTurn(host.memberId, { root: env.workspaceRoot, approval: env.approval, sandbox: env.sandbox, signal })
  const steps = turnSteps(store, env.emitStep, { memberRowId: member.id, turnId: start.id, taskId: start.task_id })
  const { insert, finish } = steps
  const fail = (text: string): TurnOutcome => {
    insert({ kind: 'error', status: 'error', text, is_error: 1, ended_at: now() })
    return { status: 'error', answer: '', error: text }
  }

  // The agent process: one per member, kept alive, in the OS sandbox; a changed configuration restarts it.
  const concordSandbox = (await sandboxStatus()).available
  const { command, args } = agentCommand(
    member,
    preset.sandboxArgs?.({ concordSandbox, readOnly: !!env.sandbox?.readOnlyTree }),
  )
  let gateway: McpGateway
  try {
    gateway = await env.agents.gateway(host.memberId, () =>
      appBinding({ ...env.mcp, turn: () => env.agents.turn(host.memberId) }),
    )
  } catch (err) {
    return fail(
      `Concord could not open the local socket ${preset.label} reaches its tools through: ${err instanceof Error ? err.message : String(err)}`,
    )
  }
  const concordMcp = gateway.serverEntry('concord')
  const viaConfig = preset.mcpArgs?.(concordMcp)
  if (viaConfig) args.push(...viaConfig.args)
  const sessionMcp: McpServer[] = viaConfig ? [] : [concordMcp]
  const sessionMeta = preset.sessionMeta ? { _meta: preset.sessionMeta(concordMcp.name) } : {}
  const { vars, stateDirs } = agentEnv(env)
  if (viaConfig) Object.assign(vars, viaConfig.env)
  const workspaceConfig = (preset.workspaceConfig ?? [])
    .map((f) => join(env.workspaceRoot, f))
    .filter((p) => existsSync(p))
  // Inside the sandbox a missing program is the sandbox's failure to start: look for it first.
  if (!findProgram(command, vars.PATH)) return fail(notInstalledText(member.agent!, command))
  const spawn = await sandboxedAgentSpawn([command, ...args], vars, {
    root: env.workspaceRoot,
    readOnly: !!env.sandbox?.readOnlyTree,
    userCheckout: env.sandbox?.userCheckout,
    // From Concord's records only (never the tree's `.git` file): a task's tree is its own repository, so the tree is
    // all it writes; the user's object store it reads through alternates is shown read-only (sandbox.readable).
    writable: stateDirs,
    readable: [gateway.dir, ...(env.sandbox?.readable ?? [])],
    tmp: scratchPaths(env.sandbox).tmp,
    dataDir: env.dataDir,
    hide: workspaceConfig,
  })
  if (!spawn.sandboxed && workspaceConfig.length) {
    return fail(
      `${preset.label} was not started: this folder has ${workspaceConfig.map((p) => relative(env.workspaceRoot, p)).join(' and ')}, which ${preset.label} would apply (MCP servers, programs it runs, its environment), and without the OS sandbox (${spawn.reason ?? 'none here'}) Concord cannot hide them from it. Remove them from the repository, or run Concord where the sandbox works.`,
    )
  }
  const fingerprint = JSON.stringify([spawn.file, spawn.args, spawn.env, env.workspaceRoot])
  const before = env.agents.get(host.memberId)
  let agent: AgentProcess
  try {
    // Its process group is recorded like a command's, so the next start ends it if Concord dies (recovery.ts).
    const onProcess = (p: ProcessInfo) => {
      const id = store.steps.addProcess(null, p.pid, p.pgid, p.startTime ?? null, now())
      return () => {
        try {
          store.steps.removeProcess(id)
        } catch {
          // The workspace was closed first: the record goes at the next start (recovery.ts).
        }
      }
    }
    const spec = {
      command: spawn.file,
      args: spawn.args,
      env: spawn.env,
      cwd: spawn.cwd,
      fingerprint,
      notSandboxed: spawn.reason,
      onProcess,
    }
    agent = await env.agents.ensure(host.memberId, spec, preset.label, START_TIMEOUT_MS)
  } catch (err) {
    if (err instanceof AgentStartError && err.code === 'agent_missing')
      return fail(notInstalledText(member.agent!, command))
    return fail(err instanceof Error ? err.message : String(err))
  }
  if (agent !== before && !spawn.sandboxed) {
    insert({
      kind: 'notice',
      status: 'done',
      text: `${preset.label} runs not sandboxed: ${spawn.reason ?? 'no OS sandbox is available'}. It can read and write anything your user can.`,
      ended_at: now(),
    })
  }

  // The session: the live one, else the stored one where the agent can load it, else a new one.
  let fresh = false
  if (!agent.sessionId) {
    try {
      if (member.acp_session && agent.init?.agentCapabilities?.loadSession && !preset.replaysAfterLoad) {
        // History replayed by session/load is not new work: nobody is attached to hear it.
        await agent.conn.agent.request('session/load', {
          sessionId: member.acp_session,
          cwd: env.workspaceRoot,
          mcpServers: sessionMcp,
          ...sessionMeta,
        })
        agent.sessionId = member.acp_session
      }
    } catch {
      // An unknown or unloadable session: start a new one below.
    }
    if (!agent.sessionId) {
      try {
        const s = await Promise.race([
          agent.conn.agent.request('session/new', { cwd: env.workspaceRoot, mcpServers: sessionMcp, ...sessionMeta }),
          agent.exited.then((why): never => {
            throw new Error(why)
          }),
        ])
        agent.sessionId = s.sessionId
        fresh = true
        store.members.setAcpSession(member.id, s.sessionId)
      } catch (err) {
        agent.kill()
        return fail(
          `${preset.label} could not open a session (${err instanceof Error ? err.message : String(err)})${agent.stderrTail ? `: ${agent.stderrTail.slice(-1500)}` : ''}`,
        )
      }
    }
  }
  const sessionId = agent.sessionId

  // Every prompt starts with the brief; notices pending now are delivered with it.
  const pending = store.log.notices(member.id, true)
  const brief = buildBrief(env.ctx, member, pending)
  host.lastBrief = brief
  if (pending.length) {
    store.log.markDelivered(member.id, pending.at(-1)!.id, now())
    insert({ kind: 'notice', status: 'done', text: pending.map((p) => p.text).join('\n\n'), ended_at: now() })
  }
  // Notices `concord mcp` delivers with a tool result are recorded here, after that tool call (see takeNotices).
  let noticesSeen = store.log.notices(member.id, false).at(-1)?.id ?? 0
  const recordDeliveredNotices = () => {
    const delivered = store.log.notices(member.id, false).filter((n) => n.id > noticesSeen && n.delivered_at)
    if (!delivered.length) return
    noticesSeen = delivered.at(-1)!.id
    insert({ kind: 'notice', status: 'done', text: delivered.map((p) => p.text).join('\n\n'), ended_at: now() })
  }
  const from = start.from_member_id !== null ? store.members.get(start.from_member_id)?.name : null
  const intro = fresh
    ? `You are ${member.name}, the ${member.role} of a team coordinated by Concord. Concord's tools (server "concord": get_brief, list_decisions, get_decision, submit_report, acknowledge_task, ask_human, ...) act on the team's decisions, tasks and reports; when the brief disagrees with earlier messages, the brief wins.${member.instructions.trim() ? `\n\n${member.instructions.trim()}` : ''}\n\n`
    : ''
  // A turn Concord started itself to deliver notices (see Runtime.promptWithNotices) says so instead of quoting a person.
  const heading = start.kind === 'notice' ? 'From Concord' : from ? `Message from ${from}` : 'Message from the human'
  const promptText = `${intro}${brief.text}\n\n## ${heading}\n${start.text}`

  // Streaming: text goes into a model step until a tool call or plan interrupts it; the next text opens a new one.
  let model: { id: number; text: string; flushed: number } | null = null
  let timer: NodeJS.Timeout | null = null
  let answer = ''
  const flush = () => {
    timer = null
    if (model && model.text.length !== model.flushed) {
      store.steps.setText(model.id, model.text)
      model.flushed = model.text.length
    }
  }
  const closeModel = (usage?: { inputTokens?: number; outputTokens?: number }) => {
    if (timer) clearTimeout(timer)
    timer = null
    if (!model) return
    finish(model.id, {
      status: 'done',
      text: model.text,
      input_tokens: usage?.inputTokens,
      output_tokens: usage?.outputTokens,
      ended_at: now(),
    })
    answer = model.text
    model = null
  }
  const tools = new Map<string, number>()
  let planStep: number | null = null
  // A call's step, made at its first mention; its arguments are filled in as the agent tells more (toolArgs).
  const toolStep = (toolCallId: string, title: string, call: AcpToolCall): number => {
    const known = tools.get(toolCallId)
    if (known !== undefined) {
      const row = store.steps.get(known)
      const args = toolArgs(call)
      const name = call.title || row?.tool_name || title
      const argsJson = args ? JSON.stringify(args) : (row?.tool_args ?? '{}')
      if (row && !row.ended_at && (name !== row.tool_name || argsJson !== row.tool_args)) {
        steps.change(known, (s) => s.setTool(known, name, argsJson))
      }
      return known
    }
    // A Concord tool call can ask for approval (approveExternal) before the agent's report of it arrives: that step
    // is this call's.
    const early = [...tools].find(
      ([key, id]) =>
        key.startsWith('mcp-') &&
        !store.steps.get(id)?.ended_at &&
        title.includes(store.steps.get(id)?.tool_name ?? '\0'),
    )
    if (early) {
      tools.delete(early[0])
      tools.set(toolCallId, early[1])
      return toolStep(toolCallId, title, call)
    }
    closeModel()
    const id = insert({
      kind: 'tool',
      status: 'running',
      tool_call_id: toolCallId,
      tool_name: title,
      tool_args: JSON.stringify(toolArgs(call) ?? {}),
    })
    tools.set(toolCallId, id)
    return id
  }
  const onUpdate = (u: SessionUpdate) => {
    switch (u.sessionUpdate) {
      case 'agent_message_chunk': {
        const text = contentText(u.content)
        if (!text) return
        model ??= { id: insert({ kind: 'model', status: 'streaming', text: '' }), text: '', flushed: 0 }
        model.text += text
        env.emitDelta(model.id, text)
        timer ??= setTimeout(flush, TEXT_FLUSH_MS)
        return
      }
      case 'tool_call':
        toolStep(u.toolCallId, u.title, u)
        if (u.status === 'completed' || u.status === 'failed') finishTool(u.toolCallId, u.status, toolResultText(u))
        return
      case 'tool_call_update': {
        toolStep(u.toolCallId, u.title ?? 'tool', u)
        if (u.status === 'completed' || u.status === 'failed') finishTool(u.toolCallId, u.status, toolResultText(u))
        return
      }
      case 'plan': {
        const text = u.entries.map((e) => `- [${e.status}] ${e.content}`).join('\n')
        closeModel()
        if (planStep === null) planStep = insert({ kind: 'plan', status: 'done', text, ended_at: now() })
        else {
          const id = planStep
          steps.change(id, (s) => s.setText(id, text))
        }
        return
      }
      default:
        return
    }
  }
  const finishTool = (toolCallId: string, status: 'completed' | 'failed', text: string) => {
    const id = tools.get(toolCallId)
    if (id === undefined) return
    const row = store.steps.get(id)
    if (row && row.ended_at) return
    finish(id, {
      status: status === 'completed' ? 'done' : 'error',
      text,
      is_error: status === 'failed' ? 1 : 0,
      ended_at: now(),
    })
    recordDeliveredNotices()
  }
  // Denials of this turn: the agent hears them (with the human's reason) in its next prompt, since ACP's answer
  // to a permission request carries no reason, and Codex ends its turn on a reject.
  const denials: string[] = []
  const onPermission = async (
    r: RequestPermissionRequest,
    reqSignal: AbortSignal,
  ): Promise<RequestPermissionResponse> => {
    const call = r.toolCall
    const stepId = toolStep(call.toolCallId, call.title ?? 'tool', call)
    const callId = makeId(env.ctx.wsId, 'step', stepId)
    // The same decision as for Concord's own loop (approval-policy.ts): the member's policy, its rules and the team's.
    const described = describeAcpCall(call, {
      root: env.workspaceRoot,
      readOnlyTree: !!env.sandbox?.readOnlyTree,
      concordTools: MCP_TOOL_NAMES,
    })
    const answer = needsHuman(
      env.approval,
      rulesFor(env.ctx, member.id),
      described,
      spawn.sandboxed ? { available: true } : { available: false, reason: spawn.reason },
    )
    if (answer.deny) {
      const text = `Refused without asking: this call was ${answer.why}.`
      finish(stepId, { status: 'denied', text, is_error: 1, ended_at: now() })
      denials.push(`${call.title ?? 'a tool call'}: ${text}`)
      return pickOption(r.options, false)
    }
    if (!answer.ask) return pickOption(r.options, true)
    steps.change(stepId, (s) => s.setStatus(stepId, 'waiting_approval'))
    // The card shows what the call will do in the shapes built-in members' calls have (a command, a path with its
    // old and new text, a path with its content): Gemini's request carries its edit only as a diff, not in rawInput.
    const argsText = JSON.stringify(toolArgs(call) ?? call.rawInput ?? {})
    const allowed = await host.requestApproval(callId, stepId, call.title ?? 'tool', argsText, {
      why: answer.why,
      suggestion: suggestedRule(described),
    })
    if (signal.aborted || reqSignal.aborted) return { outcome: { outcome: 'cancelled' } }
    if (!allowed) {
      const text = host.denialText(callId)
      finish(stepId, { status: 'denied', text, is_error: 1, ended_at: now() })
      denials.push(`${call.title ?? 'a tool call'}: ${text}`)
      return pickOption(r.options, false)
    }
    steps.change(stepId, (s) => s.setStatus(stepId, 'running'))
    return pickOption(r.options, true)
  }

  // A Concord tool call that needs the human's approval under `ask` comes from concord mcp: it waits on the tool
  // step ACP already reported for it (the latest open one of that name), else on a step of its own.
  host.approveExternal = async (name, argumentsText) => {
    const open = [...tools.values()].reverse().find((id) => {
      const row = store.steps.get(id)
      return !!row && !row.ended_at && (row.tool_name ?? '').includes(name)
    })
    const stepId = open ?? toolStep(`mcp-${name}-${now()}`, name, { rawInput: JSON.parse(argumentsText) })
    steps.change(stepId, (s) => s.setStatus(stepId, 'waiting_approval'))
    const allowed = await host.requestApproval(makeId(env.ctx.wsId, 'step', stepId), stepId, name, argumentsText)
    if (!signal.aborted && store.steps.get(stepId)?.status === 'waiting_approval') {
      steps.change(stepId, (s) => s.setStatus(stepId, 'running'))
    }
    return allowed && !signal.aborted
  }
  const detach = agent.attach(sessionId, {
    update: (n) => {
      onUpdate(n.update)
    },
    permission: onPermission,
  })
  const timeoutMs = env.turnTimeoutMs ?? member.agent_turn_timeout_s * 1000
  let timedOut = false
  let turnTimer: NodeJS.Timeout | undefined
  const cancel = () => {
    void agent.conn.agent.notify('session/cancel', { sessionId }).catch(() => {})
  }
  const onAbort = () => cancel()
  signal.addEventListener('abort', onAbort, { once: true })
  try {
    const prompt = agent.conn.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: promptText }],
    })
    const res = await Promise.race([
      prompt,
      agent.exited.then((why) => ({ crashed: why })),
      new Promise<{ timedOut: true }>((resolveTimeout) => {
        turnTimer = setTimeout(() => {
          timedOut = true
          cancel()
          resolveTimeout({ timedOut: true })
        }, timeoutMs)
      }),
    ])
    if ('crashed' in res) {
      closeModel()
      agent.sessionId = null
      return fail(
        `${preset.label} stopped during the turn (${res.crashed})${agent.stderrTail ? `: ${agent.stderrTail.slice(-1500)}` : ''}. Send a message to restart it.`,
      )
    }
    if ('timedOut' in res) {
      closeModel()
      // An agent that does not stop when cancelled is stopped: the next turn starts it again.
      agent.kill()
      agent.sessionId = null
      const limit = timeoutMs % 60_000 === 0 ? `${timeoutMs / 60_000} min` : `${Math.round(timeoutMs / 1000)} s`
      return fail(
        `${preset.label} did not finish within Concord's turn timeout (${limit}); it was stopped. Its model endpoint may be down. Send a message to start it again, or raise the timeout in the member's settings.`,
      )
    }
    const usage = (res as { usage?: { inputTokens?: number; outputTokens?: number } }).usage
    closeModel(usage)
    // The human's Deny (with its reason) reaches the agent as Concord's next prompt: ACP carries no reason.
    if (denials.length && !signal.aborted) {
      const text = `The human denied ${denials.length === 1 ? 'a call' : `${denials.length} calls`} of your last turn; it did not run:\n${denials.map((d) => `- ${d}`).join('\n')}\nContinue without it; do not retry it unchanged.`
      writeStep(store, env.emitStep, {
        member_id: member.id,
        kind: 'notice',
        status: 'queued',
        text,
        task_id: start.task_id,
        started_at: now(),
      })
      // Codex ends its turn on a reject: that is the Deny of one call, not the human stopping the turn.
      if (res.stopReason === 'cancelled') {
        if (!preset.survivesCancel) await agent.retire(RETIRE_GRACE_MS)
        return { status: 'done', answer }
      }
    }
    if (res.stopReason === 'cancelled' || signal.aborted) {
      // Measured with claude-agent-acp 0.23: after a cancel, the next prompt in that process ends at once with the
      // cancelled query's leftover result (also after session/load). So such an agent is restarted; the next turn
      // loads the session where the agent can, or opens a new one.
      if (!preset.survivesCancel) await agent.retire(RETIRE_GRACE_MS)
      insert({ kind: 'interrupted', status: 'done', text: interruptedText[host.stopReason], ended_at: now() })
      return { status: 'interrupted', answer: '' }
    }
    return { status: 'done', answer }
  } catch (err) {
    closeModel()
    // The connection closes a moment before the exit is reported: a dead agent is a crash, with its reason.
    const why = await agent.exitReason(2000)
    if (why) {
      agent.sessionId = null
      return fail(
        `${preset.label} stopped during the turn (${why})${agent.stderrTail ? `: ${agent.stderrTail.slice(-1500)}` : ''}. Send a message to restart it.`,
      )
    }
    return fail(
      `${preset.label} failed the turn: ${err instanceof Error ? err.message : String(err)}${agent.stderrTail ? `\n${agent.stderrTail.slice(-1500)}` : ''}`,
    )
  } finally {
    clearTimeout(turnTimer)
    host.approveExternal = null
    signal.removeEventListener('abort', onAbort)
    detach()
    for (const [, id] of tools) {
      const row = store.steps.get(id)
      if (row && !row.ended_at)
        finish(id, { status: signal.aborted || timedOut ? 'interrupted' : 'done', ended_at: now() })
    }
  }
}

const interruptedText: Record<MemberHost['stopReason'], string> = {
  human: 'The turn was interrupted by the human.',
  shutdown: 'The turn was interrupted by a restart of Concord.',
  notice: 'The turn was interrupted by Concord: a task it works on needs adjustment (the notice follows).',
}
