/**
 * Money (issue 35): cost per member, task and workspace on a real SQLite file — a built-in member's tokens priced
 * from the workspace's editable table (a model with no price is "not reported", never $0), an ACP agent's reported
 * cost (usage_update, cumulative per session) recorded per turn; a workspace budget that, once spent, pauses
 * automatic turns while the human's own messages still go through.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { Cost, Member } from '../../shared/schemas'
import { parseId } from '../../electron/main/harness/ids'
import { execFileSync } from 'node:child_process'
import { deliverTask, editForSlowProviders, passingReport, searchTask, searchTimeout } from '../fixtures/harness'
import { scriptedProvider } from '../fixtures/scripted-agent'
import { sessionState, takeTurn } from '../fixtures/sessions'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

let t: Team
beforeEach(async () => {
  t = await workspaceWithTeam()
})
afterEach(() => t.cleanup())

const metrics = () => t.core.invoke('metrics.get', { workspaceId: t.ws.id })
const costOf = async (m: Member): Promise<Cost | undefined> =>
  (await metrics()).cost.perMember.find((c) => c.memberId === m.id)?.cost
const usd = (amount: number) => ({ amounts: [{ currency: 'USD', amount }], unpricedTokens: 0, unpricedSteps: 0 })

describe('money', () => {
  it("prices a built-in member's tokens from the workspace's table: per member, task and workspace", async () => {
    const m = await t.member('Impl')
    const task = await t.core.invoke('tasks.create', { workspaceId: t.ws.id, title: 'Search', assigneeId: m.id })
    t.server.enqueue({ text: 'Done.', usage: { input: 1000, output: 200 } })
    await takeTurn(t.core, { memberId: m.id, text: 'Do T-1', taskId: task.id })

    // gpt-test has no price: its cost is not reported, never $0.
    expect(await costOf(m)).toEqual({ amounts: [], unpricedTokens: 1200, unpricedSteps: 1 })
    const settings = await t.core.invoke('workspaces.settings', { workspaceId: t.ws.id })
    expect(settings.prices['claude-sonnet-4-5']).toEqual({ input: 3, output: 15 })
    expect(settings.prices['gpt-test']).toBeUndefined()

    // Priced: 1000 × $3 + 200 × $15 per million = $0.006, and editing the price re-prices the history.
    await t.core.invoke('workspaces.update', {
      workspaceId: t.ws.id,
      prices: { ...settings.prices, 'gpt-test': { input: 3, output: 15 } },
    })
    expect(await costOf(m)).toEqual(usd(0.006))
    const figures = await metrics()
    expect(figures.cost.perTask).toEqual([{ taskId: task.id, key: 'T-1', title: 'Search', cost: usd(0.006) }])
    expect(figures.cost.total).toEqual(usd(0.006))

    // A dated model name takes its family's price.
    await t.core.invoke('workspaces.update', {
      workspaceId: t.ws.id,
      prices: { gpt: { input: 1, output: 1 }, 'gpt-test': { input: 1, output: 1 } },
    })
    expect(await costOf(m)).toEqual(usd(0.0012))
  })

  it("records an ACP agent's reported cost per turn: the session's total grew by the turn's cost", async () => {
    const agent = await t.core.invoke('members.create', {
      workspaceId: t.ws.id,
      name: 'Agent',
      role: 'implementer',
      approval: 'auto',
      provider: scriptedProvider({
        turns: [
          [{ say: 'first' }, { cost: { amount: 0.25, currency: 'USD' } }],
          [{ say: 'second' }, { cost: { amount: 0.4, currency: 'USD' } }],
        ],
      }),
    })
    expect(await costOf(agent)).toBeUndefined()
    await takeTurn(t.core, { memberId: agent.id, text: 'one' }, { timeoutMs: 30_000 })
    expect(await costOf(agent)).toEqual(usd(0.25))
    await takeTurn(t.core, { memberId: agent.id, text: 'two' }, { timeoutMs: 30_000 })
    expect(await costOf(agent)).toEqual(usd(0.4))
    // Each turn's model step carries its own part.
    const { db } = t.core.harness.ctx(t.ws.id).store
    expect(db.prepare('SELECT cost_micros FROM steps WHERE cost_micros IS NOT NULL ORDER BY id').pluck().all()).toEqual(
      [250_000, 150_000],
    )
  })

  it('a reported cost wins over the price table for its step', async () => {
    const m = await t.member('Impl')
    t.server.enqueue({ text: 'Done.', usage: { input: 1000, output: 200 } })
    await takeTurn(t.core, { memberId: m.id, text: 'go' })
    await t.core.invoke('workspaces.update', { workspaceId: t.ws.id, prices: { 'gpt-test': { input: 3, output: 15 } } })
    const store = t.core.harness.ctx(t.ws.id).store
    const model = (await t.core.invoke('sessions.get', { memberId: m.id })).steps.find((s) => s.kind === 'model')!
    store.cost.addStepCost(parseId(model.id, 'step', 'stepId').n, 1_000_000, 'USD')
    expect(await costOf(m)).toEqual(usd(1))
  })
})

describe('the workspace budget', () => {
  /** A budget of $1 and an implementer on a task of D-1; its first turn will cost $1.20 at these prices. */
  async function budgetedImplementer() {
    await t.core.invoke('workspaces.update', {
      workspaceId: t.ws.id,
      autoChecks: false,
      startAgentOnTaskStart: false,
      prices: { 'gpt-test': { input: 1000, output: 1000 } },
      budget: 1,
    })
    const impl = await t.member('Impl', { role: 'implementer' })
    const { d } = await searchTask(t.core, t.ws.id, impl)
    const auto = async () =>
      (await t.core.invoke('sessions.get', { memberId: impl.id })).steps.filter((s) => s.origin === 'concord')
    return { impl, d, auto }
  }

  it('once spent, pauses automatic turns and says so; the human can still message', async () => {
    const { impl, d, auto } = await budgetedImplementer()
    // $1.20 spent: the budget of $1 is reached.
    t.server.enqueue({ text: 'Started.', usage: { input: 1000, output: 200 } })
    await takeTurn(t.core, { memberId: impl.id, text: 'start' })
    const { budget } = (await metrics()).cost
    expect(budget).toEqual({ amount: 1, spent: 1.2, reached: true, held: 0 })

    // A change that would wake the flagged assignee starts no turn while the budget is spent, and the figures say so.
    await editForSlowProviders(t.core, d)
    await vi.waitFor(async () => expect((await metrics()).cost.budget?.held).toBe(1), { timeout: 15_000 })
    expect(await auto()).toEqual([])
    expect((await metrics()).autoTurns ?? 0).toBe(0)
    // The human's own message still goes through.
    t.server.enqueue({ text: 'Still here.', usage: { input: 1, output: 1 } })
    const steps = await takeTurn(t.core, { memberId: impl.id, text: 'anything?' })
    expect(steps.at(-1)).toMatchObject({ kind: 'model', text: 'Still here.' })
    expect(await auto()).toEqual([])

    // Raised, the next change wakes the member again.
    await t.core.invoke('workspaces.update', { workspaceId: t.ws.id, budget: 100 })
    t.server.enqueue({ text: 'Adjusted.', usage: { input: 1, output: 1 } })
    const idle = sessionState(t.core, impl.id, 'running', { queued: 'any', timeoutMs: 15_000 })
    await editForSlowProviders(t.core, { id: d.id, version: d.version + 1 }, 'Web search gives up after 20 s')
    await idle
    expect(await auto()).toHaveLength(1)
  })

  it('raised, the automatic turns it held start at once, without a further change', async () => {
    const { impl, d, auto } = await budgetedImplementer()
    t.server.enqueue({ text: 'Started.', usage: { input: 1000, output: 200 } })
    await takeTurn(t.core, { memberId: impl.id, text: 'start' })
    await editForSlowProviders(t.core, d)
    await vi.waitFor(async () => expect((await metrics()).cost.budget?.held).toBe(1), { timeout: 15_000 })
    expect(await auto()).toEqual([])

    // Saving another setting while the budget is still spent starts nothing.
    await t.core.invoke('workspaces.update', { workspaceId: t.ws.id, autoDeliver: false })
    t.server.enqueue({ text: 'Adjusted.', usage: { input: 1, output: 1 } })
    const ran = sessionState(t.core, impl.id, 'running', { queued: 'any', timeoutMs: 15_000 })
    await t.core.invoke('workspaces.update', { workspaceId: t.ws.id, budget: 100 })
    await ran
    await vi.waitFor(async () => expect(await auto()).toHaveLength(1), { timeout: 15_000 })
    expect((await auto())[0]!.text).toContain('D-1')
  })

  it('an automatic turn already queued when the budget is reached waits too, behind the human, until it is raised', async () => {
    await t.core.invoke('workspaces.update', {
      workspaceId: t.ws.id,
      autoChecks: false,
      prices: { 'gpt-test': { input: 1000, output: 1000 } },
      budget: 1,
    })
    const tess = await t.member('Tess', { role: 'tester' })
    const d = await searchTimeout(t.core, t.ws.id)
    const task = await t.core.invoke('tasks.create', {
      workspaceId: t.ws.id,
      title: 'Web search tool',
      decisionIds: [d.id],
      requiredReports: ['test'],
    })
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: t.repoDir, encoding: 'utf8' }).trim()
    await deliverTask(t.core, task, head)
    await passingReport(t.core, task, tess, 'test', head, [{ text: 'gives up after 5 s', decisionIds: [d.id] }])
    const auto = async () =>
      (await t.core.invoke('sessions.get', { memberId: tess.id })).steps.filter((s) => s.origin === 'concord')

    // Tess is in a turn that will spend the budget ($1.20), slow enough that the edit's turn for her queues behind it.
    t.server.enqueue({
      text: 'working on it '.repeat(40),
      chunkSize: 8,
      chunkDelayMs: 40,
      usage: { input: 1000, output: 200 },
    })
    const running = sessionState(t.core, tess.id, 'running', { queued: 'any' })
    await t.core.invoke('sessions.send', { memberId: tess.id, text: 'Check the search task.' })
    await running
    const idle = sessionState(t.core, tess.id, 'idle', { queued: 1, timeoutMs: 20_000 })
    await editForSlowProviders(t.core, d)
    await vi.waitFor(async () => expect(await auto()).toHaveLength(1), { timeout: 15_000 })
    expect((await metrics()).cost.budget?.reached).toBe(false)

    // Her turn ends with the budget spent: the queued turn stays queued, held, and no request is made for it.
    await idle
    await vi.waitFor(async () => expect((await metrics()).cost.budget).toMatchObject({ reached: true, held: 1 }))
    const asked = t.server.requests.length
    expect((await auto())[0]!.status).toBe('queued')
    // The human's message goes through ahead of it.
    t.server.enqueue({ text: 'Still here.', usage: { input: 1, output: 1 } })
    const steps = await takeTurn(t.core, { memberId: tess.id, text: 'anything?' }, { queued: 1 })
    expect(steps.at(-1)).toMatchObject({ kind: 'model', text: 'Still here.' })
    expect(t.server.requests.length).toBe(asked + 1)
    expect((await auto())[0]!.status).toBe('queued')
    expect((await metrics()).cost.budget?.held).toBe(1)

    // Raised: the held turn runs, without a further change.
    t.server.enqueue({ text: 'Re-verifying.', usage: { input: 1, output: 1 } })
    await t.core.invoke('workspaces.update', { workspaceId: t.ws.id, budget: 100 })
    await vi.waitFor(async () => expect((await auto())[0]!.status).toBe('done'), { timeout: 15_000 })
    expect((await auto())[0]!.text).toContain('T-1')
  })
})

describe('the price table', () => {
  it('is not saved with the other settings until the user edits it (a later list of defaults still applies)', async () => {
    await t.core.invoke('workspaces.update', { workspaceId: t.ws.id, autoChecks: false })
    const ctx = t.core.harness.ctx(t.ws.id)
    expect(ctx.store.settings.get()).not.toHaveProperty('prices')
    const table = { 'gpt-test': { input: 2, output: 4 } }
    await t.core.invoke('workspaces.update', { workspaceId: t.ws.id, prices: table })
    await t.core.invoke('workspaces.update', { workspaceId: t.ws.id, autoChecks: true })
    expect(ctx.store.settings.get().prices).toEqual(table)
    expect((await t.core.invoke('workspaces.settings', { workspaceId: t.ws.id })).prices).toEqual(table)
  })
})
