/**
 * A member's settings list the repository's MCP servers of the `.mcp.json` its next turn reads (issue 35): in a
 * workspace of worktrees that is its task's worktree, or the base branch as committed when it has no task in
 * progress, not the user's checkout where they differ. The turn agrees: its first model request offers that tree's
 * servers. On a real core, a real git repository and the reference memory server from npm.
 */
import { execFileSync } from 'node:child_process'
import { realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startedTask } from '../fixtures/harness'
import type { RecordedRequest } from '../fixtures/model-server'
import { takeTurn } from '../fixtures/sessions'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

const MEMORY_SERVER = realpathSync(
  join(process.cwd(), 'node_modules/@modelcontextprotocol/server-memory/dist/index.js'),
)
const server = (memoryFile: string) => ({
  command: process.execPath,
  args: [MEMORY_SERVER],
  env: { MEMORY_FILE_PATH: memoryFile },
})
const mcpJson = (dir: string, names: string[]) =>
  writeFileSync(
    join(dir, '.mcp.json'),
    JSON.stringify({ mcpServers: Object.fromEntries(names.map((n) => [n, server(join(dir, `${n}.jsonl`))])) }),
  )
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, stdio: 'pipe' })
const toolNames = (r: RecordedRequest) =>
  ((r.body.tools as { function: { name: string } }[] | undefined) ?? []).map((x) => x.function.name)

let t: Team
beforeEach(async () => {
  t = await workspaceWithTeam({ isolation: 'worktree' })
  // Committed on the base branch: the "docs" server.
  mcpJson(t.repoDir, ['docs'])
  git(t.repoDir, 'add', '.mcp.json')
  git(t.repoDir, 'commit', '-qm', 'mcp servers')
  // The user's checkout, edited and not committed: a "scratch" server no member's tree has.
  mcpJson(t.repoDir, ['scratch'])
})
afterEach(() => t.cleanup())

const listed = async (memberId: string) =>
  (await t.core.invoke('members.mcpServers', { memberId })).servers.map((s) => s.name)

describe("a member's MCP servers in a workspace of worktrees", () => {
  it('without a task: the base branch as committed, not the edited checkout', async () => {
    const m = await t.member('Impl', { role: 'implementer' })
    expect(await listed(m.id)).toEqual(['docs'])
  })

  it("with its task in progress: the task's worktree, as its turn offers them", async () => {
    const m = await t.member('Impl', { role: 'implementer' })
    const task = await startedTask(t.core, { workspaceId: t.ws.id, title: 'Work', assigneeId: m.id })
    const tree = join(t.dataDir, 'worktrees', t.ws.id, `T-${task.id.split('-t').at(-1)}`)
    mcpJson(tree, ['docs', 'local'])
    expect(await listed(m.id)).toEqual(['docs', 'local'])
    t.server.enqueue({ text: 'ok' })
    await takeTurn(t.core, { memberId: m.id, text: 'hello' }, { timeoutMs: 60_000 })
    const offered = toolNames((await t.server.waitForRequests(1))[0]!).filter((n) => n.startsWith('mcp__'))
    expect([...new Set(offered.map((n) => n.split('__')[1]))]).toEqual(['docs', 'local'])
  }, 90_000)
})
