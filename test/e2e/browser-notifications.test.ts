/**
 * Desktop notifications under `concord serve` (issue 22): off until the user turns them on (which asks the
 * page's permission), then a member waiting for approval or finishing while the window is not focused shows one
 * through the browser's Notification API; while the window is focused, none. The app is not stubbed: an init
 * script wraps the page's Notification to record what is constructed. Headless Chromium reports every page as
 * focused, so the same script lets the test say when the window is not (`document.hasFocus()` answers false).
 */
import { describe, expect, it } from 'vitest'
import { browserSession, newPage, screenshot } from './support'

const ui = browserSession()

declare global {
  interface Window {
    __notes: { title: string; body: string }[]
    __asked: number
    __away: boolean
  }
}

const recorder = () => {
  window.__notes = []
  window.__asked = 0
  window.__away = false
  const Real = window.Notification
  class Recorded extends Real {
    constructor(title: string, options?: NotificationOptions) {
      window.__notes.push({ title, body: options?.body ?? '' })
      super(title, options)
    }
    static override requestPermission(...args: Parameters<typeof Notification.requestPermission>) {
      window.__asked++
      return Real.requestPermission(...args)
    }
  }
  window.Notification = Recorded
  const focus = Object.getOwnPropertyDescriptor(Document.prototype, 'hasFocus')!.value as (this: Document) => boolean
  Document.prototype.hasFocus = function (this: Document) {
    return window.__away ? false : focus.call(this)
  }
}

describe('browser UI: desktop notifications', () => {
  it('are opt-in, ask the permission, and tell of an approval and a finished turn only while the window is not focused', async () => {
    const { core, repoDir, models } = ui.stack
    const ws = await core.invoke('workspaces.open', { repoPath: repoDir, name: 'notify', isolation: 'shared' })
    const ivy = await core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Ivy',
      role: 'implementer',
      approval: 'ask',
      provider: { kind: 'openai', model: 'scripted', baseURL: models.openaiBaseURL, apiKey: 'sk-e2e' },
    })
    const { context, page, errors } = await newPage(ui.browser)
    await context.addInitScript(recorder)
    const idle = () =>
      expect
        .poll(async () => (await core.invoke('sessions.list', { workspaceId: ws.id }))[0], { timeout: 15_000 })
        .toMatchObject({ state: 'idle', queued: 0 })
    const notes = () => page.evaluate(() => window.__notes)
    const away = (v: boolean) => page.evaluate((x) => void (window.__away = x), v)
    let sent = 0
    const send = async (...replies: Parameters<typeof models.enqueue>) => {
      models.enqueue(...replies)
      sent++
      await core.invoke('sessions.send', { memberId: ivy.id, text: `Message ${sent}` })
    }

    await page.goto(ui.stack.url)
    await page.getByTestId('member-item').filter({ hasText: 'Ivy' }).waitFor()
    const toggle = page.getByTestId('notify-toggle')
    expect(await toggle.getAttribute('aria-pressed')).toBe('false')

    // Off by default: a turn that finishes while the window is not focused shows nothing.
    await away(true)
    await send({ text: 'Done.' })
    await page.getByText('Done.').waitFor()
    await idle()
    await page.waitForTimeout(300)
    expect(await notes()).toEqual([])

    // Turning them on asks the page's permission; refused, they stay off and the sidebar says where to allow them.
    await toggle.click()
    await page.getByTestId('notify-refused').waitFor()
    expect(await page.getByTestId('notify-refused').textContent()).toContain('allow them in its site settings')
    expect(await page.evaluate(() => window.__asked)).toBe(1)
    expect(await toggle.getAttribute('aria-pressed')).toBe('false')
    await screenshot(page, 'notify-refused-1440')
    // Allowed in the browser's settings, then turned on: asked again, granted this time.
    await context.grantPermissions(['notifications'])
    await toggle.click()
    await expect.poll(() => toggle.getAttribute('aria-pressed')).toBe('true')
    expect(await page.getByTestId('notify-refused').count()).toBe(0)
    expect(await page.evaluate(() => window.__asked)).toBe(2)
    for (const width of [1440, 1024, 760]) {
      await page.setViewportSize({ width, height: 900 })
      if (width === 760) await page.getByTestId('sidebar-toggle').click()
      await screenshot(page, `notify-on-${width}`)
      if (width === 760) await page.getByTestId('sidebar-toggle').click()
    }
    await page.setViewportSize({ width: 1440, height: 900 })

    // On, window not focused: the approval wait, then the finished turn.
    await send(
      { toolCalls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'hello\n' } }] },
      { text: 'Wrote notes.txt.' },
    )
    await expect.poll(notes).toEqual([{ title: 'Ivy needs your approval', body: 'to run write_file' }])
    const waiting = (await core.invoke('sessions.list', { workspaceId: ws.id }))[0]
    await core.invoke('sessions.approve', {
      memberId: ivy.id,
      callId: waiting!.pendingApprovals[0]!.callId,
      allow: true,
    })
    await expect.poll(notes).toEqual([
      { title: 'Ivy needs your approval', body: 'to run write_file' },
      { title: 'Ivy finished', body: 'The reply is ready.' },
    ])

    // Focused (visible or not is not the question): nothing, the sidebar shows it.
    await away(false)
    await send({ text: 'Second reply.' })
    await page.getByText('Second reply.').waitFor()
    await idle()
    await page.waitForTimeout(300)
    expect(await notes()).toHaveLength(2)

    // The choice is kept across a reload.
    await page.reload()
    await page.getByTestId('member-item').filter({ hasText: 'Ivy' }).waitFor()
    expect(await page.getByTestId('notify-toggle').getAttribute('aria-pressed')).toBe('true')
    expect(errors).toEqual([])
    await context.close()
  }, 120_000)
})
