/**
 * Turns that know their task (issue 22, Flow): with two tasks in progress the composer shows the tree the next
 * turn runs in, follows the task the draft names, lets the user choose, and the message goes out bound to it.
 */
import { describe, expect, it } from 'vitest'
import { initRepo } from '../fixtures/core'
import { browserSession, newPage, screenshot } from './support'

const ui = browserSession()

describe('browser UI: the tree of the next turn', () => {
  it('shows and lets the user choose the task the next turn works on', async () => {
    const { core, models, repoDir } = ui.stack
    initRepo(repoDir)
    const ws = await core.invoke('workspaces.open', { repoPath: repoDir, name: 'trees' })
    const provider = { kind: 'openai' as const, model: 'gpt-test', baseURL: models.openaiBaseURL, apiKey: 'sk-test' }
    const ivy = await core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Ivy',
      role: 'implementer',
      provider,
      approval: 'auto',
      authority: 'proposer',
    })
    for (const title of ['Search timeout', 'Search page']) {
      const task = await core.invoke('tasks.create', { workspaceId: ws.id, title, assigneeId: ivy.id })
      await core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
    }
    const page = ui.page
    await page.goto(ui.stack.url)
    await page.getByTestId('member-item').filter({ hasText: 'Ivy' }).click()
    const select = page.getByTestId('tree-picker-select')
    await select.waitFor()
    const shown = async () => select.evaluate((el: HTMLSelectElement) => el.selectedOptions[0]?.textContent)
    // Two tasks and a draft that names neither: no task (read-only), and the hint says how to choose.
    expect(await shown()).toBe('No task · read-only base branch')
    expect(await page.getByTestId('tree-picker').textContent()).toContain('name a task (e.g. T-1) or choose one')
    await page.getByTestId('composer').fill('Please build T-2: the search page.')
    await expect.poll(shown).toBe('T-2 · concord/T-2-search-page')
    await screenshot(page, 'tree-picker-01-named-1440')
    // The user's choice wins over the draft.
    await select.selectOption({ label: 'T-1 · concord/T-1-search-timeout' })
    await page.getByTestId('tree-picker-auto').waitFor()
    models.enqueue({ text: 'On T-1.' })
    await page.getByTestId('send').click()
    await expect
      .poll(
        async () =>
          (await core.invoke('sessions.get', { memberId: ivy.id })).steps.find((s) => s.kind === 'user')?.taskId,
      )
      .toBe((await core.invoke('tasks.list', { workspaceId: ws.id })).find((t) => t.key === 'T-1')!.id)
    await screenshot(page, 'tree-picker-02-chosen-1440')

    const { page: narrow, context } = await newPage(ui.browser, { width: 760, height: 800 })
    await narrow.goto(ui.stack.url)
    await narrow.getByTestId('member-item').filter({ hasText: 'Ivy' }).click()
    await narrow.getByTestId('composer').fill('Now T-2, please.')
    await narrow.getByTestId('tree-picker-select').waitFor()
    await screenshot(narrow, 'tree-picker-03-760')
    await context.close()
    expect(ui.errors).toEqual([])
  }, 90_000)
})
