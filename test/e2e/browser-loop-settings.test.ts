/**
 * The workspace's loop settings in the sidebar: automatic turns for flagged members (default on) and delivery
 * by a passing implementation report (default off), saved through workspaces.update and kept across a reload.
 */
import { describe, expect, it } from 'vitest'
import { browserSession, screenshot } from './support'

const ui = browserSession()

describe('browser UI: loop settings', () => {
  it('shows the defaults, saves a change to the core and keeps it across a reload', async () => {
    const { core } = ui.stack
    const page = ui.page
    const ws = await core.invoke('workspaces.open', { repoPath: ui.stack.repoDir, name: 'loop' })
    await core.invoke('members.create', { workspaceId: ws.id, name: 'Impl', role: 'implementer' })
    await page.goto(ui.stack.url)
    const turns = page.getByTestId('setting-autoTurns')
    const deliver = page.getByTestId('setting-autoDeliver')
    await turns.waitFor()
    expect(await turns.isChecked()).toBe(true)
    expect(await deliver.isChecked()).toBe(false)
    for (const width of [1440, 1024]) {
      await page.setViewportSize({ width, height: 900 })
      await screenshot(page, `loop-settings-${width}`)
    }
    await page.setViewportSize({ width: 1440, height: 900 })

    await turns.uncheck()
    await deliver.check()
    await expect
      .poll(async () => (await core.invoke('workspaces.settings', { workspaceId: ws.id })).autoTurns)
      .toBe(false)
    await expect
      .poll(async () => (await core.invoke('workspaces.settings', { workspaceId: ws.id })).autoDeliver)
      .toBe(true)
    await page.reload()
    await turns.waitFor()
    expect(await turns.isChecked()).toBe(false)
    expect(await deliver.isChecked()).toBe(true)
    expect(ui.errors).toEqual([])
  }, 60_000)
})
