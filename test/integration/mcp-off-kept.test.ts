/**
 * The repository's MCP servers a member turned off (members.mcpOff) stay off where the member goes: restored by
 * export → import (another checkout of the repository, another data folder) and copied with its team into another
 * workspace. On a real core, real SQLite files and real git repositories.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createCore } from '../../electron/main/core'
import type { Member } from '../../shared/schemas'
import { initRepo } from '../fixtures/core'
import { openWorkspace, type OpenWorkspace } from '../fixtures/workspace'

let t: OpenWorkspace
let impl: Member

const mcpJson = JSON.stringify({
  mcpServers: { docs: { command: 'docs-mcp', args: [] }, db: { command: 'db-mcp', args: ['--read-only'] } },
})

/** A second repository with the same `.mcp.json`, the way another checkout of the project has it. */
function otherRepo(name: string): string {
  const dir = join(t.repoDir, '..', name)
  mkdirSync(dir)
  initRepo(dir)
  writeFileSync(join(dir, '.mcp.json'), mcpJson)
  return dir
}

beforeEach(async () => {
  t = await openWorkspace({ git: true, name: 'Shop' })
  writeFileSync(join(t.repoDir, '.mcp.json'), mcpJson)
  impl = await t.core.invoke('members.create', { workspaceId: t.ws.id, name: 'Impl', role: 'implementer' })
  impl = await t.core.invoke('members.update', { memberId: impl.id, mcpOff: ['db'] })
  await t.core.invoke('members.create', { workspaceId: t.ws.id, name: 'Tess', role: 'tester' })
})
afterEach(() => t.cleanup())

/** Each member's name with the servers it does not get, as the member settings list them. */
async function offByName(core: OpenWorkspace['core'], workspaceId: string) {
  const members = await core.invoke('members.list', { workspaceId })
  return Promise.all(
    members.map(async (m) => {
      const { servers } = await core.invoke('members.mcpServers', { memberId: m.id })
      return [m.name, m.mcpOff, servers.filter((s) => !s.on).map((s) => s.name)]
    }),
  )
}

describe("a member's MCP servers turned off", () => {
  it('are in the JSON export, only for a member that turned some off', async () => {
    const out = await t.core.invoke('export.decisionLog', { workspaceId: t.ws.id, format: 'json' })
    const doc = JSON.parse(readFileSync(out.files[0]!, 'utf8')) as { members: Record<string, unknown>[] }
    expect(doc.members.map((m) => [m.name, m.mcpOff])).toEqual([
      ['Impl', ['db']],
      ['Tess', undefined],
    ])
  })

  it('stay off after export and import into another data folder', async () => {
    const file = (await t.core.invoke('export.decisionLog', { workspaceId: t.ws.id, format: 'json' })).files[0]!
    const other = createCore({ dataDir: join(t.repoDir, '..', 'data2') })
    try {
      const w = await other.invoke('import.workspace', { path: file, repoPath: otherRepo('checkout') })
      expect(await offByName(other, w.id)).toEqual([
        ['Impl', ['db'], ['db']],
        ['Tess', [], []],
      ])
    } finally {
      await other.close()
    }
  })

  it('stay off in a copy of the team in another workspace', async () => {
    const b = await t.core.invoke('workspaces.open', { repoPath: otherRepo('repo-b'), isolation: 'shared' })
    await t.core.invoke('members.copyTeam', { workspaceId: b.id, fromWorkspaceId: t.ws.id })
    expect(await offByName(t.core, b.id)).toEqual([
      ['Impl', ['db'], ['db']],
      ['Tess', [], []],
    ])
  })
})
