/**
 * A task's tree ready to work in, in the real UI: the workspace's task-tree settings (files copied, setup command,
 * run command) saved from the sidebar, a hostile path refused there in words; starting a task shows its setup's
 * result and output on the card (a failure opens its output); the card's Run starts the run command, shows what it
 * prints, and Stop stops it.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { initRepo } from '../fixtures/core'
import { browserSession, screenshot } from './support'

const ui = browserSession()
const widths = [1440, 1024, 760]

describe('browser UI: task trees set up and run', () => {
  it('saves the settings, shows the setup on the card, and runs and stops the run command', async () => {
    const { core, repoDir } = ui.stack
    const page = ui.page
    initRepo(repoDir)
    writeFileSync(join(repoDir, '.gitignore'), '.env\n')
    execFileSync('git', ['add', '.gitignore'], { cwd: repoDir })
    execFileSync('git', ['commit', '-q', '-m', 'ignore'], { cwd: repoDir })
    writeFileSync(join(repoDir, '.env'), 'PORT=5173\n')
    const ws = await core.invoke('workspaces.open', { repoPath: repoDir, name: 'trees' })
    await page.goto(ui.stack.url)
    await page.getByTestId('sidebar').waitFor()

    await page.getByTestId('tree-settings-open').click()
    const dialog = page.getByTestId('tree-settings')
    await dialog.getByTestId('tree-copy-files').fill('.env\n../secrets')
    await dialog.getByTestId('tree-setup-command').fill('. ./.env && echo "installing for port $PORT" && exit 1')
    await dialog.getByTestId('tree-run-command').fill('echo "serving on $(cat .env)"; sleep 60')
    expect(await dialog.getByTestId('tree-transfer-limit').inputValue()).toBe('500')
    await dialog.getByTestId('tree-transfer-limit').fill('50')
    await page.getByTestId('tree-settings-save').click()
    await expect.poll(() => dialog.textContent()).toContain("copyFiles: '../secrets' leaves your checkout")
    for (const w of widths) {
      await page.setViewportSize({ width: w, height: 900 })
      await screenshot(page, `tree-settings-${w}`)
    }
    await page.setViewportSize({ width: 1440, height: 900 })
    await dialog.getByTestId('tree-copy-files').fill('.env')
    await page.getByTestId('tree-settings-save').click()
    await expect.poll(() => page.getByTestId('tree-settings-open').textContent()).toBe('Task trees: setup, files, run')
    expect(await core.invoke('workspaces.settings', { workspaceId: ws.id })).toMatchObject({
      copyFiles: ['.env'],
      treeTransferLimitMB: 50,
    })

    const task = await core.invoke('tasks.create', { workspaceId: ws.id, title: 'Port', requiredReports: [] })
    await page.getByTestId('tab-tasks').click()
    const card = page.locator('[data-testid=task-card][data-key="T-1"]')
    await card.getByLabel('Move T-1').selectOption('in_progress')
    const setup = card.getByTestId('tree-setup')
    await expect.poll(() => setup.getAttribute('data-state'), { timeout: 20_000 }).toBe('failed')
    expect(await setup.textContent()).toContain('failed (exit 1)')
    // A failure opens its output: the copied file was there for the command.
    const output = card.getByTestId('tree-setup-output')
    expect(await output.textContent()).toContain('Copied from your checkout: .env')
    expect(await output.textContent()).toContain('installing for port 5173')
    expect((await core.invoke('tasks.get', { taskId: task.id })).status).toBe('in_progress')

    await card.getByTestId('start-run').click()
    const run = card.getByTestId('tree-run')
    await expect.poll(() => run.getAttribute('data-state')).toBe('running')
    await expect
      .poll(() => card.getByTestId('tree-run-output').textContent(), { timeout: 20_000 })
      .toContain('serving on PORT=5173')
    expect(await card.getByTestId('start-run').count()).toBe(0)
    for (const w of widths) {
      await page.setViewportSize({ width: w, height: 900 })
      await screenshot(page, `tree-runs-card-${w}`)
    }
    await page.setViewportSize({ width: 1440, height: 900 })
    await card.getByTestId('stop-run').click()
    await expect.poll(() => run.getAttribute('data-state')).toBe('stopped')
    expect(await card.getByTestId('start-run').count()).toBe(1)
    expect(ui.errors).toEqual([])
  }, 120_000)
})
