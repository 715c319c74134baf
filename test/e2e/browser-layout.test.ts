/**
 * Issue 31, "Layout": at 1024 px the sidebar's footer hid "+ Add member"; at 760 px the right panel covered the chat
 * and cut the inline decision editor in half. In real Chromium: each control is on screen and takes the click; at
 * 760 px the drawer folds at a press in the chat, so a decision card there is whole again.
 */
import type { Locator } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { initRepo } from '../fixtures/core'
import { browserSession, screenshot } from './support'

const ui = browserSession()

/** Whether the element is what a click across its middle (left, centre, right) reaches: not covered, not clipped. */
async function onTop(target: Locator): Promise<boolean> {
  return target.evaluate((el) => {
    const r = el.getBoundingClientRect()
    const y = r.top + r.height / 2
    const points = [0.1, 0.5, 0.9].map((f) => [r.left + r.width * f, y])
    return points.every(([x, y]) => {
      const hit = document.elementFromPoint(x!, y!)
      return hit !== null && (hit === el || el.contains(hit))
    })
  })
}

describe('browser UI: layout at 1440, 1024 and 760 px', () => {
  it('keeps "+ Add member" on screen and clickable under the sidebar footer', async () => {
    initRepo(ui.stack.repoDir)
    const ws = await ui.stack.core.invoke('workspaces.open', { repoPath: ui.stack.repoDir, name: 'layout' })
    for (const name of ['Ivy', 'Theo', 'Rhea', 'Quinn'])
      await ui.stack.core.invoke('members.create', {
        workspaceId: ws.id,
        name,
        role: 'implementer',
        approval: 'auto',
        provider: { kind: 'openai', model: 'scripted', baseURL: ui.stack.models.openaiBaseURL, apiKey: 'sk-e2e' },
      })
    await ui.page.goto(ui.stack.url)
    await ui.page.getByTestId('sidebar').waitFor()
    for (const [w, h] of [
      [1440, 900],
      [1024, 768],
      [1024, 640],
    ] as const) {
      await ui.page.setViewportSize({ width: w, height: h })
      await screenshot(ui.page, `layout-sidebar-${w}x${h}`)
      // On screen as the window opens (no scrolling), above the footer, and the element a click there reaches.
      expect(await onTop(ui.page.getByRole('button', { name: '+ Add member' }))).toBe(true)
      const foot = (await ui.page.locator('.side-foot').boundingBox())!
      const add = (await ui.page.getByRole('button', { name: '+ Add member' }).boundingBox())!
      expect(add.y + add.height).toBeLessThanOrEqual(foot.y)
    }
    expect(ui.errors).toEqual([])
  }, 60_000)

  it('at 760 px the inline decision editor is whole, not under the right panel', async () => {
    const ws = (await ui.stack.core.invoke('workspaces.list', {}))[0]!
    await ui.stack.core.invoke('decisions.create', {
      workspaceId: ws.id,
      title: 'Search timeout',
      statement: 'A search over 30 s fails as a whole.',
    })
    await ui.page.setViewportSize({ width: 1440, height: 900 })
    await ui.page.goto(ui.stack.url)
    const session = ui.page.locator('[data-testid=member-session]')
    ui.stack.models.enqueue({ text: 'Noted.' })
    await session.getByTestId('composer').fill('Implement D-1 as it stands.')
    await session.getByTestId('composer').press('Enter')
    await session.locator('[data-kind=model][data-status=done]').last().waitFor()
    const card = session.locator('[data-kind=user]').last().locator('[data-testid=decision-card][data-key="D-1"]')

    for (const w of [1440, 1024, 760]) {
      await ui.page.setViewportSize({ width: w, height: 900 })
      // The panel open, as the user had it (a wide window's default), on the tasks tab.
      await ui.page.getByTestId('tab-tasks').click()
      await screenshot(ui.page, `layout-drawer-${w}`)
      // A press in the chat: a narrow window's drawer folds, a wide window's panel stays.
      await card.locator('.dkey').click()
      expect(await ui.page.getByTestId('right-panel').count()).toBe(w === 760 ? 0 : 1)
      await card.getByRole('button', { name: 'Edit' }).click()
      const editor = card.getByTestId('decision-editor')
      await editor.waitFor()
      await editor.scrollIntoViewIfNeeded()
      await screenshot(ui.page, `layout-editor-${w}`)
      for (const control of [editor.getByLabel('Statement'), editor.getByRole('button', { name: /Confirm/ })])
        expect(await onTop(control), `${w} px: ${await control.evaluate((e) => e.outerHTML.slice(0, 80))}`).toBe(true)
      await editor.getByRole('button', { name: 'Cancel' }).click()
    }
    expect(ui.errors).toEqual([])
  }, 60_000)
})
