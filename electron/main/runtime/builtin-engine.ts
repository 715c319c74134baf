/**
 * The turn engine of a member with a model provider (turn-engine.ts; ACP agents have acp/acp-turn.ts): Concord's
 * own loop (agent-loop.ts) with Concord's tools, the member's provider, its approval rules and its sandbox.
 */
import type { MethodName, Params, Result } from '../../../shared/contract'
import type { ApprovalPolicy } from '../harness/members/approval-policy'
import { rulesFor } from '../harness/members/approval-rules'
import type { Harness } from '../harness/harness'
import { now } from '../harness/ids'
import { keyRefOf } from '../harness/members/members'
import { mcpOffOf } from '../harness/members/member-mcp'
import { workspaceSettings } from '../harness/workspace/workspace-settings'
import { sandboxStatus } from '../platform/sandbox/status'
import { runTurn } from './agent-loop'
import { startRepoMcp } from './repo-mcp/servers'
import type { MemberHost } from './member-host'
import { createProvider, type CreateProviderOptions } from './providers'
import type { ModelProvider, ProviderConfig } from './providers/types'
import { harnessTools, toolAllowed, type HarnessToolContext } from './tools/harness-tools'
import { repoTools } from './tools/repo-tools'
import type { ToolDefinition } from './tools/types'
import type { Turn, TurnEngine } from './turn-engine'
import { sandboxPolicy } from './turn-tree'

/** What Concord's own loop needs of the runtime: provider options, and the messages and delegations of its tools. */
export interface BuiltinEngineDeps {
  harness: Harness
  provider?: CreateProviderOptions
  call<M extends MethodName>(method: M, params: Params<M>): Promise<Result<M>>
  message(from: MemberHost, to: string, text: string, approval: ApprovalPolicy): void
  delegate(from: MemberHost, to: string, task: string, signal: AbortSignal, approval: ApprovalPolicy): Promise<string>
}

/** The turn engine of a member with a model provider: this loop, with Concord's tools. */
export function builtinEngine(deps: BuiltinEngineDeps): TurnEngine {
  const tools = [...repoTools(), ...harnessTools()] as ToolDefinition<unknown, HarnessToolContext>[]
  // Each member's provider, kept while its settings stay the same: building an SDK client costs about 10 ms of CPU,
  // paid at every turn start (several members starting together held the loop that long each). The key is compared
  // in memory only, as the provider itself holds it.
  const providers = new Map<string, { settings: string; provider: ModelProvider }>()
  const providerOf = (memberId: string, config: ProviderConfig): ModelProvider => {
    const settings = JSON.stringify([config.kind, config.model, config.baseURL ?? null, config.apiKey ?? null])
    const held = providers.get(memberId)
    if (held?.settings === settings) return held.provider
    const provider = createProvider(config, deps.provider)
    providers.set(memberId, { settings, provider })
    return provider
  }
  return {
    run: async (turn) => {
      const { ctx, member, host, tree } = turn
      const provider = providerOf(host.memberId, {
        kind: member.provider_kind!,
        model: member.provider_model!,
        baseURL: member.provider_base_url ?? undefined,
        apiKey: deps.harness.secrets.get(keyRefOf(host.memberId, member)),
      })
      // The repository's MCP servers run for this turn only, in the member's sandbox (repo-mcp/servers.ts).
      const repoMcp = await startRepoMcp(tree.root, sandboxPolicy(deps.harness, ctx, host, tree), mcpOffOf(member))
      try {
        return await runTurn(
          {
            ctx,
            member,
            provider,
            workspaceRoot: tree.root,
            treeDescription: tree.description,
            tools: [
              ...tools.filter((t) => toolAllowed(t.name, member.authority)),
              ...(repoMcp.tools as ToolDefinition<unknown, HarnessToolContext>[]),
            ],
            notices: repoMcp.notices,
            approval: turn.approval,
            rules: rulesFor(ctx, member.id),
            sandbox: await sandboxStatus(),
            callSetting: {
              readOnlyTree: !!tree.readOnly,
              network: member.network === 1,
              hooks: workspaceSettings(ctx).gitHooks,
            },
            emitStep: turn.emitStep,
            emitDelta: turn.emitDelta,
            toolContext: (_host, signal, endTurn, sourceStepId) =>
              toolContext(deps, turn, signal, endTurn, sourceStepId),
          },
          host,
          turn.start,
        )
      } finally {
        await repoMcp.close()
      }
    },
  }
}

/** What a tool call of this turn acts in and on. */
function toolContext(
  deps: BuiltinEngineDeps,
  { ctx, host, tree, member, approval }: Turn,
  signal: AbortSignal,
  endTurn: (reason: string) => void,
  sourceStepId: string,
): HarnessToolContext {
  return {
    workspaceRoot: tree.root,
    signal,
    sandbox: sandboxPolicy(deps.harness, ctx, host, tree),
    onProcess: (info) => {
      const id = ctx.store.steps.addProcess(null, info.pid, info.pgid, info.startTime ?? null, now())
      return () => ctx.store.steps.removeProcess(id)
    },
    workspaceId: host.wsId,
    memberId: host.memberId,
    authority: member.authority,
    call: (method, params) => deps.call(method, params),
    brief: () => host.lastBrief ?? { text: '', decisionVersions: new Map() },
    stepText: (stepId) => {
      const m = /-s(\d+)$/.exec(stepId)
      const row = m ? ctx.store.steps.get(Number(m[1])) : undefined
      return row && row.member_id === host.memberRowId && stepId.startsWith(host.wsId) ? row.text : null
    },
    message: async (to, text) => {
      deps.message(host, to, text, approval)
    },
    delegate: (to, task, sig) => deps.delegate(host, to, task, sig, approval),
    endTurn,
    sourceStepId,
  }
}
