/**
 * A large edit as the user reads it, in real Chromium through the bridge: the preview of a change that flags 60
 * tasks and stales 70 reports names the first eight of each and counts the rest from the edit's counts (the
 * summary lists only the first ones), and the outcome after Confirm says the same.
 */
import { describe, expect, it } from 'vitest'
import { browserSession, screenshot } from './support'

const ui = browserSession()
const SHA = 'a'.repeat(40)

describe('browser UI: a large edit', () => {
  it('names eight tasks and eight reports in the preview and the outcome, and counts the rest', async () => {
    const { core } = ui.stack
    const page = ui.page
    const ws = await core.invoke('workspaces.open', { repoPath: ui.stack.repoDir, name: 'large' })
    await core.invoke('workspaces.update', { workspaceId: ws.id, autoTurns: false })
    const tester = await core.invoke('members.create', { workspaceId: ws.id, name: 'Tess', role: 'tester' })
    const d = await core.invoke('decisions.create', {
      workspaceId: ws.id,
      title: 'Page size',
      statement: 'Lists page by 50.',
    })
    const tasks = []
    for (let i = 0; i < 60; i++)
      tasks.push(await core.invoke('tasks.create', { workspaceId: ws.id, title: `List ${i}`, decisionIds: [d.id] }))
    for (let i = 0; i < 70; i++)
      await core.invoke('reports.submit', {
        taskId: tasks[i % 60]!.id,
        authorId: tester.id,
        kind: 'test',
        verdict: 'pass',
        artifact: { commit: SHA },
        basis: [{ decisionId: d.id, version: 1 }],
        claims: [{ text: `pages by 50 (${i})`, decisionIds: [d.id] }],
      })

    await page.goto(ui.stack.url)
    await page.getByTestId('tab-decisions').click()
    await page.getByTestId('decision-row').filter({ hasText: 'Page size' }).click()
    const detail = page.getByTestId('decision-detail')
    await detail.getByRole('button', { name: 'Edit' }).click()
    const editor = detail.getByTestId('decision-editor')
    await editor.getByLabel('Statement').fill('Lists page by 100.')
    const preview = editor.getByTestId('impact-preview')
    await preview.filter({ hasText: 'more tasks' }).waitFor()
    const text = (await preview.textContent()) ?? ''
    expect(text).toContain(
      'Flags T-1 to do, T-2 to do, T-3 to do, T-4 to do, T-5 to do, T-6 to do, T-7 to do, T-8 to do,',
    )
    expect(text).toContain('and 52 more tasks; stales 1 claim in R-1,')
    expect(text).toContain('1 claim in R-8, and 62 more reports.')
    expect(text).not.toContain('T-9 ')
    await screenshot(page, 'large-edit-preview-1440')
    await page.setViewportSize({ width: 1024, height: 900 })
    await screenshot(page, 'large-edit-preview-1024')
    await page.setViewportSize({ width: 1440, height: 900 })

    await editor.getByRole('button', { name: 'Confirm → v2' }).click()
    const outcome = page.getByTestId('edit-outcome')
    await outcome.waitFor()
    expect(await outcome.textContent()).toContain('and 52 more tasks')
    expect(await outcome.textContent()).toContain('and 62 more reports')
    await screenshot(page, 'large-edit-outcome-1440')
    expect(ui.errors).toEqual([])
  }, 120_000)
})
