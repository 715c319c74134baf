/**
 * Issue 33 in real Chromium against `concord serve`: in a task's Changes view the user comments on a line (the "+" a
 * line shows on hover) and on a range ("through" line N), sends both; the scripted model server receives one message
 * holding both file:line contexts; the card counts the open comments; after a new delivery changes the line, its
 * comment shows resolved and the range stays open.
 */
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { initRepo } from '../fixtures/core'
import { browserSession, screenshot } from './support'

const ui = browserSession()
const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim()
const commit = (dir: string, msg: string) => {
  git(dir, 'add', '-A')
  git(dir, '-c', 'user.name=T', '-c', 'user.email=t@x', 'commit', '-qm', msg)
}
const lines = (edit: Record<number, string>) =>
  Array.from({ length: 10 }, (_, i) => edit[i + 1] ?? `line ${i + 1}`).join('\n') + '\n'
const widths = [1440, 1024, 760]

describe('browser UI: comments on a task’s diff', () => {
  it('comments on a line and a range, sends them as one message, and shows the line resolved after a delivery', async () => {
    const { core, repoDir, dataDir, models } = ui.stack
    initRepo(repoDir)
    writeFileSync(join(repoDir, 'search.js'), lines({}))
    commit(repoDir, 'base: search.js')
    const ws = await core.invoke('workspaces.open', { repoPath: repoDir, name: 'comments' })
    const ivy = await core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Ivy',
      role: 'implementer',
      approval: 'auto',
      provider: { kind: 'openai', model: 'scripted', baseURL: models.openaiBaseURL, apiKey: 'sk-e2e' },
    })
    const task = await core.invoke('tasks.create', {
      workspaceId: ws.id,
      title: 'Search timeout',
      assigneeId: ivy.id,
      requiredReports: [],
    })
    await core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
    const tree = join(dataDir, 'worktrees', ws.id, 'T-1')
    writeFileSync(join(tree, 'search.js'), lines({ 3: 'const timeout = 5', 6: 'retry()' }))
    commit(tree, 'timeout and retry')

    await ui.page.goto(ui.stack.url)
    await ui.page.getByTestId('sidebar').waitFor()
    await ui.page.getByTestId('tab-tasks').click()
    const card = ui.page.locator('[data-testid=task-card][data-key="T-1"]')
    await card.getByTestId('task-changes').click()
    const dialog = ui.page.getByRole('dialog', { name: /T-1 · changes on/ })
    await dialog.locator('.changes-file').first().waitFor()
    const row = (n: number) => dialog.locator(`tr:has([data-line-new-num="${n}"])`)
    const plus = async (n: number, modifiers: 'Shift'[] = []) => {
      await row(n).hover()
      await row(n).locator('.diff-add-widget').click({ modifiers })
    }

    // ---- a line: hover, "+", write, add ----
    await plus(3)
    const form = dialog.getByTestId('diff-comment-form')
    await form.getByLabel('Comment').fill('Make the timeout a setting')
    await form.getByTestId('diff-comment-add').click()
    await expect.poll(() => dialog.getByTestId('diff-comment').count()).toBe(1)
    // ---- a range: "+" on line 5, through line 7 ----
    await plus(5)
    await form.getByTestId('diff-comment-through').fill('7')
    await form.getByLabel('Comment').fill('Retry needs a limit')
    await form.getByTestId('diff-comment-add').click()
    await expect.poll(() => dialog.getByTestId('diff-comment').count()).toBe(2)
    expect(await dialog.getByTestId('diff-comment').allTextContents()).toEqual([
      expect.stringContaining('Line 3'),
      expect.stringContaining('Lines 5–7'),
    ])
    expect(await dialog.getByTestId('diff-comments-send').textContent()).toBe('Send 2 comments')
    // ---- a range by shift-click: "+" on line 8, shift-click "+" on line 9: the form is for 8 through 9 ----
    await plus(8)
    await plus(9, ['Shift'])
    expect(await form.locator('.diff-comment-range span').textContent()).toBe('Line 8 through')
    expect(await form.getByTestId('diff-comment-through').inputValue()).toBe('9')
    // Open for the screenshots; cancelled, it adds nothing.
    await form.getByLabel('Comment').fill('Another thought')
    for (const w of widths) {
      await ui.page.setViewportSize({ width: w, height: 900 })
      await form.scrollIntoViewIfNeeded()
      await screenshot(ui.page, `diff-comments-drafts-${w}`)
    }
    await ui.page.setViewportSize({ width: 1440, height: 900 })
    await form.getByRole('button', { name: 'Cancel' }).click()
    expect(await dialog.getByTestId('diff-comment-form').count()).toBe(0)
    expect(await dialog.getByTestId('diff-comment').count()).toBe(2)

    // ---- sent: one message to Ivy's session, both contexts in it ----
    models.enqueue({ text: 'On it.' })
    await dialog.getByTestId('diff-comments-send').click()
    await expect.poll(() => dialog.locator('[data-testid=diff-comment][data-state=sent]').count()).toBe(2)
    const [req] = await models.waitForRequests(1)
    const users = (req!.body.messages as { role: string; content: unknown }[]).filter((m) => m.role === 'user')
    const text = JSON.stringify(users.at(-1)!.content)
    expect(text).toContain('search.js:3')
    expect(text).toContain('search.js:5-7')
    expect(text).toContain('> const timeout = 5')
    expect(text).toContain('Retry needs a limit')
    await ui.page.keyboard.press('Escape')
    await expect.poll(() => card.getByTestId('open-comments').textContent()).toBe('2 open comments')
    expect(models.requests).toHaveLength(1)

    // ---- a new delivery changes line 3: that comment is resolved, the range stays open ----
    writeFileSync(join(tree, 'search.js'), lines({ 3: 'const timeout = settings.timeout', 6: 'retry()' }))
    commit(tree, 'timeout from settings')
    await core.invoke('tasks.setStatus', { taskId: task.id, status: 'delivered' })
    await expect.poll(() => card.getByTestId('open-comments').textContent()).toBe('1 open comment')
    await card.getByTestId('open-comments').click()
    await dialog.locator('.changes-file').first().waitFor()
    const resolved = dialog.locator('[data-testid=diff-comment][data-state=resolved]')
    await resolved.waitFor()
    expect(await resolved.textContent()).toContain('Line 3')
    expect(await dialog.locator('[data-testid=diff-comment][data-state=sent]').textContent()).toContain('Lines 5–7')
    for (const w of widths) {
      await ui.page.setViewportSize({ width: w, height: 900 })
      await screenshot(ui.page, `diff-comments-resolved-${w}`)
    }
    await ui.page.setViewportSize({ width: 1440, height: 900 })
    await ui.page.keyboard.press('Escape')
    expect(ui.errors).toEqual([])
  }, 90_000)
})
