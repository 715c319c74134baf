/**
 * A decision's detail lists the tasks that depend on it as the server knows them (tasks.page by decision), not the
 * tasks some other panel happened to load: opened before the Tasks tab was ever shown, it names each of them, pages
 * past the first hundred, and follows an edit (their links turn suspect). Screenshots at 1440 and 1024 px.
 */
import { describe, expect, it } from 'vitest'
import { browserSession, screenshot } from './support'

const ui = browserSession()

describe('browser UI: the tasks that depend on a decision', () => {
  it('names every dependent task from the server, with more on request, and follows an edit', async () => {
    const core = ui.stack.core
    const ws = await core.invoke('workspaces.open', { repoPath: ui.stack.repoDir, name: 'deps' })
    const d = await core.invoke('decisions.create', { workspaceId: ws.id, title: 'Timeouts', statement: '5 s' })
    await core.invoke('decisions.create', { workspaceId: ws.id, title: 'Storage', statement: 'SQLite' })
    // 105 tasks depend on D-1 (more than a page of the list), one does not.
    for (let i = 1; i <= 105; i++)
      await core.invoke('tasks.create', { workspaceId: ws.id, title: `Task ${i}`, decisionIds: [d.id] })
    await core.invoke('tasks.create', { workspaceId: ws.id, title: 'Unrelated' })

    const page = ui.page
    await page.goto(ui.stack.url)
    await page.getByTestId('tab-decisions').click()
    await page.locator('[data-testid=decision-row][data-key="D-1"]').click()
    const rows = page.locator('[data-testid=decision-detail] .dep-row')
    await rows.first().waitFor()
    await expect.poll(() => rows.count()).toBe(100)
    expect(await page.locator('[data-testid=decision-detail] h4').first().textContent()).toBe(
      'Tasks that depend on it (105)',
    )
    expect(await rows.filter({ hasText: 'Unrelated' }).count()).toBe(0)
    await screenshot(page, 'decision-dependents-1440')
    await page.getByTestId('dependents-more').click()
    await expect.poll(() => rows.count()).toBe(105)
    expect(await page.getByTestId('dependents-more').count()).toBe(0)

    // An edit elsewhere: the links the detail shows turn suspect.
    await core.invoke('decisions.update', { decisionId: d.id, expectedVersion: 1, statement: '10 s' })
    await expect.poll(() => rows.filter({ hasText: 'suspect: pinned v1' }).count()).toBe(105)

    await page.setViewportSize({ width: 1024, height: 800 })
    await screenshot(page, 'decision-dependents-1024')
    expect(ui.errors).toEqual([])
  }, 90_000)
})
