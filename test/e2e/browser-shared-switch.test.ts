/**
 * A shared workspace (saved before worktrees, the user's checkout is the tree) says when it opens that its .git stays
 * read-only to commands and offers a branch per task: the button switches it (workspaces.update {isolation:
 * 'worktree'}) and the sidebar then says so.
 */
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { browserSession, screenshot } from './support'

const ui = browserSession()

describe('browser UI: a shared workspace offers worktree isolation', () => {
  it('shows the note with the switch, and the switch makes it a branch per task', async () => {
    const { core, repoDir } = ui.stack
    const page = ui.page
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repoDir })
    writeFileSync(join(repoDir, 'a.txt'), 'a\n')
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'add', '-A'], { cwd: repoDir })
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'first'], {
      cwd: repoDir,
    })
    const ws = await core.invoke('workspaces.open', { repoPath: repoDir, name: 'shared', isolation: 'shared' })
    await page.goto(ui.stack.url)
    await page.getByTestId('sidebar').waitFor()
    // Opening it again from the UI is what shows what opening said.
    await page.getByLabel('Workspace').selectOption('__open')
    await page.getByTestId('repo-path').fill(repoDir)
    await page.getByTestId('open-repo').click()
    const line = page.getByTestId('ws-isolation')
    await expect.poll(() => line.textContent()).toContain('read-only to their commands')
    await screenshot(page, 'shared-switch-offer')
    await page.getByTestId('switch-to-worktrees').click()
    await expect
      .poll(async () => (await core.invoke('workspaces.settings', { workspaceId: ws.id })).isolation)
      .toBe('worktree')
    await expect.poll(() => line.textContent()).toContain('a branch per task, from main')
    expect(await page.getByTestId('switch-to-worktrees').count()).toBe(0)
    await screenshot(page, 'shared-switch-done')
    expect(ui.errors).toEqual([])
  }, 120_000)
})
