/**
 * Evidence is asked for, and findings reach whoever fixes (issue 33), in the real UI: a delivery asks the tester and
 * reviewer itself and the card waits in a neutral line; a failing report reads "R-n failed: k of m claims"; "Ask Impl
 * to fix what R-n found" carries the report's summary and failing claims. Screenshots at 1440, 1024 and 760 px.
 */
import { execFileSync } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { initRepo } from '../fixtures/core'
import { startModelServer, type ModelServer, type RecordedRequest, type ScriptedReply } from '../fixtures/model-server'
import { browserSession, screenshot } from './support'

const ui = browserSession()
let models: ModelServer
const scripts = new Map<string, ScriptedReply[]>()
const asked = new Map<string, RecordedRequest[]>()
const nameOf = (r: RecordedRequest) => /You are ([^,]+), the/.exec(r.body.messages[0].content as string)?.[1] ?? '?'
beforeAll(async () => {
  models = await startModelServer({
    unscripted: (req) => {
      asked.set(nameOf(req), [...(asked.get(nameOf(req)) ?? []), req])
      return scripts.get(nameOf(req))?.shift() ?? { text: 'On it.' }
    },
  })
})
afterAll(async () => models.close())

describe('browser UI: checks asked on delivery', () => {
  it('asks the tester and reviewer, waits neutrally, reads a failure by its claims, and the ask to fix carries them', async () => {
    const core = ui.stack.core
    const repo = ui.stack.repoDir
    initRepo(repo)
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim()
    const ws = await core.invoke('workspaces.open', { repoPath: repo, name: 'checks', isolation: 'shared' })
    await core.invoke('workspaces.update', { workspaceId: ws.id, startAgentOnTaskStart: false })
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
    const rev = await mk('Rev', 'reviewer')
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

    const page = ui.page
    await page.goto(ui.stack.url)
    await page.getByTestId('tab-tasks').click()
    const card = page.locator('[data-testid=task-card][data-key="T-1"]')
    await card.waitFor()
    // Delivered: nobody clicks Ask; Tess and Rev are asked, and the card waits for them in a neutral line.
    await core.invoke('tasks.setStatus', { taskId: t1.id, status: 'delivered', artifact: { commit: head } })
    const waiting = card.getByTestId('checks-waiting')
    await expect.poll(() => waiting.textContent()).toBe("Waiting for Tess's test and Rev's review")
    expect(await card.getByTestId('refusal').count()).toBe(0)
    await expect.poll(() => asked.get('Tess')?.length ?? 0).toBe(1)
    await expect.poll(() => asked.get('Rev')?.length ?? 0).toBe(1)
    expect(JSON.stringify(asked.get('Tess')![0]!.body.messages.at(-1))).toContain(
      `Please check T-1 on ${head.slice(0, 7)} and submit a test report on it.`,
    )
    await screenshot(page, 'checks-01-waiting-1440')

    // Tess's test fails two of its three claims.
    const r = await core.invoke('reports.submit', {
      taskId: t1.id,
      authorId: tess.id,
      kind: 'test',
      verdict: 'fail',
      summary: 'A hung provider blocks the search',
      artifact: { commit: head },
      claims: [
        { text: 'gives up after 5 s', decisionIds: [d1.id], verdict: 'fail' },
        { text: 'returns what it has', decisionIds: [d1.id], verdict: 'fail' },
        { text: 'logs the timeout', decisionIds: [d1.id], verdict: 'pass' },
      ],
    })
    const refusal = card.getByTestId('refusal')
    await expect.poll(() => refusal.textContent()).toContain(`${r.key} failed: 2 of 3 claims`)
    expect(await refusal.textContent()).not.toContain('not pass')
    expect(await waiting.textContent()).toBe("Waiting for Rev's review")
    await screenshot(page, 'checks-02-failed-1440')

    const fix = refusal.getByTestId('refusal-action').filter({ hasText: `Ask Impl to fix what ${r.key} found` })
    await fix.click()
    const box = refusal.getByTestId('ask-member').getByLabel('Message')
    const text = await box.inputValue()
    expect(text).toContain('Summary: A hung provider blocks the search')
    expect(text).toContain('- [fail] gives up after 5 s')
    expect(text).toContain('- [fail] returns what it has')
    expect(text).not.toContain('logs the timeout')
    await screenshot(page, 'checks-03-ask-to-fix-1440')
    await refusal.getByTestId('ask-send').click()
    await refusal.getByTestId('ask-sent').waitFor()
    const sent = (await core.invoke('sessions.get', { memberId: impl.id })).steps.find((s) => s.kind === 'user')!
    expect(sent.text).toContain('- [fail] returns what it has')
    expect(sent.taskId).toBe(t1.id)
    expect(rev.id).toBeTruthy()

    for (const width of [1024, 760]) {
      await page.setViewportSize({ width, height: 900 })
      await card.scrollIntoViewIfNeeded()
      await screenshot(page, `checks-04-failed-${width}`)
    }
    await page.setViewportSize({ width: 1440, height: 900 })
    expect(ui.errors).toEqual([])
  }, 120_000)
})
