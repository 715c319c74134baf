/**
 * Verified merges in the real UI (issue 30): T-1 and T-2 change src/search.js on different lines and are both
 * accepted; T-1 is merged. T-2's card offers "Merge when verified"; clicked, the card says it is queued and what it
 * waits for ("waiting for Tess's test on abc1234", with Cancel); Tess's automatic turn tests the updated head on the
 * scripted model, and T-2 lands by itself: main's tree is the tree her passing report checked.
 * Screenshots at 1440, 1024 and 760.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Task } from '../../shared/schemas'
import { initRepo } from '../fixtures/core'
import { memberScripts } from '../fixtures/member-scripts'
import { scriptedOpenAI } from '../fixtures/workspace'
import { browserSession, screenshot } from './support'

const replies = memberScripts(() => ({ text: 'noted' }))
const ui = browserSession({ models: { unscripted: replies.unscripted } })

const git = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'core.hooksPath=/dev/null', '-c', 'user.name=T', '-c', 'user.email=t@x', ...args], {
    cwd: dir,
    encoding: 'utf8',
  }).trim()
const search = (lines: Record<number, string> = {}) =>
  Array.from({ length: 12 }, (_, i) => lines[i] ?? `line ${i}`).join('\n') + '\n'

async function shots(name: string) {
  for (const w of [1440, 1024, 760]) {
    await ui.page.setViewportSize({ width: w, height: 900 })
    await screenshot(ui.page, `${name}-${w}`)
  }
  await ui.page.setViewportSize({ width: 1440, height: 900 })
}

describe('browser UI: verified merges', () => {
  it('Merge on a task the base moved under queues it, says what it waits for, and lands the tree the test checked', async () => {
    const { core, repoDir, dataDir, models } = ui.stack
    initRepo(repoDir)
    mkdirSync(join(repoDir, 'src'))
    writeFileSync(join(repoDir, 'src', 'search.js'), search())
    git(repoDir, 'add', '-A')
    git(repoDir, 'commit', '-qm', 'search')
    const ws = await core.invoke('workspaces.open', { repoPath: repoDir, name: 'verified merges' })
    const member = (name: string, role: string) =>
      core.invoke('members.create', {
        workspaceId: ws.id,
        name,
        role,
        approval: 'auto',
        provider: scriptedOpenAI(models),
      })
    const ivy = await member('Ivy', 'implementer')
    const tess = await member('Tess', 'tester')
    const made = async (title: string, files: Record<string, string>): Promise<Task> => {
      const task = await core.invoke('tasks.create', {
        workspaceId: ws.id,
        title,
        assigneeId: ivy.id,
        requiredReports: ['test'],
      })
      await core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
      const dir = join(dataDir, 'worktrees', ws.id, task.key)
      for (const [f, content] of Object.entries(files)) writeFileSync(join(dir, f), content)
      git(dir, 'add', '-A')
      git(dir, 'commit', '-qm', title)
      const done = await core.invoke('tasks.setStatus', { taskId: task.id, status: 'delivered' })
      await core.invoke('reports.submit', {
        taskId: task.id,
        authorId: tess.id,
        kind: 'test',
        verdict: 'pass',
        artifact: { commit: done.artifact!.commit! },
        summary: 'node --test passes',
        claims: [],
      })
      return core.invoke('tasks.accept', { taskId: task.id })
    }
    const t1 = await made('Search returns results and incomplete', {
      'src/search.js': search({ 1: 'return { results, incomplete }' }),
    })
    const t2 = await made('Bullet list of results', { 'src/search.js': search({ 10: 'bullets(search())' }) })

    await ui.page.goto(ui.stack.url)
    await ui.page.getByTestId('sidebar').waitFor()
    await ui.page.getByTestId('tab-tasks').click()
    const card = (t: Task) => ui.page.locator(`[data-testid=task-card][data-key="${t.key}"]`)

    await card(t1).getByTestId('merge-task').click()
    await card(t1).locator('.badge', { hasText: 'merged' }).waitFor()
    // T-2: behind main, and Merge says it queues; the preview says what it does and which mode is in force.
    await expect.poll(() => card(t2).getByTestId('merge-task').textContent()).toBe('Merge when verified')
    await expect.poll(() => card(t2).getByTestId('merge-preview').textContent()).toContain(`Merge queues ${t2.key}`)
    expect(await card(t2).getByTestId('merge-preview').textContent()).toContain(
      'Verified merge: main only receives a tree a passing test checked.',
    )
    await card(t2).scrollIntoViewIfNeeded()
    await shots('vm1-merge-when-verified')

    // Tess's turn tests the updated head: her reply comes a few seconds late, so the waiting card can be seen.
    replies.script('Tess', {
      delayMs: 6000,
      toolCalls: [
        {
          name: 'submit_report',
          arguments: { taskId: t2.key, kind: 'test', verdict: 'pass', summary: 'node --test passes', claims: [] },
        },
      ],
    })
    const mainBefore = git(repoDir, 'rev-parse', 'main')
    await card(t2).getByTestId('merge-task').click()
    const queued = card(t2).getByTestId('merge-queued')
    await expect.poll(() => queued.textContent(), { timeout: 30_000 }).toMatch(/waiting for Tess's test on [0-9a-f]{7}/)
    expect(await queued.textContent()).toContain('queued to merge')
    expect(await card(t2).getByTestId('unqueue-merge').count()).toBe(1)
    // The queue asks Tess itself: the card offers no second ask and no update of its own.
    expect(await card(t2).getByTestId('refusal-action').count()).toBe(0)
    expect(await card(t2).getByTestId('update-branch').count()).toBe(0)
    // Not landed on its old evidence.
    expect(git(repoDir, 'rev-parse', 'main')).toBe(mainBefore)
    await card(t2).scrollIntoViewIfNeeded()
    await shots('vm2-queued')

    await card(t2).locator('.badge', { hasText: 'merged' }).waitFor({ timeout: 60_000 })
    expect(await card(t2).getByTestId('merge-queued').count()).toBe(0)
    const reports = await core.invoke('reports.list', { taskId: t2.id })
    const checked = reports.at(-1)!
    expect(checked.authorId).toBe(tess.id)
    expect(git(repoDir, 'rev-parse', 'main^{tree}')).toBe(
      git(repoDir, 'rev-parse', `${checked.artifact.commit}^{tree}`),
    )
    const landed = git(repoDir, 'show', 'main:src/search.js')
    expect(landed).toContain('return { results, incomplete }')
    expect(landed).toContain('bullets(search())')
    await card(t2).scrollIntoViewIfNeeded()
    await shots('vm3-landed')
    expect(ui.errors).toEqual([])
  }, 240_000)
})
