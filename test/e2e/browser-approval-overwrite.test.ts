/**
 * Approving a write that overwrites a file shows the change against the file as it is now (issue 22), not the whole
 * file as added lines; a write that creates a file says so and shows its lines.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { browserSession, screenshot } from './support'

const ui = browserSession()

describe('browser UI: approving a write', () => {
  it('shows an overwrite as a diff against the current file, a new file as its lines', async () => {
    const { core, repoDir, models } = ui.stack
    writeFileSync(join(repoDir, 'notes.txt'), 'first line\nsecond line\nthird line\n')
    const ws = await core.invoke('workspaces.open', { repoPath: repoDir, name: 'overwrite', isolation: 'shared' })
    const ivy = await core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Ivy',
      role: 'implementer',
      approval: 'ask',
      provider: { kind: 'openai', model: 'scripted', baseURL: models.openaiBaseURL, apiKey: 'sk-e2e' },
    })
    models.enqueue(
      {
        toolCalls: [
          { name: 'write_file', arguments: { path: 'notes.txt', content: 'first line\nSECOND line\nthird line\n' } },
        ],
      },
      { toolCalls: [{ name: 'write_file', arguments: { path: 'fresh.txt', content: 'one\ntwo\n' } }] },
      { text: 'Both written.' },
    )
    const page = ui.page
    await page.goto(ui.stack.url)
    await page.getByTestId('member-item').filter({ hasText: 'Ivy' }).waitFor()
    await core.invoke('sessions.send', { memberId: ivy.id, text: 'Fix the second line, add fresh.txt' })
    const session = page.locator('[data-testid=member-session]')
    const diff = session.locator('.toolcall-approval [data-testid=approval-diff]')
    await diff.waitFor()
    expect(await diff.getAttribute('data-kind')).toBe('overwrite')
    const rows = () =>
      diff.locator('.approval-diff > div').evaluateAll((els) => els.map((e) => `${e.className} ${e.textContent}`))
    expect(await rows()).toEqual(['ctx  first line', 'del -second line', 'add +SECOND line', 'ctx  third line'])
    for (const width of [1440, 1024, 760]) {
      await page.setViewportSize({ width, height: 900 })
      await screenshot(page, `approval-overwrite-${width}`)
    }
    await page.setViewportSize({ width: 1440, height: 900 })
    const waiting = async () => (await core.invoke('sessions.list', { workspaceId: ws.id }))[0]!.pendingApprovals
    await core.invoke('sessions.approve', { memberId: ivy.id, callId: (await waiting())[0]!.callId, allow: true })
    await expect
      .poll(async () => (await waiting())[0]?.name === 'write_file' && (await waiting())[0]?.current)
      .toBe(null)
    await expect.poll(() => diff.getAttribute('data-kind')).toBe('write')
    expect(await diff.locator('.approval-path').textContent()).toBe('new file fresh.txt (2 lines)')
    await core.invoke('sessions.approve', { memberId: ivy.id, callId: (await waiting())[0]!.callId, allow: true })
    await session.getByText('Both written.').waitFor()
    expect(ui.errors).toEqual([])
  }, 90_000)
})
