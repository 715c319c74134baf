/**
 * The repository's MCP servers reach an ACP member (issue 35): the reference memory server from npm, named in the
 * tree's `.mcp.json`, is started by Concord for the turn and offered to the agent in session/new through the member's
 * gateway; the agent (the scripted ACP agent, a real process in Concord's sandbox) asks permission before each call as
 * agents do, and that request is answered without a card: Concord asks once, when the call reaches the server through
 * it, under the approval policy; a denied call does not run and an allowed one does. Entries left out are notices of
 * the session.
 */
import { randomUUID } from 'node:crypto'
import { realpathSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { SessionInfo } from '../../shared/schemas'
import { sessionWhere, takeTurn } from '../fixtures/sessions'
import { scriptedProvider } from '../fixtures/scripted-agent'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

const MEMORY_SERVER = realpathSync(
  join(process.cwd(), 'node_modules/@modelcontextprotocol/server-memory/dist/index.js'),
)

let t: Team
beforeEach(async () => {
  t = await workspaceWithTeam()
})
afterEach(() => t.cleanup())

const entity = (name: string) => ({ entities: [{ name, entityType: 'decision', observations: [`${name} noted`] }] })
const call = (tool: string, args: object) => ({ mcpCall: { server: 'memory', tool, arguments: args, ask: true } })

describe("an ACP member and the repository's MCP servers", () => {
  it('gets them in session/new and calls the memory server under the approval policy', async () => {
    // In the agent's sandbox /tmp is its own; without a sandbox the name keeps runs apart.
    const memoryFile = join(tmpdir(), `concord-mcp-${randomUUID()}.jsonl`)
    writeFileSync(
      join(t.repoDir, '.mcp.json'),
      JSON.stringify({
        mcpServers: {
          memory: { command: process.execPath, args: [MEMORY_SERVER], env: { MEMORY_FILE_PATH: memoryFile } },
          web: { type: 'sse', url: 'https://example.com/sse' },
        },
      }),
    )
    const m = await t.core.invoke('members.create', {
      workspaceId: t.ws.id,
      name: 'Agent',
      role: 'implementer',
      approval: 'ask',
      provider: scriptedProvider({
        turns: [
          [call('create_entities', entity('Refused')), call('create_entities', entity('Kept')), call('read_graph', {})],
        ],
      }),
    })
    const cards: string[] = []
    const answered = new Set<string>()
    const answer = async (allow: boolean) => {
      const fresh = (s: SessionInfo) => s.pendingApprovals.find((c) => !answered.has(c.callId))
      const waiting = await sessionWhere(t.core, m.id, (s) => s.state === 'waiting_approval' && !!fresh(s), 30_000)
      const card = fresh(waiting.payload.session)!
      answered.add(card.callId)
      cards.push(card.name)
      await t.core.invoke('sessions.approve', { memberId: m.id, callId: card.callId, allow })
    }
    let started = false
    const idle = sessionWhere(
      t.core,
      m.id,
      (s) => {
        if (s.state !== 'idle') started = true
        return started && s.state === 'idle'
      },
      60_000,
    )
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'remember the decision' })
    await answer(false)
    await answer(true)
    await answer(true)
    await idle
    expect(cards).toHaveLength(3)

    const steps = (await t.core.invoke('sessions.get', { memberId: m.id })).steps
    const said = steps
      .filter((s) => s.kind === 'model')
      .map((s) => s.text)
      .join('')
    expect(said).toMatch(/mcp create_entities: error \(denied\): the human denied this call; it did not run/)
    const graph = /mcp read_graph: ([\s\S]*)/.exec(said)?.[1] ?? ''
    expect(graph).toContain('Kept')
    expect(graph).not.toContain('Refused')
    expect(steps.filter((s) => s.kind === 'notice').map((s) => s.text)).toEqual(
      expect.arrayContaining([expect.stringContaining('(mcp_server_not_stdio)')]),
    )
  }, 90_000)

  it('a server turned off for the member is not in its session/new', async () => {
    writeFileSync(
      join(t.repoDir, '.mcp.json'),
      JSON.stringify({ mcpServers: { memory: { command: process.execPath, args: [MEMORY_SERVER] } } }),
    )
    const m = await t.core.invoke('members.create', {
      workspaceId: t.ws.id,
      name: 'Agent',
      role: 'implementer',
      approval: 'auto',
      mcpOff: ['memory'],
      provider: scriptedProvider({ turns: [[{ mcpCall: { server: 'memory', tool: 'read_graph', arguments: {} } }]] }),
    })
    const steps = await takeTurn(t.core, { memberId: m.id, text: 'read' }, { timeoutMs: 30_000 })
    expect(
      steps
        .filter((s) => s.kind === 'model')
        .map((s) => s.text)
        .join(''),
    ).toContain('mcp read_graph: no server memory offered')
  })
})
