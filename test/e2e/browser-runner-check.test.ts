/**
 * "Check" beside the SSH host of "Runs on", in the real UI against a real sshd (issue 36): the member editor asks about
 * the host and the member's agent command (its preset's, or its own), the workspace default about the host alone; a
 * reachable host answers with its git's version, an alias the ssh config does not know with the unreachable message
 * naming it, and an answer goes when the host or the agent it was about changes.
 */
import { spawnSync } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fileNeedsSshHost, noSshHostReason, startSshHost, type SshHost } from '../fixtures/ssh-host'
import { browserSession, screenshot } from './support'

fileNeedsSshHost()

// First: Chromium starts with the machine's own HOME, before the core's ssh is given the fixture's.
const ui = browserSession()

let host: SshHost
const savedHome = process.env.HOME

beforeAll(async () => {
  if (noSshHostReason()) return
  host = await startSshHost({ alias: 'runner1' })
  // The core runs in this process and ssh reads the config of its HOME: the fixture's client side, whose config names
  // runner1 and nothing else.
  process.env.HOME = host.clientHome
}, 60_000)

afterAll(async () => {
  process.env.HOME = savedHome
  await host?.stop()
})

/** The host runs this machine's git (the fixture's sshd is on this machine): "2.39.5". */
function gitVersion(): string {
  const out = spawnSync('git', ['--version'], { encoding: 'utf8' }).stdout
  const version = /^git version (\S+)/.exec(out)?.[1]
  if (!version) throw new Error(`git --version said ${out}`)
  return version
}

describe('browser UI: checking a runner', () => {
  it('checks the SSH host with the member’s agent in the member editor', async () => {
    const ws = await ui.stack.core.invoke('workspaces.open', { repoPath: ui.stack.repoDir, name: 'check' })
    await ui.stack.core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Ada',
      role: 'implementer',
      approval: 'auto',
      provider: { kind: 'acp', agent: 'opencode' },
    })
    await ui.page.goto(ui.stack.url)
    await ui.page.getByTestId('sidebar').waitFor()
    await ui.page.getByTestId('member-item').filter({ hasText: 'Ada' }).click()
    const head = ui.page.locator('[data-testid=member-session]').getByTestId('session-head')
    await head.getByRole('button', { name: 'Ada’s settings' }).click()
    const settings = ui.page.getByRole('dialog', { name: 'Ada’s settings' })
    await settings.getByRole('radiogroup', { name: 'Runs on' }).getByRole('radio', { name: 'SSH host' }).click()
    await settings.getByLabel('SSH host').fill('runner1')
    const check = settings.getByTestId('runner-check')
    const answer = settings.getByTestId('runner-check-answer')
    const alert = settings.getByRole('alert')

    // The preset's command (opencode), which the host does not have.
    await check.click()
    await alert.waitFor()
    expect(await alert.textContent()).toBe(
      'The agent command "opencode" is not found on the SSH host runner1: install it there, or give its full path',
    )

    // The member's own command: the stale answer goes with the change, and the new one names the host, git and node.
    await settings.getByLabel('Agent command').fill('node')
    expect(await alert.count()).toBe(0)
    await check.click()
    await answer.waitFor()
    expect(await answer.getAttribute('role')).toBe('status')
    expect(await answer.textContent()).toMatch(new RegExp(`^Reached runner1: git ${gitVersion()}, node at /\\S+/node$`))
    expect(await check.isEnabled()).toBe(true)
    await settings.getByTestId('runner-fields').scrollIntoViewIfNeeded()
    await screenshot(ui.page, 'runner-check-member-editor')

    // An alias the ssh config does not name: gone with the edit, then ssh's refusal naming it.
    await settings.getByLabel('SSH host').fill('nohost1')
    expect(await answer.count()).toBe(0)
    await check.click()
    await alert.waitFor()
    expect(await alert.textContent()).toMatch(
      /^The SSH host nohost1 could not be reached: ssh: Could not resolve hostname nohost1/,
    )
    await settings.getByRole('button', { name: 'Cancel' }).click()
    await settings.waitFor({ state: 'detached' })
    // runner_unreachable is a 502 (an upstream that failed), which the page's error log holds: that one, and no other.
    expect(ui.errors).toHaveLength(2)
    expect(ui.errors).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^HTTP 502 http:\/\/\S+\/api\/runner\.check$/),
        expect.stringContaining('the server responded with a status of 502'),
      ]),
    )
    ui.errors.length = 0
  })

  it('checks the SSH host alone in the workspace default', async () => {
    await ui.page.goto(ui.stack.url)
    await ui.page.getByTestId('runner-settings-open').click()
    const dialog = ui.page.getByRole('dialog', { name: 'Where agents run' })
    await dialog.getByRole('radiogroup', { name: 'Runs on' }).getByRole('radio', { name: 'SSH host' }).click()
    await dialog.getByLabel('SSH host').fill('runner1')
    // The request is held on its way to the server until the button has been seen disabled: one check at a time.
    let release = () => {}
    const held = new Promise<void>((resolve) => (release = resolve))
    let seen = () => {}
    const arrived = new Promise<void>((resolve) => (seen = resolve))
    await ui.page.route('**/api/runner.check', async (route) => {
      seen()
      await held
      await route.continue()
    })
    const check = dialog.getByTestId('runner-check')
    await check.click()
    await arrived
    await dialog.locator('[data-testid=runner-check]:disabled').waitFor()
    expect(await check.textContent()).toBe('Checking…')
    release()
    const answer = dialog.getByTestId('runner-check-answer')
    await answer.waitFor()
    await ui.page.unroute('**/api/runner.check')
    expect(await check.isEnabled()).toBe(true)
    expect(await answer.textContent()).toBe(`Reached runner1: git ${gitVersion()}`)
    await screenshot(ui.page, 'runner-check-workspace-default')
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await dialog.waitFor({ state: 'detached' })
    expect(ui.errors).toEqual([])
  })
})
