/**
 * A decision edited after its task was merged (issue 22, Flow): the editor's impact preview says the merged task
 * keeps its code in the base branch and a follow-up task will be created; confirming creates it on the board.
 * Follow-ups that do not pile up (issue 30): after two edits the merged task's chip says "merged on D-n v1 · now
 * v3" beside one follow-up; a revert to v1 through the history cancels it (its preview says so), and a started
 * follow-up made obsolete is offered for cancellation, one click.
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

  it('edit, edit, revert: one follow-up, the merged chip keeps v1, the revert cancels or offers to cancel it', async () => {
    const { core, repoDir, dataDir } = ui.stack
    // The cases above made the workspace and its member; run alone, this one makes them.
    let ws = (await core.invoke('workspaces.list', {})).find((w) => w.repoPath === repoDir)
    if (!ws) {
      initRepo(repoDir)
      ws = await core.invoke('workspaces.open', { repoPath: repoDir, name: 'merged' })
    }
    await core.invoke('workspaces.update', { workspaceId: ws.id, followUps: 'create' })
    const ivy =
      (await core.invoke('members.list', { workspaceId: ws.id }))[0] ??
      (await core.invoke('members.create', { workspaceId: ws.id, name: 'Ivy', role: 'implementer' }))
    const d = await core.invoke('decisions.create', {
      workspaceId: ws.id,
      title: 'Retry count',
      statement: 'Web search retries twice.',
    })
    const task = await core.invoke('tasks.create', {
      workspaceId: ws.id,
      title: 'Retry count',
      assigneeId: ivy.id,
      decisionIds: [d.id],
      requiredReports: [],
    })
    await core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
    const tree = join(dataDir, 'worktrees', ws.id, task.key)
    writeFileSync(join(tree, 'retry.ts'), 'export const retries = 2\n')
    git(tree, 'add', '-A')
    git(tree, '-c', 'user.name=T', '-c', 'user.email=t@x', 'commit', '-qm', 'retry')
    await core.invoke('tasks.setStatus', { taskId: task.id, status: 'delivered' })
    await core.invoke('tasks.accept', { taskId: task.id })
    await core.invoke('tasks.merge', { taskId: task.id })
    const edit = (expectedVersion: number, statement: string) =>
      core.invoke('decisions.update', { decisionId: d.id, expectedVersion, statement, reason: 'tuning' })
    await edit(1, 'Web search retries 3 times.')
    await edit(2, 'Web search retries 4 times.')
    const followUpsOf = async () =>
      (await core.invoke('tasks.list', { workspaceId: ws.id })).filter((x) =>
        x.title.startsWith(`Follow up ${task.key} `),
      )
    const [follow] = await followUpsOf()
    expect(await followUpsOf()).toHaveLength(1)

    const page = ui.page
    await page.setViewportSize({ width: 1440, height: 900 })
    await page.goto(ui.stack.url)
    await page.getByTestId('tab-tasks').click()
    const card = page.locator(`[data-testid=task-card][data-key="${task.key}"]`)
    const chip = card.getByTestId('merged-on-chip')
    await chip.waitFor()
    expect(await chip.textContent()).toBe(`merged on ${d.key} v1 · now v3`)
    // The merged task is not "suspect": its follow-up carries the change, under the version it now brings in.
    expect(await card.textContent()).not.toContain('suspect')
    const followCard = page.locator(`[data-testid=task-card][data-key="${follow!.key}"]`)
    expect(await followCard.textContent()).toContain(`Follow up ${task.key} for ${d.key} v3: Retry count`)
    for (const width of [1440, 1024, 760]) {
      await page.setViewportSize({ width, height: 900 })
      await card.scrollIntoViewIfNeeded()
      await screenshot(page, `merged-followup-06-merged-chip-${width}`)
    }
    await page.setViewportSize({ width: 1440, height: 900 })

    // Revert to v1, what the merged code implements: the preview says the follow-up is cancelled, nothing is made.
    await page.getByTestId('tab-decisions').click()
    await page.getByTestId('decision-row').filter({ hasText: 'Retry count' }).click()
    const detail = page.getByTestId('decision-detail')
    await detail.locator('[data-testid=revision][data-version="1"]').getByTestId('revert').click()
    const reverting = detail.getByTestId('decision-editor')
    const preview = reverting.getByTestId('impact-preview')
    await expect.poll(() => preview.textContent()).not.toMatch(/checking/)
    expect(await preview.textContent()).toContain(
      `${follow!.key} is obsolete: ${d.key} is back to what ${task.key} was merged on (v1); the change cancels it.`,
    )
    expect(await preview.textContent()).not.toContain('follow-up task will be created')
    await screenshot(page, 'merged-followup-07-revert-preview-1440')
    // The decision's dependents say it too: the merged task is not "suspect", it was merged on v1.
    const dep = detail.locator('.dep-row').filter({ hasText: `${task.key} Retry count` })
    expect(await dep.getByTestId('dep-pin').textContent()).toBe(`merged on ${d.key} v1 · now v3`)
    await reverting.getByRole('button', { name: 'Revert → v4' }).click()
    await detail.getByTestId('edit-outcome').waitFor()
    await expect.poll(() => dep.getByTestId('dep-pin').textContent()).toBe(`merged on ${d.key} v1`)
    expect((await core.invoke('tasks.get', { taskId: follow!.id })).status).toBe('cancelled')
    expect(await followUpsOf()).toHaveLength(1)
    await page.getByTestId('tab-tasks').click()
    await expect.poll(() => chip.textContent()).toBe(`merged on ${d.key} v1`)

    // Away again (one new follow-up), started, then back: the revert offers to cancel it; one click cancels it.
    await edit(4, 'Web search retries 3 times.')
    const started = (await followUpsOf()).find((x) => x.status === 'todo')!
    await core.invoke('tasks.setStatus', { taskId: started.id, status: 'in_progress' })
    await page.getByTestId('tab-decisions').click()
    await detail.locator('[data-testid=revision][data-version="1"]').getByTestId('revert').click()
    await expect.poll(() => preview.textContent()).not.toMatch(/checking/)
    expect(await preview.textContent()).toContain(
      `${started.key} is obsolete: ${d.key} is back to what ${task.key} was merged on (v1); cancelling it is offered.`,
    )
    await reverting.getByRole('button', { name: 'Revert → v6' }).click()
    const cancel = detail.getByTestId('followup-cancel')
    await cancel.waitFor()
    expect(await cancel.textContent()).toBe(`Cancel ${started.key}, the obsolete follow-up of ${task.key}`)
    expect((await core.invoke('tasks.get', { taskId: started.id })).status).toBe('in_progress')
    for (const width of [1440, 1024, 760]) {
      await page.setViewportSize({ width, height: 900 })
      await screenshot(page, `merged-followup-08-cancel-offer-${width}`)
    }
    await page.setViewportSize({ width: 1440, height: 900 })
    await cancel.click()
    await detail.getByTestId('followup-cancelled').waitFor()
    expect(await detail.getByTestId('followup-cancelled').textContent()).toBe(
      `${started.key} cancelled: ${task.key} already implements this version`,
    )
    expect((await core.invoke('tasks.get', { taskId: started.id })).status).toBe('cancelled')
    expect(await followUpsOf()).toHaveLength(2)
    expect(ui.errors).toEqual([])
  }, 120_000)
})
