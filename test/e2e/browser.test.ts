/**
 * The UI as a new user tries it, in real Chromium through the browser bridge (`concord serve`'s transport):
 * choose a repository in the folder browser, set up a provider and the team, talk to a member and watch it stream, record a
 * decision from a message, edit it inside one member's chat and watch the card change in another's and the
 * task board flag the dependent tasks, see an acceptance refused with its reasons and then allowed.
 * Screenshots of each main screen go to test/e2e/__screenshots__/.
 */
import { basename, dirname } from 'node:path'
import type { Locator } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import type { Member, Workspace } from '../../shared/schemas'
import { browserSession, newPage, screenshot } from './support'

const SHA1 = 'a1b2c3d4e5f6a7b8c9d0a1b2c3d4e5f6a7b8c9d0'

const ui = browserSession()

const session = (name: string): Locator =>
  ui.page
    .locator(`[data-testid=member-session]`)
    .filter({ has: ui.page.locator('[data-testid=session-head]', { hasText: name }) })
const memberItem = (name: string) => ui.page.getByTestId('member-item').filter({ hasText: name })

async function members(ws: Workspace): Promise<Record<string, Member>> {
  const list = await ui.stack.core.invoke('members.list', { workspaceId: ws.id })
  return Object.fromEntries(list.map((m) => [m.name, m]))
}

