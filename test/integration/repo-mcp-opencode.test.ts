/**
 * The repository's MCP servers reach the real opencode (opencode acp, opencode-ai 1.18) through Concord, under the
 * member's approval policy (issue 35): opencode asks permission only for edits, commands and fetches, never for an MCP
 * tool, so Concord applies `ask` itself. The reference memory server from npm, named in the tree's `.mcp.json`, is
 * started by Concord and served on the member's gateway; a call of one of its tools waits for a Concord approval card,
 * a denial reaches opencode as the tool's error result (and the tool did not run), an allowed call runs once.
 */
import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Member, SessionInfo } from '../../shared/schemas'
import { installedAgent } from '../fixtures/agent-cli'
import { agentMember, opencodeProvider, opencodeTitle } from '../fixtures/agents'
import type { ModelServer, RecordedRequest } from '../fixtures/model-server'
import { fileNeedsSandbox } from '../fixtures/sandbox-gate'
import { sessionState } from '../fixtures/sessions'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

fileNeedsSandbox()

const MEMORY_SERVER = realpathSync(
  join(process.cwd(), 'node_modules/@modelcontextprotocol/server-memory/dist/index.js'),
)

let t: Team
let server: ModelServer
let oc: Member
let memoryFile: string

beforeAll(async () => {
  process.env.PATH = `${await installedAgent('opencode-ai')}:${process.env.PATH}`
  t = await workspaceWithTeam({ server: { unscripted: opencodeTitle, defaultReply: { text: 'Not done.' } } })
  server = t.server
  memoryFile = join(realpathSync(t.repoDir), 'memory.jsonl')
  writeFileSync(
    join(t.repoDir, '.mcp.json'),
    JSON.stringify({
      mcpServers: {
        memory: { command: process.execPath, args: [MEMORY_SERVER], env: { MEMORY_FILE_PATH: memoryFile } },
      },
    }),
  )
  oc = await agentMember(t, 'Opencode', opencodeProvider(server), 'ask')
}, 15 * 60_000)
afterAll(() => t.cleanup())

const state = (s: SessionInfo['state']) => sessionState(t.core, oc.id, s, { timeoutMs: 120_000 })
const completions = () =>
  server.requests.filter((r: RecordedRequest) => r.path === '/v1/chat/completions' && Array.isArray(r.body.tools))
const toolNames = (r: RecordedRequest) => (r.body.tools as { function: { name: string } }[]).map((x) => x.function.name)
const remember = (name: string) => ({
  toolCalls: [
    {
      name: 'memory_create_entities',
      arguments: { entities: [{ name, entityType: 'decision', observations: [`${name} noted`] }] },
    },
  ],
})
const memory = () => (existsSync(memoryFile) ? readFileSync(memoryFile, 'utf8') : '')

/** Sends `text`, waits for the one approval card of the turn, answers it, and waits for the turn's end. */
async function answeredTurn(text: string, allow: boolean): Promise<SessionInfo['pendingApprovals']> {
  const waiting = state('waiting_approval')
  await t.core.invoke('sessions.send', { memberId: oc.id, text })
  const cards = (await waiting).payload.session.pendingApprovals
  const idle = state('idle')
  await t.core.invoke('sessions.approve', { memberId: oc.id, callId: cards[0]!.callId, allow })
  await idle
  return cards
}

describe("opencode and the repository's MCP servers, through Concord", { timeout: 240_000 }, () => {
  it('a call waits for a Concord approval under ask; a denial reaches opencode and the tool did not run', async () => {
    server.enqueue(remember('Refused'), { text: 'It was denied.' })
    const waiting = state('waiting_approval')
    await t.core.invoke('sessions.send', { memberId: oc.id, text: 'Remember the decision' })
    const cards = (await waiting).payload.session.pendingApprovals
    expect(toolNames(completions().at(-1)!)).toEqual(expect.arrayContaining(['memory_create_entities']))
    expect(cards).toMatchObject([{ name: 'mcp__memory__create_entities' }])
    // The call waits for the human: the server has not written anything.
    expect(memory()).not.toContain('Refused')
    const idle = state('idle')
    await t.core.invoke('sessions.approve', { memberId: oc.id, callId: cards[0]!.callId, allow: false })
    await idle
    expect(memory()).not.toContain('Refused')
    // opencode got the denial as the tool's result and sent it to its model.
    expect(JSON.stringify(completions().at(-1)!.body.messages)).toContain('the human denied this call')
  })

  it('an allowed call runs once', async () => {
    server.enqueue(remember('Kept'), { text: 'Remembered.' })
    const cards = await answeredTurn('Remember it again', true)
    expect(cards).toHaveLength(1)
    expect(memory().match(/"Kept"/g)).toHaveLength(1)
    expect(JSON.stringify(completions().at(-1)!.body.messages)).toContain('Kept noted')
  })
})
