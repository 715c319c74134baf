/**
 * Starting a task starts its agent (issue 22, Flow): moving T-1 to in progress on its card starts the assignee's
 * turn on it; the chat shows Concord's message naming the task (not one the human typed) and the reply.
 */
import { describe, expect, it } from 'vitest'
import { browserSession, newPage, screenshot } from './support'

const ui = browserSession({ taskStartTurns: true })

describe('browser UI: starting a task starts its agent', () => {
  it("moving the card to in progress runs the assignee's turn, shown as started by Concord", async () => {
    const { core, models, repoDir } = ui.stack
    const { initRepo } = await import('../fixtures/core')
    initRepo(repoDir)
    const ws = await core.invoke('workspaces.open', { repoPath: repoDir, name: 'start' })
    const provider = { kind: 'openai' as const, model: 'gpt-test', baseURL: models.openaiBaseURL, apiKey: 'sk-test' }
    const impl = await core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Impl',
      role: 'implementer',
      provider,
      approval: 'auto',
      authority: 'proposer',
    })
    await core.invoke('tasks.create', {
      workspaceId: ws.id,
      title: 'Web search tool',
      spec: 'A tool that searches the web.',
      assigneeId: impl.id,
    })
    models.enqueue({ text: 'Starting on the web search tool.' })

    const page = ui.page
    await page.goto(ui.stack.url)
    await page.getByTestId('tab-tasks').click()
    await page.getByLabel('Move T-1').selectOption('in_progress')
    await page.getByTestId('member-item').filter({ hasText: 'Impl' }).click()
    const session = page
      .locator('[data-testid=member-session]')
      .filter({ has: page.locator('[data-testid=session-head]', { hasText: 'Impl' }) })
    const started = session.locator('[data-kind=message] [data-origin=concord]')
    await started.waitFor()
    expect(await started.textContent()).toBe('Started by Concord: Start T-1: Web search tool')
    await session
      .locator('[data-kind=model][data-status=done]')
      .filter({ hasText: 'Starting on the web search tool.' })
      .waitFor()
    expect(await session.locator('[data-kind=user]').count()).toBe(0)
    expect((models.requests[0]!.body.messages as { role: string; content: string }[]).at(-1)?.content).toBe(
      '[From Concord] Start T-1: Web search tool\n\nA tool that searches the web.',
    )
    await screenshot(page, 'task-start-01-turn-1440')
    await page.getByTestId('loop-settings').scrollIntoViewIfNeeded()
    expect(await page.getByTestId('setting-startAgentOnTaskStart').isChecked()).toBe(true)
    await screenshot(page, 'task-start-02-settings-1440')

    const { page: narrow, context } = await newPage(ui.browser, { width: 760, height: 800 })
    await narrow.goto(ui.stack.url)
    await narrow.getByTestId('member-item').filter({ hasText: 'Impl' }).click()
    await narrow.locator('[data-origin=concord]').first().waitFor()
    await screenshot(narrow, 'task-start-03-turn-760')
    await context.close()
    expect(ui.errors).toEqual([])
  }, 90_000)
})
