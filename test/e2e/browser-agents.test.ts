/**
 * External agents in the real UI: the member editor offers the agent choice (Concord's own agent, Claude Code, Codex,
 * Gemini CLI, a custom command) with each preset's install line and the agent settings; a member whose agent is
 * missing shows the install line and a Restart.
 */
import { describe, expect, it } from 'vitest'
import { browserSession, screenshot } from './support'

const ui = browserSession()

describe('browser UI: agents as members', () => {
  it('edits an agent member, shows its error with the install line, and restarts it', async () => {
    const ws = await ui.stack.core.invoke('workspaces.open', { repoPath: ui.stack.repoDir, name: 'agents' })
    const claude = await ui.stack.core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Claude',
      role: 'implementer',
      approval: 'ask',
      authority: 'proposer',
      provider: { kind: 'acp', agent: 'claude-code', command: 'claude-agent-acp-not-installed-here', isolatedHome: true },
    })
    await ui.page.goto(ui.stack.url)
    await ui.page.getByTestId('sidebar').waitFor()
    const session = ui.page.locator('[data-testid=member-session]')
    const composer = session.getByTestId('composer')
    await composer.fill('Hello')
    await composer.press('Enter')
    const head = session.getByTestId('session-head')
    await expect.poll(() => head.getAttribute('data-state'), { timeout: 20_000 }).toBe('error')
    expect(await head.textContent()).toContain('Claude Code is not installed: npm i -g @zed-industries/claude-agent-acp')
    await head.getByTestId('restart-member').waitFor()
    await screenshot(ui.page, 'a2-agent-error')

    await head.getByRole('button', { name: 'Claude’s settings' }).click()
    const settings = ui.page.getByRole('dialog', { name: 'Claude’s settings' })
    await settings.waitFor()
    const agent = settings.getByRole('radiogroup', { name: 'Agent' })
    expect(await agent.getByRole('radio').allTextContents()).toEqual(['Concord’s agent', 'Claude Code', 'Codex', 'Gemini CLI', 'Custom command'])
    expect(await agent.getByRole('radio', { checked: true }).textContent()).toBe('Claude Code')
    expect(await settings.getByTestId('agent-install').textContent()).toBe('Install: npm i -g @zed-industries/claude-agent-acp')
    expect(await settings.getByLabel('Agent command').inputValue()).toBe('claude-agent-acp-not-installed-here')
    expect(await settings.getByLabel('Isolated home').isChecked()).toBe(true)
    expect(await settings.getByLabel('Turn timeout').inputValue()).toBe('10')
    await settings.getByLabel('Interrupt and re-prompt').check()
    await settings.getByLabel('Turn timeout').fill('5')
    await screenshot(ui.page, 'a1-agent-editor')
    // Each preset names its own install line; Concord's agent shows the model provider fields instead.
    await agent.getByRole('radio', { name: 'Codex' }).click()
    expect(await settings.getByTestId('agent-install').textContent()).toBe('Install: npm i -g @zed-industries/codex-acp')
    await agent.getByRole('radio', { name: 'Gemini CLI' }).click()
    expect(await settings.getByTestId('agent-install').textContent()).toBe('Install: npm i -g @google/gemini-cli')
    await agent.getByRole('radio', { name: 'Concord’s agent' }).click()
    await settings.getByLabel('Model', { exact: true }).waitFor()
    await agent.getByRole('radio', { name: 'Custom command' }).click()
    expect(await settings.getByTestId('agent-install').count()).toBe(0)
    await agent.getByRole('radio', { name: 'Claude Code' }).click()
    // Back on the member's own agent: its saved settings, with the edits above made again.
    expect(await settings.getByLabel('Agent command').inputValue()).toBe('claude-agent-acp-not-installed-here')
    await settings.getByLabel('Interrupt and re-prompt').check()
    await settings.getByLabel('Turn timeout').fill('5')
    await settings.getByTestId('save-member').click()
    await settings.waitFor({ state: 'detached' })
    const saved = (await ui.stack.core.invoke('members.list', { workspaceId: ws.id })).find((m) => m.id === claude.id)!
    expect(saved.provider).toMatchObject({
      kind: 'acp',
      agent: 'claude-code',
      command: 'claude-agent-acp-not-installed-here',
      isolatedHome: true,
      interruptOnAdjustment: true,
      turnTimeoutSeconds: 300,
    })

    // Saving an edit lifts the error; a new failure brings it back, and Restart clears it.
    await composer.fill('Again')
    await composer.press('Enter')
    await expect.poll(() => head.getAttribute('data-state'), { timeout: 20_000 }).toBe('error')
    await head.getByTestId('restart-member').click()
    await expect.poll(() => head.getAttribute('data-state')).toBe('idle')
    expect(ui.errors).toEqual([])
  })
})
