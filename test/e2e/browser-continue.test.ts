/**
 * An interrupted turn offers Continue (issue 22, Flow): after Interrupt the session head says the last turn was
 * interrupted and Continue sends the member a message to go on; the button goes once the turn runs.
 */
import { describe, expect, it } from 'vitest'
import { browserSession, screenshot } from './support'

const ui = browserSession()

describe('browser UI: continue an interrupted turn', () => {
  it('Interrupt, then Continue: the member is asked to go on and answers', async () => {
    const { core, models, repoDir } = ui.stack
    const ws = await core.invoke('workspaces.open', { repoPath: repoDir, name: 'continue', isolation: 'shared' })
    const provider = { kind: 'openai' as const, model: 'gpt-test', baseURL: models.openaiBaseURL, apiKey: 'sk-test' }
    const ivy = await core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Ivy',
      role: 'implementer',
      provider,
      approval: 'auto',
      authority: 'proposer',
    })
    models.enqueue({ text: 'Let me think about this for a long', hang: true })
    const page = ui.page
    await page.goto(ui.stack.url)
    await page.getByTestId('member-item').filter({ hasText: 'Ivy' }).click()
    await page.getByTestId('composer').fill('Write the search tool.')
    await page.getByTestId('send').click()
    // Interrupt only once the model has taken the hanging reply: interrupted before its request, the turn never asks
    // the model, and the hanging reply would stay queued and answer Continue instead (the flake of issue 37).
    await models.waitForRequests(1, 30_000)
    await page.getByText('Let me think about this for a long').waitFor()
    await page.getByRole('button', { name: 'Interrupt' }).click()
    const cont = page.getByTestId('continue-button')
    await cont.waitFor()
    expect(await page.getByTestId('continue-turn').textContent()).toContain('The last turn was interrupted.')
    await screenshot(page, 'continue-01-offer-1440')
    await page.setViewportSize({ width: 760, height: 800 })
    await screenshot(page, 'continue-02-offer-760')
    await page.setViewportSize({ width: 1440, height: 900 })
    models.enqueue({ text: 'Picking up: the search tool.' })
    await cont.click()
    await page
      .locator('[data-kind=model][data-status=done]')
      .filter({ hasText: 'Picking up: the search tool.' })
      .waitFor()
    await page.getByTestId('continue-turn').waitFor({ state: 'detached' })
    const last = (models.requests.at(-1)!.body.messages as { role: string; content: string }[])
      .filter((m) => m.role === 'user')
      .at(-1)
    // The interruption note and the new message reach the model as one user entry, the new message last.
    expect(last?.content).toMatch(/^\[The turn was interrupted[^\n]*\]\n\nContinue where you left off\.$/)
    const steps = (await core.invoke('sessions.get', { memberId: ivy.id })).steps
    expect(steps.map((s) => s.kind)).toEqual(['user', 'model', 'interrupted', 'user', 'model'])
    expect(ui.errors).toEqual([])
  }, 90_000)
})
