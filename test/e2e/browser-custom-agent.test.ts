/**
 * A custom ACP agent in the real UI (issue 35): the member editor shows the key variable of a custom agent and saves
 * it; the session shows, at the agent's first turn, that Concord's tools did not reach it, and under ask that its
 * tree is read-only. The agent is the scripted ACP agent (a real process).
 */
import { describe, expect, it } from 'vitest'
import { noSandboxReason } from '../fixtures/sandbox-gate'
import { scriptedProvider } from '../fixtures/scripted-agent'
import { browserSession, screenshot } from './support'

const ui = browserSession()

describe('browser UI: a custom ACP agent', () => {
  it('edits its key variable, and its session says what Concord could not do with it', async () => {
    const ws = await ui.stack.core.invoke('workspaces.open', { repoPath: ui.stack.repoDir, name: 'custom' })
    const sandbox = (await noSandboxReason()) === null
    const qwen = await ui.stack.core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Qwen',
      role: 'implementer',
      approval: sandbox ? 'ask' : 'auto',
      provider: scriptedProvider(
        { mcpCapabilities: { sse: true, stdio: false }, turn: [{ say: 'I work without Concord’s tools.' }] },
        { keyVariable: 'DASHSCOPE_API_KEY', apiKey: 'sk-e2e-not-shown-0123456789' },
      ),
    })
    await ui.page.goto(ui.stack.url)
    await ui.page.getByTestId('sidebar').waitFor()
    const session = ui.page.locator('[data-testid=member-session]')
    const head = session.getByTestId('session-head')
    await head.getByRole('button', { name: 'Qwen’s settings' }).click()
    const settings = ui.page.getByRole('dialog', { name: 'Qwen’s settings' })
    await settings.waitFor()
    expect(await settings.getByLabel('Key variable').inputValue()).toBe('DASHSCOPE_API_KEY')
    if (sandbox) expect(await settings.getByTestId('ask-read-only').textContent()).toContain('its tree is read-only')
    await settings.getByLabel('Key variable').fill('OPENAI_API_KEY')
    expect(await settings.getByLabel('Agent API key').inputValue()).toBe('')
    for (const width of [1440, 1024, 760]) {
      await ui.page.setViewportSize({ width, height: 900 })
      await settings.getByLabel('Isolated home').scrollIntoViewIfNeeded()
      await screenshot(ui.page, `custom-agent-editor-${width}`)
    }
    await ui.page.setViewportSize({ width: 1440, height: 900 })
    await settings.getByTestId('save-member').click()
    await settings.waitFor({ state: 'detached' })
    const saved = (await ui.stack.core.invoke('members.list', { workspaceId: ws.id })).find((m) => m.id === qwen.id)!
    expect(saved.provider).toMatchObject({ kind: 'acp', agent: 'custom', keyVariable: 'OPENAI_API_KEY', hasKey: true })
    expect(JSON.stringify(saved)).not.toContain('sk-e2e-not-shown')

    const composer = session.getByTestId('composer')
    await composer.fill('Hello')
    await composer.press('Enter')
    await session.getByText('I work without Concord’s tools.').waitFor({ timeout: 30_000 })
    await session.getByText('does not take stdio MCP servers').waitFor()
    if (sandbox) await session.getByText('works in a read-only tree').waitFor()
    for (const width of [1440, 1024, 760]) {
      await ui.page.setViewportSize({ width, height: 900 })
      await screenshot(ui.page, `custom-agent-notice-${width}`)
    }
    await ui.page.setViewportSize({ width: 1440, height: 900 })
    expect(ui.errors).toEqual([])
  })
})
