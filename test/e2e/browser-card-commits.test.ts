/**
 * Issue 31 in real Chromium against `concord serve`: a task card names its commits ("delivered …", "head …"), copies
 * its tree's path (the browser cannot open an editor), and after the merge its Changes show what was merged rather
 * than "0 files changed, X → X"; a message's D-1 card written against v1 wears v1's status and version, not today's.
 */
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { initRepo } from '../fixtures/core'
import { browserSession, screenshot } from './support'

const ui = browserSession()
const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim()
const widths = [1440, 1024, 760]

describe('browser UI: a card’s commits, its tree, what it merged', () => {
  it('labels the delivered commit and the head, copies the tree path, and shows what was merged', async () => {
    initRepo(ui.stack.repoDir)
    const ws = await ui.stack.core.invoke('workspaces.open', { repoPath: ui.stack.repoDir, name: 'commits' })
    const task = await ui.stack.core.invoke('tasks.create', {
      workspaceId: ws.id,
      title: 'Search timeout',
      requiredReports: [],
    })
    await ui.stack.core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
    const tree = join(ui.stack.dataDir, 'worktrees', ws.id, 'T-1')
    writeFileSync(join(tree, 'search.ts'), 'export const timeoutMs = 30_000\n')
    git(tree, 'add', '-A')
    git(tree, '-c', 'user.name=T', '-c', 'user.email=t@x', 'commit', '-qm', 'Search with a timeout')
    const commit = git(tree, 'rev-parse', 'HEAD')
    await ui.stack.core.invoke('tasks.setStatus', { taskId: task.id, status: 'delivered' })

    await ui.page.context().grantPermissions(['clipboard-read', 'clipboard-write'])
    await ui.page.goto(ui.stack.url)
    await ui.page.getByTestId('sidebar').waitFor()
    await ui.page.getByTestId('tab-tasks').click()
    const card = ui.page.locator('[data-testid=task-card][data-key="T-1"]')

    // ---- each hash says what it is ----
    await expect.poll(() => card.getByTestId('task-delivered').textContent()).toBe(`delivered ${commit.slice(0, 8)}`)
    expect(await card.getByTestId('task-head').textContent()).toBe(`head ${commit.slice(0, 8)}`)

    // ---- under serve the tree's path is copied (and shown), since the page cannot open programs ----
    expect(await card.getByTestId('open-tree-editor').count()).toBe(0)
    await card.getByTestId('copy-tree-path').click()
    await expect.poll(() => card.getByTestId('tree-path').textContent()).toBe(`Copied ${tree}`)
    expect(await ui.page.evaluate(() => navigator.clipboard.readText())).toBe(tree)
    for (const w of widths) {
      await ui.page.setViewportSize({ width: w, height: 900 })
      await card.scrollIntoViewIfNeeded()
      await screenshot(ui.page, `card-commits-${w}`)
    }
    await ui.page.setViewportSize({ width: 1440, height: 900 })

    // ---- merged from the card: Changes still show the task's change, and say where it landed ----
    await ui.stack.core.invoke('tasks.accept', { taskId: task.id })
    await card.getByTestId('merge-task').click()
    await card.locator('.badge', { hasText: 'merged' }).waitFor()
    const merged = git(ui.stack.repoDir, 'rev-parse', 'HEAD')
    const onto = git(ui.stack.repoDir, 'rev-parse', 'HEAD^1')
    expect(await card.getByTestId('open-tree').count()).toBe(0)
    await card.getByTestId('task-changes').click()
    const dialog = ui.page.getByRole('dialog', { name: /T-1 · changes on/ })
    await dialog.locator('.changes-file').first().waitFor()
    expect(await dialog.locator('.changes-summary').textContent()).toContain('1 file changed, +1 −0')
    expect(await dialog.getByTestId('diff-range').textContent()).toBe(
      `merged into main as ${merged.slice(0, 8)} (on ${onto.slice(0, 8)}): ${onto.slice(0, 8)} → ${commit.slice(0, 8)}`,
    )
    for (const w of widths) {
      await ui.page.setViewportSize({ width: w, height: 900 })
      await screenshot(ui.page, `merged-changes-${w}`)
    }
    await ui.page.setViewportSize({ width: 1440, height: 900 })
    await ui.page.keyboard.press('Escape')
    expect(ui.errors).toEqual([])
  }, 60_000)

  it('a message’s D-1 card written against v1 shows v1’s status and version, not the current ones', async () => {
    const ws = (await ui.stack.core.invoke('workspaces.list', {}))[0]!
    const d = await ui.stack.core.invoke('decisions.create', {
      workspaceId: ws.id,
      title: 'Search timeout',
      statement: 'A search over 30 s fails as a whole.',
      status: 'proposed',
    })
    await ui.stack.core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Ivy',
      role: 'implementer',
      approval: 'auto',
      provider: { kind: 'openai', model: 'scripted', baseURL: ui.stack.models.openaiBaseURL, apiKey: 'sk-e2e' },
    })
    await ui.page.goto(ui.stack.url)
    await ui.page.getByTestId('sidebar').waitFor()
    const session = ui.page.locator('[data-testid=member-session]')
    ui.stack.models.enqueue({ text: 'Noted.' })
    await session.getByTestId('composer').fill('Implement D-1 as it stands.')
    await session.getByTestId('composer').press('Enter')
    await session.locator('[data-kind=model][data-status=done]').last().waitFor()
    const card = session.locator('[data-kind=user]').last().locator('[data-testid=decision-card][data-key="D-1"]')
    await card.waitFor()

    await ui.stack.core.invoke('decisions.update', {
      decisionId: d.id,
      expectedVersion: 1,
      statement: 'A search over 30 s returns what it found.',
      status: 'accepted',
      reason: 'partial results',
    })
    await card.and(ui.page.locator('[data-version="2"]')).waitFor()
    await expect
      .poll(() => card.getByTestId('dcard-statement').textContent())
      .toBe('A search over 30 s fails as a whole.')
    expect(await card.getByTestId('dcard-status').textContent()).toBe('proposed')
    expect(await card.locator('.dver').textContent()).toBe('v1')
    expect(await card.getByTestId('pinned-version').textContent()).toContain(
      'Written against v1 · changed since — now v2',
    )
    await card.scrollIntoViewIfNeeded()
    for (const w of widths) {
      await ui.page.setViewportSize({ width: w, height: 900 })
      await screenshot(ui.page, `pinned-card-${w}`)
    }
    await ui.page.setViewportSize({ width: 1440, height: 900 })
    expect(ui.errors).toEqual([])
  }, 60_000)
})
