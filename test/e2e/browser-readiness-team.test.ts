/**
 * A refused card's actions name who to ask from the team as it is now: a member added, renamed or archived elsewhere
 * changes them without a reload (the readiness the Task carries depends on the team, so a member event reads the
 * shown tasks again). Screenshot at 1440 px.
 */
import { describe, expect, it } from 'vitest'
import { initRepo } from '../fixtures/core'
import { browserSession, screenshot } from './support'

const ui = browserSession()

describe('browser UI: readiness follows the team', () => {
  it('names the member to ask as soon as the team has one (a member added, renamed or archived elsewhere)', async () => {
    const core = ui.stack.core
    const head = initRepo(ui.stack.repoDir)
    const ws = await core.invoke('workspaces.open', { repoPath: ui.stack.repoDir, name: 'asks', isolation: 'shared' })
    await core.invoke('workspaces.update', { workspaceId: ws.id, autoTurns: false })
    const impl = await core.invoke('members.create', { workspaceId: ws.id, name: 'Impl', role: 'implementer' })
    const t = await core.invoke('tasks.create', { workspaceId: ws.id, title: 'Endpoints', assigneeId: impl.id })
    await core.invoke('tasks.setStatus', { taskId: t.id, status: 'in_progress' })
    await core.invoke('tasks.setStatus', { taskId: t.id, status: 'delivered', artifact: { commit: head } })

    const page = ui.page
    await page.goto(ui.stack.url)
    await page.getByTestId('tab-tasks').click()
    const asks = page.locator('[data-testid=task-card][data-key="T-1"] [data-testid=refusal-action]')
    await asks.first().waitFor()
    expect(await asks.allTextContents()).toEqual([
      'Ask a member for a test report (pick who)',
      'Ask a member for a review (pick who)',
    ])
    // Not from the board: the card's reasons follow the team without a reload.
    const tess = await core.invoke('members.create', { workspaceId: ws.id, name: 'Tess', role: 'tester' })
    await asks.filter({ hasText: 'Ask Tess for a test report' }).waitFor()
    await core.invoke('members.update', { memberId: tess.id, name: 'Tessa' })
    await asks.filter({ hasText: 'Ask Tessa for a test report' }).waitFor()
    await screenshot(page, 'readiness-04-team-follows-1440')
    await core.invoke('members.archive', { memberId: tess.id })
    await asks.filter({ hasText: 'Ask a member for a test report (pick who)' }).waitFor()
    expect(ui.errors).toEqual([])
  }, 60_000)
})
