/**
 * One member's session read per task (issue 31, "one member's session mixes every task"): sessions.get with a taskId
 * gives the turns on that task only — the message, the model's steps, its tool calls — paged like the whole session.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Member, Task } from '../../shared/schemas'
import { rejectsWith } from '../fixtures/core'
import { takeTurn } from '../fixtures/sessions'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

let t: Team
let m: Member
let t1: Task
let t2: Task

beforeEach(async () => {
  t = await workspaceWithTeam()
  m = await t.member('Impl', { role: 'implementer' })
  t1 = await t.core.invoke('tasks.create', { workspaceId: t.ws.id, title: 'Search', assigneeId: m.id })
  t2 = await t.core.invoke('tasks.create', { workspaceId: t.ws.id, title: 'Export', assigneeId: m.id })
})
afterEach(() => t.cleanup())

describe('a session read per task', () => {
  it("gives the turns of T-2 only, paged, and not another task's or an unbound message's", async () => {
    t.server.enqueue({ text: 'On search.' })
    await takeTurn(t.core, { memberId: m.id, text: 'Start T-1', taskId: t1.id })
    t.server.enqueue({ toolCalls: [{ name: 'read_brief', arguments: {} }] }, { text: 'On export.' })
    await takeTurn(t.core, { memberId: m.id, text: 'Start T-2', taskId: t2.id })
    t.server.enqueue({ text: 'Hello.' })
    await takeTurn(t.core, { memberId: m.id, text: 'How are you?' })
    t.server.enqueue({ text: 'Export done.' })
    await takeTurn(t.core, { memberId: m.id, text: 'Finish T-2', taskId: t2.id })

    const all = await t.core.invoke('sessions.get', { memberId: m.id })
    expect(all.steps.filter((s) => s.kind === 'user')).toHaveLength(4)

    const page = await t.core.invoke('sessions.get', { memberId: m.id, taskId: t2.id })
    expect(page.steps.map((s) => [s.kind, s.text])).toEqual([
      ['user', 'Start T-2'],
      ['model', ''],
      ['tool', expect.any(String)],
      ['model', 'On export.'],
      ['user', 'Finish T-2'],
      ['model', 'Export done.'],
    ])
    expect(page.steps.every((s) => s.taskId === t2.id)).toBe(true)
    expect(page).toMatchObject({ memberId: m.id, state: 'idle', hasMore: false })

    // Paged like the whole session: the newest first, then older ones before the first seq.
    const newest = await t.core.invoke('sessions.get', { memberId: m.id, taskId: t2.id, limit: 2 })
    expect(newest.steps.map((s) => s.text)).toEqual(['Finish T-2', 'Export done.'])
    expect(newest.hasMore).toBe(true)
    const older = await t.core.invoke('sessions.get', {
      memberId: m.id,
      taskId: t2.id,
      before: newest.steps[0]!.seq,
      limit: 100,
    })
    expect(older.steps.map((s) => s.kind)).toEqual(['user', 'model', 'tool', 'model'])
    expect(older.hasMore).toBe(false)

    const first = await t.core.invoke('sessions.get', { memberId: m.id, taskId: t1.id })
    expect(first.steps.map((s) => s.text)).toEqual(['Start T-1', 'On search.'])
  })

  it('refuses a task that does not exist or is of another workspace', async () => {
    await rejectsWith(t.core.invoke('sessions.get', { memberId: m.id, taskId: `${t.ws.id}-t99` }), 'not_found')
    await rejectsWith(t.core.invoke('sessions.get', { memberId: m.id, taskId: 'wffffffff-t1' }), 'not_found')
  })
})
