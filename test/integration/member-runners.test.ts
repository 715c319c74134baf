/**
 * Where a member runs (issue 36): a runner of its own (this machine, an SSH host, a container) or the workspace's
 * default, set by members.create/update and workspaces.update, validated before anything is saved, refused for a
 * built-in member (runner_needs_agent), and kept where the member goes: export → import, and a copy of its team. On a
 * real core, real SQLite files and real git repositories.
 */
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createCore } from '../../electron/main/core'
import { effectiveRunner, runnerText, type Runner } from '../../shared/runners'
import type { Member } from '../../shared/schemas'
import { initRepo, rejectsWith } from '../fixtures/core'
import { openWorkspace, type OpenWorkspace } from '../fixtures/workspace'

let t: OpenWorkspace

const agent = { kind: 'acp', agent: 'custom', command: '/usr/local/bin/my-agent' } as const
const ssh: Runner = { kind: 'ssh', host: 'dev@runner1' }
const container: Runner = { kind: 'container', image: 'docker.io/library/debian:bookworm' }

beforeEach(async () => {
  t = await openWorkspace({ git: true, name: 'Shop' })
})
afterEach(() => t.cleanup())

const create = (name: string, extra: Record<string, unknown> = {}): Promise<Member> =>
  t.core.invoke('members.create', { workspaceId: t.ws.id, name, role: 'implementer', ...extra })

const listed = async (core = t.core, workspaceId = t.ws.id) =>
  (await core.invoke('members.list', { workspaceId })).map((m) => [m.name, m.runner])

/** A second repository, the way another checkout of the project has it. */
function otherRepo(name: string): string {
  const dir = join(t.repoDir, '..', name)
  mkdirSync(dir)
  initRepo(dir)
  return dir
}

describe("a member's runner", () => {
  it('is set at creation, changed and cleared by members.update, and listed as saved', async () => {
    const a = await create('Agent', { provider: agent, runner: ssh })
    expect(a.runner).toEqual(ssh)
    const b = await create('Boxed', { provider: agent, runner: container })
    expect(b.runner).toEqual(container)
    const c = await create('Plain', { provider: agent })
    expect(c.runner).toBeNull()
    await t.core.invoke('members.update', { memberId: b.id, runner: null })
    // A call that leaves runner out keeps it.
    await t.core.invoke('members.update', { memberId: a.id, name: 'Agent A' })
    expect(await listed()).toEqual([
      ['Agent A', ssh],
      ['Boxed', null],
      ['Plain', null],
    ])
  })

  it.each([
    ['an option for ssh', { kind: 'ssh', host: '-oProxyCommand=touch /tmp/x' }, 'runner.host: may not start with -'],
    ['a space', { kind: 'ssh', host: 'runner 1' }, 'runner.host: may hold only'],
    ['a shell word', { kind: 'ssh', host: 'runner1;rm' }, 'runner.host: may hold only'],
    ['nothing', { kind: 'ssh', host: '  ' }, 'runner.host: name the SSH host'],
    ['256 characters', { kind: 'ssh', host: 'h'.repeat(256) }, 'runner.host:'],
    ['an option for podman', { kind: 'container', image: '--privileged' }, 'runner.image: may not start with -'],
    ['whitespace in an image', { kind: 'container', image: 'debian bookworm' }, 'runner.image: may hold only'],
    ['an unknown kind', { kind: 'vm', host: 'x' }, 'runner.kind'],
    ['a field of another kind', { kind: 'local', host: 'x' }, 'runner: unknown field host'],
  ])('refuses %s with invalid_params naming the field, saving nothing', async (_, runner, words) => {
    const e = await rejectsWith(create('Agent', { provider: agent, runner }), 'invalid_params')
    expect(e.message).toContain(words)
    const m = await create('Kept', { provider: agent, runner: ssh })
    const u = await rejectsWith(t.core.invoke('members.update', { memberId: m.id, runner }), 'invalid_params')
    expect(u.message).toContain(words)
    expect(await listed()).toEqual([['Kept', ssh]])
  })

  it('is refused for a built-in member (runner_needs_agent), whichever call would make one', async () => {
    const e = await rejectsWith(create('Loop', { runner: ssh }), 'runner_needs_agent')
    expect(e.message).toMatch(/^runner: only external agents \(ACP\) run on a runner yet/)
    expect(e.message).toContain('SSH host dev@runner1')
    // This machine is where a built-in member runs anyway.
    const loop = await create('Loop', { runner: { kind: 'local' } })
    expect(loop.runner).toEqual({ kind: 'local' })
    await rejectsWith(t.core.invoke('members.update', { memberId: loop.id, runner: container }), 'runner_needs_agent')
    // Made an external agent in the same call: what it is once saved counts.
    const now = await t.core.invoke('members.update', { memberId: loop.id, provider: agent, runner: container })
    expect(now.runner).toEqual(container)
    // And back to Concord's own loop while it keeps the container: refused, nothing changed.
    await rejectsWith(t.core.invoke('members.update', { memberId: loop.id, provider: null }), 'runner_needs_agent')
    expect((await t.core.invoke('members.list', { workspaceId: t.ws.id }))[0]!.provider?.kind).toBe('acp')
  })
})

