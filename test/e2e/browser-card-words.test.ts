/**
 * Issue 22 in the real UI: the task card says one thing (its reasons and "Ready to accept" from Task.readiness),
 * mentions in an old message carry no second version or status, archiving offers Undo, and the layout at 760 px.
 * Screenshots at 1440, 1024 and 760 px.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { initRepo, waitForEvent } from '../fixtures/core'
import { startModelServer, type ModelServer } from '../fixtures/model-server'
import { browserSession, newPage, screenshot } from './support'

const ui = browserSession()
let models: ModelServer
beforeAll(async () => {
  models = await startModelServer({
    unscripted: () => ({ text: 'R-1 is based on D-1 v1. T-1 was delivered on the first commit.' }),
  })
})
afterAll(async () => models.close())

describe('browser UI: one answer on the card, plain words, undo', () => {
  it('shows readiness alone, undecorated mentions, Undo after archiving, and fits at 760 px', async () => {
    const core = ui.stack.core
    const head = initRepo(ui.stack.repoDir)
    const ws = await core.invoke('workspaces.open', { repoPath: ui.stack.repoDir, name: 'words', isolation: 'shared' })
    // The card's refusal of a missing test is what this reads: no check is asked for on delivery (autoChecks).
    await core.invoke('workspaces.update', { workspaceId: ws.id, autoTurns: false, autoChecks: false })
    const provider = { kind: 'openai' as const, model: 'gpt-test', baseURL: models.openaiBaseURL, apiKey: 'sk-test' }
    const impl = await core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Impl',
      role: 'implementer',
      provider,
      approval: 'auto',
      authority: 'proposer',
    })
    const tess = await core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Tess',
      role: 'tester',
      provider,
      approval: 'auto',
      authority: 'proposer',
    })
    const d1 = await core.invoke('decisions.create', {
      workspaceId: ws.id,
      title: 'Search timeout',
      statement: 'Web search gives up after 5 s.',
    })
    const t1 = await core.invoke('tasks.create', {
      workspaceId: ws.id,
      title: 'Web search tool',
      assigneeId: impl.id,
      decisionIds: [d1.id],
      requiredReports: ['test'],
    })
    await core.invoke('tasks.setStatus', { taskId: t1.id, status: 'in_progress' })
    await core.invoke('tasks.setStatus', { taskId: t1.id, status: 'delivered', artifact: { commit: head } })
    const t2 = await core.invoke('tasks.create', { workspaceId: ws.id, title: 'Search results page' })
    // An old message naming a version, and then the decision moves on.
    const done = waitForEvent<{ session: { memberId: string; state: string; queued: number } }>(
      core,
      (e) =>
        e.event === 'session.state' &&
        (e.payload as { session: { memberId: string; state: string } }).session.memberId === impl.id &&
        (e.payload as { session: { state: string } }).session.state === 'idle',
      20_000,
    )
    await core.invoke('sessions.send', { memberId: impl.id, text: 'Where does T-1 stand against D-1 v1?' })
    await done
    await core.invoke('decisions.update', {
      decisionId: d1.id,
      expectedVersion: 1,
      statement: 'Web search gives up after 10 s.',
      reason: 'slow providers.',
    })

    const page = ui.page
    await page.goto(ui.stack.url)
    await page.getByTestId('member-item').filter({ hasText: 'Impl' }).click()
    const reply = page.locator('[data-kind=model]').last()
    await reply.locator('[data-ref="D-1"]').waitFor()
    const text = await reply.locator('.md').textContent()
    expect(text).not.toMatch(/v1\s*v1/)
    expect(text).toContain('T-1 was delivered')
    await screenshot(page, 'words-01-mentions-1440')

    // ---- the card: the reasons from readiness, without clicking Accept; then Ready to accept alone ----
    await page.getByTestId('tab-tasks').click()
    const card = page.locator('[data-testid=task-card][data-key="T-1"]')
    await card.getByTestId('refusal').waitFor()
    expect(await card.getByTestId('refusal').textContent()).toContain('T-1 has no test report')
    await card.getByTestId('accept-task').click()
    await card.getByTestId('refusal').waitFor()
    await screenshot(page, 'words-02-not-ready-1440')
    const v2 = await core.invoke('decisions.get', { decisionId: d1.id })
    await core.invoke('reports.submit', {
      taskId: t1.id,
      authorId: tess.id,
      kind: 'test',
      verdict: 'pass',
      artifact: { commit: head },
      basis: [{ decisionId: d1.id, version: v2.version }],
      claims: [{ text: 'gives up after 10 s', decisionIds: [d1.id] }],
    })
    await card.getByTestId('ready-to-accept').waitFor()
    await card.getByTestId('refusal').waitFor({ state: 'detached' })
    expect(await card.textContent()).not.toContain('cannot be accepted')
    await screenshot(page, 'words-03-ready-1440')

    // ---- archive, then Undo ----
    const card2 = page.locator('[data-testid=task-card][data-key="T-2"]')
    await card2.getByTestId('archive-task').click()
    await page.getByTestId('archive-undo').waitFor()
    await card2.waitFor({ state: 'detached' })
    expect(await page.getByTestId('archive-undo').textContent()).toContain('T-2 Search results page archived.')
    await screenshot(page, 'words-04-archive-undo-1440')
    await page.getByTestId('archive-undo-button').click()
    await card2.waitFor()
    expect((await core.invoke('tasks.get', { taskId: t2.id })).archivedAt ?? null).toBeNull()

    for (const width of [1024, 760]) {
      const { page: p, context } = await newPage(ui.browser, { width, height: 800 })
      await p.goto(ui.stack.url)
      await p.getByTestId('member-item').filter({ hasText: 'Impl' }).click()
      await p.locator('[data-kind=model]').last().locator('[data-ref="D-1"]').waitFor()
      await screenshot(p, `words-05-session-${width}`)
      if (width === 760) {
        // The drawer does not open over the chat on arrival, and the folded sidebar shows no clipped setting labels.
        expect(await p.locator('aside.right-panel').count()).toBe(0)
        expect((await p.locator('main.centre').boundingBox())!.width).toBeGreaterThan(600)
        expect(await p.getByTestId('loop-settings').isVisible()).toBe(false)
        await p.getByRole('button', { name: 'Show panel' }).click()
      }
      await p.getByTestId('tab-tasks').click()
      await p.locator('[data-testid=task-card][data-key="T-1"] [data-testid=ready-to-accept]').waitFor()
      await screenshot(p, `words-06-ready-${width}`)
      await context.close()
    }
    expect(ui.errors).toEqual([])
  }, 180_000)
})
