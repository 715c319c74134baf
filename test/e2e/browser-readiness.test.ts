/**
 * The board shows each task's readiness as the Task brings it (issue 23): a delivered task that is ready, one that is
 * refused with its reasons, one in progress with a delivery on offer, without a read per card; a report and a decision
 * edit the board did not make move the cards live (task.changed). Screenshots at 1440 and 1024 px.
 */
import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { initRepo } from '../fixtures/core'
import { browserSession, newPage, screenshot } from './support'

const ui = browserSession()

describe('browser UI: readiness on the card', () => {
  it('shows ready, refused and a delivery on offer from the tasks themselves, and follows reports and edits live', async () => {
    const core = ui.stack.core
    const head = initRepo(ui.stack.repoDir)
    execFileSync('git', ['commit', '-q', '--allow-empty', '-m', 'second'], { cwd: ui.stack.repoDir })
    const next = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ui.stack.repoDir, encoding: 'utf8' }).trim()
    const ws = await core.invoke('workspaces.open', { repoPath: ui.stack.repoDir, name: 'ready', isolation: 'shared' })
    await core.invoke('workspaces.update', { workspaceId: ws.id, autoTurns: false })
    const member = (name: string, role: string) =>
      core.invoke('members.create', { workspaceId: ws.id, name, role, authority: 'proposer' })
    const impl = await member('Impl', 'implementer')
    const tess = await member('Tess', 'tester')
    const rev = await member('Rev', 'reviewer')
    const api = await core.invoke('decisions.create', { workspaceId: ws.id, title: 'API style', statement: 'REST' })
    const store = await core.invoke('decisions.create', { workspaceId: ws.id, title: 'Storage', statement: 'SQLite' })
    const delivered = async (title: string) => {
      const t = await core.invoke('tasks.create', {
        workspaceId: ws.id,
        title,
        assigneeId: impl.id,
        decisionIds: [api.id],
      })
      await core.invoke('tasks.setStatus', { taskId: t.id, status: 'in_progress' })
      await core.invoke('tasks.setStatus', { taskId: t.id, status: 'delivered', artifact: { commit: head } })
      return t
    }
    // Each report's claim exercises `on`: API style, which every task here depends on, unless said otherwise.
    const report = (
      taskId: string,
      authorId: string,
      kind: 'test' | 'review' | 'implementation',
      commit: string,
      on: { id: string } = api,
    ) =>
      core.invoke('reports.submit', {
        taskId,
        authorId,
        kind,
        verdict: 'pass',
        artifact: { commit },
        claims: [{ text: on === api ? 'answers in JSON' : 'rows survive a restart', decisionIds: [on.id] }],
      })
    // T-1 ready (its claims on Storage, which it does not depend on); T-2 refused (its test checked another commit,
    // no review); T-3 in progress with a passing implementation report.
    const t1 = await delivered('Endpoints')
    await report(t1.id, tess.id, 'test', head, store)
    await report(t1.id, rev.id, 'review', head, store)
    const t2 = await delivered('Pagination')
    await report(t2.id, tess.id, 'test', next)
    const t3 = await core.invoke('tasks.create', { workspaceId: ws.id, title: 'Rate limits', assigneeId: impl.id })
    await core.invoke('tasks.setStatus', { taskId: t3.id, status: 'in_progress' })
    await report(t3.id, impl.id, 'implementation', head)

    const page = ui.page
    const calls: string[] = []
    page.on('request', (r) => {
      const m = /\/api\/([\w.]+)/.exec(r.url())
      if (m) calls.push(m[1]!)
    })
    await page.goto(ui.stack.url)
    await page.getByTestId('tab-tasks').click()
    const card = (key: string) => page.locator(`[data-testid=task-card][data-key="${key}"]`)
    await card('T-1').getByTestId('ready-to-accept').waitFor()
    await card('T-2').getByTestId('refusal').waitFor()
    await card('T-3').getByTestId('deliver-on').waitFor()
    await screenshot(page, 'readiness-01-board-1440')
    expect(await card('T-1').getByTestId('refusal').count()).toBe(0)
    const refusal = await card('T-2').getByTestId('refusal').textContent()
    expect(refusal).toContain(
      `R-3 checked commit ${next.slice(0, 10)}; T-2 is delivered at commit ${head.slice(0, 10)}`,
    )
    expect(refusal).toContain('T-2 has no review report')
    expect(await card('T-2').getByTestId('ready-to-accept').count()).toBe(0)
    expect(await card('T-3').getByTestId('deliver-on').textContent()).toBe(`Deliver on ${head.slice(0, 7)}`)
    // The cards asked nothing of their own: what the board read came in pages.
    expect(calls.filter((c) => c.startsWith('tasks.') && c !== 'tasks.page' && c !== 'tasks.getMany')).toEqual([])

    // A review and a test on the delivered commit come in (not from the board): T-2 turns ready where it is.
    await report(t2.id, rev.id, 'review', head)
    await report(t2.id, tess.id, 'test', head)
    await card('T-2').getByTestId('ready-to-accept').waitFor()
    await card('T-2').getByTestId('refusal').waitFor({ state: 'detached' })
    // A decision T-1 does not depend on, but its reports' claims exercise, changes: T-1 is refused, with the reason.
    await core.invoke('decisions.update', { decisionId: store.id, expectedVersion: 1, statement: 'Postgres' })
    await card('T-1').getByTestId('refusal').waitFor()
    expect(await card('T-1').getByTestId('refusal').textContent()).toContain(
      'R-1 claim 1 ("rows survive a restart") is stale: a decision it exercises has changed',
    )
    expect(await card('T-1').getByTestId('ready-to-accept').count()).toBe(0)
    await screenshot(page, 'readiness-02-after-report-and-edit-1440')

    // Accept on the ready card: it leaves the delivered column.
    await card('T-2').getByTestId('accept-task').click()
    await page.locator('[data-testid=task-card][data-key="T-2"][data-status=delivered]').waitFor({ state: 'detached' })
    expect((await core.invoke('tasks.get', { taskId: t2.id })).status).toBe('accepted')

    const { page: narrow, context } = await newPage(ui.browser, { width: 1024, height: 800 })
    await narrow.goto(ui.stack.url)
    await narrow.getByTestId('tab-tasks').click()
    await narrow.locator('[data-testid=task-card][data-key="T-1"] [data-testid=refusal]').waitFor()
    await narrow.locator('[data-testid=task-card][data-key="T-3"] [data-testid=deliver-on]').waitFor()
    await screenshot(narrow, 'readiness-03-board-1024')
    await context.close()
    expect(ui.errors).toEqual([])
  }, 120_000)
})
