/**
 * After a reload the user lands on the member and the scroll position they left (issue 22, Flow): the member open
 * and the row at the top of its session (with the offset into it) are UI preferences kept in localStorage (never
 * workspace data).
 */
import { describe, expect, it } from 'vitest'
import { browserSession } from './support'

const ui = browserSession()

describe('browser UI: a reload keeps the member open', () => {
  it('opens the member that was open before the reload, not the first one', async () => {
    const { core, repoDir } = ui.stack
    const ws = await core.invoke('workspaces.open', { repoPath: repoDir, name: 'reload', isolation: 'shared' })
    await core.invoke('members.create', { workspaceId: ws.id, name: 'Ada', role: 'lead' })
    await core.invoke('members.create', { workspaceId: ws.id, name: 'Ivy', role: 'implementer' })
    const page = ui.page
    const head = () => page.locator('[data-testid=member-session] [data-testid=session-head]').first().textContent()
    await page.goto(ui.stack.url)
    await page.getByTestId('member-item').filter({ hasText: 'Ada' }).waitFor()
    await expect.poll(head).toContain('Ada')
    await page.getByTestId('member-item').filter({ hasText: 'Ivy' }).click()
    await expect.poll(head).toContain('Ivy')
    await page.reload()
    await page.getByTestId('member-item').filter({ hasText: 'Ada' }).waitFor()
    await expect.poll(head).toContain('Ivy')
    expect(ui.errors).toEqual([])
  }, 60_000)

  it('opens the session at the rows that were on screen before the reload, not at the newest', async () => {
    const { core, repoDir, models } = ui.stack
    const ws = (await core.invoke('workspaces.list', {})).find((w) => w.repoPath === repoDir)!
    const long = await core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Lin',
      role: 'reviewer',
      approval: 'auto',
      provider: { kind: 'openai', model: 'scripted', baseURL: models.openaiBaseURL, apiKey: 'sk-e2e' },
    })
    const TURNS = 24
    for (let i = 1; i <= TURNS; i++) {
      models.enqueue({ text: Array.from({ length: 12 }, (_, l) => `Reply ${i}, line ${l + 1}.`).join('\n\n') })
      await core.invoke('sessions.send', { memberId: long.id, text: `Question ${i}` })
    }
    await expect
      .poll(
        async () => (await core.invoke('sessions.list', { workspaceId: ws.id })).find((x) => x.memberId === long.id),
        {
          timeout: 30_000,
        },
      )
      .toMatchObject({ state: 'idle', queued: 0 })
    const page = ui.page
    const scroll = page.locator('[data-testid=member-session] [data-testid=session-scroll]')
    /** The text at the top of the session's view: what the user reads first. */
    const topLine = () =>
      scroll.evaluate((el) => {
        const box = el.getBoundingClientRect()
        const hit = document.elementFromPoint(box.left + box.width / 2, box.top + 4)
        const row = hit?.closest('[data-index]')
        if (!row) return null
        return { text: (hit?.textContent ?? '').trim().slice(0, 40), into: box.top - row.getBoundingClientRect().top }
      })
    await page.getByTestId('member-item').filter({ hasText: 'Lin' }).click()
    await page.getByText('Reply 24, line 12.').waitFor()
    // The user scrolls up by hand to the middle of the session.
    await scroll.hover()
    for (let i = 0; i < 8; i++) await page.mouse.wheel(0, -900)
    await expect.poll(() => page.getByTestId('to-latest').count()).toBe(1)
    await page.waitForTimeout(500)
    const left = await topLine()
    expect(left?.text).toMatch(/Reply|Question/)
    expect(left?.into).toBeGreaterThan(0)
    await page.reload()
    await page.getByTestId('member-item').filter({ hasText: 'Lin' }).waitFor()
    await expect
      .poll(() => page.locator('[data-testid=member-session] [data-testid=session-head]').first().textContent())
      .toContain('Lin')
    // The same row at the top, scrolled into by the same amount (older pages loaded may differ: not scrollTop).
    await expect.poll(async () => (await topLine())?.text, { timeout: 10_000 }).toBe(left?.text)
    await expect.poll(async () => Math.abs(((await topLine())?.into ?? 0) - (left?.into ?? 0))).toBeLessThan(2)
    await page.getByTestId('to-latest').waitFor()
    // Back at the newest: the next reload lands there again.
    await page.getByTestId('to-latest').click()
    await page.waitForTimeout(500)
    await page.reload()
    await page.getByText('Reply 24, line 12.').waitFor()
    await expect.poll(() => page.getByTestId('to-latest').count()).toBe(0)
    expect(ui.errors).toEqual([])
  }, 120_000)
})
