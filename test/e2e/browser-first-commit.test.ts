/**
 * A repository with no commit (git init and nothing else): the sidebar says so and offers the first commit; starting
 * a task from its card is refused in those words (not "the base branch does not exist"), the card offers the first
 * commit, and after it the task starts on its branch.
 */
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { browserSession, screenshot } from './support'

const ui = browserSession()
const widths = [1440, 1024, 760]

describe('browser UI: the first commit of a new repository', () => {
  it('offers the first commit on the refused card, then starts the task', async () => {
    const { core, repoDir } = ui.stack
    const page = ui.page
    execFileSync('git', ['init', '-q', '-b', 'master'], { cwd: repoDir })
    writeFileSync(join(repoDir, 'index.html'), '<h1>hello</h1>\n')
    const ws = await core.invoke('workspaces.open', { repoPath: repoDir, name: 'fresh' })
    await core.invoke('tasks.create', { workspaceId: ws.id, title: 'Landing page', requiredReports: [] })
    await page.goto(ui.stack.url)
    await page.getByTestId('sidebar').waitFor()
    // Opening it from the UI is what shows what opening said.
    await page.getByLabel('Workspace').selectOption('__open')
    await page.getByTestId('repo-path').fill(repoDir)
    await page.getByTestId('open-repo').click()
    const line = page.getByTestId('ws-isolation')
    await expect.poll(() => line.textContent()).toContain('No commit yet')
    expect(await line.getByTestId('first-commit').count()).toBe(1)
    for (const w of widths) {
      await page.setViewportSize({ width: w, height: 900 })
      await screenshot(page, `first-commit-sidebar-${w}`)
    }
    await page.setViewportSize({ width: 1440, height: 900 })

    await page.getByTestId('tab-tasks').click()
    const card = page.locator('[data-testid=task-card][data-key="T-1"]')
    await card.getByLabel('Move T-1').selectOption('in_progress')
    const refusal = card.getByTestId('move-refusal')
    await expect.poll(() => refusal.textContent()).toContain('the repository has no commit yet')
    expect(await refusal.textContent()).not.toContain('does not exist')
    expect(await card.getAttribute('data-status')).toBe('todo')
    for (const w of widths) {
      await page.setViewportSize({ width: w, height: 900 })
      await screenshot(page, `first-commit-card-${w}`)
    }
    await page.setViewportSize({ width: 1440, height: 900 })

    await refusal.getByTestId('first-commit-files').click()
    const started = page.locator('[data-testid=task-card][data-key="T-1"][data-status=in_progress]')
    await expect.poll(() => started.getByTestId('task-branch').textContent()).toContain('concord/T-1-landing-page')
    expect(execFileSync('git', ['ls-tree', '-r', '--name-only', 'master'], { cwd: repoDir, encoding: 'utf8' })).toBe(
      'index.html\n',
    )
    await expect.poll(() => line.textContent()).not.toContain('No commit yet')
    await screenshot(page, 'first-commit-started-1440')
    expect(ui.errors).toEqual([])
  }, 120_000)
})
