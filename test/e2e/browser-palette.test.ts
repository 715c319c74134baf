/**
 * Issue 31 in real Chromium: search finds more than messages. Ctrl+K (from the message box too) opens the command
 * palette; `R-6` finds the report and Enter opens it in the Reports panel; "Search timeout" finds D-1 by its title
 * and Enter opens its detail; `t-1` opens the task above the board; "new task" runs the command that opens the
 * new-task form. Screenshots of the palette and of the opened report at 1440, 1024 and 760 px.
 */
import { describe, expect, it } from 'vitest'
import { browserSession, screenshot } from './support'

const ui = browserSession()
const SHA = 'a'.repeat(40)

describe('the command palette in the browser', () => {
  it('opens with Ctrl+K, finds R-6, D-1 and T-1 by key and words, and Enter jumps there', async () => {
    const { core } = ui.stack
    const ws = await core.invoke('workspaces.open', { repoPath: ui.stack.repoDir, name: 'palette' })
    const ivy = await core.invoke('members.create', { workspaceId: ws.id, name: 'Ivy', role: 'tester' })
    const d = await core.invoke('decisions.create', {
      workspaceId: ws.id,
      title: 'Search timeout',
      statement: 'Web search gives up after **5 s** and says so.',
    })
    const task = await core.invoke('tasks.create', {
      workspaceId: ws.id,
      title: 'Web search tool',
      spec: 'Call the provider; stop waiting when the timeout passes.',
      decisionIds: [d.id],
    })
    for (let i = 1; i <= 6; i++)
      await core.invoke('reports.submit', {
        taskId: task.id,
        authorId: ivy.id,
        kind: i % 2 ? 'test' : 'review',
        verdict: 'pass',
        summary: i === 6 ? 'The timeout holds on a slow network' : `Run ${i}`,
        artifact: { commit: SHA },
        claims: [{ text: `A hung provider returns after the timeout (run ${i})`, decisionIds: [d.id] }],
      })

    const page = ui.page
    await page.setViewportSize({ width: 1440, height: 800 })
    await page.goto(ui.stack.url)
    await page.getByTestId('sidebar').waitFor()
    const dialog = page.getByTestId('search-dialog')
    const input = dialog.getByTestId('search-input')
    const records = dialog.getByTestId('search-record')

    // ---- Ctrl+K from the message box: R-6 first, Enter opens it in the Reports panel ----
    await page.getByTestId('composer').focus()
    await page.keyboard.press('Control+k')
    await dialog.waitFor()
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-testid')))
      .toBe('search-input')
    await input.fill('R-6')
    await expect.poll(() => records.first().getAttribute('data-key')).toBe('R-6')
    expect(await records.first().textContent()).toContain('review of T-1')
    expect(await records.first().textContent()).toContain('The timeout holds on a slow network')
    for (const width of [1440, 1024, 760]) {
      await page.setViewportSize({ width, height: 800 })
      await screenshot(page, `palette-r6-${width}`)
    }
    await page.setViewportSize({ width: 1440, height: 800 })
    await input.press('Enter')
    await dialog.waitFor({ state: 'detached' })
    const focus = page.getByTestId('report-focus')
    await expect.poll(() => focus.getAttribute('data-key')).toBe('R-6')
    await focus.getByTestId('report-card').filter({ hasText: 'The timeout holds on a slow network' }).waitFor()
    for (const width of [1440, 1024, 760]) {
      await page.setViewportSize({ width, height: 800 })
      await screenshot(page, `palette-report-open-${width}`)
    }
    await page.setViewportSize({ width: 1440, height: 800 })

    // ---- one word, every kind: the decision, the task's spec, the reports' summaries and claims ----
    await page.keyboard.press('Control+k')
    await input.fill('timeout')
    await expect
      .poll(() => records.evaluateAll((els) => els.map((e) => e.getAttribute('data-key'))))
      .toEqual(['D-1', 'T-1', 'R-6', 'R-5', 'R-4', 'R-3', 'R-2', 'R-1'])
    for (const width of [1440, 1024, 760]) {
      await page.setViewportSize({ width, height: 800 })
      await screenshot(page, `palette-words-${width}`)
    }
    await page.setViewportSize({ width: 1440, height: 800 })

    // ---- "Search timeout": D-1 by its title (and the reports by their words); Enter opens the decision ----
    await input.fill('Search timeout')
    await expect.poll(() => records.first().getAttribute('data-key')).toBe('D-1')
    expect(await records.first().getAttribute('data-field')).toBe('title')
    expect(await records.first().locator('mark').allTextContents()).toEqual(['Search', 'timeout'])
    await input.press('Enter')
    await page.getByTestId('decision-detail').and(page.locator('[data-key="D-1"]')).waitFor()

    // ---- words of a statement, rendered without their Markdown ----
    await page.keyboard.press('Control+k')
    await input.fill('gives up')
    await expect.poll(() => records.first().getAttribute('data-field')).toBe('statement')
    expect(await records.first().locator('.search-snippet').textContent()).toBe(
      'Web search gives up after 5 s and says so.',
    )

    // ---- t-1 in lower case: the task, above the board ----
    await input.fill('t-1')
    await expect.poll(() => records.first().getAttribute('data-key')).toBe('T-1')
    await input.press('Enter')
    const taskFocus = page.getByTestId('task-focus')
    await expect.poll(() => taskFocus.getAttribute('data-key')).toBe('T-1')
    await taskFocus.getByTestId('task-card').filter({ hasText: 'Web search tool' }).waitFor()
    await taskFocus.getByTestId('task-focus-back').click()
    await page.getByTestId('board').waitFor()

    // ---- a command: "new task" opens the form ----
    await page.keyboard.press('Control+k')
    await input.fill('new task')
    await expect.poll(() => dialog.getByTestId('palette-action').first().getAttribute('data-action')).toBe('new-task')
    await input.press('Enter')
    await page.getByLabel('Task title').waitFor()

    // ---- nothing found says so, for every kind ----
    await page.keyboard.press('Control+k')
    await input.fill('zebra-crossing')
    await dialog.getByTestId('search-none').waitFor()
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'detached' })
    expect(ui.errors).toEqual([])
  }, 90_000)
})
