/**
 * An ordinary restart does not strand the open tab (issue 31). `concord serve` without --token keeps its token in the
 * data folder, so the tab's event socket reconnects by itself to the next start on that folder and its events arrive
 * again; a server that refuses the tab's token (started with another --token) gets a banner that says so and what to
 * open, not "Reconnecting…" for ever. Real processes: each start is a `concord serve` of its own on one data folder.
 */
import type { ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { initRepo } from '../fixtures/core'
import { apiClient, startServe } from '../fixtures/http'
import { ensureRendererBuilt, launchChromium, newPage, screenshot } from './support'

let root = ''
let dataDir = ''
let repo = ''
let port = 0
let child: ChildProcess | null = null
let browser: Browser
let page: Page
let errors: string[] = []

/** A port free now, so that every start serves the same address (as the default port does). */
async function freePort(): Promise<number> {
  const s = createServer()
  await new Promise<void>((ok) => s.listen(0, '127.0.0.1', ok))
  const p = (s.address() as AddressInfo).port
  await new Promise<void>((ok) => s.close(() => ok()))
  return p
}

/** `concord serve` on the data folder and port: the address it prints. */
function serve(token: string | null): Promise<string> {
  const started = startServe(dataDir, token, { port })
  child = started.child
  return started.address
}

async function stop(): Promise<void> {
  if (!child || child.exitCode !== null) return
  const exited = once(child, 'exit')
  child.kill('SIGTERM')
  await exited
}

beforeAll(async () => {
  ensureRendererBuilt()
  root = mkdtempSync(join(tmpdir(), 'concord-e2e-restart-'))
  dataDir = join(root, 'data')
  repo = join(root, 'repo')
  mkdirSync(repo)
  initRepo(repo)
  port = await freePort()
  browser = await launchChromium()
  ;({ page, errors } = await newPage(browser))
}, 120_000)
afterAll(async () => {
  await stop()
  await browser?.close()
  if (root) rmSync(root, { recursive: true, force: true })
})

const banner = () => page.getByTestId('server-down')
const member = (name: string) => page.getByTestId('member-item').filter({ hasText: name })

describe('browser UI: a restart of concord serve', () => {
  it('keeps the tab: it reconnects by itself to the next start on the data folder, and its events arrive', async () => {
    const address = await serve(null)
    const api = apiClient(new URL(address).origin, new URL(address).searchParams.get('token')!)
    const ws = await api('workspaces.open', { repoPath: repo, name: 'restart', isolation: 'shared' })
    await api('members.create', { workspaceId: ws.id, name: 'Ada', role: 'lead' })
    await page.goto(address)
    await member('Ada').waitFor()
    await page.locator('.conn-open').waitFor()
    // Everything the page loads after its first screen (the lazy chunks) is in: the restart cuts no download short.
    await page.locator('html[data-ready="true"]').waitFor({ state: 'attached' })

    await stop()
    await banner().waitFor()
    expect(await banner().getAttribute('data-connection')).toBe('connecting')

    // The second start prints the same address: the token was kept, not made again.
    expect(await serve(null)).toBe(address)
    // The backoff between attempts reaches 8 s (±20 %) while the server is down, and a loaded machine starts it slowly.
    await page.locator('.conn-open').waitFor({ timeout: 60_000 })
    expect(await banner().count()).toBe(0)
    // The socket is the new server's: an event of it reaches the tab.
    await api('members.create', { workspaceId: ws.id, name: 'Ivy', role: 'implementer' })
    await member('Ivy').waitFor()
    expect(errors.filter((e) => !/ERR_CONNECTION_REFUSED|WebSocket/.test(e))).toEqual([])
  }, 120_000)

  it('says plainly when the server refuses the tab’s token, and what to open', async () => {
    await stop()
    // Started with another token: nothing this tab holds will ever be accepted.
    const other = await serve('another-token-chosen-by-hand')
    await expect
      .poll(
        () =>
          banner()
            .getAttribute('data-connection')
            .catch(() => null),
        { timeout: 30_000 },
      )
      .toBe('unauthorized')
    const text = (await banner().textContent()) ?? ''
    expect(text).toContain('does not accept this tab’s access token')
    expect(text).toContain('Open the address concord serve printed')
    expect(text).toContain('?token=')
    expect(text).not.toContain('Reconnecting')
    expect(await page.locator('.conn-unauthorized').count()).toBe(1)
    for (const width of [1440, 1024, 760]) {
      await page.setViewportSize({ width, height: 800 })
      const box = (await banner().boundingBox())!
      expect(box.x).toBeGreaterThanOrEqual(0)
      expect(box.x + box.width).toBeLessThanOrEqual(width)
      await screenshot(page, `restart-token-refused-${width}`)
    }
    await page.setViewportSize({ width: 1440, height: 900 })
    // The refused token is not kept: a reload asks for the printed address instead of trying it again.
    await page.reload()
    await page.getByText('Concord needs its access token').waitFor()
    // The printed address works.
    await page.goto(other)
    await member('Ivy').waitFor()
    await page.locator('.conn-open').waitFor()
  }, 120_000)
})
