/**
 * External agents in the real UI: the member editor offers the agent choice (Concord's own agent, Claude Code, Codex,
 * Gemini CLI, a custom command) with each preset's install line and the agent settings; a member whose agent is
 * missing shows the install line and a Restart.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { describe, expect, it } from 'vitest'
import { noSandboxReason } from '../fixtures/sandbox-gate'
import { initRepo } from '../fixtures/core'
import { browserSession, projectRoot, screenshot } from './support'

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
      provider: {
        kind: 'acp',
        agent: 'claude-code',
        command: 'claude-agent-acp-not-installed-here',
        isolatedHome: true,
      },
    })
    await ui.page.goto(ui.stack.url)
    await ui.page.getByTestId('sidebar').waitFor()
    const session = ui.page.locator('[data-testid=member-session]')
    const composer = session.getByTestId('composer')
    await composer.fill('Hello')
    await composer.press('Enter')
    const head = session.getByTestId('session-head')
    await expect.poll(() => head.getAttribute('data-state'), { timeout: 20_000 }).toBe('error')
    expect(await head.textContent()).toContain(
      'Claude Code is not installed: npm i -g @zed-industries/claude-agent-acp',
    )
    await head.getByTestId('restart-member').waitFor()
    await screenshot(ui.page, 'a2-agent-error')

    await head.getByRole('button', { name: 'Claude’s settings' }).click()
    const settings = ui.page.getByRole('dialog', { name: 'Claude’s settings' })
    await settings.waitFor()
    const agent = settings.getByRole('radiogroup', { name: 'Agent' })
    expect(await agent.getByRole('radio').allTextContents()).toEqual([
      'Concord’s agent',
      'Claude Code',
      'Codex',
      'Gemini CLI',
      'Qwen Code',
      'GitHub Copilot CLI',
      'opencode',
      'Custom command',
    ])
    expect(await agent.getByRole('radio', { checked: true }).textContent()).toBe('Claude Code')
    expect(await settings.getByTestId('agent-install').textContent()).toBe(
      'Install: npm i -g @zed-industries/claude-agent-acp',
    )
    expect(await settings.getByLabel('Agent command').inputValue()).toBe('claude-agent-acp-not-installed-here')
    expect(await settings.getByLabel('Isolated home').isChecked()).toBe(true)
    expect(await settings.getByLabel('Turn timeout').inputValue()).toBe('10')
    await settings.getByLabel('Interrupt and re-prompt').check()
    await settings.getByLabel('Turn timeout').fill('5')
    await screenshot(ui.page, 'a1-agent-editor')
    // The sandbox note says the agent runs in the sandbox too, with the network; where there is none, that it is not
    // confined either.
    const note = await settings.getByTestId('sandbox-note').textContent()
    if ((await noSandboxReason()) === null)
      expect(note).toContain(
        'An external agent (any of the ACP agents, a custom command too) runs in the same sandbox, with the network on',
      )
    else expect(note).toContain('so can an external agent')
    const wide = ui.page.viewportSize()!
    await ui.page.setViewportSize({ width: 1024, height: wide.height })
    await screenshot(ui.page, 'a1-agent-editor-1024')
    await ui.page.setViewportSize(wide)
    // Each preset names its own install line; Concord's agent shows the model provider fields instead.
    await agent.getByRole('radio', { name: 'Codex' }).click()
    expect(await settings.getByTestId('agent-install').textContent()).toBe(
      'Install: npm i -g @zed-industries/codex-acp',
    )
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

  it('shows a report an agent submits through concord mcp (another process) without a reload', async () => {
    // A repository with a commit (a report names the commit it is about), opened as a second workspace.
    const repo = join(ui.stack.dataDir, '..', 'repo-git')
    mkdirSync(repo)
    initRepo(repo)
    const ws = await ui.stack.core.invoke('workspaces.open', { repoPath: repo, name: 'agents-git' })
    const claude = await ui.stack.core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Claude',
      role: 'implementer',
      approval: 'ask',
      provider: { kind: 'acp', agent: 'claude-code' },
    })
    await ui.page.getByLabel('Workspace').selectOption({ label: 'agents-git' })
    const task = await ui.stack.core.invoke('tasks.create', {
      workspaceId: ws.id,
      title: 'Build API',
      assigneeId: claude.id,
    })
    await ui.stack.core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
    await ui.page.getByTestId('tab-reports').click()
    // The panel has loaded this workspace's (no) reports before the agent submits one.
    await ui.page.getByText('Members submit reports when they deliver').waitFor()
    // What a user's own Claude Code does after `claude mcp add concord -- npx concord mcp --member …`.
    const client = new Client({ name: 'e2e', version: '1.0.0' })
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [join(projectRoot, 'bin', 'concord.js'), 'mcp', '--member', claude.id, '--data-dir', ui.stack.dataDir],
        stderr: 'pipe',
      }),
    )
    try {
      const r = await client.callTool({
        name: 'submit_report',
        arguments: {
          taskId: 'T-1',
          kind: 'implementation',
          verdict: 'pass',
          summary: 'Endpoints done, from my terminal',
          claims: [],
        },
      })
      expect(JSON.stringify(r.content)).not.toContain('error')
      expect(r.isError).toBeFalsy()
    } finally {
      await client.close()
    }
    // Relayed from the other process to the app's bus, then to the page: give a loaded CI machine time.
    await ui.page.locator('[data-testid=report-card][data-key=R-1]').waitFor({ timeout: 30_000 })
    await screenshot(ui.page, 'a3-report-from-mcp')
    expect(ui.errors).toEqual([])
    // Two processes start here (the MCP server, and the assignee's agent on the task's start): room on a loaded machine.
  }, 60_000)
})
