/**
 * The card says when the script its run command runs was changed by a member since the user last ran it, and that it
 * ran with the network off (issue 32); run again, the note goes and the command has the tree's network.
 */
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { initRepo } from '../fixtures/core'
import { browserSession, screenshot } from './support'

const ui = browserSession()
const widths = [1440, 1024, 760]

describe('browser UI: a member-changed run script', () => {
  it('is named on the card, with the network off for that run', async () => {
    const { core, repoDir } = ui.stack
    const page = ui.page
    initRepo(repoDir)
    writeFileSync(join(repoDir, 'dev.sh'), 'echo serving\n')
    execFileSync('git', ['add', 'dev.sh'], { cwd: repoDir })
    execFileSync('git', ['commit', '-q', '-m', 'dev script'], { cwd: repoDir })
    const ws = await core.invoke('workspaces.open', { repoPath: repoDir, name: 'trees' })
    await core.invoke('workspaces.update', { workspaceId: ws.id, runCommand: 'sh ./dev.sh' })
    const task = await core.invoke('tasks.create', { workspaceId: ws.id, title: 'Port', requiredReports: [] })
    const started = await core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
    const tree = join(ui.stack.dataDir, 'worktrees', ws.id, started.key)
    writeFileSync(join(tree, 'dev.sh'), 'echo a member wrote this\n')
    await page.goto(ui.stack.url)
    await page.getByTestId('sidebar').waitFor()
    await page.getByTestId('tab-tasks').click()
    const card = page.locator('[data-testid=task-card][data-key="T-1"]')
    await card.getByTestId('start-run').click()
    const run = card.getByTestId('tree-run')
    await expect.poll(() => run.getAttribute('data-state'), { timeout: 20_000 }).toBe('passed')
    const note = card.getByTestId('tree-run-member-changed')
    expect(await note.textContent()).toBe(
      'dev.sh changed by a member since you last ran it: it ran with the network off. Run again to give it the network.',
    )
    for (const w of widths) {
      await page.setViewportSize({ width: w, height: 900 })
      await screenshot(page, `tree-run-member-changed-${w}`)
    }
    await page.setViewportSize({ width: 1440, height: 900 })
    await card.getByTestId('start-run').click()
    const second = async () => (await core.invoke('tasks.treeRuns', { taskId: task.id })).find((r) => r.kind === 'run')
    // The first run was offline; the second, once ended, had the network.
    await expect
      .poll(async () => ((r) => `${r?.state} ${r?.network}`)(await second()), { timeout: 20_000 })
      .toBe('passed true')
    await expect.poll(() => run.getAttribute('data-state')).toBe('passed')
    expect(await note.count()).toBe(0)
    expect(ui.errors).toEqual([])
  }, 120_000)
})
