/**
 * Where a member runs, in the real UI (issue 36): the member editor's "Runs on" sets an SSH host for an external agent
 * (a bad host refused with the server's words), the member list and header say "on <host>", and both survive a reload;
 * the workspace's default runner is set from the sidebar and shows on an agent that names none. Concord's own loop
 * offers no runner.
 */
import { describe, expect, it } from 'vitest'
import { browserSession, screenshot } from './support'

const ui = browserSession()

const agent = { kind: 'acp', agent: 'custom', command: '/usr/local/bin/my-agent' } as const

describe('browser UI: runners', () => {
  it('sets an SSH host in the member editor, shows it in the list and header, and keeps it after a reload', async () => {
    const ws = await ui.stack.core.invoke('workspaces.open', { repoPath: ui.stack.repoDir, name: 'runners' })
    const ada = await ui.stack.core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Ada',
      role: 'implementer',
      approval: 'auto',
      provider: agent,
    })
    await ui.stack.core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Bea',
      role: 'tester',
      approval: 'auto',
      provider: agent,
    })
    await ui.stack.core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Lou',
      role: 'reviewer',
      provider: { kind: 'openai-compatible', model: 'llama3.1', baseURL: 'http://127.0.0.1:9/v1' },
    })
    await ui.page.goto(ui.stack.url)
    await ui.page.getByTestId('sidebar').waitFor()
    const item = (name: string) => ui.page.getByTestId('member-item').filter({ hasText: name })
    await item('Ada').click()
    const head = ui.page.locator('[data-testid=member-session]').getByTestId('session-head')
    await head.getByRole('button', { name: 'Ada’s settings' }).click()
    const settings = ui.page.getByRole('dialog', { name: 'Ada’s settings' })
    const runsOn = settings.getByRole('radiogroup', { name: 'Runs on' })
    expect(await runsOn.getByRole('radio', { checked: true }).textContent()).toBe('Workspace default (this machine)')
    await runsOn.getByRole('radio', { name: 'SSH host' }).click()
    expect(await settings.getByTestId('runner-hint').textContent()).toBe(
      'The tree and agent live on the host; keys are passed on the connection, never written there.',
    )
    // A host that would be an option of ssh: the server's words, and nothing saved.
    await settings.getByLabel('SSH host').fill('-oProxyCommand=touch')
    await settings.getByTestId('save-member').click()
    await settings.getByText('runner.host: may not start with -').waitFor()
    await settings.getByLabel('SSH host').fill('runner1')
    await settings.getByTestId('runner-fields').scrollIntoViewIfNeeded()
    await screenshot(ui.page, 'runner-member-editor')
    await settings.getByTestId('save-member').click()
    await settings.waitFor({ state: 'detached' })
    expect(await item('Ada').getByTestId('runs-on').textContent()).toBe('on runner1')
    expect(await head.getByTestId('runs-on').textContent()).toBe('on runner1')
    const saved = (await ui.stack.core.invoke('members.list', { workspaceId: ws.id })).find((m) => m.id === ada.id)!
    expect(saved.runner).toEqual({ kind: 'ssh', host: 'runner1' })

    await ui.page.reload()
    await ui.page.getByTestId('sidebar').waitFor()
    await item('Ada').getByTestId('runs-on').waitFor()
    expect(await item('Ada').getByTestId('runs-on').textContent()).toBe('on runner1')
    expect(await item('Bea').getByTestId('runs-on').count()).toBe(0)
    await item('Ada').click()
    await head.getByRole('button', { name: 'Ada’s settings' }).click()
    expect(await runsOn.getByRole('radio', { checked: true }).textContent()).toBe('SSH host')
    expect(await settings.getByLabel('SSH host').inputValue()).toBe('runner1')
    await settings.getByRole('button', { name: 'Cancel' }).click()
    await settings.waitFor({ state: 'detached' })

    // Concord's own loop: no runner offered, and why.
    await item('Lou').click()
    await head.getByRole('button', { name: 'Lou’s settings' }).click()
    const lou = ui.page.getByRole('dialog', { name: 'Lou’s settings' })
    await lou.getByTestId('runner-local-only').waitFor()
    expect(await lou.getByTestId('runner-fields').count()).toBe(0)
    await lou.getByRole('button', { name: 'Cancel' }).click()
    await lou.waitFor({ state: 'detached' })
    expect(ui.errors).toEqual([])
  })

  it('sets the workspace default runner, which an agent naming none shows', async () => {
    const ws = await ui.stack.core.invoke('workspaces.open', { repoPath: ui.stack.repoDir, name: 'runners' })
    await ui.stack.core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Cy',
      role: 'tester',
      approval: 'auto',
      provider: agent,
    })
    await ui.page.goto(ui.stack.url)
    await ui.page.getByTestId('sidebar').waitFor()
    const open = ui.page.getByTestId('runner-settings-open')
    expect(await open.textContent()).toBe('Agents run on this machine')
    await open.click()
    const dialog = ui.page.getByRole('dialog', { name: 'Where agents run' })
    await dialog.getByRole('radiogroup', { name: 'Runs on' }).getByRole('radio', { name: 'Container' }).click()
    expect(await dialog.getByTestId('runner-hint').textContent()).toContain('The container is the sandbox')
    await dialog.getByLabel('Container image').fill('debian:bookworm')
    await screenshot(ui.page, 'runner-workspace-default')
    await dialog.getByTestId('runner-settings-save').click()
    await dialog.waitFor({ state: 'detached' })
    expect(await open.textContent()).toBe('Agents run on container debian:bookworm')
    const cy = ui.page.getByTestId('member-item').filter({ hasText: 'Cy' })
    expect(await cy.getByTestId('runs-on').textContent()).toBe('on debian:bookworm')
    await ui.page.reload()
    await cy.getByTestId('runs-on').waitFor()
    expect(await ui.page.getByTestId('runner-settings-open').textContent()).toBe(
      'Agents run on container debian:bookworm',
    )
    await screenshot(ui.page, 'runner-member-list')
    expect(ui.errors).toEqual([])
  })
})
