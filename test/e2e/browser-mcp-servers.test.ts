/**
 * The repository's MCP servers in a member's settings (issue 35): each server of `.mcp.json` listed with its command
 * and on by default, an entry Concord leaves out listed with its reason and code; turning one off is saved with the
 * member's settings.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { browserSession, screenshot } from './support'

const ui = browserSession()

describe('browser UI: the repository’s MCP servers per member', () => {
  it('lists them in the member’s settings and saves one turned off', async () => {
    writeFileSync(
      join(ui.stack.repoDir, '.mcp.json'),
      JSON.stringify({
        mcpServers: {
          memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
          files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'] },
          web: { type: 'http', url: 'https://example.com/mcp' },
        },
      }),
    )
    const ws = await ui.stack.core.invoke('workspaces.open', { repoPath: ui.stack.repoDir, name: 'mcp' })
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
    const list = settings.getByTestId('member-mcp-servers')
    const memory = list.getByLabel('MCP server memory')
    await memory.waitFor()
    expect(await memory.isChecked()).toBe(true)
    expect(await list.getByLabel('MCP server files').isChecked()).toBe(true)
    expect(await list.getByTestId('mcp-problem').textContent()).toContain('mcp_server_not_stdio')
    await memory.uncheck()
    await list.scrollIntoViewIfNeeded()
    await screenshot(ui.page, 'mcp-servers-settings')
    await settings.getByTestId('save-member').click()
    await settings.waitFor({ state: 'detached' })
    const saved = (await ui.stack.core.invoke('members.list', { workspaceId: ws.id })).find((m) => m.id === ivy.id)!
    expect(saved.mcpOff).toEqual(['memory'])
    expect(ui.errors).toEqual([])
  })
})
