/**
 * tasks.readiness is the card's one answer: what acceptance would say now, and a delivery offer only on a
 * report that still rests on the current decisions.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Workspace } from '../../shared/schemas'
import { initRepo, makeCore, type TestCore } from '../fixtures/core'

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

describe('tasks.readiness', () => {
  it('offers no delivery on an implementation report a decision change left stale', async () => {
    const impl = await t.core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Impl',
      role: 'implementer',
      authority: 'proposer',
    })
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
    expect((await t.core.invoke('tasks.readiness', { taskId: task.id })).deliverOn).toEqual({
      commit: head,
      reportId: r.id,
      reportKey: r.key,
    })
    await t.core.invoke('decisions.update', {
      decisionId: d.id,
      expectedVersion: d.version,
      statement: 'Web search gives up after 10 s',
      reason: 'slow providers',
    })
    const after = await t.core.invoke('tasks.readiness', { taskId: task.id })
    expect(after.deliverOn).toBeNull()
    // The same answer says why: the report behind the offer is stale.
    expect(after.reasons.map((x) => x.code)).toContain('evidence_stale')
  })
})
