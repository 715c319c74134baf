/**
 * An agent that asks permission for MCP tools itself (the real Qwen Code, qwen --acp, @qwen-code/qwen-code 0.24) and a
 * repository MCP server Concord serves it under `ask` (issue 35): Concord applies the policy to the call itself, so
 * Qwen Code's own request for it is recognised (the tool name it shows) and answered without a question; one call,
 * exactly one approval card, and the tool runs once allowed.
 */
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Member } from '../../shared/schemas'
import { installedAgent } from '../fixtures/agent-cli'
import { agentMember, qwenProvider } from '../fixtures/agents'
import type { ModelServer } from '../fixtures/model-server'
import { fileNeedsSandbox } from '../fixtures/sandbox-gate'
import { takeTurn } from '../fixtures/sessions'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

fileNeedsSandbox()

const MEMORY_SERVER = realpathSync(
  join(process.cwd(), 'node_modules/@modelcontextprotocol/server-memory/dist/index.js'),
)

let t: Team
let server: ModelServer
let qwen: Member
let memoryFile: string

beforeAll(async () => {
  process.env.PATH = `${await installedAgent('@qwen-code/qwen-code')}:${process.env.PATH}`
  t = await workspaceWithTeam()
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
  qwen = await agentMember(t, 'Qwen', qwenProvider(server), 'ask')
  // No memory extraction nor follow-up suggestion after each turn (model requests that would take the scripted replies).
  const home = join(t.dataDir, 'agents', t.ws.id, `m${qwen.id.split('-m').at(-1)}`)
  mkdirSync(join(home, '.qwen_home'), { recursive: true })
  writeFileSync(
    join(home, '.qwen_home', 'settings.json'),
    JSON.stringify({ memory: { enableManagedAutoMemory: false }, ui: { enableFollowupSuggestions: false } }),
  )
}, 15 * 60_000)
afterAll(() => t.cleanup())

describe("Qwen Code, which asks for MCP tools itself, and the repository's MCP servers", { timeout: 240_000 }, () => {
  it('one call of a repository server tool under ask is one approval card, and runs once allowed', async () => {
    // Qwen Code 0.24 defers the tools of a server from session/new (named through tool_search): called by name.
    const name = 'mcp__memory__create_entities'
    const entities = [{ name: 'Kept', entityType: 'decision', observations: ['Kept noted'] }]
    server.enqueue({ toolCalls: [{ name, arguments: { entities } }] }, { text: 'Remembered.' })
    const cards = new Set<string>()
    const off = t.core.bus.on((e) => {
      if (e.event !== 'session.state' || e.payload.session.memberId !== qwen.id) return
      for (const c of e.payload.session.pendingApprovals) {
        if (cards.has(c.callId)) continue
        cards.add(c.callId)
        void t.core.invoke('sessions.approve', { memberId: qwen.id, callId: c.callId, allow: true })
      }
    })
    const steps = await takeTurn(t.core, { memberId: qwen.id, text: 'Remember it' }, { timeoutMs: 120_000 })
    off()
    expect(steps.at(-1)).toMatchObject({ kind: 'model', text: 'Remembered.' })
    expect(cards.size).toBe(1)
    expect(readFileSync(memoryFile, 'utf8').match(/"Kept"/g)).toHaveLength(1)
  })
})
