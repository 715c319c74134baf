/**
 * A member that is the real GitHub Copilot CLI in its ACP mode (copilot --acp, @github/copilot 1.0.102, installed with
 * npm i -g as its README says) through its preset, offline on the scripted model server's Chat Completions
 * (COPILOT_OFFLINE, COPILOT_PROVIDER_BASE_URL), with Concord's tools reaching it over HTTP (it rejects stdio MCP
 * servers). One member (one Copilot CLI process) for the whole file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Member, Workspace } from '../../shared/schemas'
import { installedAgent } from '../fixtures/agent-cli'
import { agentMember, copilotProvider } from '../fixtures/agents'
import { startedTask } from '../fixtures/harness'
import type { ModelServer, RecordedRequest } from '../fixtures/model-server'
import { fileNeedsSandbox } from '../fixtures/sandbox-gate'
import { takeTurn } from '../fixtures/sessions'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

fileNeedsSandbox()

let t: Team
let server: ModelServer
let ws: Workspace
let copilot: Member

beforeAll(async () => {
  process.env.PATH = `${await installedAgent('@github/copilot')}:${process.env.PATH}`
  t = await workspaceWithTeam({ isolation: 'worktree' })
  ;({ server, ws } = t)
  copilot = await agentMember(t, 'Copilot', copilotProvider(server), 'auto')
}, 15 * 60_000)
afterAll(() => t.cleanup())

const turn = (text: string) => takeTurn(t.core, { memberId: copilot.id, text }, { timeoutMs: 90_000 })
const completions = () => server.requests.filter((r: RecordedRequest) => r.path === '/v1/chat/completions')
const toolNames = (r: RecordedRequest) =>
  ((r.body.tools ?? []) as { function: { name: string } }[]).map((x) => x.function.name)

describe('GitHub Copilot CLI over ACP, through its preset', { timeout: 120_000 }, () => {
  it("answers with Concord's tools declared in its model request, and no notice that it declined them", async () => {
    server.enqueue({ text: 'Hello from Copilot, over ACP.' })
    const steps = await turn('Say hello')
    expect(steps.at(-1)).toMatchObject({ kind: 'model', status: 'done', text: 'Hello from Copilot, over ACP.' })
    expect(steps.filter((s) => s.kind === 'notice' && s.text?.includes("Concord's tools"))).toEqual([])
    const names = toolNames(completions().at(-1)!)
    expect(names).toEqual(expect.arrayContaining(['concord-submit_report', 'concord-get_brief']))
  })

  it("submits a report through Concord's tools over HTTP", async () => {
    await startedTask(t.core, { workspaceId: ws.id, title: 'Build API', assigneeId: copilot.id })
    const report = { taskId: 'T-1', kind: 'implementation', verdict: 'pass', summary: 'done', claims: [] }
    server.enqueue({ toolCalls: [{ name: 'concord-submit_report', arguments: report }] }, { text: 'Reported.' })
    const steps = await turn('Build the API and report')
    const reports = await t.core.invoke('reports.list', { workspaceId: ws.id })
    expect(reports).toHaveLength(1)
    expect(reports[0]).toMatchObject({ authorId: copilot.id, summary: 'done' })
    expect(steps.at(-1)).toMatchObject({ kind: 'model', text: 'Reported.' })
    // The tool's result reached the model: Concord's answer is in the next request.
    expect(JSON.stringify(completions().at(-1)!.body.messages)).toContain('R-1')
  })
})
