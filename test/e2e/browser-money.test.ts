/**
 * Money on screen (issue 35): the Figures tab shows the cost per member and for the workspace (priced from the
 * workspace's table; a model with no price "not reported"), each task's card its cost, and a spent budget says that
 * automatic turns are paused and why; raised from the tab, it says so no more.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { initRepo } from '../fixtures/core'
import { startModelServer, type ModelServer } from '../fixtures/model-server'
import { takeTurn } from '../fixtures/sessions'
import { browserSession, screenshot } from './support'

const ui = browserSession()
let models: ModelServer
beforeAll(async () => {
  models = await startModelServer()
})
afterAll(async () => models.close())

describe('browser UI: money', () => {
  it('cost per member, workspace and task; a spent budget pauses automatic turns and says so', async () => {
    const core = ui.stack.core
    initRepo(ui.stack.repoDir)
    const ws = await core.invoke('workspaces.open', { repoPath: ui.stack.repoDir, name: 'money', isolation: 'shared' })
    const provider = (model: string) => ({ kind: 'openai' as const, model, baseURL: models.openaiBaseURL, apiKey: 'k' })
    const impl = await core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Impl',
      role: 'implementer',
      provider: provider('gpt-test'),
      approval: 'auto',
    })
    const local = await core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Local',
      role: 'reviewer',
      provider: provider('my-local-model'),
      approval: 'auto',
    })
    const task = await core.invoke('tasks.create', {
      workspaceId: ws.id,
      title: 'Web search tool',
      assigneeId: impl.id,
    })
    await core.invoke('workspaces.update', {
      workspaceId: ws.id,
      prices: { 'gpt-test': { input: 3, output: 15 } },
      budget: 0.005,
    })
    models.enqueue({ text: 'Done.', usage: { input: 1000, output: 200 } })
    await takeTurn(core, { memberId: impl.id, text: 'Do T-1', taskId: task.id })
    models.enqueue({ text: 'Looks fine.', usage: { input: 500, output: 50 } })
    await takeTurn(core, { memberId: local.id, text: 'Review' })

    const page = ui.page
    await page.goto(ui.stack.url)
    await page.getByTestId('tab-figures').click()
    const memberCost = (name: string) => page.locator(`[data-testid=member-cost][data-member="${name}"] td`).last()
    await expect.poll(() => memberCost('Impl').textContent()).toBe('$0.006')
    expect(await memberCost('Local').textContent()).toBe('not reported')
    expect(await page.getByTestId('cost-total').textContent()).toBe('$0.006 + 550 tokens not reported in total')
    expect(await page.getByTestId('budget-state').textContent()).toMatch(
      /^Budget \$0\.005 reached \(\$0\.006 spent\): automatic turns are paused\. Your own messages still go through/,
    )
    // What it cannot count is said, not taken as $0.
    expect(await page.getByTestId('budget-state').textContent()).toContain(
      'Not counted against it: 550 tokens with no price.',
    )
    await page.getByTestId('price-table').locator('summary').click()
    await page.getByTestId('cost-figures').scrollIntoViewIfNeeded()
    await screenshot(page, 'money-01-figures-1440')

    // The price of the local model, added in the table: its member's cost is priced from now on.
    await page.getByTestId('price-add').click()
    await page.getByTestId('price-model').last().fill('my-local-model')
    await page.getByTestId('price-input').last().fill('1')
    await page.getByTestId('price-output').last().fill('2')
    await page.getByTestId('price-save').click()
    await expect.poll(() => memberCost('Local').textContent()).toBe('$0.0006')

    // Raised, the budget is not reached any more.
    await page.getByTestId('budget-input').fill('10')
    await page.getByTestId('budget-save').click()
    await expect.poll(() => page.getByTestId('budget-state').textContent()).toBe('Budget $10.00: $0.0066 spent.')
    expect((await core.invoke('workspaces.settings', { workspaceId: ws.id })).budget).toBe(10)

    // The task's card says what its turns cost.
    await page.getByTestId('tab-tasks').click()
    const card = page.locator('[data-testid=task-card][data-key="T-1"]')
    await expect.poll(() => card.getByTestId('task-cost').textContent()).toBe('cost $0.006')
    await screenshot(page, 'money-02-task-card-1440')
    expect(ui.errors).toEqual([])
  }, 120_000)
})
