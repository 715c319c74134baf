/**
 * Concord's tools over the MCP streamable HTTP transport (issue 35: GitHub Copilot CLI rejects stdio MCP servers): an
 * agent whose ACP capabilities take HTTP MCP servers and no stdio one gets Concord's server as an HTTP entry in
 * session/new (a loopback URL, the member's token in a header), and calls Concord's tools through it; without the
 * right token nothing is served. Real processes: the scripted ACP agent (the MCP SDK's client with its streamable
 * HTTP transport), Concord's gateway, and a real SQLite workspace.
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

/** An agent that takes MCP servers over HTTP only (stdio declined in its capabilities). */
const httpOnly = { http: true, sse: true, stdio: false }

const agent = (script: AgentScript): Promise<Member> =>
  t.core.invoke('members.create', {
    workspaceId: t.ws.id,
    name: 'Copilot',
    role: 'implementer',
    approval: 'auto',
    provider: scriptedProvider(script),
  })

const turn = (m: Member, text: string) => takeTurn(t.core, { memberId: m.id, text }, { timeoutMs: 30_000 })
const said = (steps: { kind: string; text: string | null }[]) =>
  steps
    .filter((s) => s.kind === 'model')
    .map((s) => s.text ?? '')
    .join('')
const notices = (steps: { kind: string; text: string | null }[]) =>
  steps.filter((s) => s.kind === 'notice').map((s) => s.text ?? '')

const listDecisions = (token?: string) => ({
  mcpCall: { server: 'concord', tool: 'list_decisions', arguments: {}, ...(token ? { token } : {}) },
})

describe("Concord's tools over HTTP, for an agent that takes no stdio MCP server", () => {
  it('are given as an HTTP entry on a loopback port and answer a tool call carrying the member token', async () => {
    await t.core.invoke('decisions.create', { workspaceId: t.ws.id, title: 'API', statement: 'Use REST' })
    const m = await agent({
      mcpCapabilities: httpOnly,
      turn: [{ sayMcp: true }, { connectMcp: true }, listDecisions()],
    })
    const steps = await turn(m, 'List the decisions')
    const text = said(steps)
    expect(text).toMatch(/mcp server concord: http http:\/\/127\.0\.0\.1:\d+\/mcp/)
    expect(text).toMatch(/mcp tools: [1-9]/)
    expect(text).toContain('mcp list_decisions:')
    expect(text).toContain('Use REST')
    // It took the tools: no notice that it declined them.
    expect(notices(steps).filter((n) => n.includes("Concord's tools"))).toEqual([])
  })

  it('serve nothing without the member token: a wrong token is refused, and so is no token at all', async () => {
    await t.core.invoke('decisions.create', { workspaceId: t.ws.id, title: 'API', statement: 'Use REST' })
    const m = await agent({ mcpCapabilities: httpOnly, turn: [{ sayMcp: true }, listDecisions('not-the-token')] })
    const text = said(await turn(m, 'List the decisions'))
    expect(text).toContain('mcp list_decisions: error')
    expect(text).toContain('Unauthorized')
    expect(text).not.toContain('Use REST')
    // The URL the agent was given, reached by anyone else on the machine without the header.
    const url = /mcp server concord: http (\S+)/.exec(text)![1]!
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    }
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(init),
    })
    expect(res.status).toBe(401)
  })

  it('an agent that takes stdio keeps the stdio entry', async () => {
    const m = await agent({
      mcpCapabilities: { http: true, sse: true },
      turn: [{ sayMcp: true }, { connectMcp: true }],
    })
    const text = said(await turn(m, 'Hi'))
    expect(text).toMatch(/mcp server concord: stdio \S+/)
    expect(text).toMatch(/mcp tools: [1-9]/)
  })
})
