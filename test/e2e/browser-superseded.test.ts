/**
 * Issue 22 in real Chromium: three test reports of one task and author and a review of it, all made stale by an
 * edit. The Reports panel folds the two older test reports under the newest ("2 older reports superseded by
 * R-3", collapsed), expands them with "superseded by R-3" / "superseded by R-2", and the Reports tab's badge counts
 * the two stale reports that still need attention while the panel says 4 stale.
 */
import { describe, expect, it } from 'vitest'
import { browserSession, screenshot } from './support'

const ui = browserSession()
const SHA = 'a'.repeat(40)

describe('superseded reports in the browser', () => {
  it('fold under the newer report and leave the badge counting what needs attention', async () => {
    const { core } = ui.stack
    const ws = await core.invoke('workspaces.open', { repoPath: ui.stack.repoDir, name: 'superseded' })
    const ivy = await core.invoke('members.create', { workspaceId: ws.id, name: 'Ivy', role: 'tester' })
    const d = await core.invoke('decisions.create', { workspaceId: ws.id, title: 'Timeout', statement: '30 s.' })
    const task = await core.invoke('tasks.create', { workspaceId: ws.id, title: 'Search', decisionIds: [d.id] })
    for (const [kind, text] of [
      ['test', 'First run'],
      ['test', 'Second run'],
      ['test', 'Third run'],
      ['review', 'Reviewed'],
    ] as const)
      await core.invoke('reports.submit', {
        taskId: task.id,
        authorId: ivy.id,
        kind,
        verdict: 'pass',
        summary: text,
        artifact: { commit: SHA },
        basis: [{ decisionId: d.id, version: 1 }],
        claims: [{ text: `${text} holds`, decisionIds: [d.id] }],
      })
    await core.invoke('decisions.update', { decisionId: d.id, expectedVersion: d.version, statement: '10 s.' })

    const page = ui.page
    await page.goto(ui.stack.url)
    await page.getByTestId('tab-reports').click()
    await page.getByTestId('report-card').first().waitFor()
    await expect.poll(() => page.getByTestId('reports-stale-count').textContent()).toBe('4 stale')
    await expect.poll(() => page.getByTestId('tab-reports').locator('.count').textContent()).toBe('2')
    const keys = () => page.getByTestId('report-card').evaluateAll((els) => els.map((e) => e.getAttribute('data-key')))
    expect(await keys()).toEqual(['R-4', 'R-3'])
    const fold = page.getByTestId('reports-fold')
    expect(await fold.textContent()).toContain('2 older reports superseded by R-3')
    expect(await fold.getAttribute('aria-expanded')).toBe('false')
    for (const width of [1440, 1024, 760]) {
      await page.setViewportSize({ width, height: 800 })
      await screenshot(page, `superseded-reports-collapsed-${width}`)
    }
    await page.setViewportSize({ width: 1440, height: 800 })
    await fold.click()
    await expect.poll(keys).toEqual(['R-4', 'R-3', 'R-2', 'R-1'])
    expect(await page.getByTestId('report-superseded-by').allTextContents()).toEqual([
      'superseded by R-3',
      'superseded by R-2',
    ])
    // The rows the fold adds start below it (they once overlapped its button).
    const below = async () => {
      const button = await fold.boundingBox()
      const label = await page.getByTestId('report-superseded-by').first().boundingBox()
      return !!button && !!label && label.y >= button.y + button.height - 1
    }
    await expect.poll(below).toBe(true)
    for (const width of [1440, 1024, 760]) {
      await page.setViewportSize({ width, height: 800 })
      await screenshot(page, `superseded-reports-expanded-${width}`)
    }
    await fold.click()
    await expect.poll(keys).toEqual(['R-4', 'R-3'])
    expect(ui.errors).toEqual([])
  }, 120_000)
})
