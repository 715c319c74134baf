/**
 * After a reload the user lands on the member they left (issue 22, Flow): the member open is a UI preference
 * kept in localStorage with the others (never workspace data).
 */
import { describe, expect, it } from 'vitest'
import { browserSession } from './support'

const ui = browserSession()

describe('browser UI: a reload keeps the member open', () => {
  it('opens the member that was open before the reload, not the first one', async () => {
    const { core, repoDir } = ui.stack
    const ws = await core.invoke('workspaces.open', { repoPath: repoDir, name: 'reload', isolation: 'shared' })
    await core.invoke('members.create', { workspaceId: ws.id, name: 'Ada', role: 'lead' })
    await core.invoke('members.create', { workspaceId: ws.id, name: 'Ivy', role: 'implementer' })
    const page = ui.page
    const head = () => page.locator('[data-testid=member-session] [data-testid=session-head]').first().textContent()
    await page.goto(ui.stack.url)
    await page.getByTestId('member-item').filter({ hasText: 'Ada' }).waitFor()
    await expect.poll(head).toContain('Ada')
    await page.getByTestId('member-item').filter({ hasText: 'Ivy' }).click()
    await expect.poll(head).toContain('Ivy')
    await page.reload()
    await page.getByTestId('member-item').filter({ hasText: 'Ada' }).waitFor()
    await expect.poll(head).toContain('Ivy')
    expect(ui.errors).toEqual([])
  }, 60_000)
})