describe('browser UI through the bridge', () => {
  it('takes a new user from an empty app to a refused and then allowed acceptance', async () => {
    // ---- first run: the token is taken from the address and stripped from it ----
    await ui.page.goto(ui.stack.url)
    await ui.page.getByTestId('welcome').waitFor()
    expect(ui.page.url()).not.toContain('token=')
    await screenshot(ui.page, '01-welcome')

    // ---- choose the repository in Concord's folder browser (the browser has no native dialog) ----
    await ui.page.getByTestId('browse-folders').click()
    await ui.page.getByTestId('folder-list').waitFor()
    await ui.page.getByTestId('folder-path').fill(dirname(ui.stack.repoDir))
    await ui.page.getByTestId('folder-path').press('Enter')
    await ui.page
      .getByTestId('folder-item')
      .filter({ hasText: basename(ui.stack.repoDir) })
      .click()
    await expect.poll(() => ui.page.getByTestId('folder-path').inputValue()).toBe(ui.stack.repoDir)
    await ui.page.getByTestId('folder-up').click()
    await expect.poll(() => ui.page.getByTestId('folder-path').inputValue()).toBe(dirname(ui.stack.repoDir))
    await screenshot(ui.page, '01b-folder-browser')
    await ui.page
      .getByTestId('folder-item')
      .filter({ hasText: basename(ui.stack.repoDir) })
      .click()
    await ui.page.getByTestId('choose-folder').click()
    expect(await ui.page.getByTestId('repo-path').inputValue()).toBe(ui.stack.repoDir)
    await ui.page.getByTestId('open-repo').click()
    await ui.page.getByTestId('setup').waitFor()
    await screenshot(ui.page, '02-setup-provider')

    // ---- providers: a local OpenAI-compatible server (the scripted model server) ----
    await ui.page.getByRole('radio', { name: 'Local / OpenAI-compatible' }).click()
    await ui.page.getByLabel('Base URL').fill(ui.stack.models.openaiBaseURL)
    await ui.page.getByLabel('Model').fill('scripted-model')
    await ui.page.getByLabel('API key').fill('sk-local-secret')
    await ui.page.getByTestId('provider-next').click()
    await screenshot(ui.page, '03-setup-team')
    await ui.page.getByTestId('create-team').click()
    await expect.poll(() => ui.page.getByTestId('member-item').count()).toBe(4)

    const ws = (await ui.stack.core.invoke('workspaces.list', {}))[0]
    // This walk-through scripts every model reply itself: no automatic turns (browser-loop and browser-websearch cover them).
    await ui.stack.core.invoke('workspaces.update', { workspaceId: ws!.id, autoTurns: false })
    const team = await members(ws!)
    expect(team.Implementer!.provider).toMatchObject({
      kind: 'openai-compatible',
      model: 'scripted-model',
      hasKey: true,
    })
    // The key is write-only: nothing the renderer can read contains it.
    expect(await ui.page.evaluate(() => JSON.stringify(localStorage) + JSON.stringify(sessionStorage))).not.toContain(
      'sk-local-secret',
    )

    // ---- talk to a member and watch it stream (Ctrl+2 switches to the second member) ----
    await ui.page.keyboard.press('Control+2')
    await session('Implementer').waitFor()
    await screenshot(ui.page, '04-empty-session')
    const reply =
      'We should **use REST** with JSON bodies for the public API.\n\n```ts\nexport const api = createRestApi({ version: 1 })\n```\n\nI will start once that is recorded.'
    ui.stack.models.enqueue({ text: reply, chunkSize: 3, chunkDelayMs: 12, usage: { input: 40, output: 30 } })
    const composer = session('Implementer').getByTestId('composer')
    await composer.fill('Which API style do we use? I want REST with JSON bodies, versioned under /v1.')
    await composer.press('Enter')
    await expect.poll(() => composer.inputValue()).toBe('')
    const streaming = session('Implementer').locator('[data-kind=model][data-status=streaming]')
    await streaming.waitFor()
    // Text arrives in pieces: it is seen partially before it is seen whole.
    await expect.poll(async () => ((await streaming.textContent().catch(() => '')) ?? '').length).toBeGreaterThan(10)
    const partial = (await streaming.textContent().catch(() => '')) ?? ''
    expect(partial.length).toBeLessThan(reply.length)
    await screenshot(ui.page, '05-streaming')
    await session('Implementer').locator('[data-kind=model][data-status=done]').waitFor()
    await expect
      .poll(() => session('Implementer').locator('[data-kind=model]').textContent())
      .toContain('I will start once that is recorded.')
    await expect.poll(() => memberItem('Implementer').getAttribute('data-state')).toBe('idle')
    // Its code is highlighted once the highlighter (loaded after the first screen) is there.
    await session('Implementer')
      .locator('[data-kind=model] pre code.hljs .hljs-keyword', { hasText: 'export' })
      .waitFor()

    // ---- from conversation to decision: record the human's message as D-1 ----
    const userStep = session('Implementer').locator('[data-kind=user]').first()
    await userStep.hover()
    await userStep.getByRole('button', { name: 'Record decision' }).click()
    const dialog = ui.page.getByRole('dialog', { name: 'Record from this message' })
    await dialog.getByLabel('Decision title').fill('API style')
    await dialog.getByLabel('Statement').fill('The public API is REST with JSON bodies, versioned under /v1.')
    await dialog.getByRole('button', { name: 'Record decision' }).click()
    await dialog.waitFor({ state: 'detached' })
    const d1 = (await ui.stack.core.invoke('decisions.list', { workspaceId: ws!.id }))[0]
    expect(d1).toMatchObject({ key: 'D-1', version: 1 })
    expect(d1!.sourceMessageId).toMatch(/-s\d+$/)
    // The card shows under the message it was made from.
    await userStep.locator('[data-testid=decision-card][data-key="D-1"]').waitFor()

    // ---- work that depends on D-1 (normally created by the lead's tools) ----
    const t1 = await ui.stack.core.invoke('tasks.create', {
      workspaceId: ws!.id,
      title: 'Build the /v1 endpoints',
      assigneeId: team.Implementer!.id,
      decisionIds: [d1!.id],
    })
    const t2 = await ui.stack.core.invoke('tasks.create', {
      workspaceId: ws!.id,
      title: 'Client SDK',
      assigneeId: team.Implementer!.id,
      decisionIds: [d1!.id],
    })
    await ui.stack.core.invoke('tasks.create', {
      workspaceId: ws!.id,
      title: 'API docs',
      assigneeId: team.Reviewer!.id,
      decisionIds: [d1!.id],
    })
    await ui.stack.core.invoke('tasks.setStatus', { taskId: t1.id, status: 'in_progress' })
    await ui.stack.core.invoke('tasks.setStatus', { taskId: t1.id, status: 'delivered', artifact: { commit: SHA1 } })
    await ui.stack.core.invoke('tasks.setStatus', { taskId: t2.id, status: 'in_progress' })
    const claims = [{ text: 'GET /v1/items answers JSON', decisionIds: [d1!.id] }]
    for (const [kind, author] of [
      ['test', team.Tester],
      ['review', team.Reviewer],
    ] as const) {
      await ui.stack.core.invoke('reports.submit', {
        taskId: t1.id,
        authorId: author!.id,
        kind,
        verdict: 'pass',
        artifact: { commit: SHA1 },
        basis: [{ decisionId: d1!.id, version: 1 }],
        claims,
      })
    }

    // ---- the tester mentions D-1: a live card in its chat ----
    await memberItem('Tester').click()
    ui.stack.models.enqueue({
      text: 'Understood: I will test the endpoints against D-1 and report on the delivered commit.',
    })
    await session('Tester').getByTestId('composer').fill('Please test T-1 once it is delivered.')
    await session('Tester').getByTestId('send').click()
    await session('Tester').locator('[data-kind=model][data-status=done]').waitFor()
    await session('Tester')
      .locator('[data-kind=model] [data-testid=decision-card][data-key="D-1"][data-version="1"]')
      .waitFor()

    // ---- team view: edit D-1 in the implementer's chat, see the tester's card change ----
    await ui.page.keyboard.press('Alt+t')
    await ui.page.getByTestId('team-view').waitFor()
    await session('Tester').locator('[data-testid=decision-card][data-key="D-1"]').waitFor()
    await screenshot(ui.page, '06-team-view')
    const card = session('Implementer').locator('[data-testid=decision-card][data-key="D-1"]').first()
    await card.getByRole('button', { name: 'Edit' }).click()
    const editor = card.getByTestId('decision-editor')
    await editor
      .getByLabel('Statement')
      .fill('The public API is GraphQL over HTTP at /graphql; REST stays for webhooks only.')
    await editor.getByLabel('Reason').fill('Clients need nested queries')
    await expect.poll(() => editor.getByTestId('impact-preview').textContent()).toContain('T-1 delivered')
    const preview = (await editor.getByTestId('impact-preview').textContent()) ?? ''
    expect(preview).toContain('T-2 in progress by Implementer')
    expect(preview).toContain('T-3 to do by Reviewer')
    expect(preview).toMatch(/stales 1 claim in R-1, 1 claim in R-2/)
    await screenshot(ui.page, '07-impact-preview')
    await editor.getByRole('button', { name: /Confirm/ }).click()
    await card.getByTestId('edit-outcome').waitFor()
    // Every other chat's card updates at once.
    const testerCard = session('Tester').locator('[data-testid=decision-card][data-key="D-1"]')
    await testerCard.and(ui.page.locator('[data-version="2"]')).waitFor()
    // The tester's reply was written against v1: its card keeps that statement and says D-1 changed since.
    expect(await testerCard.textContent()).toContain('changed since — now v2')
    await screenshot(ui.page, '08-card-updated-everywhere')

    // ---- the task board flags exactly the dependent tasks ----
    await ui.page.getByTestId('tab-tasks').click()
    const taskCard = (key: string) => ui.page.locator(`[data-testid=task-card][data-key="${key}"]`)
    await expect.poll(() => taskCard('T-1').getAttribute('data-flag')).toBe('needs_reverification')
    await expect.poll(() => taskCard('T-2').getAttribute('data-flag')).toBe('needs_adjustment')
    await expect.poll(() => taskCard('T-3').getAttribute('data-flag')).toBe('requirements_updated')
    expect(await taskCard('T-1').textContent()).toContain('D-1 suspect v1→v2')
    await screenshot(ui.page, '09-task-board-flagged')

    // ---- acceptance: refused with the exact reasons, then allowed on current evidence ----
    await taskCard('T-1').getByTestId('accept-task').click()
    const refusal = taskCard('T-1').getByTestId('refusal')
    await refusal.waitFor()
    expect(await refusal.textContent()).toContain('R-1 is based on D-1 v1; D-1 is at v2')
    await screenshot(ui.page, '10-acceptance-refused')

    const d1v2 = await ui.stack.core.invoke('decisions.get', { decisionId: d1!.id })
    const claims2 = [{ text: 'POST /graphql answers nested queries', decisionIds: [d1!.id] }]
    for (const [kind, author] of [
      ['test', team.Tester],
      ['review', team.Reviewer],
    ] as const) {
      await ui.stack.core.invoke('reports.submit', {
        taskId: t1.id,
        authorId: author!.id,
        kind,
        verdict: 'pass',
        artifact: { commit: SHA1 },
        basis: [{ decisionId: d1!.id, version: d1v2.version }],
        claims: claims2,
      })
    }
    await taskCard('T-1').getByTestId('accept-task').click()
    await expect.poll(() => taskCard('T-1').getAttribute('data-status')).toBe('accepted')
    expect(await taskCard('T-1').getByTestId('refusal').count()).toBe(0)
    await screenshot(ui.page, '11-acceptance-allowed')

    expect(ui.errors).toEqual([])
  }, 180_000)

  it('shows reports, history with diffs, proposals, approvals and figures, in both themes', async () => {
    const ws = (await ui.stack.core.invoke('workspaces.list', {}))[0]
    const team = await members(ws!)

    // Reports: claim validity after the edit.
    await ui.page.getByTestId('tab-reports').click()
    await ui.page.locator('[data-testid=report-card][data-key="R-3"][data-validity=valid]').waitFor()
    // R-1 (the tester's first test report on T-1) is superseded by R-3: folded under it until the fold is opened.
    expect(await ui.page.locator('[data-testid=report-card][data-key="R-1"]').count()).toBe(0)
    await ui.page.getByTestId('reports-fold').filter({ hasText: 'superseded by R-3' }).click()
    await ui.page.locator('[data-testid=report-card][data-key="R-1"][data-validity=stale]').waitFor()
    await screenshot(ui.page, '12-reports')

    // Decisions: history with the diff between revisions, and where it was made.
    await ui.page.getByTestId('tab-decisions').click()
    await ui.page.locator('[data-testid=decision-row][data-key="D-1"]').click()
    const detail = ui.page.getByTestId('decision-detail')
    await expect.poll(() => detail.getByTestId('revision').count()).toBe(2)
    expect(await detail.locator('ins').first().textContent()).toContain('GraphQL')
    expect(await detail.getByTestId('made-in').first().textContent()).toContain('Implementer')
    await screenshot(ui.page, '13-decision-history')
    // Export of the decision log (MADR files): the files it will hold listed first, then, under serve, a zip to download.
    await detail.getByRole('button', { name: '← All decisions' }).click()
    await ui.page.getByTestId('export-open').click()
    await expect.poll(() => ui.page.getByTestId('export-plan').textContent()).toContain('.md')
    const [download] = await Promise.all([ui.page.waitForEvent('download'), ui.page.getByTestId('export-run').click()])
    expect(download.suggestedFilename()).toMatch(/-decisions-madr\.zip$/)
    await ui.page.getByTestId('export-box').getByRole('button', { name: 'Close', exact: true }).click()

    // A proposal from an agent (a proposer, through its tool): a card with accept / reject in its chat and the inbox.
    ui.stack.models.enqueue(
      {
        toolCalls: [
          {
            name: 'propose_decision_change',
            arguments: {
              decisionId: 'D-1',
              statement:
                'The public API is GraphQL over HTTP at /graphql, with persisted queries only; REST stays for webhooks only.',
              reason: 'Persisted queries keep the surface reviewable',
            },
          },
        ],
      },
      { text: 'I proposed a change to D-1: persisted queries only.' },
    )
    await ui.page.keyboard.press('Alt+t')
    await memberItem('Implementer').click()
    await session('Implementer').getByTestId('composer').fill('Should clients be free to send any query?')
    await session('Implementer').getByTestId('composer').press('Enter')
    const chatCard = session('Implementer').locator('[data-testid=proposal-card][data-key="P-1"]')
    await chatCard.waitFor()
    await expect.poll(() => chatCard.textContent()).toContain('Impact if accepted')
    await ui.page.getByTestId('tab-inbox').click()
    await ui.page.getByTestId('inbox').locator('[data-testid=proposal-card][data-key="P-1"]').waitFor()
    await screenshot(ui.page, '14-agent-proposal')
    await chatCard.getByRole('button', { name: 'Accept' }).click()
    await expect.poll(() => chatCard.textContent()).toContain('accepted')
    await ui.page.locator('[data-testid=decision-card][data-key="D-1"][data-version="3"]').first().waitFor()
    await expect.poll(() => memberItem('Implementer').getAttribute('data-state')).toBe('idle')

    // A tool call that needs approval: the member waits, the sidebar says so, Allow lets it run. The wizard's members
    // are sandboxed (a write in the tree runs without asking): this one asks for every write.
    await ui.stack.core.invoke('members.update', { memberId: team.Reviewer!.id, approval: 'ask' })
    ui.stack.models.enqueue(
      { toolCalls: [{ name: 'write_file', arguments: { path: 'NOTES.md', content: '# API\nGraphQL at /graphql\n' } }] },
      { text: 'Wrote NOTES.md with the API decision.' },
    )
    await memberItem('Reviewer').click()
    await session('Reviewer').getByTestId('composer').fill('Write the API decision into NOTES.md')
    await session('Reviewer').getByTestId('composer').press('Enter')
    await expect.poll(() => memberItem('Reviewer').getAttribute('data-state')).toBe('waiting_approval')
    const call = session('Reviewer').locator('[data-testid=tool-call][data-status=waiting_approval]')
    await call.waitFor()
    // The inbox collects what waits for the human across members: allow it from there.
    await ui.page.getByTestId('tab-inbox').click()
    const waiting = ui.page.locator('[data-testid=inbox-approval]').filter({ hasText: 'write_file' })
    await waiting.filter({ hasText: 'Reviewer' }).waitFor()
    expect(await ui.page.getByTestId('tab-inbox').textContent()).toContain('1')
    await screenshot(ui.page, '15-approval')
    await waiting.getByRole('button', { name: 'Allow' }).click()
    await waiting.waitFor({ state: 'detached' })
    await session('Reviewer').locator('[data-testid=tool-call][data-status=done]').waitFor()
    await expect
      .poll(() => session('Reviewer').locator('[data-kind=model]').last().textContent())
      .toContain('Wrote NOTES.md')
    await expect.poll(() => memberItem('Reviewer').getAttribute('data-state')).toBe('idle')

    // Figures: coordination counts and tokens per member.
    await ui.page.getByTestId('tab-figures').click()
    await ui.page.getByTestId('figures').waitFor()
    await expect.poll(() => ui.page.getByTestId('figures').textContent()).toContain('Implementer')
    await screenshot(ui.page, '16-figures')

    // Member settings (provider key write-only) and the shortcut list.
    await session('Reviewer').getByRole('button', { name: 'Reviewer’s settings' }).click()
    const settings = ui.page.getByRole('dialog', { name: 'Reviewer’s settings' })
    await settings.waitFor()
    expect(await settings.getByLabel('API key').inputValue()).toBe('')
    expect(await settings.getByLabel('API key').getAttribute('placeholder')).toContain('stored')
    await screenshot(ui.page, '17-member-settings')
    await ui.page.keyboard.press('Escape')
    await settings.waitFor({ state: 'detached' })
    await ui.page.locator('.brand').first().click()
    await ui.page.keyboard.press('?')
    await ui.page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor()
    await screenshot(ui.page, '18-shortcuts')
    await ui.page.keyboard.press('Escape')

    // Dark theme: the same screens stay legible.
    await ui.page.getByTestId('theme-toggle').click() // system → light
    await ui.page.getByTestId('theme-toggle').click() // light → dark
    await expect.poll(() => ui.page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark')
    await ui.page.keyboard.press('Alt+t')
    await ui.page.getByTestId('team-view').waitFor()
    await ui.page.getByTestId('tab-tasks').click()
    await screenshot(ui.page, '20-dark-team-view')
    await ui.page.keyboard.press('Alt+t')
    await memberItem('Implementer').click()
    await ui.page.getByTestId('tab-decisions').click()
    await screenshot(ui.page, '21-dark-session')
    expect(team.Lead!.authority).toBe('decider')
    expect(ui.errors).toEqual([])
  }, 120_000)

  it('keeps a long session virtualized and pages older steps in as you scroll up', async () => {
    const ws = (await ui.stack.core.invoke('workspaces.list', {}))[0]
    const team = await members(ws!)
    // 400 steps written straight to the session store (a long-running member's history).
    const { store } = ui.stack.core.harness.ctx(ws!.id)
    const lead = Number(team.Lead!.id.split('-m')[1])
    const at = new Date().toISOString()
    store.transaction(() => {
      for (let i = 1; i <= 400; i++) {
        store.steps.insert({
          member_id: lead,
          kind: i % 2 ? 'user' : 'model',
          status: 'done',
          text: `Message number ${i} about D-1.`,
          started_at: at,
          ended_at: at,
        })
      }
    })
    // Written behind the app's back (no events): a fresh load reads it.
    await ui.page.reload()
    await ui.page.getByTestId('sidebar').waitFor()
    // The team is listed before Ctrl+1 chooses its first member (else the reload's own choice, the member open
    // before it, may land after the key).
    await memberItem('Lead').waitFor()
    await ui.page.keyboard.press('Control+1')
    const lead$ = session('Lead')
    await lead$.locator('[data-testid=step]', { hasText: 'Message number 400 about' }).waitFor()
    const rendered = await lead$.locator('[data-testid=step]').count()
    expect(rendered).toBeGreaterThan(3)
    expect(rendered).toBeLessThan(40)
    const scroller = lead$.getByTestId('session-scroll')
    await scroller.hover()
    const first = lead$.locator('[data-testid=step]', { hasText: 'Message number 1 about' })
    const beginning = lead$.getByText('Beginning of the session')
    // Scrolled up until the start: the steps earlier tests left before the 400 may take one more page.
    await expect
      .poll(
        async () => {
          await ui.page.mouse.wheel(0, -4000)
          return (await first.count()) + (await beginning.count())
        },
        { timeout: 30_000 },
      )
      .toBe(2)
    expect(await lead$.locator('[data-testid=step]').count()).toBeLessThan(40)
    // Far from the newest steps, a button says so; it brings the latest back.
    const toLatest = lead$.getByTestId('to-latest')
    await toLatest.waitFor()
    expect(await toLatest.textContent()).toBe('↓ Latest')
    // A reply arriving while you read old steps does not move the view; the button says it is there.
    ui.stack.models.enqueue({ text: 'The newest reply, written while you scrolled back.' })
    await ui.stack.core.invoke('sessions.send', { memberId: team.Lead!.id, text: 'Anything new?' })
    await expect.poll(() => toLatest.textContent(), { timeout: 15_000 }).toBe('↓ New messages')
    expect(await first.count()).toBe(1)
    await screenshot(ui.page, '22-long-session-top')
    await toLatest.click()
    await lead$.locator('[data-testid=step]', { hasText: 'The newest reply' }).waitFor()
    await toLatest.waitFor({ state: 'detached' })
    expect(ui.errors).toEqual([])
  }, 120_000)

  it('tells a visitor without the right token what to open instead', async () => {
    const { context, page: other } = await newPage(ui.browser)
    try {
      await other.goto(ui.stack.url.replace(/token=[^&]+/, 'token=wrong'))
      await other.getByText('The access token was refused').waitFor()
      await other.goto(ui.stack.url.replace(/\?token=[^&]+/, ''))
      await other.getByText('Concord needs its access token').waitFor()
    } finally {
      await context.close()
    }
  })
})
