/**
 * Updating a task's branch in the real UI (issue 30): after the user's own commit on main, an accepted task's card
 * says the base moved and offers "Merge when verified" (primary: verified merges are the default), "Update from main"
 * and "Ask Ivy to update"; one click on Update brings main into the
 * task's tree, the card says so and the task is delivered again on the new head, to be verified there. A task whose
 * trial merge conflicts offers only the assignee's update as its primary action, never Merge.
 * Screenshots at 1440, 1024 and 760.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Task } from '../../shared/schemas'
import { browserSession } from './support'
import { git, repoWithSearch, search, shots } from './code-moves'

const ui = browserSession()

describe('browser UI: updating a task’s branch', () => {
  it('"Update from main" on a card after main moved brings main into the tree; a conflict offers only the assignee', async () => {
    const { core, repoDir, dataDir } = ui.stack
    repoWithSearch(repoDir)
    const ws = await core.invoke('workspaces.open', { repoPath: repoDir, name: 'updates' })
    const ivy = await core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Ivy',
      role: 'implementer',
      approval: 'auto',
      provider: { kind: 'openai', model: 'scripted', baseURL: ui.stack.models.openaiBaseURL, apiKey: 'sk-e2e' },
    })
    const made = async (title: string, files: Record<string, string>): Promise<Task> => {
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
      return core.invoke('tasks.accept', { taskId: task.id })
    }
    const docs = await made('Document the search', { 'docs.md': 'search\n' })
    const bullets = await made('Bullet list of results', { 'src/search.js': search({ 5: 'bullets' }) })

    await ui.page.goto(ui.stack.url)
    await ui.page.getByTestId('sidebar').waitFor()
    await ui.page.getByTestId('tab-tasks').click()
    const card = (t: Task) => ui.page.locator(`[data-testid=task-card][data-key="${t.key}"]`)
    await card(docs).getByTestId('merge-task').waitFor()

    // Your hotfix on main, on the line T-2 changed.
    writeFileSync(join(repoDir, 'src', 'search.js'), search({ 5: 'hotfix' }))
    git(repoDir, 'commit', '-qam', 'hotfix')
    const main = git(repoDir, 'rev-parse', 'main')

    await expect.poll(() => card(docs).getByTestId('task-base').textContent()).toBe('behind main by 1')
    // Accepted, with verified merges (the default): "Merge when verified" updates, verifies and lands it — the primary
    // action; "Update from main" only brings main in.
    expect(await card(docs).getByTestId('merge-task').textContent()).toBe('Merge when verified')
    expect(await card(docs).getByTestId('merge-task').getAttribute('class')).toContain('primary')
    const update = card(docs).getByTestId('update-from-base')
    await expect.poll(() => update.count()).toBe(1)
    expect(await update.getAttribute('class')).not.toContain('primary')
    expect(await card(docs).getByTestId('ask-update').textContent()).toBe(`Ask Ivy to update ${docs.key} from main`)
    // The conflicting one: only the assignee can resolve it, and that is its primary action; never Merge.
    await expect.poll(() => card(bullets).getByTestId('task-base').textContent()).toContain('conflicts')
    expect(await card(bullets).getByTestId('update-from-base').count()).toBe(0)
    expect(await card(bullets).getByTestId('ask-update').getAttribute('class')).toContain('primary')
    expect(await card(bullets).getByTestId('merge-task').count()).toBe(0)
    await card(docs).scrollIntoViewIfNeeded()
    await shots(ui.page, 'ub1-update-offered')

    await update.click()
    const result = card(docs).getByTestId('update-result')
    await result.waitFor()
    expect(await result.textContent()).toMatch(
      new RegExp(`^Updated from main: ${docs.key} is at [0-9a-f]{7}\\. It needs verifying again on the new head\\.$`),
    )
    const after = await core.invoke('tasks.get', { taskId: docs.id })
    expect(after.status).toBe('delivered')
    expect(git(repoDir, 'merge-base', '--is-ancestor', main, after.artifact!.commit!)).toBe('')
    await expect.poll(() => card(docs).getAttribute('data-status')).toBe('delivered')
    await card(docs).scrollIntoViewIfNeeded()
    await shots(ui.page, 'ub2-updated')

    // "Ask Ivy to update" on the conflicting one: one click, and Ivy's automatic turn in its tree names the file.
    ui.stack.models.enqueue({ text: 'I will resolve the conflict in src/search.js.' })
    await card(bullets).getByTestId('ask-update').click()
    const asked = card(bullets).getByTestId('update-result')
    await asked.waitFor()
    expect(await asked.textContent()).toBe(
      `main conflicts with ${bullets.key} in src/search.js: Ivy was asked to resolve it in its tree.`,
    )
    await expect.poll(() => ui.stack.models.requests.length).toBe(1)
    expect(JSON.stringify(ui.stack.models.requests[0]!.body)).toContain('src/search.js')
    const tree = join(dataDir, 'worktrees', ws.id, bullets.key)
    expect(git(tree, 'rev-parse', '--verify', '--quiet', 'MERGE_HEAD')).toMatch(/^[0-9a-f]{40}$/)
    expect(await card(bullets).getByTestId('merge-task').count()).toBe(0)
    expect(await card(bullets).getByTestId('ask-update').count()).toBe(0) // it is Ivy's now: no second ask
    await card(bullets).scrollIntoViewIfNeeded()
    await shots(ui.page, 'ub3-asked')
    expect(ui.errors).toEqual([])
  }, 180_000)
})
