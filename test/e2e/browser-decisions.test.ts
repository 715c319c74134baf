/**
 * Decisions and the small things of issue 13, in real Chromium through the bridge: a statement change asks
 * whether the rationale still holds; "Revert to this version" opens the editor on v1 with its impact and
 * applies it through decisions.revert; the history says who proposed and who accepted; an approval shows the
 * edit as a diff and the command as a command, and a Deny reason reaches the scripted model; figures open
 * the items behind them; a member without a provider says "no model"; "Add member" starts from the team's
 * provider; a folder that is not a git repository says what that means; the sidebar folds at 900 px; a server
 * that is down shows a banner. Screenshots at 1440 and 1024 px with the other e2e screenshots.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { browserSession, screenshot } from './support'

const ui = browserSession()

async function shoot(page: Page, name: string, widths = [1440, 1024]) {
  for (const width of widths) {
    await page.setViewportSize({ width, height: 900 })
    await screenshot(page, `${name}-${width}`)
  }
  await page.setViewportSize({ width: 1440, height: 900 })
}

const toolMessages = (body: { messages: { role: string; content: unknown }[] }) =>
  body.messages.filter((m) => m.role === 'tool').map((m) => String(m.content))

describe('browser UI: decisions, approvals and the small things', () => {
  it('revert with its preview, the rationale prompt, authorship, approvals as diffs with a Deny reason, figures, layout and the server-down banner', async () => {
    const { core, models } = ui.stack
    const page = ui.page
    writeFileSync(join(ui.stack.repoDir, 'app.ts'), 'export const timeoutMs = 5000\nexport const answer = 42\n')
    const ws = await core.invoke('workspaces.open', { repoPath: ui.stack.repoDir, name: 'search' })
    // This test scripts every model reply itself: no turn started by Concord for a flag may take one.
    await core.invoke('workspaces.update', { workspaceId: ws.id, autoTurns: false })
    const provider = {
      kind: 'openai' as const,
      model: 'scripted-model',
      baseURL: models.openaiBaseURL,
      apiKey: 'sk-test',
    }
    const impl = await core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Impl',
      role: 'implementer',
      provider,
      approval: 'ask',
    })
    const tester = await core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Tester',
      role: 'tester',
      provider,
      authority: 'proposer',
    })
    await core.invoke('members.create', { workspaceId: ws.id, name: 'Docs', role: 'writer' })
    const d = await core.invoke('decisions.create', {
      workspaceId: ws.id,
      title: 'Search timeout',
      statement: 'Web search times out after 5 s.',
      rationale: 'Upstreams answer within 2 s; 5 s is generous.',
    })
    const tk = await core.invoke('tasks.create', {
      workspaceId: ws.id,
      title: 'Web search',
      assigneeId: impl.id,
      decisionIds: [d.id],
    })
    await core.invoke('tasks.setStatus', { taskId: tk.id, status: 'in_progress' })
    await core.invoke('tasks.setStatus', { taskId: tk.id, status: 'delivered', artifact: { commit: 'c'.repeat(40) } })
    const report = await core.invoke('reports.submit', {
      taskId: tk.id,
      authorId: tester.id,
      kind: 'test',
      verdict: 'pass',
      artifact: { commit: 'c'.repeat(40) },
      claims: [{ text: 'gives up after 5 s', decisionIds: [d.id] }],
    })

    await page.goto(ui.stack.url)
    await page.getByTestId('sidebar').waitFor()

    // ---- a member without a provider says so instead of a green "idle" ----
    const docs = page.getByTestId('member-item').filter({ hasText: 'Docs' })
    expect(await docs.getByTestId('no-model').textContent()).toBe('no model')
    expect(await page.getByTestId('member-item').filter({ hasText: 'Impl' }).getByTestId('no-model').count()).toBe(0)

    // ---- the rationale is part of the edit ----
    await page.getByTestId('tab-decisions').click()
    await page.getByTestId('decision-row').filter({ hasText: 'Search timeout' }).click()
    const detail = page.getByTestId('decision-detail')
    await detail.getByRole('button', { name: 'Edit' }).click()
    const editor = detail.getByTestId('decision-editor')
    await editor.getByLabel('Statement').fill('Web search times out after 10 s.')
    await editor.getByTestId('rationale-prompt').waitFor()
    expect(await editor.getByTestId('impact-preview').textContent()).toContain('Normative change')
    await editor.getByTestId('impact-preview').filter({ hasText: 'T-1' }).waitFor()
    const confirm = editor.getByRole('button', { name: 'Confirm → v2' })
    expect(await confirm.isDisabled()).toBe(true)
    await shoot(page, 'x1-rationale')
    await editor.getByLabel(/still holds as written/).check()
    expect(await editor.getByTestId('rationale-prompt').count()).toBe(0)
    await editor.getByLabel('Reason').fill('slow mirrors')
    await confirm.click()
    await detail.locator('.dver').filter({ hasText: 'v2' }).first().waitFor()
    expect((await core.invoke('reports.get', { reportId: report.id })).validity).toBe('stale')

    // ---- a proposal by Tester accepted by the human: the history says both ----
    const asked = await core.invoke('decisions.update', {
      decisionId: d.id,
      expectedVersion: 2,
      rationale: 'Mirrors can take 8 s.',
      reason: 'measured',
      actorId: tester.id,
    })
    await core.invoke('proposals.accept', { proposalId: asked.proposal!.id })
    const v3 = detail.locator('[data-testid=revision][data-version="3"]')
    await v3.waitFor()
    expect(await v3.getByTestId('revision-who').textContent()).toMatch(/^proposed by Tester, accepted by you · /)

    // ---- revert to v1: the editor holds v1, shows the impact, and decisions.revert applies it ----
    await detail.locator('[data-testid=revision][data-version="1"]').getByTestId('revert').click()
    const reverting = detail.getByTestId('decision-editor')
    await reverting.getByTestId('revert-banner').waitFor()
    expect(await reverting.getByLabel('Statement').inputValue()).toBe('Web search times out after 5 s.')
    expect(await reverting.getByLabel('Rationale').inputValue()).toBe('Upstreams answer within 2 s; 5 s is generous.')
    // Back to the content the report was pinned to: nothing new is flagged, and the preview names what it restores.
    await expect.poll(() => reverting.getByTestId('impact-preview').textContent()).not.toMatch(/checking/)
    expect(await reverting.getByTestId('impact-preview').textContent()).toContain(
      'Nothing new is flagged. Restores 1 claim in R-1 (valid again).',
    )
    await shoot(page, 'x2-revert-preview')
    await reverting.getByLabel('Reason').fill('10 s was never measured')
    await reverting.getByRole('button', { name: 'Revert → v4' }).click()
    await detail.locator('[data-testid=revision][data-version="4"]').waitFor()
    expect(await detail.locator('.ddetail-statement').textContent()).toBe('Web search times out after 5 s.')
    const v4 = (await core.invoke('decisions.history', { decisionId: d.id })).at(-1)!
    expect(v4).toMatchObject({
      version: 4,
      reason: 'revert to v1: 10 s was never measured',
      statement: 'Web search times out after 5 s.',
    })
    expect((await core.invoke('reports.get', { reportId: report.id })).validity).toBe('valid')
    await shoot(page, 'x3-history')

    // ---- an approval shows the edit as a diff; Deny's reason reaches the model ----
    const item = (name: string) => page.getByTestId('member-item').filter({ hasText: name })
    await item('Impl').click()
    const session = page.locator('[data-testid=member-session]')
    models.enqueue(
      {
        toolCalls: [
          {
            name: 'edit_file',
            arguments: { path: 'app.ts', old: 'export const timeoutMs = 5000', new: 'export const timeoutMs = 10000' },
          },
        ],
      },
      { toolCalls: [{ name: 'run_command', arguments: { command: 'npm test -- --run search\n' } }] },
      { text: 'Understood: I keep 5 s and will not run the tests.' },
    )
    await session.getByTestId('composer').fill('Apply the timeout from D-1')
    await session.getByTestId('composer').press('Enter')
    const diff = session.locator('[data-testid=tool-call][data-status=waiting_approval] [data-testid=approval-diff]')
    await diff.waitFor()
    expect(await diff.getAttribute('data-kind')).toBe('edit')
    expect(await diff.locator('.del').textContent()).toBe('-export const timeoutMs = 5000')
    expect(await diff.locator('.add').textContent()).toBe('+export const timeoutMs = 10000')
    await shoot(page, 'x4-approval-diff')
    const waiting = session.locator('[data-testid=tool-call][data-status=waiting_approval]')
    await waiting.getByRole('button', { name: 'Deny…' }).click()
    await waiting.getByLabel('Reason for denying').fill('D-1 is back at 5 s: keep the timeout')
    await shoot(page, 'x5-deny-reason')
    await waiting.getByRole('button', { name: 'Deny', exact: true }).click()

    // The command comes next: a command line, not JSON with \n. Denied without a reason.
    const command = session.locator(
      '[data-testid=tool-call][data-status=waiting_approval] [data-testid=approval-command]',
    )
    await command.waitFor()
    expect(await command.locator('pre').textContent()).toBe('$ npm test -- --run search\n')
    await session
      .locator('[data-testid=tool-call][data-status=waiting_approval]')
      .getByRole('button', { name: 'Deny…' })
      .click()
    await session
      .locator('[data-testid=tool-call][data-status=waiting_approval]')
      .getByRole('button', { name: 'Deny', exact: true })
      .click()
    await session.locator('[data-kind=model][data-status=done]').filter({ hasText: 'I keep 5 s' }).waitFor()
    // What the scripted model received with its last call: both results, the first with the human's reason.
    const last = models.requests.at(-1)!
    expect(toolMessages(last.body as never)).toEqual([
      'Denied by the human: D-1 is back at 5 s: keep the timeout (Do not retry it unchanged.)',
      'The human denied this call. (Do not retry it unchanged.)',
    ])

    // ---- figures explain themselves and open the items behind the number ----
    await page.getByTestId('tab-figures').click()
    const stale = page.getByTestId('figure').filter({ hasText: 'claims made stale' })
    expect(await stale.locator('.figure-explain').textContent()).toMatch(/no longer evidence/)
    await shoot(page, 'x6-figures')
    await stale.click()
    expect(await page.getByTestId('tab-reports').getAttribute('aria-selected')).toBe('true')
    expect(await page.getByTestId('reports-stale-only').isChecked()).toBe(true)
    await page.getByTestId('tab-figures').click()
    await page.getByTestId('figure').filter({ hasText: 'tasks flagged' }).click()
    expect(await page.getByTestId('tab-tasks').getAttribute('aria-selected')).toBe('true')

    // ---- at 1024 px the panel's tabs are icons named on hover, the open one labelled ----
    await page.setViewportSize({ width: 1024, height: 900 })
    expect(await page.getByTestId('tab-tasks').locator('.tab-label').isVisible()).toBe(true)
    expect(await page.getByTestId('tab-reports').locator('.tab-label').isVisible()).toBe(false)
    expect(await page.getByTestId('tab-reports').getAttribute('title')).toBe('Reports')
    await page.setViewportSize({ width: 1440, height: 900 })
    expect(await page.getByTestId('tab-reports').locator('.tab-label').isVisible()).toBe(true)

    // ---- "Add member" starts from the team's provider ----
    await page.getByRole('button', { name: '+ Add member' }).click()
    await page.getByTestId('team-provider-note').waitFor()
    expect(await page.locator('.modal').getByLabel('Model', { exact: true }).inputValue()).toBe('scripted-model')
    await shoot(page, 'x7-add-member')
    await page.locator('.modal').getByRole('button', { name: 'Cancel' }).click()

    // ---- a folder that is not a git repository says what that means ----
    await page.getByLabel('Workspace').selectOption('__open')
    await page.getByTestId('browse-folders').click()
    await page.getByTestId('folder-path').fill(ui.stack.repoDir)
    await page.getByTestId('folder-path').press('Enter')
    await page.getByTestId('not-git').waitFor()
    expect(await page.getByTestId('not-git').textContent()).toContain('git init')
    await shoot(page, 'x8-not-git')
    await page.keyboard.press('Escape')
    await page.keyboard.press('Escape')

    // ---- below 960 px the sidebar folds into a rail, and opens whole ----
    await page.setViewportSize({ width: 900, height: 800 })
    await page.getByTestId('sidebar-toggle').waitFor()
    expect(await item('Impl').locator('.member-name').isVisible()).toBe(false)
    const rail = await page.getByTestId('sidebar').boundingBox()
    expect(rail!.width).toBeLessThan(80)
    await screenshot(page, 'x9-sidebar-900')
    await page.getByTestId('sidebar-toggle').click()
    expect(await item('Impl').locator('.member-name').isVisible()).toBe(true)
    await screenshot(page, 'x9-sidebar-900-open')
    await item('Tester').click()
    expect(await item('Impl').locator('.member-name').isVisible()).toBe(false)
    await page.setViewportSize({ width: 1440, height: 900 })

    // ---- the server goes away: a banner, not only a grey dot ----
    expect(await page.getByTestId('server-down').count()).toBe(0)
    await ui.stack.bridge.close()
    await page.getByTestId('server-down').waitFor()
    expect(await page.getByTestId('server-down').textContent()).toMatch(/Reconnecting|not reachable/)
    await shoot(page, 'x10-server-down')
    expect(ui.errors.filter((e) => !/ERR_CONNECTION_REFUSED|WebSocket/.test(e))).toEqual([])
  }, 180_000)
})