describe("the workspace's default runner", () => {
  it('is this machine until chosen, saved by workspaces.update, and validated like a member runner', async () => {
    expect((await t.core.invoke('workspaces.settings', { workspaceId: t.ws.id })).defaultRunner).toEqual({
      kind: 'local',
    })
    await t.core.invoke('workspaces.update', { workspaceId: t.ws.id, defaultRunner: ssh })
    expect((await t.core.invoke('workspaces.settings', { workspaceId: t.ws.id })).defaultRunner).toEqual(ssh)
    const e = await rejectsWith(
      t.core.invoke('workspaces.update', { workspaceId: t.ws.id, defaultRunner: { kind: 'ssh', host: '-x' } }),
      'invalid_params',
    )
    expect(e.message).toContain('defaultRunner.host: may not start with -')
    expect((await t.core.invoke('workspaces.settings', { workspaceId: t.ws.id })).defaultRunner).toEqual(ssh)
  })

  it('is where an agent with no runner of its own runs; a built-in member stays on this machine', async () => {
    await t.core.invoke('workspaces.update', { workspaceId: t.ws.id, defaultRunner: container })
    const settings = await t.core.invoke('workspaces.settings', { workspaceId: t.ws.id })
    const [own, plain, loop] = [
      await create('Own', { provider: agent, runner: ssh }),
      await create('Plain', { provider: agent }),
      await create('Loop'),
    ]
    expect([own, plain, loop].map((m) => runnerText(effectiveRunner(m, settings)))).toEqual([
      'SSH host dev@runner1',
      'container docker.io/library/debian:bookworm',
      'this machine',
    ])
  })
})

describe('a runner goes where the member goes', () => {
  beforeEach(async () => {
    await create('Agent', { provider: agent, runner: ssh })
    await create('Plain', { provider: agent })
  })

  it('is in the JSON export only for a member that named one, and restored by import into another data folder', async () => {
    const file = (await t.core.invoke('export.decisionLog', { workspaceId: t.ws.id, format: 'json' })).files[0]!
    const doc = JSON.parse(readFileSync(file, 'utf8')) as { members: Record<string, unknown>[] }
    expect(doc.members.map((m) => [m.name, m.runner])).toEqual([
      ['Agent', ssh],
      ['Plain', undefined],
    ])
    const other = createCore({ dataDir: join(t.repoDir, '..', 'data2') })
    try {
      const w = await other.invoke('import.workspace', { path: file, repoPath: otherRepo('checkout') })
      expect(await listed(other, w.id)).toEqual([
        ['Agent', ssh],
        ['Plain', null],
      ])
      // The export has no agent command (machine-specific): the member is set up again, and keeps its runner.
      const [imported] = await other.invoke('members.list', { workspaceId: w.id })
      await other.invoke('members.update', { memberId: imported!.id, name: 'Agent 2' })
      const again = await other.invoke('members.update', { memberId: imported!.id, provider: agent })
      expect(again.runner).toEqual(ssh)
    } finally {
      await other.close()
    }
  })

  it('is copied with its team into another workspace', async () => {
    const b = await t.core.invoke('workspaces.open', { repoPath: otherRepo('repo-b'), isolation: 'shared' })
    await t.core.invoke('members.copyTeam', { workspaceId: b.id, fromWorkspaceId: t.ws.id })
    expect(await listed(t.core, b.id)).toEqual([
      ['Agent', ssh],
      ['Plain', null],
    ])
  })
})
