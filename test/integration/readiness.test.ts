/**
 * A task's readiness comes with the task (Task.readiness): what tasks.accept does with it, and a delivery offer only
 * on a report that still rests on the current decisions. Whatever moves it (a report, a decision edit, a delivery,
 * an acceptance) brings the task anew: a task.changed event, or the edit's impact, whose tasks a client refetches.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { EventEnvelope } from '../../shared/contract'
import type { Task, Workspace } from '../../shared/schemas'
import { initRepo, makeCore, type TestCore } from '../fixtures/core'

type Kind = Task['requiredReports'][number]

describe('Task.readiness', () => {
  let t: TestCore
  let ws: Workspace
  let head: string

  beforeEach(async () => {
    t = makeCore()
    head = initRepo(t.repoDir)
    ws = await t.core.invoke('workspaces.open', { repoPath: t.repoDir, isolation: 'shared' })
    await t.core.invoke('workspaces.update', { workspaceId: ws.id, autoTurns: false })
  })
  afterEach(async () => {
    await t.cleanup()
  })

  const member = (name: string, role: string) =>
    t.core.invoke('members.create', { workspaceId: ws.id, name, role, authority: 'proposer' })
  const readinessOf = async (taskId: string) => (await t.core.invoke('tasks.get', { taskId })).readiness
  /** The task.changed events for this task emitted since `from`. */
  const changes = (taskId: string, from: number) =>
    t.events
      .slice(from)
      .filter((e): e is EventEnvelope<'task.changed'> => e.event === 'task.changed' && e.payload.task.id === taskId)
      .map((e) => e.payload)

  it('offers no delivery on an implementation report a decision change left stale', async () => {
    const impl = await member('Impl', 'implementer')
    const d = await t.core.invoke('decisions.create', {
      workspaceId: ws.id,
      title: 'Search timeout',
      statement: 'Web search gives up after 5 s',
    })
    const task = await t.core.invoke('tasks.create', {
      workspaceId: ws.id,
      title: 'Web search tool',
      assigneeId: impl.id,
      decisionIds: [d.id],
      requiredReports: ['implementation'],
    })
    await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
    const r = await t.core.invoke('reports.submit', {
      taskId: task.id,
      authorId: impl.id,
      kind: 'implementation',
      verdict: 'pass',
      artifact: { commit: head },
      claims: [{ text: 'gives up after 5 s', decisionIds: [d.id] }],
    })
    expect(await readinessOf(task.id)).toEqual({
      ready: false,
      reasons: [],
      deliverOn: { commit: head, reportId: r.id, reportKey: r.key },
    })
    await t.core.invoke('decisions.update', {
      decisionId: d.id,
      expectedVersion: d.version,
      statement: 'Web search gives up after 10 s',
      reason: 'slow providers',
    })
    expect(await readinessOf(task.id)).toEqual({ ready: false, reasons: [], deliverOn: null })
  })

  it('a report on the task brings the task anew with its new readiness (task.changed, readinessOnly)', async () => {
    const impl = await member('Impl', 'implementer')
    const tess = await member('Tess', 'tester')
    const rev = await member('Rev', 'reviewer')
    const d = await t.core.invoke('decisions.create', { workspaceId: ws.id, title: 'Timeout', statement: '5 s' })
    const task = await t.core.invoke('tasks.create', {
      workspaceId: ws.id,
      title: 'Search',
      assigneeId: impl.id,
      decisionIds: [d.id],
    })
    await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
    const delivered = await t.core.invoke('tasks.setStatus', {
      taskId: task.id,
      status: 'delivered',
      artifact: { commit: head },
    })
    const before = await readinessOf(task.id)
    expect(before.reasons.map((r) => r.message)).toEqual(['T-1 has no test report', 'T-1 has no review report'])

    const at = t.events.length
    const report = (authorId: string, kind: Kind) =>
      t.core.invoke('reports.submit', {
        taskId: task.id,
        authorId,
        kind,
        verdict: 'pass',
        artifact: { commit: head },
        claims: [{ text: 'gives up after 5 s', decisionIds: [d.id] }],
      })
    await report(tess.id, 'test')
    const [first, ...more] = changes(task.id, at)
    expect(more).toEqual([])
    // The task itself did not move (same version): only what its readiness says did.
    expect(first).toMatchObject({ readinessOnly: true, task: { version: delivered.version, status: 'delivered' } })
    expect(first!.task.readiness).toEqual(await readinessOf(task.id))
    expect(first!.task.readiness.reasons.map((r) => r.message)).toEqual(['T-1 has no review report'])

    // A kind its readiness does not read moves nothing: no event.
    const mid = t.events.length
    await report(impl.id, 'implementation')
    expect(changes(task.id, mid)).toEqual([])

    const last = t.events.length
    await report(rev.id, 'review')
    expect(changes(task.id, last).map((c) => c.task.readiness)).toEqual([{ ready: true, reasons: [], deliverOn: null }])
    expect((await t.core.invoke('tasks.accept', { taskId: task.id })).status).toBe('accepted')
  })
})
