/**
 * Issue 33 in real Chromium against `concord serve`: "Try it with…" on a task still to do opens a picker of members;
 * two are chosen and each runs the task in its own branch and tree (their turns start with the attempts). The scripted
 * members each write a different change, commit and deliver it; the card says "2 attempts"; the compare view lays
 * both side by side (files with +/- lines, reports and verdicts, tokens, time); the user picks Kim's; the task then has
 * Kim's diff and the other attempt's tree is gone.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { initRepo } from '../fixtures/core'
import { memberScripts } from '../fixtures/member-scripts'
import { scriptedOpenAI } from '../fixtures/workspace'
import { browserSession, screenshot } from './support'

const replies = memberScripts(() => ({ text: 'done' }))
const ui = browserSession({ taskStartTurns: true, models: { unscripted: replies.unscripted } })
const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim()
const widths = [1440, 1024, 760]

/** A member's turn on its attempt: write the file, commit it, deliver. */
function delivers(name: string, taskKey: string, content: string, usage: number) {
  replies.script(
    name,
    { toolCalls: [{ name: 'write_file', arguments: { path: 'search.js', content } }], usage: { input: usage } },
    { toolCalls: [{ name: 'git_commit', arguments: { message: `${name}: search timeout` } }] },
    { toolCalls: [{ name: 'update_task_status', arguments: { taskId: taskKey, status: 'delivered' } }] },
    { text: `${taskKey} delivered.` },
  )
}

