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

  it('with "Follow up merged tasks at once" off, the edit offers the follow-up and its button creates it', async () => {
    const { core, repoDir, dataDir } = ui.stack
    const ws = (await core.invoke('workspaces.list', {})).find((w) => w.repoPath === repoDir)!
    const ivy = (await core.invoke('members.list', { workspaceId: ws.id }))[0]
    const d = await core.invoke('decisions.create', {
      workspaceId: ws.id,
      title: 'Result count',
      statement: 'Web search returns 5 results.',
    })
    const task = await core.invoke('tasks.create', {
      workspaceId: ws.id,
      title: 'Result count',
      assigneeId: ivy!.id,
      decisionIds: [d.id],
      requiredReports: [],
    })
    await core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
    const tree = join(dataDir, 'worktrees', ws.id, task.key)
    writeFileSync(join(tree, 'count.ts'), 'export const results = 5\n')
    git(tree, 'add', '-A')
    git(tree, '-c', 'user.name=T', '-c', 'user.email=t@x', 'commit', '-qm', 'count')
    await core.invoke('tasks.setStatus', { taskId: task.id, status: 'delivered' })
    await core.invoke('tasks.accept', { taskId: task.id })
    await core.invoke('tasks.merge', { taskId: task.id })
    const before = (await core.invoke('tasks.list', { workspaceId: ws.id })).length

    const page = ui.page
    await page.goto(ui.stack.url)
    const setting = page.getByTestId('setting-followUps')
    expect(await setting.isChecked()).toBe(true)
    await setting.uncheck()
    await expect
      .poll(async () => (await core.invoke('workspaces.settings', { workspaceId: ws.id })).followUps)
      .toBe('offer')
    await page.getByTestId('tab-decisions').click()
    await page.getByTestId('decision-row').filter({ hasText: 'Result count' }).click()
    const detail = page.getByTestId('decision-detail')
    await detail.getByRole('button', { name: 'Edit' }).click()
    const editor = detail.getByTestId('decision-editor')
    await editor.getByLabel('Statement').fill('Web search returns 10 results.')
    const preview = editor.getByTestId('impact-preview')
    await preview.filter({ hasText: `${task.key} is merged` }).waitFor()
    expect(await preview.textContent()).toContain(
      `${task.key} is merged: the base branch has its code; a follow-up task is offered.`,
    )
    const rationale = editor.getByLabel(/still holds as written/)
    if (await rationale.count()) await rationale.check()
    await editor.getByLabel('Reason').fill('more results')
    await editor.getByRole('button', { name: 'Confirm → v2' }).click()
    const offer = detail.getByTestId('followup-create')
    await offer.waitFor()
    expect(await offer.textContent()).toBe(`Create the follow-up task for ${task.key}`)
    // Nothing was created by the edit itself.
    expect(await core.invoke('tasks.list', { workspaceId: ws.id })).toHaveLength(before)
    for (const width of [1440, 1024, 760]) {
      await page.setViewportSize({ width, height: 900 })
      await screenshot(page, `merged-followup-04-offer-${width}`)
    }
    await page.setViewportSize({ width: 1440, height: 900 })
    await offer.click()
    await detail.getByTestId('followup-created').waitFor()
    const tasks = await core.invoke('tasks.list', { workspaceId: ws.id })
    expect(tasks).toHaveLength(before + 1)
    const follow = tasks[tasks.length - 1]
    expect(follow!.title).toBe(`Follow up ${task.key} for ${d.key} v2: Result count`)
    expect(await detail.getByTestId('followup-created').textContent()).toBe(
      `${follow!.key} created: follow-up of ${task.key}`,
    )
    await screenshot(page, 'merged-followup-05-offer-taken-1440')
    expect(ui.errors).toEqual([])
  }, 90_000)
})
