/**
 * The repository's MCP servers reach the real GitHub Copilot CLI (copilot --acp, @github/copilot 1.0.102), which
 * takes MCP servers only over HTTP (issue 35): Concord starts the reference memory server from npm named in the
 * tree's `.mcp.json` and serves it on the member's HTTP gateway under its own path; Copilot declares its tools in its
 * model request, and a call of one runs.
 */
import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Member } from '../../shared/schemas'
import { installedAgent } from '../fixtures/agent-cli'
import { agentMember, copilotProvider } from '../fixtures/agents'
import type { ModelServer, RecordedRequest } from '../fixtures/model-server'
import { fileNeedsSandbox } from '../fixtures/sandbox-gate'
import { takeTurn } from '../fixtures/sessions'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

fileNeedsSandbox()

const MEMORY_SERVER = realpathSync(
  join(process.cwd(), 'node_modules/@modelcontextprotocol/server-memory/dist/index.js'),
)

let t: Team
let server: ModelServer
let copilot: Member
let memoryFile: string

beforeAll(async () => {
  process.env.PATH = `${await installedAgent('@github/copilot')}:${process.env.PATH}`
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
  copilot = await agentMember(t, 'Copilot', copilotProvider(server), 'auto')
}, 15 * 60_000)
afterAll(() => t.cleanup())

const completions = () => server.requests.filter((r: RecordedRequest) => r.path === '/v1/chat/completions')
const toolNames = (r: RecordedRequest) =>
  ((r.body.tools ?? []) as { function: { name: string } }[]).map((x) => x.function.name)

describe("GitHub Copilot CLI and the repository's MCP servers, over HTTP through Concord", { timeout: 180_000 }, () => {
  it("sees the server's tools in its model request, and a call of one runs", async () => {
    const entities = [{ name: 'Kept', entityType: 'decision', observations: ['Kept noted'] }]
    server.enqueue(
      { toolCalls: [{ name: 'memory-create_entities', arguments: { entities } }] },
      { text: 'Remembered.' },
    )
    const steps = await takeTurn(t.core, { memberId: copilot.id, text: 'Remember it' }, { timeoutMs: 120_000 })
    expect(toolNames(completions()[0]!)).toEqual(
      expect.arrayContaining(['memory-create_entities', 'memory-read_graph', 'concord-submit_report']),
    )
    expect(steps.at(-1)).toMatchObject({ kind: 'model', text: 'Remembered.' })
    expect(existsSync(memoryFile) ? readFileSync(memoryFile, 'utf8') : '').toContain('"Kept"')
    expect(JSON.stringify(completions().at(-1)!.body.messages)).toContain('Kept noted')
  })
})
