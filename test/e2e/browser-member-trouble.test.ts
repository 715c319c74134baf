/**
 * Member trouble where the user looks, and a session read per task (issue 31), through the UI in Chromium against a
 * model server that answers 401 to any key but sk-test:
 * - moving T-1 to in progress starts Impl, whose key is wrong: the card says Impl stopped and offers its settings;
 *   the session header offers "Fix in settings" instead of Restart and a new conversation; the key fixed there, the
 *   start message goes out again (nothing typed) and the card's line goes;
 * - T-2's card opens Impl's turns on T-2 only; the header's picker switches to T-1's; "Show every turn" goes back.
 */
import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import type { Step } from '../../shared/schemas'
import { waitForEvent } from '../fixtures/core'
import { onlyKey } from '../fixtures/model-server'
import { browserSession, newPage, screenshot } from './support'

const ui = browserSession({ taskStartTurns: true, models: { unscripted: onlyKey('sk-test') } })

const sessionOf = (page: Page, name: string) =>
  page
    .locator('[data-testid=member-session]')
    .filter({ has: page.locator('[data-testid=session-head]', { hasText: name }) })
const card = (page: Page, key: string) => page.locator(`[data-testid=task-card][data-key="${key}"]`)
const texts = async (page: Page, selector: string) =>
  (await page.locator(selector).allTextContents()).map((t) => t.trim())

/** The Tasks tab, the panel opened first where it starts folded (a drawer below 960 px). */
async function showTasks(page: Page) {
  const open = page.getByLabel('Show panel')
  await page.getByTestId('right-panel').or(open).first().waitFor()
  if (await open.isVisible()) await open.click()
  await page.getByTestId('tab-tasks').click()
}

let implId = ''
let t1 = ''
let t2 = ''

