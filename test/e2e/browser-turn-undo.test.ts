/**
 * Undo a turn in the real UI (issue 35): the member's last turn that changed its task's tree offers "Undo this turn";
 * confirmed, the tree is back where it was before the turn and the turn shows struck, labelled undone, naming the ref
 * what the tree held is kept at.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { initRepo } from '../fixtures/core'
import { browserSession, screenshot } from './support'

const ui = browserSession()
const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim()

/** The screen at 1440, 1024 and 760 px wide (at 760 the right panel, a drawer over the session, folded), then 1440. */
async function shots(name: string): Promise<void> {
  for (const width of [1440, 1024, 760]) {
    await ui.page.setViewportSize({ width, height: 900 })
    if (width === 760) await ui.page.getByRole('button', { name: 'Hide panel' }).click()
    await screenshot(ui.page, `undo-${name}-${width}`)
  }
  await ui.page.setViewportSize({ width: 1440, height: 900 })
  await ui.page.getByRole('button', { name: 'Show panel' }).click()
}

describe('browser UI: undo a turn', () => {
  it('undoes the last turn from the session, with a confirm, and shows it undone', async () => {
    initRepo(ui.stack.repoDir)
    const ws = await ui.stack.core.invoke('workspaces.open', { repoPath: ui.stack.repoDir, name: 'undo' })
    const ivy = await ui.stack.core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Ivy',
      role: 'implementer',
      approval: 'auto',
      authority: 'proposer',
      provider: { kind: 'openai', model: 'scripted', baseURL: ui.stack.models.openaiBaseURL, apiKey: 'sk-e2e' },
    })
    const task = await ui.stack.core.invoke('tasks.create', {
      workspaceId: ws.id,
      title: 'Search timeout',
      assigneeId: ivy.id,
      requiredReports: [],
    })
    await ui.stack.core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
    const tree = join(ui.stack.dataDir, 'worktrees', ws.id, task.key)
    writeFileSync(join(tree, 'notes.md'), 'not committed yet\n')
    const head0 = git(tree, 'rev-parse', 'HEAD')

    await ui.page.setViewportSize({ width: 1440, height: 900 })
    await ui.page.goto(ui.stack.url)
    await ui.page.getByTestId('sidebar').waitFor()
    ui.stack.models.enqueue(
      { toolCalls: [{ name: 'write_file', arguments: { path: 'app.ts', content: 'export const answer = 43\n' } }] },
      { toolCalls: [{ name: 'git_commit', arguments: { message: 'Answer 43' } }] },
      { toolCalls: [{ name: 'write_file', arguments: { path: 'notes.md', content: 'rewritten\n' } }] },
      { text: 'Changed the answer and the notes.' },
    )
    const session = ui.page.locator('[data-testid=member-session]')
    const composer = session.getByTestId('composer')
    await composer.fill('Implement T-1')
    await composer.press('Enter')
    await session.getByTestId('turn-changes').waitFor({ timeout: 20_000 })
    const undo = session.getByTestId('undo-turn')
    await undo.waitFor()
    expect(git(tree, 'rev-parse', 'HEAD')).not.toBe(head0)
    await shots('offer')

    await undo.click()
    const confirm = session.getByRole('group', { name: 'Undo this turn' })
    await confirm.waitFor()
    expect(await confirm.textContent()).toContain(`goes back to ${head0.slice(0, 7)}`)
    await shots('confirm')
    await confirm.getByTestId('undo-turn-confirm').click()

    const label = session.getByTestId('turn-undone')
    await label.waitFor({ timeout: 20_000 })
    expect(await label.textContent()).toContain(`went back to ${head0.slice(0, 7)}`)
    expect(await label.textContent()).toContain('refs/concord/undone/')
    expect(await session.locator('.step.turn-undone').count()).toBeGreaterThan(1)
    expect(await session.getByTestId('undo-turn').count()).toBe(0)
    // The tree is back: the commit gone from HEAD, the uncommitted note as it was.
    expect(git(tree, 'rev-parse', 'HEAD')).toBe(head0)
    expect(readFileSync(join(tree, 'notes.md'), 'utf8')).toBe('not committed yet\n')
    await shots('done')
    expect(ui.errors).toEqual([])
  })
})
