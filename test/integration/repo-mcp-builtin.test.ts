/**
 * The repository's MCP servers reach a built-in member (issue 35): the reference memory server from npm, named in the
 * tree's `.mcp.json`, is started in the member's sandbox; its tools are offered to the model as mcp__memory__*; a call
 * waits for the human under `ask`, a denied one does not run, an allowed one does and its result reaches the next
 * model request; a broken entry is a notice, not a crash.
 */
import { readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { SessionInfo } from '../../shared/schemas'
import type { RecordedRequest } from '../fixtures/model-server'
import { sessionWhere } from '../fixtures/sessions'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

const MEMORY_SERVER = realpathSync(
  join(process.cwd(), 'node_modules/@modelcontextprotocol/server-memory/dist/index.js'),
)

let t: Team
beforeEach(async () => {
  t = await workspaceWithTeam()
})
afterEach(() => t.cleanup())

const toolNames = (r: RecordedRequest) =>
  (r.body.tools as { function: { name: string } }[] | undefined)?.map((x) => x.function.name) ?? []
const toolMessages = (r: RecordedRequest) =>
  (r.body.messages as { role: string; content: string }[]).filter((m) => m.role === 'tool').map((m) => m.content)

function writeMcpJson(extra: Record<string, unknown> = {}) {
  const memoryFile = join(realpathSync(t.repoDir), '.memory.jsonl')
  writeFileSync(
    join(t.repoDir, '.mcp.json'),
    JSON.stringify({
      mcpServers: {
        memory: { command: process.execPath, args: [MEMORY_SERVER], env: { MEMORY_FILE_PATH: memoryFile } },
        ...extra,
      },
    }),
  )
  return memoryFile
}

/** The end of the turn that is about to start (an idle state goes out before a new member's first turn starts). */
const idleOf = (memberId: string) => {
  let started = false
  return sessionWhere(t.core, memberId, (s) => {
    if (s.state !== 'idle') started = true
    return started && s.state === 'idle'
  })
}

const entity = (name: string) => ({ entities: [{ name, entityType: 'decision', observations: [`${name} noted`] }] })

describe("a built-in member and the repository's MCP servers", () => {
  it('calls the memory server under ask: a denied call does not run, allowed ones do and their results reach the model', async () => {
    const memoryFile = writeMcpJson({
      web: { type: 'http', url: 'https://example.com/mcp' },
      leaky: { command: 'srv', env: { GITHUB_TOKEN: 'ghp_x' } },
    })
    const m = await t.member('Impl', { role: 'implementer', approval: 'ask' })
    t.server.enqueue(
      { toolCalls: [{ name: 'mcp__memory__create_entities', arguments: entity('Refused') }] },
      { toolCalls: [{ name: 'mcp__memory__create_entities', arguments: entity('Kept') }] },
      { toolCalls: [{ name: 'mcp__memory__read_graph', arguments: {} }] },
      { text: 'remembered' },
    )
    const cards: string[] = []
    const answered = new Set<string>()
    const answer = async (allow: boolean) => {
      const fresh = (s: SessionInfo) => s.pendingApprovals.find((c) => !answered.has(c.callId))
      const waiting = await sessionWhere(t.core, m.id, (s) => s.state === 'waiting_approval' && !!fresh(s))
      const card = fresh(waiting.payload.session)!
      answered.add(card.callId)
      cards.push(card.name)
      await t.core.invoke('sessions.approve', { memberId: m.id, callId: card.callId, allow })
    }
    const idle = idleOf(m.id)
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'remember the decision' })
    await answer(false)
    await answer(true)
    await answer(true)
    await idle
    expect(cards).toEqual(['mcp__memory__create_entities', 'mcp__memory__create_entities', 'mcp__memory__read_graph'])

    const requests = await t.server.waitForRequests(4)
    expect(toolNames(requests[0]!)).toEqual(
      expect.arrayContaining(['mcp__memory__create_entities', 'mcp__memory__read_graph']),
    )
    expect(toolNames(requests[0]!).filter((n) => n.startsWith('mcp__'))).not.toContain('mcp__web__fetch')
    const results = toolMessages(requests[3]!)
    expect(results[0]).toContain('denied')
    expect(results[2]).toContain('Kept')
    expect(results[2]).not.toContain('Refused')
    const stored = readFileSync(memoryFile, 'utf8')
    expect(stored).toContain('"Kept"')
    expect(stored).not.toContain('Refused')

    // The left-out entries are notices of the session, with their codes; the turn went on.
    const steps = (await t.core.invoke('sessions.get', { memberId: m.id })).steps
    const notices = steps.filter((s) => s.kind === 'notice').map((s) => s.text)
    expect(notices).toEqual(
      expect.arrayContaining([
        expect.stringContaining('(mcp_server_not_stdio)'),
        expect.stringMatching(/GITHUB_TOKEN looks like a secret.*\(mcp_server_secret\)/),
      ]),
    )
  })

  it('a malformed .mcp.json: a notice with its code, and the turn runs with Concord’s own tools', async () => {
    writeFileSync(join(t.repoDir, '.mcp.json'), '{ "mcpServers": {')
    const m = await t.member('Impl')
    t.server.enqueue({ text: 'fine' })
    const idle = idleOf(m.id)
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'hello' })
    await idle
    const [first] = await t.server.waitForRequests(1)
    expect(toolNames(first!).some((n) => n.startsWith('mcp__'))).toBe(false)
    expect(toolNames(first!)).toContain('read_file')
    const steps = (await t.core.invoke('sessions.get', { memberId: m.id })).steps
    expect(steps.find((s) => s.kind === 'notice')?.text).toContain('(mcp_config_invalid)')
  })

  it('each server can be turned off per member: its settings list the servers, and an off one is not offered', async () => {
    writeMcpJson({ web: { type: 'http', url: 'https://example.com/mcp' } })
    const m = await t.member('Impl', { mcpOff: ['memory'] })
    expect(m.mcpOff).toEqual(['memory'])
    const listed = await t.core.invoke('members.mcpServers', { memberId: m.id })
    expect(listed.servers).toEqual([{ name: 'memory', command: process.execPath, args: [MEMORY_SERVER], on: false }])
    expect(listed.problems).toMatchObject([{ code: 'mcp_server_not_stdio', server: 'web' }])

    t.server.enqueue({ text: 'fine' })
    let idle = idleOf(m.id)
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'hello' })
    await idle
    const [first] = await t.server.waitForRequests(1)
    expect(toolNames(first!).some((n) => n.startsWith('mcp__memory__'))).toBe(false)

    const on = await t.core.invoke('members.update', { memberId: m.id, mcpOff: [] })
    expect(on.mcpOff).toEqual([])
    expect((await t.core.invoke('members.mcpServers', { memberId: m.id })).servers[0]!.on).toBe(true)
    t.server.enqueue({ text: 'fine again' })
    idle = idleOf(m.id)
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'hello again' })
    await idle
    const second = (await t.server.waitForRequests(2))[1]!
    expect(toolNames(second)).toContain('mcp__memory__read_graph')

    await expect(t.core.invoke('members.update', { memberId: m.id, mcpOff: ['not a name'] })).rejects.toMatchObject({
      code: 'invalid_params',
    })
  })
})
