/**
 * Concord's own tools in an agent's permission requests (issue 35): Qwen Code routes every MCP tool through ACP
 * `session/request_permission`, whose title is only the arguments JSON; it names the tool in its tool_call's
 * `_meta.toolName` and in the options ("Always Allow in project: submit_report"). Concord recognises its own tools
 * there and applies the member's policy to them itself (the tools' own gateway asks where the policy says so): under
 * `sandboxed` a report never waits. A real process (the scripted ACP agent) asks the way Qwen Code does.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Member } from '../../shared/schemas'
import { scriptedProvider, type AgentScript } from '../fixtures/scripted-agent'
import { approvalsAsked, sessionWhere, takeTurn } from '../fixtures/sessions'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

let t: Team
beforeEach(async () => {
  t = await workspaceWithTeam()
})
afterEach(() => t.cleanup())

const qwenOptions = (tool: string) => [
  { optionId: 'proceed_always_project', name: `Always Allow in project: ${tool}`, kind: 'allow_always' },
  { optionId: 'proceed_always_user', name: `Always Allow for user: ${tool}`, kind: 'allow_always' },
  { optionId: 'proceed_once', name: 'Allow', kind: 'allow_once' },
  { optionId: 'cancel', name: 'Reject', kind: 'reject_once' },
]
const reportArgs = { taskId: 'T-1', kind: 'test', verdict: 'pass', claims: [] }

const qwen = (script: AgentScript): Promise<Member> =>
  t.core.invoke('members.create', {
    workspaceId: t.ws.id,
    name: 'Qwen',
    role: 'tester',
    approval: 'sandboxed',
    provider: scriptedProvider(script),
  })

const said = (steps: { kind: string; text: string | null }[]) =>
  steps
    .filter((s) => s.kind === 'model')
    .map((s) => s.text)
    .join('')

describe("Concord's tools in an agent's permission requests", () => {
  it('a report asked about the way Qwen Code asks runs without a question under sandboxed', async () => {
    const m = await qwen({
      turn: [
        {
          toolCall: {
            toolCallId: 'call_1',
            status: 'pending',
            title: `submit_report (concord MCP Server): ${JSON.stringify(reportArgs)}`,
            kind: 'other',
            rawInput: reportArgs,
            _meta: { toolName: 'submit_report' },
          },
        },
        {
          permission: {
            toolCall: { toolCallId: 'call_1', status: 'pending', title: JSON.stringify(reportArgs), kind: 'other' },
            options: qwenOptions('submit_report'),
          },
        },
      ],
    })
    const asked = approvalsAsked(t.core, m.id)
    const steps = await takeTurn(t.core, { memberId: m.id, text: 'Report' }, { timeoutMs: 30_000 })
    expect(asked()).toBe(0)
    expect(said(steps)).toContain('permission: proceed_once')
    // The step says which tool it is, not the arguments JSON of the request.
    const tool = steps.find((s) => s.kind === 'tool')!
    expect(tool.tool!.name).toContain('submit_report')
    expect(tool.tool!.name.startsWith('{')).toBe(false)
  })

  it('recognises the tool from the options alone when no tool_call came first', async () => {
    const m = await qwen({
      turn: [
        {
          permission: {
            toolCall: { toolCallId: 'call_2', status: 'pending', title: '{"taskId":"T-1"}', kind: 'other' },
            options: qwenOptions('acknowledge_task'),
          },
        },
      ],
    })
    const asked = approvalsAsked(t.core, m.id)
    const steps = await takeTurn(t.core, { memberId: m.id, text: 'Acknowledge' }, { timeoutMs: 30_000 })
    expect(asked()).toBe(0)
    expect(said(steps)).toContain('permission: proceed_once')
    expect(steps.find((s) => s.kind === 'tool')!.tool!.name).toBe('concord: acknowledge_task')
  })

  it('a command whose options happen to name a Concord tool still asks', async () => {
    const m = await qwen({
      turns: [
        [
          {
            permission: {
              toolCall: { toolCallId: 'call_3', status: 'pending', title: 'submit_report --all', kind: 'execute' },
              options: qwenOptions('submit_report'),
            },
          },
        ],
      ],
    })
    const waiting = sessionWhere(t.core, m.id, (s) => s.state === 'waiting_approval', 30_000)
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'Run it' })
    const card = (await waiting).payload.session.pendingApprovals[0]!
    const idle = sessionWhere(t.core, m.id, (s) => s.state === 'idle', 30_000)
    await t.core.invoke('sessions.approve', { memberId: m.id, callId: card.callId, allow: false, reason: 'no' })
    await idle
    const steps = (await t.core.invoke('sessions.get', { memberId: m.id })).steps
    expect(said(steps)).toContain('permission: cancel')
  })
})
