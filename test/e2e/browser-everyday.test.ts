/**
 * Everyday use (issue 13), in real Chromium through the bridge: a draft kept per member across a switch and a
 * reload, Retry after a failed model call, search across sessions and the jump to a message of another member,
 * archive and restore of a task and a member. Screenshots at 1440 and 1024 px.
 */
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { browserSession, screenshot } from './support'

const ui = browserSession()

async function shoot(page: Page, name: string) {
  for (const width of [1440, 1024]) {
    await page.setViewportSize({ width, height: 900 })
    await screenshot(page, `${name}-${width}`)
  }
  await page.setViewportSize({ width: 1440, height: 900 })
}

describe('browser UI: drafts, retry, search, archive', () => {
  it('keeps drafts, retries a failed call, finds and opens a message of another member, archives and restores', async () => {
    const { core, models } = ui.stack
    const page = ui.page
    const ws = await core.invoke('workspaces.open', { repoPath: ui.stack.repoDir, name: 'everyday' })
    const provider = {
      kind: 'openai' as const,
      model: 'scripted-model',
      baseURL: models.openaiBaseURL,
      apiKey: 'sk-test',
    }
    const impl = await core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Impl',
      role: 'implementer',
      provider,
      approval: 'auto',
    })
    await core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Tester',
      role: 'tester',
      provider,
      approval: 'auto',
    })
    await core.invoke('tasks.create', { workspaceId: ws.id, title: 'Retire the old fetcher', assigneeId: impl.id })
    await page.goto(ui.stack.url)
    await page.getByTestId('sidebar').waitFor()

    const item = (name: string) => page.getByTestId('member-item').filter({ hasText: name })
    const session = page.locator('[data-testid=member-session]')
    const composer = session.getByTestId('composer')
    const head = session.getByTestId('session-head')

    // ---- drafts: one per member, across a switch and a reload; gone once sent ----
    await item('Impl').click()
    await head.filter({ hasText: 'Impl' }).waitFor()
    await composer.fill('half-written note for Impl')
    await item('Tester').click()
    await head.filter({ hasText: 'Tester' }).waitFor()
    expect(await composer.inputValue()).toBe('')
    await composer.fill('Please check the pelican parser')
    await item('Impl').click()
    await head.filter({ hasText: 'Impl' }).waitFor()
    expect(await composer.inputValue()).toBe('half-written note for Impl')
    await page.reload()
    await page.getByTestId('sidebar').waitFor()
    await item('Tester').click()
    await head.filter({ hasText: 'Tester' }).waitFor()
    expect(await composer.inputValue()).toBe('Please check the pelican parser')
    models.enqueue({ text: 'The pelican parser handles every fixture.' })
    await composer.press('Enter')
    await session.locator('[data-kind=model][data-status=done]').filter({ hasText: 'pelican parser handles' }).waitFor()
    expect(await composer.inputValue()).toBe('')
    await item('Impl').click()
    await head.filter({ hasText: 'Impl' }).waitFor()
    expect(await composer.inputValue()).toBe('half-written note for Impl')
    await item('Tester').click()
    await head.filter({ hasText: 'Tester' }).waitFor()
    expect(await composer.inputValue()).toBe('')

    // ---- Retry: the model call fails, Retry runs the same message again without retyping ----
    await item('Impl').click()
    await head.filter({ hasText: 'Impl' }).waitFor()
    await composer.fill('Summarise the README')
    models.enqueue({ status: 500, headers: { 'x-should-retry': 'false' }, errorMessage: 'upstream exploded' })
    await composer.press('Enter')
    await expect.poll(() => item('Impl').getAttribute('data-state'), { timeout: 15_000 }).toBe('error')
    const retry = session.getByTestId('retry-turn')
    await retry.waitFor()
    await shoot(page, 'w1-retry')
    models.enqueue({ text: 'Summary: a demo repository.' })
    await retry.click()
    await session
      .locator('[data-kind=model][data-status=done]')
      .filter({ hasText: 'Summary: a demo repository.' })
      .waitFor()
    await expect.poll(() => item('Impl').getAttribute('data-state')).toBe('idle')
    expect(await session.locator('[data-kind=user]').filter({ hasText: 'Summarise the README' }).count()).toBe(2)
    expect(models.requests).toHaveLength(3)

    // ---- search from Impl's session finds Tester's message and opens it there ----
    await page.getByTestId('search-open').click()
    const dialog = page.getByTestId('search-dialog')
    await dialog.getByTestId('search-input').fill('pelic')
    const hits = dialog.getByTestId('search-hit')
    await expect.poll(() => hits.count()).toBe(2)
    expect(await hits.first().textContent()).toContain('Tester')
    expect(await hits.first().locator('mark').first().textContent()).toBe('pelican')
    await shoot(page, 'w2-search')
    const target = await hits.nth(1).getAttribute('data-step-id')
    await hits.nth(1).click()
    await head.filter({ hasText: 'Tester' }).waitFor()
    await session.locator(`[data-step-id="${target}"].highlighted`).waitFor()
    // Hostile text is just text.
    await page.getByTestId('search-open').click()
    await dialog.getByTestId('search-input').fill('"AND * col:umn (')
    await dialog.getByTestId('search-none').waitFor()
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'detached' })

    // ---- archive and restore a task ----
    await page.getByTestId('tab-tasks').click()
    const card = page.getByTestId('task-card').filter({ hasText: 'Retire the old fetcher' })
    await card.waitFor()
    await shoot(page, 'w3-task-card')
    await card.getByTestId('archive-task').click()
    await card.waitFor({ state: 'detached' })
    // Its only task archived, the board says so (not "No tasks yet") and points to where it can be restored.
    expect(await page.getByTestId('all-archived').textContent()).toContain(
      'One archived task is kept with its reports and history',
    )
    await shoot(page, 'w3b-all-archived')
    await page.getByTestId('board-archived-open').click()
    const archived = page.getByTestId('archived-view')
    await archived.getByTestId('archived-task').filter({ hasText: 'Retire the old fetcher' }).waitFor()

    // ---- archive and restore a member (from its session header) ----
    await page.keyboard.press('Escape')
    await archived.waitFor({ state: 'detached' })
    await item('Tester').click()
    await head.filter({ hasText: 'Tester' }).waitFor()
    await head.getByTestId('archive-member').click()
    await item('Tester').waitFor({ state: 'detached' })
    await page.getByTestId('archived-open').click()
    await archived.getByTestId('archived-member').filter({ hasText: 'Tester' }).waitFor()
    await shoot(page, 'w4-archived')
    await archived.getByTestId('archived-member').filter({ hasText: 'Tester' }).getByTestId('restore-member').click()
    await archived.getByTestId('archived-member').waitFor({ state: 'detached' })
    await archived.getByTestId('archived-task').getByTestId('restore-task').click()
    await archived.getByText('Nothing is archived.').waitFor()
    await page.keyboard.press('Escape')
    await item('Tester').waitFor()
    await card.waitFor()
    expect((await core.invoke('members.list', { workspaceId: ws.id })).map((m) => m.name)).toEqual(['Impl', 'Tester'])

    // ---- archive the workspace: the welcome screen lists it with Restore ----
    await page.getByTestId('archived-open').click()
    await archived.getByTestId('archive-workspace').click()
    const welcome = page.getByTestId('welcome')
    await welcome.waitFor()
    const shelved = welcome.getByTestId('archived-workspace').filter({ hasText: 'everyday' })
    await shelved.waitFor()
    expect(await welcome.locator('.recent-item').filter({ hasText: 'everyday' }).count()).toBe(0)
    await shoot(page, 'w5-welcome-archived')
    await shelved.getByTestId('restore-workspace').click()
    await welcome.locator('.recent-item').filter({ hasText: 'everyday' }).waitFor()
    expect((await core.invoke('workspaces.list', {})).map((w) => w.id)).toEqual([ws.id])
    expect(ui.errors).toEqual([])
  }, 180_000)

  it('jumps to a message older than the loaded page: the session loads older pages until it is there', async () => {
    const { core, models } = ui.stack
    const page = ui.page
    const ws = await core.invoke('workspaces.open', { repoPath: ui.stack.repoDir })
    const old = await core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Archivist',
      role: 'historian',
      provider: { kind: 'openai', model: 'scripted-model', baseURL: models.openaiBaseURL, apiKey: 'sk-test' },
    })
    // A long history written straight to the store (as earlier days left it): the oldest step holds the word.
    const { store } = core.harness.ctx(ws.id)
    const row = Number(/m(\d+)$/.exec(old.id)![1])
    const at = new Date().toISOString()
    store.transaction(() => {
      store.steps.insert({
        member_id: row,
        kind: 'user',
        status: 'done',
        text: 'the quokka migration plan',
        started_at: at,
        ended_at: at,
      })
      for (let i = 0; i < 260; i++)
        store.steps.insert({
          member_id: row,
          kind: 'user',
          status: 'done',
          text: `routine note ${i}`,
          started_at: at,
          ended_at: at,
        })
    })
    await page.reload()
    await page.getByTestId('sidebar').waitFor()
    await page.getByTestId('search-open').click()
    const dialog = page.getByTestId('search-dialog')
    await dialog.getByTestId('search-input').fill('quokka')
    const hit = dialog.getByTestId('search-hit')
    await expect.poll(() => hit.count()).toBe(1)
    const target = await hit.getAttribute('data-step-id')
    await hit.click()
    const session = page.locator('[data-testid=member-session]')
    await session.getByTestId('session-head').filter({ hasText: 'Archivist' }).waitFor()
    await session.locator(`[data-step-id="${target}"].highlighted`).waitFor({ timeout: 15_000 })
    expect(await session.locator(`[data-step-id="${target}"]`).textContent()).toContain('quokka')

    // Archived, it leaves the team but the tasks still name it (after a reload too).
    await core.invoke('tasks.create', { workspaceId: ws.id, title: 'Catalogue the quokkas', assigneeId: old.id })
    await core.invoke('members.archive', { memberId: old.id })
    await page.reload()
    await page.getByTestId('sidebar').waitFor()
    await page.getByTestId('tab-tasks').click()
    await page
      .getByTestId('task-card')
      .filter({ hasText: 'Catalogue the quokkas' })
      .filter({ hasText: 'Archivist' })
      .waitFor()
    expect(await page.getByTestId('member-item').filter({ hasText: 'Archivist' }).count()).toBe(0)
    expect(ui.errors).toEqual([])
  }, 120_000)
})
