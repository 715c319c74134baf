/**
 * The task board in the real UI: columns by status, drag and keyboard moves that the core validates (a refused
 * move shows the core's message and the card stays), filters served by the server, and a task edited in place.
 */
import { describe, expect, it } from 'vitest'
import { browserSession, newPage, screenshot } from './support'

const ui = browserSession()
const SHA = 'e'.repeat(40)

describe('browser UI: the task board', () => {
  it('moves cards by drag and keyboard as the core allows, filters by member and flag, and edits a task in place', async () => {
    const core = ui.stack.core
    const ws = await core.invoke('workspaces.open', { repoPath: ui.stack.repoDir, name: 'board' })
    const ivy = await core.invoke('members.create', { workspaceId: ws.id, name: 'Ivy', role: 'implementer' })
    const tess = await core.invoke('members.create', { workspaceId: ws.id, name: 'Tess', role: 'tester' })
    const d1 = await core.invoke('decisions.create', {
      workspaceId: ws.id,
      title: 'Search timeout',
      statement: 'A search gives up after 30 s.',
    })
    const t1 = await core.invoke('tasks.create', {
      workspaceId: ws.id,
      title: 'Search API',
      assigneeId: ivy.id,
      decisionIds: [d1.id],
    })
    const t2 = await core.invoke('tasks.create', {
      workspaceId: ws.id,
      title: 'Search tests',
      assigneeId: tess.id,
      decisionIds: [d1.id],
    })
    const t3 = await core.invoke('tasks.create', {
      workspaceId: ws.id,
      title: 'Search page',
      assigneeId: ivy.id,
      decisionIds: [],
    })
    await core.invoke('tasks.setStatus', { taskId: t3.id, status: 'in_progress' })
    const status = async (id: string) => (await core.invoke('tasks.get', { taskId: id })).status

    const page = ui.page
    await page.goto(ui.stack.url)
    await page.getByTestId('tab-tasks').click()
    const card = (key: string) => page.locator(`[data-testid=task-card][data-key="${key}"]`)
    const column = (s: string) => page.locator(`[data-testid=board-column][data-lane="${s}"]`)
    await card('T-1').waitFor()
    expect(await column('todo').locator('[data-testid=task-card]').count()).toBe(2)
    await screenshot(page, 'board-01-panel-1440')

    // ---- refused: to do → accepted. The core says where it can go; the card stays in "to do". ----
    await card('T-1').dragTo(column('accepted'))
    const refusal = card('T-1').getByTestId('move-refusal')
    await refusal.waitFor()
    expect(await refusal.textContent()).toContain(
      'T-1 is “to do”: it can move to “in progress”, “blocked” or “cancelled”, not to “accepted”',
    )
    expect(await card('T-1').getAttribute('data-status')).toBe('todo')
    expect(await column('todo').locator('[data-key="T-1"]').count()).toBe(1)
    expect(await status(t1.id)).toBe('todo')
    await screenshot(page, 'board-02-refused-move')

    // ---- allowed: to do → in progress by drag ----
    await card('T-1').dragTo(column('in_progress'))
    await column('in_progress').locator('[data-key="T-1"]').waitFor()
    expect(await card('T-1').getAttribute('data-status')).toBe('in_progress')
    expect(await card('T-1').getByTestId('move-refusal').count()).toBe(0)
    expect(await status(t1.id)).toBe('in_progress')

    // ---- keyboard: focus T-2 and Alt → moves it one column right ----
    await card('T-2').focus()
    await page.keyboard.press('Alt+ArrowRight')
    await column('in_progress').locator('[data-key="T-2"]').waitFor()
    expect(await status(t2.id)).toBe('in_progress')
    // The focus follows the card to its new column, so a second Alt → goes on from there: an allowed delivery asks for the artifact.
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-key'))).toBe('T-2')
    await page.keyboard.press('Alt+ArrowRight')
    await card('T-2').getByLabel('Delivered artifact').waitFor()
    await card('T-2').getByRole('button', { name: 'Cancel' }).click()
    expect(await status(t2.id)).toBe('in_progress')

    // ---- delivery by drag asks for the artifact first ----
    await card('T-3').dragTo(column('delivered'))
    await card('T-3').getByLabel('Delivered artifact').fill(SHA)
    await card('T-3').getByRole('button', { name: 'Deliver' }).click()
    await column('delivered').locator('[data-key="T-3"]').waitFor()
    expect((await core.invoke('tasks.get', { taskId: t3.id })).artifact?.commit).toBe(SHA)

    // ---- filters, served by the server: by member, then flagged only ----
    await page.getByLabel('Filter by member').selectOption({ label: 'Tess' })
    await expect.poll(() => page.locator('[data-testid=task-card]').count()).toBe(1)
    expect(await card('T-2').count()).toBe(1)
    await page.getByLabel('Filter by member').selectOption({ label: 'Everyone' })
    await expect.poll(() => page.locator('[data-testid=task-card]').count()).toBe(3)
    // The decision changes: the two tasks that depend on it are flagged, T-3 is not.
    await core.invoke('decisions.update', {
      decisionId: d1.id,
      expectedVersion: 1,
      statement: 'A search gives up after 10 s.',
      reason: 'faster feedback',
    })
    await expect.poll(() => card('T-1').getAttribute('data-flag')).toBe('needs_adjustment')
    await page.getByLabel('Flagged only').check()
    await expect.poll(() => page.locator('[data-testid=task-card]').count()).toBe(2)
    expect(await card('T-3').count()).toBe(0)
    await screenshot(page, 'board-03-flagged-filter')
    await page.getByLabel('Flagged only').uncheck()
    await expect.poll(() => page.locator('[data-testid=task-card]').count()).toBe(3)

    // ---- edit in place: title and assignee ----
    await card('T-2').getByTestId('edit-task').click()
    const editor = card('T-2').getByTestId('task-editor')
    await editor.getByLabel('Title').fill('Search tests, 10 s timeout')
    await editor.getByLabel('Assignee').selectOption({ label: 'Ivy (implementer)' })
    await screenshot(page, 'board-04-edit-in-place')
    await editor.getByRole('button', { name: 'Save' }).click()
    await expect.poll(() => card('T-2').locator('.tcard-title').textContent()).toBe('Search tests, 10 s timeout')
    expect(await card('T-2').locator('.tcard-assignee').textContent()).toContain('Ivy')
    const edited = await core.invoke('tasks.get', { taskId: t2.id })
    expect([edited.title, edited.assigneeId]).toEqual(['Search tests, 10 s timeout', ivy.id])

    // ---- the board over the window: the columns side by side; a refused drag there too ----
    await page.getByTestId('board-wide').click()
    await page.locator('.board-overlay').waitFor()
    await screenshot(page, 'board-05-wide-1440')
    await card('T-3').dragTo(column('todo'))
    await card('T-3').getByTestId('move-refusal').waitFor()
    expect(await card('T-3').getAttribute('data-status')).toBe('delivered')
    await page.getByTestId('fold-cancelled').click()
    await card('T-1').dragTo(column('cancelled'))
    await column('cancelled').locator('[data-key="T-1"]').waitFor()
    expect(await status(t1.id)).toBe('cancelled')
    await screenshot(page, 'board-06-wide-moves')
    await page.keyboard.press('Escape')
    await page.locator('.board-overlay').waitFor({ state: 'detached' })
    expect(ui.errors).toEqual([])

    // ---- the same screens at 1024 px ----
    const narrow = await newPage(ui.browser, { width: 1024, height: 768 })
    await narrow.page.goto(ui.stack.url)
    await narrow.page.getByTestId('tab-tasks').click()
    await narrow.page.locator('[data-testid=task-card][data-key="T-2"]').waitFor()
    await screenshot(narrow.page, 'board-07-panel-1024')
    await narrow.page.getByTestId('board-wide').click()
    await narrow.page.locator('.board-overlay').waitFor()
    await screenshot(narrow.page, 'board-08-wide-1024')
    expect(narrow.errors).toEqual([])
    await narrow.context.close()

    // ---- and in the dark theme ----
    const dark = await newPage(ui.browser, { colorScheme: 'dark' })
    await dark.page.goto(ui.stack.url)
    await dark.page.getByTestId('tab-tasks').click()
    await dark.page.getByTestId('board-wide').click()
    await dark.page.locator('[data-testid=task-card][data-key="T-3"]').waitFor()
    await screenshot(dark.page, 'board-09-wide-dark')
    expect(dark.errors).toEqual([])
    await dark.context.close()
  }, 180_000)
})
