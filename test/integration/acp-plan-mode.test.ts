/**
 * A plan before code with an external agent (issue 33): the real Claude Code through its ACP adapter, on the scripted
 * model server, plans a plan-first task in its plan mode (ACP session modes) in the read-only tree and submits the plan
 * through Concord's MCP tool; once the plan is approved its next turn is out of plan mode. (Red-checked: without the
 * switch to plan mode the planning requests lack it. The switch back is not what keeps the coding turn out of plan
 * mode here: the last assertion holds without it too, so it guards the outcome, not that code.)
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Member, Workspace } from '../../shared/schemas'
import { claudeProvider } from '../fixtures/agents'
import { makeCore, type TestCore } from '../fixtures/core'
import { startedTask } from '../fixtures/harness'
import { startModelServer, type ModelServer, type RecordedRequest } from '../fixtures/model-server'
import { fileNeedsSandbox } from '../fixtures/sandbox-gate'
import { sessionState, takeTurn } from '../fixtures/sessions'

fileNeedsSandbox()

let t: TestCore
let server: ModelServer
let ws: Workspace

beforeEach(async () => {
  server = await startModelServer()
  t = makeCore({ git: true })
  ws = await t.core.invoke('workspaces.open', { repoPath: t.repoDir })
})
afterEach(async () => {
  await t.cleanup()
  await server.close()
})

const withTools = (r: RecordedRequest) => Array.isArray(r.body?.tools) && r.body.tools.length > 0
const planModeOn = (r: RecordedRequest) => /plan mode is active/i.test(JSON.stringify(r.body))

describe('a plan before code, by Claude Code over ACP', () => {
  it('plans in its plan mode and submits the plan through MCP; approved, its next turn leaves plan mode', async () => {
    const m: Member = await t.core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Claude',
      role: 'implementer',
      authority: 'proposer',
      approval: 'auto',
      provider: claudeProvider(server),
    })
    const task = await startedTask(t.core, {
      workspaceId: ws.id,
      title: 'Search timeout',
      assigneeId: m.id,
      planFirst: true,
    })
    server.enqueue(
      { toolCalls: [{ name: 'mcp__concord__submit_plan', arguments: { taskId: 'T-1', plan: '1. Add the timeout' } }] },
      { text: 'Plan submitted.' },
    )
    await takeTurn(t.core, { memberId: m.id, text: 'Plan T-1' }, { timeoutMs: 60_000 })
    expect((await t.core.invoke('tasks.get', { taskId: task.id })).plan).toMatchObject({
      n: 1,
      state: 'pending',
      body: '1. Add the timeout',
      authorId: m.id,
    })
    const planning = server.requests.filter(withTools)
    expect(planning.length).toBeGreaterThan(0)
    expect(planning.every(planModeOn)).toBe(true)

    const seen = server.requests.length
    server.enqueue({ text: 'Coding now.' })
    const idle = sessionState(t.core, m.id, 'idle', { timeoutMs: 60_000 })
    await t.core.invoke('plans.approve', { taskId: task.id })
    await idle
    const coding = server.requests.slice(seen).filter(withTools)
    expect(coding.length).toBeGreaterThan(0)
    expect(coding.some(planModeOn)).toBe(false)
  }, 150_000)
})
