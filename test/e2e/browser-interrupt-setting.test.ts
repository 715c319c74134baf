/**
 * The member settings of Concord's own agent say when it hears of a change (issue 21): off, after its running
 * command ends; "Interrupt and re-prompt" on, at once, and the setting is saved on the member's provider.
 */
import { describe, expect, it } from 'vitest'
import { browserSession, screenshot } from './support'

const ui = browserSession()

describe('browser UI: interrupt and re-prompt for Concord’s agent', () => {
  it('says what the setting does and saves it', async () => {
    const ws = await ui.stack.core.invoke('workspaces.open', { repoPath: ui.stack.repoDir, name: 'interrupt' })
    const ivy = await ui.stack.core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Ivy',
      role: 'implementer',
      approval: 'ask',
      provider: { kind: 'openai-compatible', model: 'llama3.1', baseURL: 'http://127.0.0.1:9/v1' },
    })
    await ui.page.goto(ui.stack.url)
    await ui.page.getByTestId('sidebar').waitFor()
    const head = ui.page.locator('[data-testid=member-session]').getByTestId('session-head')
    await head.getByRole('button', { name: 'Ivy’s settings' }).click()
    const settings = ui.page.getByRole('dialog', { name: 'Ivy’s settings' })
    await settings.waitFor()
    const box = settings.getByLabel('Interrupt and re-prompt')
    expect(await box.isChecked()).toBe(false)
    expect(await settings.getByTestId('interrupt-hint').textContent()).toContain(
      'it hears of changes after its running command ends',
    )
    await box.check()
    expect(await settings.getByTestId('interrupt-hint').textContent()).toContain(
      'its running command or model call is stopped and it re-plans with the notice at once',
    )
    await screenshot(ui.page, 'i1-interrupt-builtin')
    await settings.getByTestId('save-member').click()
    await settings.waitFor({ state: 'detached' })
    const saved = (await ui.stack.core.invoke('members.list', { workspaceId: ws.id })).find((m) => m.id === ivy.id)!
    expect(saved.provider).toMatchObject({ kind: 'openai-compatible', interruptOnAdjustment: true })
    expect(ui.errors).toEqual([])
  })
})
