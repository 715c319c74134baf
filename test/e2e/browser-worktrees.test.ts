/**
 * Repository workflow in the real UI: a member's turn in its task's worktree shows "N files changed" under the reply
 * and opens that turn's diff; the task card shows its branch and head, its Changes, and Merge once accepted.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { initRepo } from '../fixtures/core'
import { browserSession, screenshot } from './support'

const ui = browserSession()

describe('browser UI: branches, changes and merge', () => {
  it('shows what a turn changed, the task’s whole diff, and merges the accepted task', async () => {
    initRepo(ui.stack.repoDir)
    const ws = await ui.stack.core.invoke('workspaces.open', { repoPath: ui.stack.repoDir, name: 'worktrees' })
    expect(ws.settings.isolation).toBe('worktree')
    const ivy = await ui.stack.core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Ivy',
      role: 'implementer',
      approval: 'auto',
      authority: 'proposer',
      provider: { kind: 'openai', model: 'scripted', baseURL: ui.stack.models.openaiBaseURL, apiKey: 'sk-e2e' },
    })
    const task = await ui.stack.core.invoke('tasks.create', {
      workspaceId: ws.id,
      title: 'Search timeout',
      assigneeId: ivy.id,
      requiredReports: [],
    })
    await ui.stack.core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })

    await ui.page.goto(ui.stack.url)
    await ui.page.getByTestId('sidebar').waitFor()
    ui.stack.models.enqueue(
      {
        toolCalls: [
          {
            name: 'write_file',
            arguments: { path: 'app.ts', content: 'export const answer = 42\nexport const timeoutMs = 30_000\n' },
          },
          {
            name: 'write_file',
            arguments: {
              path: 'src/search.ts',
              content:
                "import { timeoutMs } from '../app'\n\nexport const search = (q: string) => ({ q, timeoutMs })\n",
            },
          },
        ],
      },
      { toolCalls: [{ name: 'git_commit', arguments: { message: 'Search with a 30 s timeout' } }] },
      { text: 'Added the search with its timeout and committed it.' },
    )
    const session = ui.page.locator('[data-testid=member-session]')
    const composer = session.getByTestId('composer')
    await composer.fill('Implement T-1')
    await composer.press('Enter')
    const line = session.getByTestId('turn-changes')
    await line.waitFor({ timeout: 20_000 })
    expect(await line.textContent()).toBe('2 files changed')
    await screenshot(ui.page, 'w1-turn-changes')

    await line.click()
    const turnDialog = ui.page.getByRole('dialog', { name: 'What this turn changed' })
    await turnDialog.getByTestId('changes').locator('.changes-file').first().waitFor()
    expect(await turnDialog.locator('.changes-files li').allTextContents()).toEqual([
      'M app.ts +1 −0',
      'A src/search.ts +3 −0',
    ])
    expect(await turnDialog.textContent()).toContain('export const timeoutMs = 30_000')
    // Named by the commits the tree was at (the base, then the turn's commit), never by the snapshot trees' hashes.
    const head = (await ui.stack.core.invoke('tasks.get', { taskId: task.id })).head!
    const base = execFileSync('git', ['rev-parse', 'main'], { cwd: ui.stack.repoDir, encoding: 'utf8' }).trim()
    const range = turnDialog.getByTestId('turn-range')
    expect(await range.textContent()).toBe(`${base.slice(0, 8)} → ${head.slice(0, 8)}`)
    expect(await turnDialog.getByTestId('turn-commits').textContent()).toBe(
      `${head.slice(0, 8)} Search with a 30 s timeout`,
    )
    const trees = execFileSync('git', ['rev-parse', `${base}^{tree}`], { cwd: ui.stack.repoDir, encoding: 'utf8' })
    expect(await turnDialog.textContent()).not.toContain(trees.slice(0, 8))
    for (const w of [1024, 760]) {
      await ui.page.setViewportSize({ width: w, height: 900 })
      await screenshot(ui.page, `w2-turn-diff-${w}`)
    }
    await ui.page.setViewportSize({ width: 1440, height: 900 })
    await screenshot(ui.page, 'w2-turn-diff')
    await ui.page.keyboard.press('Escape')

    // The task card: branch and head, then the whole change against the base.
    await ui.page.getByTestId('tab-tasks').click()
    const card = ui.page.locator('[data-testid=task-card][data-key="T-1"]')
    await expect.poll(() => card.getByTestId('task-branch').textContent()).toContain('concord/T-1-search-timeout')
    await card.getByTestId('task-changes').click()
    const taskDialog = ui.page.getByRole('dialog', { name: /T-1 · changes on concord\/T-1-search-timeout/ })
    await taskDialog.locator('.changes-file').nth(1).waitFor()
    expect(await taskDialog.locator('.changes-summary').textContent()).toContain('2 files changed, +4 −0')
    await screenshot(ui.page, 'w3-task-changes')
    await ui.page.keyboard.press('Escape')

    // Delivered (the branch head), accepted, merged from the card.
    await ui.stack.core.invoke('tasks.setStatus', { taskId: task.id, status: 'delivered' })
    await ui.stack.core.invoke('tasks.accept', { taskId: task.id })
    await card.getByTestId('merge-task').click()
    await card.locator('.badge', { hasText: 'merged' }).waitFor()
    await screenshot(ui.page, 'w4-merged')
    expect(readFileSync(join(ui.stack.repoDir, 'src', 'search.ts'), 'utf8')).toContain('timeoutMs')
    expect(execFileSync('git', ['log', '-1', '--format=%s'], { cwd: ui.stack.repoDir, encoding: 'utf8' }).trim()).toBe(
      'Merge T-1: Search timeout (concord/T-1-search-timeout)',
    )
    expect(ui.errors).toEqual([])
  })
})
