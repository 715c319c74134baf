/**
 * An agent that declines Concord's tools (issue 35: GitHub Copilot CLI rejects stdio MCP servers and the session
 * showed nothing): its first turn says so as a notice step in the session, whether its ACP capabilities say it takes
 * no stdio MCP server or it simply never connects. An agent that takes them gets no notice. Real processes: the
 * scripted ACP agent, and Concord's MCP server on the member's gateway.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Member } from '../../shared/schemas'
import { scriptedProvider, type AgentScript } from '../fixtures/scripted-agent'
import { takeTurn } from '../fixtures/sessions'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

let t: Team
beforeEach(async () => {
  t = await workspaceWithTeam()
})
afterEach(() => t.cleanup())

const agent = (script: AgentScript): Promise<Member> =>
  t.core.invoke('members.create', {
    workspaceId: t.ws.id,
    name: 'Copilot',
    role: 'implementer',
    approval: 'auto',
    provider: scriptedProvider(script),
  })

const turn = (m: Member, text: string) => takeTurn(t.core, { memberId: m.id, text }, { timeoutMs: 30_000 })
const notices = (steps: { kind: string; text: string | null }[]) =>
  steps.filter((s) => s.kind === 'notice').map((s) => s.text ?? '')

describe("an agent that declines Concord's tools", () => {
  it('whose capabilities take no stdio MCP server: the first turn opens with a notice saying so, once', async () => {
    // Nor an HTTP one: to an agent that takes HTTP, Concord gives its tools over HTTP (acp-mcp-http.test.ts).
    const m = await agent({ mcpCapabilities: { sse: true, stdio: false }, turn: [{ say: 'Hello.' }] })
    const steps = await turn(m, 'Hi')
    const said = notices(steps)
    expect(said).toHaveLength(1)
    expect(said[0]).toContain('The ACP agent says it does not take stdio MCP servers')
    expect(said[0]).toContain("Concord's tools")
    // Before the agent's answer: the human reads why before what it did.
    expect(steps.findIndex((s) => s.kind === 'notice')).toBeLessThan(steps.findIndex((s) => s.kind === 'model'))
    const again = await turn(m, 'Again')
    expect(notices(again)).toHaveLength(1)
  })

  it('that never connects: its first turn ends with a notice saying its tools did not reach it', async () => {
    const m = await agent({ turn: [{ say: 'Hello without tools.' }] })
    const said = notices(await turn(m, 'Hi'))
    expect(said).toHaveLength(1)
    expect(said[0]).toContain("did not connect to Concord's tools during its first turn")
  })

  it('that takes them: no notice', async () => {
    const m = await agent({ turn: [{ connectMcp: true }] })
    const steps = await turn(m, 'Hi')
    expect(
      steps
        .filter((s) => s.kind === 'model')
        .map((s) => s.text)
        .join(''),
    ).toMatch(/mcp tools: [1-9]/)
    expect(notices(steps).filter((n) => n.includes("Concord's tools"))).toEqual([])
  })
})