describe('browser UI: several attempts at one task', () => {
  it('tries a task with two members, compares their deliveries side by side, picks one', async () => {
    const { core, repoDir, dataDir, models } = ui.stack
    initRepo(repoDir)
    writeFileSync(join(repoDir, 'search.js'), 'export const timeout = 30\n')
    git(repoDir, 'add', '-A')
    git(repoDir, '-c', 'user.name=T', '-c', 'user.email=t@x', 'commit', '-qm', 'search')
    const ws = await core.invoke('workspaces.open', { repoPath: repoDir, name: 'attempts' })
    const member = (name: string) =>
      core.invoke('members.create', {
        workspaceId: ws.id,
        name,
        role: 'implementer',
        approval: 'auto',
        provider: scriptedOpenAI(models),
      })
    const ivy = await member('Ivy')
    const kim = await member('Kim')
    const tess = await member('Tess')
    const task = await core.invoke('tasks.create', {
      workspaceId: ws.id,
      title: 'Search timeout',
      spec: 'Search gives up after a timeout',
      requiredReports: ['test'],
    })
    // The attempts are T-2 (Ivy, chosen first) and T-3 (Kim).
    delivers('Ivy', 'T-2', 'export const timeout = 5\n', 900)
    delivers('Kim', 'T-3', 'export const timeout = 10\nexport const retries = 2\n', 1400)

    await ui.page.goto(ui.stack.url)
    await ui.page.getByTestId('sidebar').waitFor()
    await ui.page.getByTestId('tab-tasks').click()
    const card = ui.page.locator('[data-testid=task-card][data-key="T-1"]')
    await card.getByTestId('try-with').click()
    const picker = ui.page.getByRole('dialog', { name: 'Try T-1 with…' })
    const start = picker.getByTestId('try-with-start')
    expect(await start.isDisabled()).toBe(true)
    await picker.getByLabel('Ivy').check()
    expect(await start.isDisabled()).toBe(true)
    await picker.getByLabel('Kim').check()
    expect(await start.textContent()).toBe('Start 2 attempts')
    for (const w of widths) {
      await ui.page.setViewportSize({ width: w, height: 900 })
      await screenshot(ui.page, `attempts-picker-${w}`)
    }
    await ui.page.setViewportSize({ width: 1440, height: 900 })
    await start.click()
    await picker.waitFor({ state: 'detached' })
    await expect.poll(() => card.getByTestId('task-attempts').textContent()).toBe('2 attempts')

    // Both members' turns write, commit and deliver their attempt.
    const attempts = async () => (await core.invoke('tasks.attempts', { taskId: task.id })).attempts
    await expect
      .poll(async () => (await attempts()).map((a) => a.task.status), { timeout: 30_000 })
      .toEqual(['delivered', 'delivered'])
    const [ivys, kims] = await attempts()
    expect([ivys!.member?.name, kims!.member?.name]).toEqual(['Ivy', 'Kim'])
    // Tess's test of Kim's attempt, so the compare view has a verdict to show.
    await core.invoke('reports.submit', {
      taskId: kims!.task.id,
      authorId: tess.id,
      kind: 'test',
      verdict: 'pass',
      summary: 'times out at 10 s, retries twice',
      artifact: { commit: kims!.task.artifact!.commit! },
      claims: [{ text: 'gives up after 10 s', decisionIds: [] }],
    })

    await card.getByTestId('task-attempts').click()
    const compare = ui.page.getByRole('dialog', { name: 'T-1 · attempts' })
    const column = (key: string) => compare.locator(`[data-testid=attempt][data-key="${key}"]`)
    await column('T-2').waitFor()
    expect(await compare.getByTestId('attempt').count()).toBe(2)
    expect(await column('T-2').getByTestId('attempt-files').textContent()).toContain('1 file +1 −1')
    expect(await column('T-3').getByTestId('attempt-files').textContent()).toContain('1 file +2 −1')
    expect(await column('T-2').getByTestId('attempt-reports').textContent()).toContain('none yet')
    expect(await column('T-3').getByTestId('attempt-reports').textContent()).toMatch(/R-1 test\s*pass\s*1 claim/)
    expect(await column('T-3').getByTestId('attempt-tokens').textContent()).toMatch(/^1,4\d\d in · \d+ out$/)
    for (const w of widths) {
      await ui.page.setViewportSize({ width: w, height: 900 })
      await screenshot(ui.page, `attempts-compare-${w}`)
    }
    await ui.page.setViewportSize({ width: 1440, height: 900 })

    // ---- Kim's is picked: the task has its diff and its report; Ivy's tree is gone ----
    await column('T-3').getByTestId('pick-attempt').click()
    await compare.getByTestId('attempts-picked').waitFor()
    expect(await compare.getByTestId('pick-attempt').count()).toBe(0)
    expect(await column('T-3').locator('.badge').first().textContent()).toBe('picked')
    await screenshot(ui.page, 'attempts-picked-1440')
    await ui.page.keyboard.press('Escape')
    await expect.poll(() => card.getAttribute('data-status')).toBe('delivered')
    expect(await card.getByTestId('task-attempts').textContent()).toBe('2 attempts · one picked')
    expect(await ui.page.locator('[data-testid=task-card][data-key="T-2"]').count()).toBe(0)
    expect(await ui.page.locator('[data-testid=task-card][data-key="T-3"]').count()).toBe(0)
    const picked = await core.invoke('tasks.get', { taskId: task.id })
    expect(picked).toMatchObject({ status: 'delivered', assigneeId: kim.id, pickedAttempt: kims!.task.id })
    const diff = await core.invoke('tasks.diff', { taskId: task.id })
    expect(diff.patch).toContain('+export const retries = 2')
    expect(existsSync(join(dataDir, 'worktrees', ws.id, 'T-2'))).toBe(false)
    expect(existsSync(join(dataDir, 'worktrees', ws.id, 'T-3'))).toBe(true)
    await card.getByTestId('task-changes').click()
    const changes = ui.page.getByRole('dialog', { name: /T-1 · changes on/ })
    await changes.locator('.changes-file').first().waitFor()
    expect(await changes.textContent()).toContain('export const retries = 2')
    await ui.page.keyboard.press('Escape')
    expect(ivy.id).not.toBe(kim.id)
    expect(ui.errors).toEqual([])
  }, 120_000)
})
