/**
 * The Figures tiles "notices sent" and "relays you did not have to make" open the items behind their number
 * (issue 13): a list as long as the figure, each row opening the member's chat at its step, highlighted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { initRepo, waitForEvent } from '../fixtures/core'
import { startModelServer, type ModelServer, type RecordedRequest, type ScriptedReply } from '../fixtures/model-server'
import { browserSession, newPage, screenshot } from './support'

const ui = browserSession()
let models: ModelServer
const scripts = new Map<string, ScriptedReply[]>()
const nameOf = (r: RecordedRequest) => /You are ([^,]+), the/.exec(r.body.messages[0].content as string)?.[1] ?? '?'
beforeAll(async () => {
  models = await startModelServer({
    unscripted: (req) => scripts.get(nameOf(req))?.shift() ?? { text: 'Nothing more to do.' },
  })
})
afterAll(async () => models.close())

describe('browser UI: figures open their items', () => {
  it('notices sent and relays you did not have to make list their items and open each at its step', async () => {
    const core = ui.stack.core
    initRepo(ui.stack.repoDir)
    const ws = await core.invoke('workspaces.open', {
      repoPath: ui.stack.repoDir,
      name: 'figures',
      isolation: 'shared',
    })
    const provider = { kind: 'openai' as const, model: 'gpt-test', baseURL: models.openaiBaseURL, apiKey: 'sk-test' }
    const impl = await core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Impl',
      role: 'implementer',
      provider,
      approval: 'auto',
      authority: 'proposer',
    })
    // No model: its notices wait (pending) and Concord starts no turn for it.
    const docs = await core.invoke('members.create', { workspaceId: ws.id, name: 'Docs', role: 'writer' })
    const d1 = await core.invoke('decisions.create', {
      workspaceId: ws.id,
      title: 'Search timeout',
      statement: 'Web search gives up after 5 s.',
    })
    const d2 = await core.invoke('decisions.create', {
      workspaceId: ws.id,
      title: 'Glossary',
      statement: 'Say member, not agent.',
    })
    const t1 = await core.invoke('tasks.create', {
      workspaceId: ws.id,
      title: 'Web search tool',
      assigneeId: impl.id,
      decisionIds: [d1.id],
    })
    const t2 = await core.invoke('tasks.create', {
      workspaceId: ws.id,
      title: 'User guide',
      assigneeId: docs.id,
      decisionIds: [d2.id],
    })
    for (const t of [t1, t2]) await core.invoke('tasks.setStatus', { taskId: t.id, status: 'in_progress' })

    const page = ui.page
    await page.goto(ui.stack.url)
    await page.getByTestId('tab-figures').click()
    const tile = (label: string) => page.locator(`[data-testid=figure][data-label="${label}"]`)
    const dialog = page.getByTestId('figure-items')
    // Nothing sent yet: the list says what would put items there.
    await tile('notices sent').click()
    await dialog.getByText('No notices yet').waitFor()
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'detached' })

    // D-1 changes: Impl is idle, so Concord starts its turn; its notice reaches it in that turn.
    scripts.set('Impl', [
      { toolCalls: [{ name: 'acknowledge_task', arguments: { taskId: 'T-1' } }] },
      { text: 'Adjusted to 10 s.' },
    ])
    const settled = waitForEvent(
      core,
      (e) =>
        e.event === 'session.state' &&
        e.payload.session.memberId === impl.id &&
        e.payload.session.state === 'idle' &&
        e.payload.session.queued === 0 &&
        scripts.get('Impl')!.length === 0,
      20_000,
    )
    await core.invoke('decisions.update', {
      decisionId: d1.id,
      expectedVersion: d1.version,
      statement: 'Web search gives up after 10 s.',
      reason: 'slow providers',
    })
    await settled
    // D-2 changes often: one pending notice for Docs each time, more than a page.
    let v = d2.version
    for (let i = 0; i < 55; i++)
      v = (
        await core.invoke('decisions.update', {
          decisionId: d2.id,
          expectedVersion: v,
          statement: `Say member, not agent (${i}).`,
          reason: 'wording',
        })
      ).decision.version

    const metrics = await core.invoke('metrics.get', { workspaceId: ws.id })
    expect(metrics.noticesSent).toBe(56)
    expect(metrics.autoTurns).toBe(1)
    await expect.poll(() => tile('notices sent').locator('.figure-value').textContent()).toBe('56')
    expect(await tile('notices sent').locator('.figure-open').textContent()).toBe('→')
    expect(await tile('relays you did not have to make').locator('.figure-explain').textContent()).toMatch(
      /Turns Concord started itself/,
    )

    // ---- notices sent: a page, then Show more, to as many as the figure ----
    await tile('notices sent').click()
    const rows = dialog.getByTestId('figure-item')
    await expect.poll(() => rows.count()).toBe(50)
    expect(await rows.first().textContent()).toMatch(/Docs.*D-2 v56 changed · tasks T-2pending/)
    await screenshot(page, 'figures-01-notices-1440')
    await dialog.getByTestId('figure-items-more').click()
    await expect.poll(() => rows.count()).toBe(56)
    expect(await dialog.getByTestId('figure-items-more').count()).toBe(0)
    const delivered = rows.filter({ hasText: 'Impl' })
    expect(await delivered.count()).toBe(1)
    expect(await delivered.textContent()).toMatch(/D-1 v2 changed · tasks T-1delivered /)
    const noticeStep = await delivered.getAttribute('data-step-id')
    expect(noticeStep).toMatch(/-s\d+$/)
    await delivered.click()
    await dialog.waitFor({ state: 'detached' })
    const session = page.locator('[data-testid=member-session]')
    await session.getByTestId('session-head').filter({ hasText: 'Impl' }).waitFor()
    await session.locator(`[data-step-id="${noticeStep}"][data-kind=notice].highlighted`).waitFor()
    await screenshot(page, 'figures-02-notice-step-1440')

    // ---- relays: the turn Concord started, and its message in Impl's chat ----
    await page.getByTestId('tab-figures').click()
    await tile('relays you did not have to make').click()
    await expect.poll(() => rows.count()).toBe(1)
    expect(await rows.first().textContent()).toMatch(/ImplT-1 was flagged when D-1 changed to v2flagged task/)
    await screenshot(page, 'figures-03-relays-1440')
    const turnStep = await rows.first().getAttribute('data-step-id')
    const started = (await core.invoke('sessions.get', { memberId: impl.id })).steps.find(
      (s) => s.origin === 'concord',
    )!
    expect(turnStep).toBe(started.id)
    await rows.first().click()
    await session.locator(`[data-step-id="${turnStep}"].highlighted [data-origin=concord]`).waitFor()

    // A pending notice opens the member's chat, where it will arrive.
    await page.getByTestId('tab-figures').click()
    await tile('notices sent').click()
    await rows.first().click()
    await session.getByTestId('session-head').filter({ hasText: 'Docs' }).waitFor()

    // ---- narrow window ----
    const { page: narrow, context } = await newPage(ui.browser, { width: 1024, height: 800 })
    await narrow.goto(ui.stack.url)
    await narrow.getByTestId('tab-figures').click()
    // Tokens per task name each task by key and title, though this page never loaded the tasks.
    expect(await narrow.locator('.tokens-table').last().locator('tbody tr').first().textContent()).toMatch(
      /^T-1 Web search tool\d/,
    )
    await narrow.locator('.tokens-table').last().scrollIntoViewIfNeeded()
    await screenshot(narrow, 'figures-06-tokens-per-task-1024')
    await narrow.locator('[data-testid=figure][data-label="notices sent"]').click()
    await expect.poll(() => narrow.getByTestId('figure-item').count()).toBe(50)
    await screenshot(narrow, 'figures-04-notices-1024')
    await narrow.keyboard.press('Escape')
    await narrow.locator('[data-testid=figure][data-label="relays you did not have to make"]').click()
    await narrow.getByTestId('figure-item').first().waitFor()
    await screenshot(narrow, 'figures-05-relays-1024')
    await context.close()
    expect(ui.errors).toEqual([])
  }, 120_000)
})
