/**
 * Issue 33 in real Chromium against `concord serve`: a plan before code. The user creates a task with "Plan first" and
 * starts it; the scripted member submits a plan (its tree read-only), the card shows it; the user clicks Request
 * changes with a comment; the model receives the comment and submits a second plan; the user approves, and the member
 * then writes code in its tree. Screenshots of the card with a pending plan at 1440, 1024 and 760 px.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { initRepo } from '../fixtures/core'
import { browserSession, screenshot } from './support'

const ui = browserSession({ taskStartTurns: true })
const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim()
const widths = [1440, 1024, 760]
type Body = { messages: { role: string; content: unknown }[] }
const lastUser = (body: Body) => JSON.stringify(body.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '')

describe('browser UI: a plan before code', () => {
  it('plan, request changes with a comment, a second plan, approve, then code', async () => {
    const { core, repoDir, dataDir, models } = ui.stack
    initRepo(repoDir)
    writeFileSync(join(repoDir, 'search.js'), 'export function search() {}\n')
    git(repoDir, 'add', '-A')
    git(repoDir, '-c', 'user.name=T', '-c', 'user.email=t@x', 'commit', '-qm', 'base: search.js')
    const ws = await core.invoke('workspaces.open', { repoPath: repoDir, name: 'plans' })
    await core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Ivy',
      role: 'implementer',
      approval: 'auto',
      provider: { kind: 'openai', model: 'scripted', baseURL: models.openaiBaseURL, apiKey: 'sk-e2e' },
    })

    await ui.page.goto(ui.stack.url)
    await ui.page.getByTestId('sidebar').waitFor()
    await ui.page.getByTestId('tab-tasks').click()
    // ---- the task, plan first, from the form ----
    await ui.page.getByRole('button', { name: 'New task' }).click()
    await ui.page.getByLabel('Task title').fill('Search timeout')
    await ui.page.getByLabel('Assignee').selectOption({ label: 'Ivy (implementer)' })
    await ui.page.getByTestId('plan-first').check()
    for (const w of widths) {
      await ui.page.setViewportSize({ width: w, height: 900 })
      await ui.page.getByTestId('plan-first').scrollIntoViewIfNeeded()
      await screenshot(ui.page, `plan-first-form-${w}`)
    }
    await ui.page.setViewportSize({ width: 1440, height: 900 })
    await ui.page.getByRole('button', { name: 'Create task' }).click()
    const card = ui.page.locator('[data-testid=task-card][data-key="T-1"]')
    await card.waitFor()
    await card.getByTestId('plan-first-line').waitFor()
    const task = (await core.invoke('tasks.list', { workspaceId: ws.id }))[0]!
    expect(task.planFirst).toBe(true)
    // The card's editor can change it until coding starts: off, saved, on again.
    await card.getByTestId('edit-task').click()
    await card.getByTestId('plan-first').uncheck()
    await card.getByRole('button', { name: 'Save' }).click()
    await expect.poll(async () => (await core.invoke('tasks.get', { taskId: task.id })).planFirst).toBe(false)
    await card.getByTestId('edit-task').click()
    await card.getByTestId('plan-first').check()
    await card.getByRole('button', { name: 'Save' }).click()
    await expect.poll(async () => (await core.invoke('tasks.get', { taskId: task.id })).planFirst).toBe(true)
    await card.getByTestId('plan-first').waitFor({ state: 'detached' })

    // ---- started: Ivy's first turn tries to write, then submits a plan ----
    const plan1 = '1. Add a 5 s timeout to search()\n2. Test it with a slow fake backend'
    models.enqueue(
      { toolCalls: [{ name: 'write_file', arguments: { path: 'search.js', content: 'too early' } }] },
      { toolCalls: [{ name: 'submit_plan', arguments: { taskId: 'T-1', plan: plan1 } }] },
    )
    await card.getByLabel('Move T-1').selectOption('in_progress')
    const review = card.getByTestId('plan-review')
    await review.waitFor({ timeout: 20_000 })
    expect(await review.getByTestId('plan-body').textContent()).toBe(plan1)
    expect(await review.textContent()).toContain('Plan 1')
    const tree = join(dataDir, 'worktrees', ws.id, 'T-1')
    expect(readFileSync(join(tree, 'search.js'), 'utf8')).toBe('export function search() {}\n')
    for (const w of widths) {
      await ui.page.setViewportSize({ width: w, height: 900 })
      await card.scrollIntoViewIfNeeded()
      await screenshot(ui.page, `plan-pending-${w}`)
    }
    await ui.page.setViewportSize({ width: 1440, height: 900 })

    // ---- Request changes with a comment: Ivy receives it and plans again ----
    const plan2 = `${plan1}\n3. On timeout, return the partial results marked incomplete`
    models.enqueue({ toolCalls: [{ name: 'submit_plan', arguments: { taskId: 'T-1', plan: plan2 } }] })
    await review.getByTestId('plan-changes').click()
    await review.getByTestId('plan-comment').fill('Keep the partial results on timeout')
    for (const w of widths) {
      await ui.page.setViewportSize({ width: w, height: 900 })
      await card.scrollIntoViewIfNeeded()
      await screenshot(ui.page, `plan-request-changes-${w}`)
    }
    await ui.page.setViewportSize({ width: 1440, height: 900 })
    await review.getByTestId('plan-send-changes').click()
    const third = await models.waitForRequests(3, 20_000)
    expect(lastUser(third[2]!.body as Body)).toContain('Keep the partial results on timeout')
    await expect.poll(() => review.textContent(), { timeout: 20_000 }).toContain('Plan 2')
    expect(await review.getByTestId('plan-body').textContent()).toBe(plan2)

    // ---- Approve: the next turn writes the code ----
    models.enqueue(
      {
        toolCalls: [
          { name: 'write_file', arguments: { path: 'search.js', content: 'export function search() { /* 5 s */ }\n' } },
        ],
      },
      { text: 'Written, following plan 2.' },
    )
    await review.getByTestId('plan-approve').click()
    await card.getByTestId('plan-approved').waitFor()
    await models.waitForRequests(5, 20_000)
    await expect
      .poll(() => existsSync(join(tree, 'search.js')) && readFileSync(join(tree, 'search.js'), 'utf8'), {
        timeout: 20_000,
      })
      .toBe('export function search() { /* 5 s */ }\n')
    expect(lastUser(models.requests[3]!.body as Body)).toContain('approved')
    const plans = await core.invoke('plans.list', { taskId: task.id })
    expect(plans.map((p) => [p.n, p.state, p.comment])).toEqual([
      [1, 'changes_requested', 'Keep the partial results on timeout'],
      [2, 'approved', null],
    ])
    expect(ui.errors).toEqual([])
  }, 120_000)
})
