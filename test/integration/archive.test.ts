import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Member, Workspace } from '../../shared/schemas'
import { rejectsWith } from '../fixtures/core'
import { sessionState } from '../fixtures/sessions'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'
import { type ModelServer } from '../fixtures/model-server'

let t: Team
let server: ModelServer
let ws: Workspace

beforeEach(async () => {
  t = await workspaceWithTeam({ core: { provider: { maxRetries: 0 } } })
  ;({ server, ws } = t)
})
afterEach(() => t.cleanup())

const member = (name: string, extra?: Record<string, unknown>): Promise<Member> => t.member(name, extra)

const ids = (xs: { id: string }[]) => xs.map((x) => x.id)

describe('archive and restore', () => {
  it('hides an archived task and member from lists and pages, keeps them in the store and the export, and restores them', async () => {
    const impl = await member('Impl')
    const other = await member('Other')
    const d = await t.core.invoke('decisions.create', { workspaceId: ws.id, title: 'API', statement: 'REST' })
    const t1 = await t.core.invoke('tasks.create', {
      workspaceId: ws.id,
      title: 'Keep',
      assigneeId: impl.id,
      decisionIds: [d.id],
    })
    const t2 = await t.core.invoke('tasks.create', {
      workspaceId: ws.id,
      title: 'Old idea',
      assigneeId: impl.id,
      decisionIds: [d.id],
    })

    const archived = await t.core.invoke('tasks.archive', { taskId: t2.id })
    expect(archived.archivedAt).toEqual(expect.any(String))
    expect(
      t.events.some((e) => e.event === 'task.changed' && e.payload.task.id === t2.id && e.payload.task.archivedAt),
    ).toBe(true)
    expect(ids(await t.core.invoke('tasks.list', { workspaceId: ws.id }))).toEqual([t1.id])
    expect(ids(await t.core.invoke('tasks.list', { workspaceId: ws.id, assigneeId: impl.id }))).toEqual([t1.id])
    // Kept: get still answers, and the archived view lists it.
    expect((await t.core.invoke('tasks.get', { taskId: t2.id })).title).toBe('Old idea')

    await t.core.invoke('members.archive', { memberId: other.id })
    expect(ids(await t.core.invoke('members.list', { workspaceId: ws.id }))).toEqual([impl.id])
    expect((await t.core.invoke('sessions.list', { workspaceId: ws.id })).map((s) => s.memberId)).toEqual([impl.id])
    const items = await t.core.invoke('archive.list', { workspaceId: ws.id })
    expect(ids(items.members)).toEqual([other.id])
    expect(ids(items.tasks)).toEqual([t2.id])
    // An archived member takes no messages (nobody would see its session).
    await rejectsWith(t.core.invoke('sessions.send', { memberId: other.id, text: 'hello?' }), 'invalid_transition')

    const out = await t.core.invoke('export.decisionLog', {
      workspaceId: ws.id,
      format: 'json',
      outDir: join(t.repoDir, 'out'),
    })
    const doc = JSON.parse(
      readFileSync(
        out.files.find((f) => f.endsWith('.json'))!,
        'utf8',
      ),
    ) as { members: { name: string; archivedAt?: string }[]; tasks: { title: string; archivedAt?: string }[] }
    expect(doc.tasks.map((x) => [x.title, Boolean(x.archivedAt)])).toEqual([
      ['Keep', false],
      ['Old idea', true],
    ])
    expect(doc.members.map((x) => [x.name, Boolean(x.archivedAt)])).toEqual([
      ['Impl', false],
      ['Other', true],
    ])

    const restored = await t.core.invoke('tasks.restore', { taskId: t2.id })
    expect(restored.archivedAt).toBeNull()
    await t.core.invoke('members.restore', { memberId: other.id })
    expect(ids(await t.core.invoke('tasks.list', { workspaceId: ws.id }))).toEqual([t1.id, t2.id])
    expect(ids(await t.core.invoke('members.list', { workspaceId: ws.id }))).toEqual([impl.id, other.id])
    expect(await t.core.invoke('archive.list', { workspaceId: ws.id })).toEqual({ members: [], tasks: [] })
  })

  it('round-trips the archived mark through export and import', async () => {
    const m = await member('Gone')
    const task = await t.core.invoke('tasks.create', { workspaceId: ws.id, title: 'Shelved' })
    await t.core.invoke('tasks.archive', { taskId: task.id })
    await t.core.invoke('members.archive', { memberId: m.id })
    const out = await t.core.invoke('export.decisionLog', {
      workspaceId: ws.id,
      format: 'json',
      outDir: join(t.repoDir, 'out'),
    })
    const file = out.files.find((f) => f.endsWith('.json'))!
    const copy = join(t.dataDir, '..', 'copy')
    const { mkdirSync } = await import('node:fs')
    mkdirSync(copy)
    const imported = await t.core.invoke('import.workspace', { path: file, repoPath: copy })
    expect(await t.core.invoke('tasks.list', { workspaceId: imported.id })).toEqual([])
    expect(await t.core.invoke('members.list', { workspaceId: imported.id })).toEqual([])
    const items = await t.core.invoke('archive.list', { workspaceId: imported.id })
    expect(items.tasks.map((x) => x.title)).toEqual(['Shelved'])
    expect(items.members.map((x) => x.name)).toEqual(['Gone'])
  })

  it('refuses to archive a member with running work (member_busy) until it is idle', async () => {
    const m = await member('Busy')
    // The model holds its reply open: the turn is running while we try.
    server.enqueue({ text: 'partial', hang: true })
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'work' })
    await server.waitForRequests(1)
    const busy = await rejectsWith(t.core.invoke('members.archive', { memberId: m.id }), 'member_busy')
    expect(busy.message).toMatch(/Busy cannot be archived while it works \(a turn is running\)/)
    // The workspace cannot go either while a member works.
    await rejectsWith(t.core.invoke('workspaces.archive', { workspaceId: ws.id }), 'member_busy')
    // Stopped, the member is idle and can go.
    const stopped = sessionState(t.core, m.id, 'idle', { queued: 'any' })
    await t.core.invoke('sessions.interrupt', { memberId: m.id })
    await stopped
    expect((await t.core.invoke('members.archive', { memberId: m.id })).archivedAt).toEqual(expect.any(String))
  })

  it('refuses a member with messages queued that no turn has picked up yet (what the store sees)', async () => {
    const m = await member('Queued')
    const { store } = t.core.harness.ctx(ws.id)
    // A message written to the inbox, as a crash between queueing and the turn would leave it.
    store.steps.insert({
      member_id: Number(/m(\d+)$/.exec(m.id)![1]),
      kind: 'user',
      status: 'queued',
      text: 'pending',
      started_at: new Date().toISOString(),
    })
    const e = await rejectsWith(t.core.invoke('members.archive', { memberId: m.id }), 'member_busy')
    expect(e.message).toMatch(/1 message is queued/)
  })

  it('lets only deciders (and the human) archive and restore', async () => {
    const proposer = await member('Prop', { authority: 'proposer' })
    const observer = await member('Obs', { authority: 'observer' })
    const decider = await member('Lead', { authority: 'decider' })
    const task = await t.core.invoke('tasks.create', { workspaceId: ws.id, title: 'T', assigneeId: proposer.id })
    await rejectsWith(t.core.invoke('tasks.archive', { taskId: task.id, actorId: proposer.id }), 'forbidden')
    await rejectsWith(t.core.invoke('members.archive', { memberId: observer.id, actorId: observer.id }), 'forbidden')
    await rejectsWith(t.core.invoke('members.archive', { memberId: proposer.id, actorId: proposer.id }), 'forbidden')
    await t.core.invoke('tasks.archive', { taskId: task.id, actorId: decider.id })
    await rejectsWith(t.core.invoke('tasks.restore', { taskId: task.id, actorId: proposer.id }), 'forbidden')
    await t.core.invoke('tasks.restore', { taskId: task.id, actorId: decider.id })
    await t.core.invoke('members.archive', { memberId: observer.id, actorId: decider.id })
    await t.core.invoke('members.restore', { memberId: observer.id })
  })

  it('archives and restores a workspace: out of workspaces.list, its file and rows kept', async () => {
    await t.core.invoke('decisions.create', { workspaceId: ws.id, title: 'API', statement: 'REST' })
    const w = await t.core.invoke('workspaces.archive', { workspaceId: ws.id })
    expect(w.archivedAt).toEqual(expect.any(String))
    expect(await t.core.invoke('workspaces.list', {})).toEqual([])
    expect((await t.core.invoke('workspaces.archived', {})).map((x) => x.id)).toEqual([ws.id])
    expect((await t.core.invoke('decisions.list', { workspaceId: ws.id })).map((x) => x.title)).toEqual(['API'])
    await t.core.invoke('workspaces.restore', { workspaceId: ws.id })
    expect((await t.core.invoke('workspaces.list', {})).map((x) => x.id)).toEqual([ws.id])
    expect(await t.core.invoke('workspaces.archived', {})).toEqual([])
    // Opening its folder again brings an archived workspace back too.
    await t.core.invoke('workspaces.archive', { workspaceId: ws.id })
    expect((await t.core.invoke('workspaces.open', { repoPath: t.repoDir })).archivedAt).toBeNull()
    expect((await t.core.invoke('workspaces.list', {})).map((x) => x.id)).toEqual([ws.id])
  })
})
