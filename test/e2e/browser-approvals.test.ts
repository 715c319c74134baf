/**
 * Approvals only where they matter, in the real UI: the wizard says in one line what a new member may do without
 * asking (and creates the team sandboxed); a member waiting on two calls shows both, answers them from the keyboard
 * one at a time (the answered one leaves the bar at once), "Always…" makes a rule that the member's settings list
 * and remove; a command it cannot take apart offers no rule. Screenshots at 1440 and 1024 (760 too for the last).
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { needsSandbox } from '../fixtures/sandbox-gate'
import { browserSession, screenshot } from './support'

const ui = browserSession()

async function both(page: Page, name: string) {
  for (const width of [1440, 1024]) {
    await page.setViewportSize({ width, height: 900 })
    await screenshot(page, `${name}-${width}`)
  }
  await page.setViewportSize({ width: 1440, height: 900 })
}

describe('browser UI: approvals', () => {
  it('wizard line, two waiting calls answered by keys, Always allow makes a rule the settings list and remove', async (ctx) => {
    // The wizard's line and the calls that run without asking are the sandboxed policy's, which needs the OS sandbox.
    await needsSandbox(ctx)
    const { core } = ui.stack
    const page = ui.page
    const ws = await core.invoke('workspaces.open', {
      repoPath: ui.stack.repoDir,
      name: 'approvals',
      isolation: 'shared',
    })
    await core.invoke('workspaces.update', { workspaceId: ws.id, autoTurns: false })
    await page.goto(ui.stack.url)

    // ---- the wizard: one line on what the team may do without asking ----
    await page.getByRole('radio', { name: 'Local / OpenAI-compatible' }).click()
    await page.getByLabel('Base URL').fill(ui.stack.models.openaiBaseURL)
    await page.getByLabel('Model').fill('scripted-model')
    await page.getByTestId('provider-next').click()
    const line = page.getByTestId('wizard-policy-line')
    expect(await line.textContent()).toContain(
      'Edits, commits and commands in its own tree run without asking, network off',
    )
    await both(page, 'approvals-01-wizard-line')
    await page.getByTestId('create-team').click()
    await expect.poll(() => page.getByTestId('member-item').count()).toBe(4)
    const team = await core.invoke('members.list', { workspaceId: ws.id })
    expect(team.map((m) => m.approval)).toEqual(['sandboxed', 'sandboxed', 'sandboxed', 'sandboxed'])
    const impl = team.find((m) => m.name === 'Implementer')!

    // ---- two calls at once, each leaving the sandbox (outside the tree, a command with the network on) ----
    await core.invoke('members.update', { memberId: impl.id, network: true })
    ui.stack.models.enqueue(
      {
        toolCalls: [
          { name: 'run_command', arguments: { command: 'npm test -- --run' } },
          { name: 'run_command', arguments: { command: 'touch ran.txt' } },
        ],
      },
      { text: 'Both ran.' },
    )
    await page.getByTestId('member-item').filter({ hasText: 'Implementer' }).click()
    await core.invoke('sessions.send', { memberId: impl.id, text: 'Run the tests and touch ran.txt' })
    const bar = page.locator('[data-testid=member-session]').getByTestId('approval-bar')
    const items = bar.getByTestId('approval-item')
    await expect.poll(() => items.count()).toBe(2)
    expect(await bar.getByTestId('approval-why').first().textContent()).toBe(
      'Asks because it leaves the sandbox: this command runs with the network on.',
    )
    await bar.getByTestId('allow-all').waitFor()
    await both(page, 'approvals-02-two-waiting')

    // L on the first: Always allow `npm test …` for the Implementer (Enter on the focused button).
    await page.locator('body').press('l')
    await bar.getByRole('group', { name: 'Always allow' }).waitFor()
    expect(await bar.getByRole('group', { name: 'Always allow' }).textContent()).toContain('npm test …')
    await both(page, 'approvals-03-always-allow')
    await page.keyboard.press('Enter')
    // Answered: it leaves the bar at once, though the other call still waits.
    await expect.poll(() => items.count()).toBe(1)
    expect(await items.first().textContent()).toContain('touch ran.txt')
    // A on the one left: allowed.
    await page.locator('body').press('a')
    await bar.waitFor({ state: 'detached' })
    await expect.poll(() => existsSync(join(ui.stack.repoDir, 'ran.txt'))).toBe(true)
    // The turn ends only once both commands have: `npm test` may outlast the touch, and a turn still open would take
    // the next test's scripted reply as its own.
    await page
      .locator('[data-testid=member-session] [data-kind=model][data-status=done]')
      .filter({ hasText: 'Both ran.' })
      .waitFor()
    const rules = await core.invoke('approvalRules.list', { workspaceId: ws.id, memberId: impl.id })
    expect(rules.map((r) => [r.memberId, r.effect, r.tool, r.commandPrefix])).toEqual([
      [impl.id, 'allow', 'run_command', 'npm test'],
    ])

    // ---- the member's settings: the policy in one line, the rule listed and removable ----
    await page.getByRole('button', { name: 'Implementer’s settings' }).click()
    expect(await page.getByTestId('policy-line').textContent()).toContain('its commands ask (its network is on)')
    const rule = page.getByTestId('member-rule')
    await rule.waitFor()
    expect(await rule.textContent()).toContain('run_command npm test …')
    await both(page, 'approvals-04-member-rules')
    await page.getByLabel('Approval policy').selectOption('ask')
    expect(await page.getByTestId('policy-line').textContent()).toBe(
      'Without asking: Asks before every file write, commit and command; reads run without asking.',
    )
    await rule.getByRole('button', { name: /Remove/ }).click()
    await rule.waitFor({ state: 'detached' })
    expect(await core.invoke('approvalRules.list', { workspaceId: ws.id, memberId: impl.id })).toEqual([])
    expect(ui.errors).toEqual([])
  }, 120_000)

  it('"Always…" on a command it cannot take apart offers no rule, and says so (issue 32)', async () => {
    const { core } = ui.stack
    const page = ui.page
    const ws = await core.invoke('workspaces.open', { repoPath: ui.stack.repoDir, name: 'norule', isolation: 'shared' })
    await core.invoke('workspaces.update', { workspaceId: ws.id, autoTurns: false })
    const m = await core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Codex',
      role: 'implementer',
      provider: { kind: 'openai', model: 'scripted-model', baseURL: ui.stack.models.openaiBaseURL, apiKey: 'sk-test' },
      approval: 'ask',
    })
    ui.stack.models.enqueue(
      { toolCalls: [{ name: 'run_command', arguments: { command: 'bash -lc "npm test && curl x"' } }] },
      { text: 'Not run.' },
    )
    await page.goto(ui.stack.url)
    await page.getByTestId('member-item').filter({ hasText: 'Codex' }).click()
    await core.invoke('sessions.send', { memberId: m.id, text: 'Run the tests' })
    const bar = page.locator('[data-testid=member-session]').getByTestId('approval-bar')
    await bar.getByTestId('approval-item').first().waitFor()
    await page.locator('body').press('l')
    const none = bar.getByTestId('no-rule')
    await none.waitFor()
    expect(await none.textContent()).toContain(
      'No rule offered: Concord cannot take this command apart with confidence, so it offers no rule for it.',
    )
    expect(await bar.locator('[data-action=always-member]').count()).toBe(0)
    for (const width of [1440, 1024, 760]) {
      await page.setViewportSize({ width, height: 900 })
      await screenshot(page, `approvals-05-no-rule-${width}`)
    }
    await page.setViewportSize({ width: 1440, height: 900 })
    await none.getByRole('button', { name: 'Back' }).click()
    await page.locator('body').press('d')
    await page.keyboard.press('Enter')
    await bar.waitFor({ state: 'detached' })
    expect(await core.invoke('approvalRules.list', { workspaceId: ws.id, memberId: m.id })).toEqual([])
    expect(ui.errors).toEqual([])
  }, 120_000)
})
