/**
 * A decision edited after its task was merged (issue 22, Flow): the editor's impact preview says the merged task
 * keeps its code in the base branch and a follow-up task will be created; confirming creates it on the board.
 */
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { initRepo } from '../fixtures/core'
import { browserSession, screenshot } from './support'

const ui = browserSession()
const git = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'core.hooksPath=/dev/null', ...args], { cwd: dir, encoding: 'utf8' }).trim()

describe('browser UI: a merged task stays merged', () => {
  it('the preview names the follow-up, and confirming creates it', async () => {
    const { core, repoDir, dataDir } = ui.stack
    initRepo(repoDir)
    const ws = await core.invoke('workspaces.open', { repoPath: repoDir, name: 'merged' })
    const ivy = await core.invoke('members.create', { workspaceId: ws.id, name: 'Ivy', role: 'implementer' })
    const d = await core.invoke('decisions.create', {
      workspaceId: ws.id,
      title: 'Search timeout',
      statement: 'Web search gives up after 5 s.',
    })
    const task = await core.invoke('tasks.create', {
      workspaceId: ws.id,
      title: 'Search timeout',
      assigneeId: ivy.id,
      decisionIds: [d.id],
      requiredReports: [],
    })
    await core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
    const tree = join(dataDir, 'worktrees', ws.id, task.key)
    writeFileSync(join(tree, 'timeout.ts'), 'export const timeoutMs = 5000\n')
    git(tree, 'add', '-A')
    git(tree, '-c', 'user.name=T', '-c', 'user.email=t@x', 'commit', '-qm', 'timeout')
    await core.invoke('tasks.setStatus', { taskId: task.id, status: 'delivered' })
    await core.invoke('tasks.accept', { taskId: task.id })
    await core.invoke('tasks.merge', { taskId: task.id })

    const page = ui.page
    await page.goto(ui.stack.url)
    await page.getByTestId('tab-decisions').click()
    await page.getByTestId('decision-row').filter({ hasText: 'Search timeout' }).click()
    const detail = page.getByTestId('decision-detail')
    await detail.getByRole('button', { name: 'Edit' }).click()
    const editor = detail.getByTestId('decision-editor')
    await editor.getByLabel('Statement').fill('Web search gives up after 10 s.')
    const preview = editor.getByTestId('impact-preview')
    await preview.filter({ hasText: 'T-1 is merged' }).waitFor()
    expect(await preview.textContent()).toContain(
      'T-1 is merged: the base branch has its code; a follow-up task will be created.',
    )
    expect(await preview.textContent()).not.toContain('acceptance revoked')
    await screenshot(page, 'merged-followup-01-preview-1440')
    await page.setViewportSize({ width: 760, height: 800 })
    await screenshot(page, 'merged-followup-02-preview-760')
    await page.setViewportSize({ width: 1440, height: 900 })
    await core.invoke('decisions.update', {
      decisionId: d.id,
      expectedVersion: 1,
      statement: 'Web search gives up after 10 s.',
      reason: 'slow providers',
    })
    await page.goto(ui.stack.url)
    await page.getByTestId('tab-tasks').click()
    await page.locator('[data-testid=task-card][data-key="T-2"]').waitFor()
    expect(await page.locator('[data-testid=task-card][data-key="T-2"]').textContent()).toContain(
      'Follow up T-1 for D-1 v2',
    )
    await screenshot(page, 'merged-followup-03-board-1440')
    expect(ui.errors).toEqual([])
  }, 90_000)
})
