/**
 * `${VAR}` and `${VAR:-default}` in the repository's `.mcp.json` (issue 35), expanded as Claude Code does from the
 * member's command environment as Concord builds it (the workspace's variables), for a built-in member and an ACP
 * agent alike (Concord starts an ACP agent's servers too); never a key Concord holds. On a real core, real git
 * repositories, the reference memory server from npm in the member's sandbox, and the scripted ACP agent (a real
 * process) saying what session/new gave it.
 */
import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { takeTurn } from '../fixtures/sessions'
import { scriptedProvider } from '../fixtures/scripted-agent'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

const MEMORY_SERVER = realpathSync(
  join(process.cwd(), 'node_modules/@modelcontextprotocol/server-memory/dist/index.js'),
)
const KEY = 'sk-scripted-agent-key-0123456789'

let t: Team
beforeEach(async () => {
  t = await workspaceWithTeam()
})
afterEach(() => t.cleanup())

const writeMcpJson = (servers: Record<string, unknown>) =>
  writeFileSync(join(t.repoDir, '.mcp.json'), JSON.stringify({ mcpServers: servers }))

describe("${VAR} in the repository's .mcp.json", () => {
  it("a built-in member's server gets the workspace's variables, and a default where one is not set", async () => {
    const dir = realpathSync(t.repoDir)
    await t.core.invoke('workspaces.update', { workspaceId: t.ws.id, commandEnv: { MEMO_DIR: dir } })
    writeMcpJson({
      memory: {
        command: process.execPath,
        args: [MEMORY_SERVER],
        env: { MEMORY_FILE_PATH: '${MEMO_DIR}/${MEMO_NAME:-memo}.jsonl' },
      },
      broken: { command: 'srv', args: ['${NOT_SET_ANYWHERE}'] },
    })
    const m = await t.member('Impl', { role: 'implementer', approval: 'auto' })
    t.server.enqueue(
      {
        toolCalls: [
          {
            name: 'mcp__memory__create_entities',
            arguments: { entities: [{ name: 'Kept', entityType: 'decision', observations: ['noted'] }] },
          },
        ],
      },
      { text: 'remembered' },
    )
    const steps = await takeTurn(t.core, { memberId: m.id, text: 'remember' }, { timeoutMs: 60_000 })
    expect(existsSync(join(dir, 'memo.jsonl')), JSON.stringify(steps.map((s) => [s.kind, s.text]))).toBe(true)
    expect(readFileSync(join(dir, 'memo.jsonl'), 'utf8')).toContain('"Kept"')
    expect(steps.filter((s) => s.kind === 'notice').map((s) => s.text)).toEqual([
      expect.stringMatching(/\$\{NOT_SET_ANYWHERE\}, not set in the member's environment.*\(mcp_server_variable\)/),
    ])
  }, 90_000)

  it("an ACP agent's servers are started by Concord with the workspace's variables, never the key it gives the agent", async () => {
    const dir = realpathSync(t.repoDir)
    await t.core.invoke('workspaces.update', { workspaceId: t.ws.id, commandEnv: { MEMO_DIR: dir } })
    writeMcpJson({
      memory: { command: process.execPath, args: [MEMORY_SERVER], env: { MEMORY_FILE_PATH: '${MEMO_DIR}/acp.jsonl' } },
      leak: { command: 'leak-mcp', env: { UPSTREAM_KEY_VALUE: '${SCRIPTED_API_KEY}' } },
    })
    const entity = { entities: [{ name: 'Kept', entityType: 'decision', observations: ['noted'] }] }
    const m = await t.core.invoke('members.create', {
      workspaceId: t.ws.id,
      name: 'Agent',
      role: 'implementer',
      approval: 'auto',
      provider: scriptedProvider(
        { turn: [{ mcpCall: { server: 'memory', tool: 'create_entities', arguments: entity } }] },
        { env: { MEMO_DIR: '/not/this/one' }, keyVariable: 'SCRIPTED_API_KEY', apiKey: KEY },
      ),
    })
    const steps = await takeTurn(t.core, { memberId: m.id, text: 'remember' }, { timeoutMs: 60_000 })
    // Expanded from the member's command environment (the workspace's variables), as for a built-in member.
    expect(readFileSync(join(dir, 'acp.jsonl'), 'utf8')).toContain('"Kept"')
    expect(steps.filter((s) => s.kind === 'notice').map((s) => s.text)).toEqual(
      expect.arrayContaining([expect.stringMatching(/\$\{SCRIPTED_API_KEY\}.*\(mcp_server_(secret|variable)\)/)]),
    )
    expect(JSON.stringify(steps)).not.toContain(KEY)
  }, 90_000)
})