describe('browser UI: member trouble on the board, a session per task', () => {
  it('the card says the assignee stopped on a refused key; fixing it in settings sends the start message', async () => {
    const { core, models, repoDir } = ui.stack
    const { initRepo } = await import('../fixtures/core')
    initRepo(repoDir)
    const ws = await core.invoke('workspaces.open', { repoPath: repoDir, name: 'trouble' })
    const provider = { kind: 'openai' as const, model: 'gpt-test', baseURL: models.openaiBaseURL }
    const impl = await core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Impl',
      role: 'implementer',
      provider: { ...provider, apiKey: 'sk-wrong' },
      approval: 'auto',
      authority: 'proposer',
    })
    implId = impl.id
    const task = await core.invoke('tasks.create', {
      workspaceId: ws.id,
      title: 'Web search tool',
      spec: 'A tool that searches the web.',
      assigneeId: impl.id,
    })
    t1 = task.id

    const page = ui.page
    await page.goto(ui.stack.url)
    await page.getByTestId('tab-tasks').click()
    await page.getByLabel('Move T-1').selectOption('in_progress')
    const trouble = card(page, 'T-1').getByTestId('assignee-trouble')
    await trouble.and(page.locator('[data-trouble=error]')).waitFor()
    expect(await trouble.getAttribute('data-code')).toBe('provider_auth')
    expect(await trouble.textContent()).toMatch(/Impl stopped:.*rejected the credentials \(401\)/)
    await screenshot(page, 'member-trouble-01-card-1440')

    // The session header: the settings, not Restart or a new conversation (neither fixes a key).
    await page.getByTestId('member-item').filter({ hasText: 'Impl' }).click()
    const session = sessionOf(page, 'Impl')
    const error = session.getByTestId('session-error')
    await error.waitFor()
    expect(await error.getAttribute('data-code')).toBe('provider_auth')
    expect(await session.getByTestId('fix-in-settings').isVisible()).toBe(true)
    expect(await session.getByTestId('retry-turn').isVisible()).toBe(true)
    expect(await session.getByTestId('restart-member').count()).toBe(0)
    expect(await session.getByText('Start a new conversation').count()).toBe(0)
    await screenshot(page, 'member-trouble-02-header-1440')

    // Fixed from the card: the settings open on the key, with what went wrong; saving sends the start message again.
    await page.getByTestId('tab-tasks').click()
    await card(page, 'T-1').getByTestId('card-fix-in-settings').click()
    await page.getByTestId('settings-fix').waitFor()
    expect(await page.getByLabel('API key').evaluate((el) => el === document.activeElement)).toBe(true)
    await screenshot(page, 'member-trouble-03-settings-1440')
    models.enqueue({ text: 'Starting on the web search tool.' })
    await page.getByLabel('API key').fill('sk-test')
    await page.getByTestId('save-member').click()
    await session
      .locator('[data-kind=model][data-status=done]')
      .filter({ hasText: 'Starting on the web search tool.' })
      .waitFor()
    await trouble.waitFor({ state: 'detached' })
    const answered = models.requests.filter((r) => r.headers.authorization === 'Bearer sk-test')
    expect(answered).toHaveLength(1)
    expect((answered[0]!.body.messages as { content: string }[]).at(-1)?.content).toMatch(/^\[From Concord\] Start T-1/)
    expect(await session.getByTestId('session-error').count()).toBe(0)
    expect(ui.errors).toEqual([])
  }, 90_000)

  it('the header and the card at 1024 and 760 px', async () => {
    const { core } = ui.stack
    // Stopped again, on a key now refused, for the narrow screenshots.
    await core.invoke('members.update', {
      memberId: implId,
      provider: { kind: 'openai', model: 'gpt-test', baseURL: ui.stack.models.openaiBaseURL, apiKey: 'sk-revoked' },
    })
    await core.invoke('sessions.send', { memberId: implId, text: 'T-1: and the tests?', taskId: t1 })
    for (const width of [1024, 760]) {
      const { page, context, errors } = await newPage(ui.browser, { width, height: 800 })
      await page.goto(ui.stack.url)
      await page.getByTestId('member-item').filter({ hasText: 'Impl' }).click()
      await sessionOf(page, 'Impl').getByTestId('fix-in-settings').waitFor()
      await screenshot(page, `member-trouble-04-header-${width}`)
      await showTasks(page)
      await card(page, 'T-1').getByTestId('assignee-trouble').waitFor()
      await card(page, 'T-1').scrollIntoViewIfNeeded()
      await screenshot(page, `member-trouble-05-card-${width}`)
      expect(errors).toEqual([])
      await context.close()
    }
    ui.stack.models.enqueue({ text: 'Tests next.' })
    await core.invoke('members.update', {
      memberId: implId,
      provider: { kind: 'openai', model: 'gpt-test', baseURL: ui.stack.models.openaiBaseURL, apiKey: 'sk-test' },
    })
    const page = ui.page
    await sessionOf(page, 'Impl')
      .locator('[data-kind=model][data-status=done]')
      .filter({ hasText: 'Tests next.' })
      .waitFor()
  }, 90_000)

  it("T-2's card opens Impl's turns on T-2 only; the header switches to T-1's and back to every turn", async () => {
    const { core, models } = ui.stack
    const ws = (await core.invoke('workspaces.list', {}))[0]!
    const task = await core.invoke('tasks.create', { workspaceId: ws.id, title: 'Export log', assigneeId: implId })
    t2 = task.id
    models.enqueue({ text: 'On the export.' })
    await core.invoke('sessions.send', { memberId: implId, text: 'Start T-2', taskId: t2 })
    const page = ui.page
    const session = sessionOf(page, 'Impl')
    await session.locator('[data-kind=model][data-status=done]').filter({ hasText: 'On the export.' }).waitFor()

    await page.getByTestId('tab-tasks').click()
    await card(page, 'T-2').getByTestId('task-session').click()
    const banner = session.getByTestId('task-turns')
    await banner.waitFor()
    expect(await banner.textContent()).toContain('Impl’s turns on T-2')
    await session.locator('[data-kind=model]').filter({ hasText: 'On the export.' }).waitFor()
    const shown = () => texts(page, '[data-testid=member-session] [data-testid=step]')
    expect((await shown()).some((t) => t.includes('Starting on the web search tool.'))).toBe(false)
    expect((await shown()).some((t) => t.includes('Tests next.'))).toBe(false)
    expect(await session.getByTestId('session-task').inputValue()).toBe(t2)

    // A turn on T-2 taken while it is shown appears; one on T-1 does not.
    models.enqueue({ text: 'Export written.' }, { text: 'Search is fine.' })
    await core.invoke('sessions.send', { memberId: implId, text: 'T-2: write it', taskId: t2 })
    await session.locator('[data-kind=model][data-status=done]').filter({ hasText: 'Export written.' }).waitFor()
    const searchFine = waitForEvent(
      core,
      (e) =>
        e.event === 'session.step' &&
        (e.payload as { step: Step }).step.status === 'done' &&
        (e.payload as { step: Step }).step.text === 'Search is fine.',
    )
    await core.invoke('sessions.send', { memberId: implId, text: 'T-1: is search fine?', taskId: t1 })
    await searchFine
    expect((await shown()).some((t) => t.includes('Search is fine.') || t.includes('is search fine?'))).toBe(false)
    await screenshot(page, 'member-trouble-06-task-turns-1440')

    // The header's picker: T-1's turns (its start, the retried one, the fix) and none of T-2's.
    await session.getByTestId('session-task').selectOption(t1)
    await session.locator('[data-kind=model][data-status=done]').filter({ hasText: 'Search is fine.' }).waitFor()
    expect(await banner.textContent()).toContain('T-1')
    const ofT1 = await shown()
    expect(ofT1.some((t) => t.includes('Starting on the web search tool.'))).toBe(true)
    expect(ofT1.some((t) => t.includes('On the export.') || t.includes('Export written.'))).toBe(false)

    await session.getByTestId('all-turns').click()
    await banner.waitFor({ state: 'detached' })
    await session.locator('[data-kind=model]').filter({ hasText: 'On the export.' }).waitFor()
    await session.locator('[data-kind=model]').filter({ hasText: 'Search is fine.' }).waitFor()

    // With T-1 and T-2 both in progress, a message written in T-2's view goes to T-2 (the tree picker follows it).
    models.enqueue({ text: 'T-2 started.' })
    await core.invoke('tasks.setStatus', { taskId: t2, status: 'in_progress' })
    await session.locator('[data-kind=model][data-status=done]').filter({ hasText: 'T-2 started.' }).waitFor()
    const picker = page.getByTestId('tree-picker-select')
    expect(await picker.inputValue()).toBe('none')
    await session.getByTestId('session-task').selectOption(t2)
    await banner.waitFor()
    expect(await picker.inputValue()).toBe(t2)

    for (const width of [1024, 760]) {
      const { page: narrow, context, errors } = await newPage(ui.browser, { width, height: 800 })
      await narrow.goto(ui.stack.url)
      await showTasks(narrow)
      await card(narrow, 'T-2').getByTestId('task-session').click()
      await sessionOf(narrow, 'Impl').getByTestId('task-turns').waitFor()
      await sessionOf(narrow, 'Impl').locator('[data-kind=model]').filter({ hasText: 'Export written.' }).waitFor()
      await screenshot(narrow, `member-trouble-07-task-turns-${width}`)
      expect(errors).toEqual([])
      await context.close()
    }
    expect(ui.errors).toEqual([])
  }, 90_000)
})
