import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parseId } from '../../electron/main/harness/ids'
import type { Member, Step, Workspace } from '../../shared/schemas'
import { apiTask, editToGraphQL } from '../fixtures/harness'
import { type ModelServer } from '../fixtures/model-server'
import { takeTurn } from '../fixtures/sessions'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

let t: Team
let server: ModelServer
let ws: Workspace

beforeEach(async () => {
  t = await workspaceWithTeam({ git: false })
  ;({ server, ws } = t)
})
afterEach(() => t.cleanup())

const member = (workspaceId = ws.id): Promise<Member> =>
  t.member('Impl', { workspaceId, role: 'implementer', authority: 'decider' })

const turn = (m: Member, text: string): Promise<Step[]> => takeTurn(t.core, { memberId: m.id, text })

const pins = (s: Step | undefined) => s?.refs.map((r) => (r.version === undefined ? r.key : `${r.key} v${r.version}`))

describe('mentions are pinned when a step is stored', () => {
  it('keeps the version a message and a streamed reply were written against after the decision changes', async () => {
    const m = await member()
    const d = await t.core.invoke('decisions.create', {
      workspaceId: ws.id,
      title: 'Search',
      statement: 'Fail the whole search after 30 s',
    })
    const task = await t.core.invoke('tasks.create', { workspaceId: ws.id, title: 'Timeouts', decisionIds: [d.id] })
    server.enqueue({
      text: 'Against D-1 v1 the search fails after 30 s; T-1 covers it. `D-1` in code is not a mention.',
    })
    let steps = await turn(m, 'Check D-1 for T-1, and D-99 which does not exist')
    expect(steps.map((s) => s.kind)).toEqual(['user', 'model'])
    expect(pins(steps[0])).toEqual(['D-1 v1', 'T-1'])
    expect(pins(steps[1])).toEqual(['D-1 v1', 'T-1'])
    expect(steps[0]!.refs[0]).toEqual({ key: 'D-1', kind: 'decision', id: d.id, version: 1 })
    expect(steps[0]!.refs[1]).toEqual({ key: 'T-1', kind: 'task', id: task.id })

    await t.core.invoke('decisions.update', {
      decisionId: d.id,
      expectedVersion: 1,
      statement: 'Return partial results after 30 s',
      reason: 'users want something',
    })
    server.enqueue({ text: 'Now D-1 asks for partial results.' })
    steps = await turn(m, 'And D-1 now?')
    // The old steps still say what they were written against; the new ones pin v2.
    expect(steps.map(pins)).toEqual([['D-1 v1', 'T-1'], ['D-1 v1', 'T-1'], ['D-1 v2'], ['D-1 v2']])
  })

  it('pins a tool result by its final text', async () => {
    const m = await member()
    await t.core.invoke('decisions.create', {
      workspaceId: ws.id,
      title: 'Search',
      statement: 'Fail the whole search after 30 s',
    })
    server.enqueue({ toolCalls: [{ name: 'list_decisions', arguments: {} }] }, { text: 'Read them.' })
    const steps = await turn(m, 'Which decisions are there?')
    const tool = steps.find((s) => s.kind === 'tool')
    expect(tool?.text).toContain('D-1')
    expect(pins(tool)).toEqual(['D-1 v1'])
  })

  it("resolves keys in the step's own workspace only", async () => {
    const otherRepo = join(t.repoDir, '..', 'other')
    mkdirSync(otherRepo)
    const other = await t.core.invoke('workspaces.open', { repoPath: otherRepo })
    // The other workspace has D-1 at v2 and a D-2; this one has only D-1 at v1.
    const o1 = await t.core.invoke('decisions.create', {
      workspaceId: other.id,
      title: 'Other',
      statement: 'Other text',
    })
    await t.core.invoke('decisions.update', { decisionId: o1.id, expectedVersion: 1, statement: 'Other text, changed' })
    await t.core.invoke('decisions.create', { workspaceId: other.id, title: 'Other 2', statement: 'More' })
    const d = await t.core.invoke('decisions.create', { workspaceId: ws.id, title: 'Here', statement: 'Here text' })
    const m = await member()
    server.enqueue({ text: 'ok' })
    const steps = await turn(m, `See D-1 and D-2 (and ${o1.id})`)
    expect(steps[0]!.refs).toEqual([{ key: 'D-1', kind: 'decision', id: d.id, version: 1 }])
    expect(parseId(steps[0]!.refs[0]!.id, 'decision', 'id').workspaceId).toBe(ws.id)
  })

  it('pins a notice to the version it announces, not the one current when it is delivered', async () => {
    // The member's next turn is the one this test sends: Concord does not start one for it on the flag.
    await t.core.invoke('workspaces.update', { workspaceId: ws.id, autoTurns: false })
    const m = await member()
    const { d } = await apiTask(t.core, ws.id, m)
    await editToGraphQL(t.core, d)
    // An editorial fix lands before the member's next turn: the decision is at v3, the notice still says v2.
    await t.core.invoke('decisions.update', {
      decisionId: d.id,
      expectedVersion: 2,
      statement: 'Use GraphQL.',
      editorial: true,
    })
    server.enqueue({ text: 'Adjusting.' })
    const steps = await turn(m, 'Go on')
    const notice = steps.find((s) => s.kind === 'notice')
    expect(notice?.text).toContain('D-1 "API" changed (now v2)')
    expect(pins(notice)).toEqual(['D-1 v2', 'T-1'])
    expect(pins(steps.find((s) => s.kind === 'user'))).toEqual([])
  })

  it('gives no pins to a step stored without them (as every step before schema v7)', async () => {
    const m = await member()
    await t.core.invoke('decisions.create', {
      workspaceId: ws.id,
      title: 'Search',
      statement: 'Fail the whole search after 30 s',
    })
    const store = t.core.harness.ctx(ws.id).store
    const memberRow = parseId(m.id, 'member', 'id').n
    store.steps.insert({
      member_id: memberRow,
      kind: 'notice',
      status: 'done',
      text: 'About D-1',
      refs: null,
      started_at: new Date().toISOString(),
    })
    const steps = (await t.core.invoke('sessions.get', { memberId: m.id })).steps
    expect(steps.map((s) => [s.text, s.refs])).toEqual([['About D-1', []]])
  })
})
