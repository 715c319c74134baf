/**
 * Pinned mentions in real Chromium through the bridge: a message written against D-1 v1 keeps saying
 * so after D-1 is edited to v2 in the UI, next to the card at v2, whose word diff shows the change.
 */
import { describe, expect, it } from 'vitest'
import { browserSession, newPage, screenshot } from './support'

const ui = browserSession()

describe('browser UI: pinned mentions', () => {
  it('shows a message pinned to D-1 v1 as changed since, next to the v2 card and its diff', async () => {
    const ws = await ui.stack.core.invoke('workspaces.open', { repoPath: ui.stack.repoDir, name: 'pins' })
    await ui.stack.core.invoke('decisions.create', {
      workspaceId: ws.id,
      title: 'Search timeout',
      statement: 'A search over 30 s fails as a whole; no partial results.',
    })
    await ui.stack.core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Tester',
      role: 'tester',
      approval: 'auto',
      authority: 'decider',
      provider: {
        kind: 'openai-compatible',
        model: 'scripted-model',
        baseURL: ui.stack.models.openaiBaseURL,
        apiKey: 'sk-local',
      },
    })
    await ui.page.goto(ui.stack.url)
    await ui.page.getByTestId('sidebar').waitFor()
    const session = ui.page.locator('[data-testid=member-session]')

    // ---- a message and a reply written against D-1 v1 ----
    ui.stack.models.enqueue({ text: 'Tested against D-1: a search over 30 s fails ✅ pass.' })
    const composer = session.getByTestId('composer')
    await composer.fill('Fail the whole search after 30 s, as D-1 says.')
    await composer.press('Enter')
    const user = session.locator('[data-kind=user]').last()
    const reply = session.locator('[data-kind=model][data-status=done]').last()
    await reply.waitFor()
    await user.locator('[data-ref="D-1"][data-version="1"]').waitFor()

    // ---- D-1 is edited to v2 from the card under the message ----
    const card = user.locator('[data-testid=decision-card][data-key="D-1"]')
    await card.getByRole('button', { name: 'Edit' }).click()
    const editor = card.getByTestId('decision-editor')
    await editor.getByLabel('Statement').fill('A search over 30 s returns the partial results found so far.')
    await editor.getByLabel('Reason').fill('Users want something rather than nothing')
    await editor.getByRole('button', { name: /Confirm/ }).click()
    await card.and(ui.page.locator('[data-version="2"]')).waitFor()

    // ---- the message still says v1, marked changed, next to the card at v2 ----
    for (const step of [user, reply]) {
      const chip = step.locator('.md [data-ref="D-1"]').first()
      await expect.poll(() => chip.getAttribute('data-changed')).toBe('2')
      expect(await chip.textContent()).toBe('D-1v1changed since — now v2')
    }
    expect(await card.getAttribute('data-pinned-version')).toBe('1')
    expect(await card.getByTestId('pinned-version').textContent()).toContain(
      'Written against v1 · changed since — now v2',
    )
    await expect
      .poll(() => card.getByTestId('dcard-statement').textContent())
      .toBe('A search over 30 s fails as a whole; no partial results.')
    // The reply mentions D-1 again: its chip, not a second card (issue 22: one card per decision on a screen).
    expect(await reply.locator('[data-testid=decision-card][data-key="D-1"]').count()).toBe(0)

    // ---- one click: the word diff from the pinned statement to the current one ----
    await card.getByTestId('pinned-diff-toggle').click()
    const statement = card.getByTestId('dcard-statement')
    expect(await statement.locator('del').allTextContents()).toEqual(['fails as a whole; no partial results.'])
    expect(await statement.locator('ins').allTextContents()).toEqual(['returns the partial results found so far.'])

    // ---- a new message pins v2: not marked ----
    ui.stack.models.enqueue({ text: 'Retesting against D-1 now.' })
    await composer.fill('Now D-1 asks for partial results.')
    await composer.press('Enter')
    await session.locator('[data-kind=model][data-status=done]').filter({ hasText: 'Retesting' }).waitFor()
    const fresh = session.locator('[data-kind=user]').last().locator('.md [data-ref="D-1"]')
    expect(await fresh.getAttribute('data-version')).toBe('2')
    expect(await fresh.getAttribute('data-changed')).toBeNull()

    // ---- screenshots at 1440 and 1024 px, the pinned message and its diff in view ----
    await user.scrollIntoViewIfNeeded()
    await screenshot(ui.page, 'pins-1440')
    const narrow = await newPage(ui.browser, { width: 1024, height: 800 })
    await narrow.page.goto(ui.stack.url)
    const narrowUser = narrow.page.locator('[data-testid=member-session] [data-kind=user]').first()
    const narrowCard = narrowUser.locator('[data-testid=decision-card][data-key="D-1"]')
    await narrowCard.getByTestId('pinned-diff-toggle').and(narrow.page.locator(':enabled')).click()
    await narrowCard.locator('ins').waitFor()
    await narrowUser.scrollIntoViewIfNeeded()
    await screenshot(narrow.page, 'pins-1024')
    await narrow.context.close()
    expect(ui.errors).toEqual([])
  }, 60_000)
})
