/**
 * The base moves, in the real UI (issue 30): an accepted task's card says what merging it does before Merge is
 * clicked; after the merge the sibling that changed the same file says plainly "behind main by 2 · overlaps T-1 in
 * src/search.js", says why it is not ready and offers "Merge when verified" (it would queue); the user's own conflicting commit on main adds "conflicts".
 * Screenshots at 1440, 1024 and 760.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Task } from '../../shared/schemas'
import { browserSession } from './support'
import { git, repoWithSearch, search, shots } from './code-moves'

const ui = browserSession()

describe('browser UI: the base moves', () => {
  it('previews the merge, then tells the overlapping sibling it is behind and, after your commit, that it conflicts', async () => {
    const { core, repoDir, dataDir } = ui.stack
    repoWithSearch(repoDir)
    const ws = await core.invoke('workspaces.open', { repoPath: repoDir, name: 'base moves' })
    const ivy = await core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Ivy',
      role: 'implementer',
      approval: 'auto',
    })
    const made = async (title: string, files: Record<string, string>, accept: boolean): Promise<Task> => {
      const task = await core.invoke('tasks.create', {
        workspaceId: ws.id,
        title,
        assigneeId: ivy.id,
        requiredReports: [],
      })
      await core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
      const dir = join(dataDir, 'worktrees', ws.id, task.key)
      for (const [f, content] of Object.entries(files)) writeFileSync(join(dir, f), content)
      git(dir, 'add', '-A')
      git(dir, 'commit', '-qm', title)
      await core.invoke('tasks.setStatus', { taskId: task.id, status: 'delivered' })
      return accept ? core.invoke('tasks.accept', { taskId: task.id }) : core.invoke('tasks.get', { taskId: task.id })
    }
    const t1 = await made('Search returns results and incomplete', { 'src/search.js': search({ 1: 'results' }) }, true)
    const t2 = await made('Bullet list of results', { 'src/search.js': search({ 10: 'bullets' }) }, true)
    const t3 = await made('Document the search', { 'docs.md': 'search\n' }, false)

    await ui.page.goto(ui.stack.url)
    await ui.page.getByTestId('sidebar').waitFor()
    await ui.page.getByTestId('tab-tasks').click()
    const card = (t: Task) => ui.page.locator(`[data-testid=task-card][data-key="${t.key}"]`)

    // Before Merge is clicked, the card says what it does.
    await expect
      .poll(() => card(t1).getByTestId('merge-preview').textContent())
      .toBe(
        `Merging ${t1.key} moves main: ${t2.key} overlaps (src/search.js) and will need updating and verifying again; ${t3.key} will need verifying again on the new main. Verified merge: main only receives a tree a passing test checked.`,
      )
    await card(t1).scrollIntoViewIfNeeded()
    await shots(ui.page, 'bm1-merge-preview')

    await card(t1).getByTestId('merge-task').click()
    await card(t1).locator('.badge', { hasText: 'merged' }).waitFor()
    // The sibling: behind, overlapping, no Merge, and why.
    await expect
      .poll(() => card(t2).getByTestId('task-base').textContent())
      .toBe(`behind main by 2 · overlaps ${t1.key} in src/search.js`)
    expect(await card(t2).getByTestId('refusal').textContent()).toContain('Not ready to merge:base moved')
    // Verified merges: Merge queues it (updated, verified again, then landed), and its preview says so.
    expect(await card(t2).getByTestId('merge-task').textContent()).toBe('Merge when verified')
    await expect.poll(() => card(t2).getByTestId('merge-preview').textContent()).toContain(`Merge queues ${t2.key}`)
    // The delivered task with no file in common: behind, and no longer ready to accept.
    await expect.poll(() => card(t3).getByTestId('task-base').textContent()).toBe('behind main by 2')
    expect(await card(t3).getByTestId('ready-to-accept').count()).toBe(0)
    await card(t2).scrollIntoViewIfNeeded()
    await shots(ui.page, 'bm2-behind')

    // Your own commit on main, on the line T-2 changed: the card says it conflicts, within moments, by itself.
    writeFileSync(join(repoDir, 'src', 'search.js'), search({ 1: 'results', 10: 'hotfix' }))
    git(repoDir, 'commit', '-qam', 'hotfix')
    await expect
      .poll(() => card(t2).getByTestId('task-base').textContent())
      .toBe(
        `behind main by 3 · overlaps ${t1.key} in src/search.js · overlaps commits on main in src/search.js · conflicts`,
      )
    expect(await card(t2).getByTestId('refusal').textContent()).toContain('conflicts with main in src/search.js')
    expect(await card(t2).getByTestId('merge-task').count()).toBe(0)
    await card(t2).scrollIntoViewIfNeeded()
    await shots(ui.page, 'bm3-conflicts')
    expect(ui.errors).toEqual([])
  }, 180_000)
})
