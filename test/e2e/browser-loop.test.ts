/**
 * The loop in the real UI (issue 13): a refusal lists its reasons with the action for each, and "Ask Tess…" sends the
 * prefilled (edited) message linked to the task; a flag on an idle member starts a turn that the chat shows as
 * started by Concord, and the card says the notice was delivered.
 */
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { initRepo } from '../fixtures/core'
import { startModelServer, type ModelServer, type RecordedRequest, type ScriptedReply } from '../fixtures/model-server'
import { browserSession, newPage, screenshot } from './support'

const ui = browserSession()
/** Members run in parallel: each gets its own script, routed by the name in its system prompt. */
let models: ModelServer
const scripts = new Map<string, ScriptedReply[]>()
const nameOf = (r: RecordedRequest) => /You are ([^,]+), the/.exec(r.body.messages[0].content as string)?.[1] ?? '?'
const script = (name: string, ...replies: ScriptedReply[]) =>
  scripts.set(name, [...(scripts.get(name) ?? []), ...replies])
beforeAll(async () => {
  models = await startModelServer({
    unscripted: (req) => scripts.get(nameOf(req))?.shift() ?? { text: 'Nothing more to do.' },
  })
})
afterAll(async () => models.close())

describe('browser UI: the loop closes itself', () => {
  it('refusal actions send the prefilled message; a flag starts a turn shown as started by Concord', async () => {
    const core = ui.stack.core
    const repo = ui.stack.repoDir
    const c1 = initRepo(repo)
    writeFileSync(join(repo, 'search.ts'), 'export const timeoutMs = 5000\n')
    execFileSync('git', ['add', '-A'], { cwd: repo })
    execFileSync('git', ['commit', '-qm', 'search'], { cwd: repo })
    const c2 = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim()
    const ws = await core.invoke('workspaces.open', { repoPath: repo, name: 'loop', isolation: 'shared' })
    // The manual Ask is what this test clicks: the checks a delivery asks for itself are browser-checks.test.ts's.
    await core.invoke('workspaces.update', { workspaceId: ws.id, autoChecks: false })
    const provider = { kind: 'openai' as const, model: 'gpt-test', baseURL: models.openaiBaseURL, apiKey: 'sk-test' }
    const mk = (name: string, role: string) =>
      core.invoke('members.create', {
        workspaceId: ws.id,
        name,
        role,
        provider,
        approval: 'auto',
        authority: 'proposer',
      })
    const impl = await mk('Impl', 'implementer')
    const tess = await mk('Tess', 'tester')
    await mk('Rev', 'reviewer')
    const d1 = await core.invoke('decisions.create', {
      workspaceId: ws.id,
      title: 'Search timeout',
      statement: 'Web search gives up after 5 s.',
    })
    const t1 = await core.invoke('tasks.create', {
      workspaceId: ws.id,
      title: 'Web search tool',
      assigneeId: impl.id,
      decisionIds: [d1.id],
      requiredReports: ['test', 'review'],
    })
    await core.invoke('tasks.setStatus', { taskId: t1.id, status: 'in_progress' })
    await core.invoke('tasks.setStatus', { taskId: t1.id, status: 'delivered', artifact: { commit: c2 } })
    // Tess tested the commit before the last one: stale against the delivery; no review at all.
    await core.invoke('reports.submit', {
      taskId: t1.id,
      authorId: tess.id,
      kind: 'test',
      verdict: 'pass',
      artifact: { commit: c1 },
      claims: [{ text: 'gives up after 5 s', decisionIds: [d1.id] }],
    })

    const page = ui.page
    await page.goto(ui.stack.url)
    await page.getByTestId('tab-tasks').click()
    const card = page.locator('[data-testid=task-card][data-key="T-1"]')
    await card.getByTestId('accept-task').click()
    const refusal = card.getByTestId('refusal')
    await refusal.waitFor()
    const buttons = refusal.getByTestId('refusal-action')
    await expect
      .poll(() => buttons.allTextContents())
      .toEqual([`Ask Tess to re-verify T-1 on ${c2.slice(0, 7)}`, 'Ask Rev for a review'])
    await screenshot(page, 'loop-01-refusal-actions-1440')

    script('Tess', { text: 'Re-verifying now.' })
    await buttons.first().click()
    const box = refusal.getByTestId('ask-member').getByLabel('Message')
    expect(await box.inputValue()).toContain(
      `Please re-verify T-1 on ${c2.slice(0, 7)} against the current decisions and submit a new test report.`,
    )
    await box.fill(`${await box.inputValue()} The timeout test matters most.`)
    await screenshot(page, 'loop-02-ask-prefilled')
    await refusal.getByTestId('ask-send').click()
    await refusal.getByTestId('ask-sent').waitFor()
    const sent = (await core.invoke('sessions.get', { memberId: tess.id })).steps.find((s) => s.kind === 'user')!
    expect(sent.text).toContain(`Please re-verify T-1 on ${c2.slice(0, 7)}`)
    expect(sent.text).toContain('The timeout test matters most.')
    expect(sent.taskId).toBe(t1.id)

    // ---- a flag on idle Impl: Concord starts its re-verification turn; the chat says who started it ----
    script(
      'Impl',
      { toolCalls: [{ name: 'acknowledge_task', arguments: { taskId: 'T-1' } }] },
      { text: 'Still holds at 10 s: the code reads the timeout from D-1.' },
    )
    await core.invoke('decisions.update', {
      decisionId: d1.id,
      expectedVersion: 1,
      statement: 'Web search gives up after 10 s and returns partial results.',
      reason: 'slow providers',
    })
    await page.getByTestId('member-item').filter({ hasText: 'Impl' }).click()
    const session = page
      .locator('[data-testid=member-session]')
      .filter({ has: page.locator('[data-testid=session-head]', { hasText: 'Impl' }) })
    const started = session.locator('[data-kind=message] [data-origin=concord]')
    await started.waitFor()
    expect(await started.textContent()).toBe('Started by Concord: D-1 changed (now v2)')
    await session.locator('[data-kind=model][data-status=done]').filter({ hasText: 'Still holds at 10 s' }).waitFor()
    await card.getByTestId('notice-delivered').waitFor()
    // The task changed since Accept was refused: the card shows readiness's reasons as they are now (one answer for
    // the card, issue 22), which name the decision's new version, not the reasons of the refused Accept.
    await expect.poll(() => card.getByTestId('refusal').textContent()).toContain('D-1 is at v2')
    expect(await card.getByTestId('notice-delivered').textContent()).toMatch(/^Notice delivered to Impl at /)
    await screenshot(page, 'loop-03-started-by-concord-1440')
    expect((await core.invoke('metrics.get', { workspaceId: ws.id })).autoTurns).toBeGreaterThanOrEqual(1)

    // ---- a passing implementation report by the assignee offers the delivery on its commit (autoDeliver is off) ----
    const t2 = await core.invoke('tasks.create', {
      workspaceId: ws.id,
      title: 'Search page',
      assigneeId: impl.id,
      requiredReports: ['test'],
    })
    await core.invoke('tasks.setStatus', { taskId: t2.id, status: 'in_progress' })
    await core.invoke('reports.submit', {
      taskId: t2.id,
      authorId: impl.id,
      kind: 'implementation',
      verdict: 'pass',
      artifact: { commit: c2 },
      claims: [],
    })
    await page.getByTestId('tab-tasks').click()
    const card2 = page.locator('[data-testid=task-card][data-key="T-2"]')
    await card2.getByTestId('deliver-on').waitFor()
    expect(await card2.getByTestId('deliver-on').textContent()).toBe(`Deliver on ${c2.slice(0, 7)}`)
    await screenshot(page, 'loop-06-deliver-on-1440')
    await card2.getByTestId('deliver-on').click()
    await expect.poll(async () => (await core.invoke('tasks.get', { taskId: t2.id })).status).toBe('delivered')
    expect((await core.invoke('tasks.get', { taskId: t2.id })).artifact?.commit).toBe(c2)

    // ---- with autoTurns off, a flagged card offers "Tell Impl": the notice goes to its session, linked to the task ----
    await core.invoke('workspaces.update', { workspaceId: ws.id, autoTurns: false })
    const t3 = await core.invoke('tasks.create', {
      workspaceId: ws.id,
      title: 'Search timeout banner',
      assigneeId: impl.id,
      decisionIds: [d1.id],
    })
    await core.invoke('tasks.setStatus', { taskId: t3.id, status: 'in_progress' })
    await core.invoke('decisions.update', {
      decisionId: d1.id,
      expectedVersion: 2,
      statement: 'Web search gives up after 15 s and returns partial results.',
      reason: 'still slow',
    })
    const card3 = page.locator('[data-testid=task-card][data-key="T-3"]')
    script('Impl', { text: 'Will update the banner to 15 s.' }) // not acknowledged yet: the card stays flagged
    await card3.getByTestId('tell-assignee').click()
    await card3.getByTestId('notice-delivered').waitFor()
    const told = (await core.invoke('sessions.get', { memberId: impl.id })).steps
      .filter((x) => x.kind === 'user')
      .at(-1)!
    expect(told.text).toContain('D-1 "Search timeout" changed (now v3)')
    expect(told.taskId).toBe(t3.id)

    const { page: narrow, context } = await newPage(ui.browser, { width: 1024, height: 800 })
    await narrow.goto(ui.stack.url)
    await narrow.getByTestId('member-item').filter({ hasText: 'Impl' }).click()
    await narrow.locator('[data-origin=concord]').first().waitFor()
    await screenshot(narrow, 'loop-04-started-by-concord-1024')
    await narrow.getByTestId('tab-tasks').click()
    await narrow.locator('[data-testid=task-card][data-key="T-1"] [data-testid=accept-task]').click()
    await narrow.locator('[data-testid=task-card][data-key="T-1"] [data-testid=refusal]').waitFor()
    await screenshot(narrow, 'loop-05-refusal-1024')
    await context.close()
    expect(ui.errors).toEqual([])
  }, 90_000)
})
