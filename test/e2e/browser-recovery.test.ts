/**
 * What the happy path does not show, in real Chromium through the bridge: adding a member from scratch,
 * a provider that refuses the key (the error is shown; the key fixed, the failed message goes out again), stopping
 * a reply mid-stream, and proposing a change to a decision from a selected part of a message.
 */
import { describe, expect, it } from 'vitest'
import { browserSession, screenshot } from './support'

const ui = browserSession()

describe('browser UI: errors, interrupts and proposals from a selection', () => {
  it('adds a member from scratch, shows a refused key, stops a stream and proposes a change from a selection', async () => {
    const ws = await ui.stack.core.invoke('workspaces.open', { repoPath: ui.stack.repoDir, name: 'recovery' })
    const d1 = await ui.stack.core.invoke('decisions.create', {
      workspaceId: ws.id,
      title: 'API style',
      statement: 'The public API is REST with JSON bodies.',
    })
    await ui.page.goto(ui.stack.url)
    await ui.page.getByTestId('sidebar').waitFor()

    // ---- a member from scratch, on the local OpenAI-compatible server ----
    await ui.page.getByRole('button', { name: '+ Add member' }).click()
    const dialog = ui.page.getByRole('dialog', { name: 'Add a member' })
    await dialog.getByLabel('Name', { exact: true }).fill('Scout')
    await dialog.getByLabel('Role', { exact: true }).fill('researcher')
    await dialog.getByLabel('Instructions').fill('You look things up and report what you found.')
    await dialog.getByRole('radio', { name: 'Local / OpenAI-compatible' }).click()
    await dialog.getByLabel('Model', { exact: true }).fill('scripted-model')
    await dialog.getByLabel('Base URL').fill(ui.stack.models.openaiBaseURL)
    await dialog.getByLabel('API key').fill('sk-wrong-key')
    await dialog.getByTestId('save-member').click()
    const scout = ui.page.locator('[data-testid=member-session]')
    await scout.getByTestId('session-head').filter({ hasText: 'Scout' }).waitFor()

    // ---- the provider refuses the key: the error is shown where the user looks, the key is not ----
    ui.stack.models.enqueue({ status: 401, errorMessage: 'Incorrect API key provided' })
    const composer = scout.getByTestId('composer')
    await composer.fill('What does the API look like?')
    await composer.press('Enter')
    await expect
      .poll(() => ui.page.getByTestId('member-item').filter({ hasText: 'Scout' }).getAttribute('data-state'), {
        timeout: 15_000,
      })
      .toBe('error')
    const errorBox = scout.locator('[data-kind=error]').last()
    await errorBox.waitFor()
    expect(await errorBox.textContent()).toMatch(/401|API key/i)
    expect(await ui.page.locator('body').textContent()).not.toContain('sk-wrong-key')
    // The failed call leaves no empty reply behind, and the error leads to the settings that fix it.
    expect(await scout.locator('[data-kind=model]').count()).toBe(0)
    await screenshot(ui.page, 'r1-provider-error')
    await errorBox.getByTestId('fix-provider').click()
    const settings = ui.page.getByRole('dialog', { name: 'Scout’s settings' })
    await settings.getByLabel('API key').fill('sk-right-key')

    // ---- the key saved, the message that failed goes out again by itself (issue 31): the member recovers ----
    ui.stack.models.enqueue({ text: 'Found it: the API is REST.', usage: { input: 20, output: 8 } })
    await settings.getByRole('button', { name: 'Save' }).click()
    await settings.waitFor({ state: 'detached' })
    await scout.locator('[data-kind=model][data-status=done]').filter({ hasText: 'Found it' }).waitFor()
    expect(await scout.locator('[data-kind=user]').filter({ hasText: 'What does the API look like?' }).count()).toBe(2)
    // The new key is the one the provider received.
    expect(ui.stack.models.requests.at(-1)!.headers.authorization).toBe('Bearer sk-right-key')
    await expect
      .poll(() => ui.page.getByTestId('member-item').filter({ hasText: 'Scout' }).getAttribute('data-state'))
      .toBe('idle')

    // ---- a reply that never ends: Interrupt stops it and says so ----
    ui.stack.models.enqueue({
      text: 'Let me read every file in the repository, one by one, starting with',
      chunkSize: 6,
      chunkDelayMs: 20,
      hang: true,
    })
    await composer.fill('Read everything.')
    await composer.press('Enter')
    await scout.locator('[data-kind=model][data-status=streaming]').filter({ hasText: 'one by one' }).waitFor()
    await screenshot(ui.page, 'r2-streaming-before-interrupt')
    await scout.getByRole('button', { name: 'Interrupt' }).click()
    await scout.locator('[data-kind=interrupted]').waitFor()
    await expect
      .poll(() => ui.page.getByTestId('member-item').filter({ hasText: 'Scout' }).getAttribute('data-state'))
      .toBe('idle')
    // What had streamed is kept.
    expect(await scout.locator('[data-kind=model]').last().textContent()).toContain('one by one')
    await screenshot(ui.page, 'r3-interrupted')

    // ---- a question to the human reads as one, and the answer is the next message ----
    ui.stack.models.enqueue({
      toolCalls: [{ name: 'ask_human', arguments: { question: 'Should **D-1** also cover the webhooks?' } }],
    })
    await composer.fill('Check the webhooks too.')
    await composer.press('Enter')
    const question = scout.getByTestId('question')
    await question.waitFor()
    expect(await question.textContent()).toContain('Scout asks you')
    await expect
      .poll(() => ui.page.getByTestId('member-item').filter({ hasText: 'Scout' }).getAttribute('data-state'))
      .toBe('idle')
    // Open until answered: a badge in the team list, and the inbox lists it.
    const scoutItem = ui.page.getByTestId('member-item').filter({ hasText: 'Scout' })
    await scoutItem.getByTestId('question-badge').waitFor()
    expect(await scoutItem.textContent()).toContain('has a question for you')
    await ui.page.getByTestId('tab-inbox').click()
    await ui.page.getByTestId('inbox').getByTestId('question').filter({ hasText: 'also cover the webhooks' }).waitFor()
    await screenshot(ui.page, 'r3b-question')

    // ---- a selected part of a reply becomes a proposed change to D-1 ----
    ui.stack.models.enqueue({
      text: 'Reads could move to GraphQL over HTTP at /graphql while writes stay REST. That would cut round trips.',
      usage: { input: 30, output: 20 },
    })
    await composer.fill('Any better API style?')
    await composer.press('Enter')
    const reply = scout.locator('[data-kind=model][data-status=done]').filter({ hasText: 'GraphQL' })
    await reply.waitFor()
    // That message answered the question: no badge, no inbox entry, the question kept as history.
    await scoutItem.getByTestId('question-badge').waitFor({ state: 'detached' })
    expect(await ui.page.getByTestId('inbox').getByTestId('question').count()).toBe(0)
    expect(await question.getAttribute('data-answered')).toBe('true')
    await ui.page.getByTestId('tab-decisions').click()
    const part = 'Reads could move to GraphQL over HTTP at /graphql while writes stay REST.'
    await reply.evaluate((row, text) => {
      const p = row.querySelector('.model-bubble p')!
      const node = p.firstChild!
      const range = document.createRange()
      range.setStart(node, 0)
      range.setEnd(node, text.length)
      const sel = window.getSelection()!
      sel.removeAllRanges()
      sel.addRange(range)
    }, part)
    await reply.hover()
    await reply.getByRole('button', { name: 'Record decision' }).click()
    const record = ui.page.getByRole('dialog')
    // The dialog covers the window, not just the session panel it was opened from.
    expect(await ui.page.locator('.modal-backdrop').boundingBox()).toEqual({ x: 0, y: 0, width: 1440, height: 900 })
    await record.getByRole('tab', { name: /change/i }).click()
    await record.getByLabel('Decision').selectOption(d1.id)
    expect(await record.getByLabel('Statement', { exact: true }).inputValue()).toBe(part)
    await record.getByLabel('Reason').fill('Fewer round trips for reads')
    await screenshot(ui.page, 'r4-propose-from-selection')
    await record.getByRole('button', { name: 'Propose change' }).click()
    await record.waitFor({ state: 'detached' })

    const proposals = await ui.stack.core.invoke('proposals.list', { workspaceId: ws.id })
    expect(proposals).toHaveLength(1)
    expect(proposals[0]).toMatchObject({
      decisionId: d1.id,
      statement: part,
      reason: 'Fewer round trips for reads',
      state: 'pending',
      baseVersion: 1,
    })
    expect(proposals[0]!.sourceMessageId).toBe(await reply.getAttribute('data-step-id'))
    // It shows as a card in the chat it came from, with accept / reject; accepting makes D-1 v2.
    const card = scout.locator('[data-testid=proposal-card][data-key="P-1"]')
    await card.waitFor()
    await card.getByRole('button', { name: 'Accept' }).click()
    await expect.poll(async () => (await ui.stack.core.invoke('decisions.get', { decisionId: d1.id })).version).toBe(2)
    // The card turns accepted, and the decisions panel shows the new statement at v2.
    await card.filter({ hasText: 'accepted' }).waitFor()
    await ui.page
      .locator('[data-testid=decision-row][data-key="D-1"]')
      .filter({ hasText: 'GraphQL' })
      .filter({ hasText: 'v2' })
      .waitFor()
    await screenshot(ui.page, 'r5-proposal-accepted')
    // A smaller window keeps every part usable (looked at in the screenshots).
    await ui.page.setViewportSize({ width: 1024, height: 700 })
    await screenshot(ui.page, 'r6-window-1024')
    await ui.page.setViewportSize({ width: 820, height: 620 })
    await screenshot(ui.page, 'r7-window-820')
    await ui.page.setViewportSize({ width: 1440, height: 900 })
    expect(ui.errors).toEqual([])
  }, 120_000)
})
