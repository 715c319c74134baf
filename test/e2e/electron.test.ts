/**
 * The desktop app itself, through Playwright's Electron driver: the same renderer over the preload
 * `window.api` (contextIsolation, sandbox, no Node in the page). Runs where the Electron binary, SQLite
 * built for Electron (npm run rebuild:electron) and a display exist; skipped with the reason elsewhere.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { _electron as electron, type ElectronApplication } from 'playwright-core'
import { afterAll, describe, expect, it } from 'vitest'
import { ensureRendererBuilt, projectRoot, screenshot } from './support'

/** The installed Electron executable, read the way electron/index.js does, without its download fallback. */
function electronBinary(): string | null {
  const pkg = join(projectRoot, 'node_modules', 'electron')
  const pathFile = join(pkg, 'path.txt')
  if (process.env.ELECTRON_OVERRIDE_DIST_PATH) {
    const p = join(
      process.env.ELECTRON_OVERRIDE_DIST_PATH,
      existsSync(pathFile) ? readFileSync(pathFile, 'utf8') : 'electron',
    )
    return existsSync(p) ? p : null
  }
  if (!existsSync(pathFile)) return null
  const p = join(pkg, 'dist', readFileSync(pathFile, 'utf8'))
  return existsSync(p) ? p : null
}

const binary = electronBinary()
const nativeSqlite = join(projectRoot, 'native', 'electron', 'better_sqlite3.node')
const skipReason = !binary
  ? 'the Electron binary is not installed (ELECTRON_SKIP_BINARY_DOWNLOAD=1)'
  : !existsSync(nativeSqlite)
    ? 'SQLite is not built for Electron (npm run rebuild:electron)'
    : process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY
      ? 'no display (run the tests under xvfb-run)'
      : null
if (skipReason) console.warn(`Electron e2e skipped: ${skipReason}`)

let app: ElectronApplication | null = null
let root = ''
afterAll(async () => {
  await app?.close()
  if (root) rmSync(root, { recursive: true, force: true })
})

describe.skipIf(skipReason !== null)('desktop app (Electron)', () => {
  it('opens a repository and creates the team over the preload api, with no Node in the page', async () => {
    ensureRendererBuilt()
    root = mkdtempSync(join(tmpdir(), 'concord-electron-'))
    const repo = join(root, 'repo')
    mkdirSync(repo)
    app = await electron.launch({
      executablePath: binary!,
      args: [join(projectRoot, 'out', 'main', 'index.js'), `--data-dir=${join(root, 'data')}`],
      env: { ...process.env, ELECTRON_RENDERER_URL: '' },
    })
    const page = await app.firstWindow()
    await page.getByTestId('welcome').waitFor()
    expect(await page.evaluate(() => typeof (window as { api?: unknown }).api)).toBe('object')
    expect(
      await page.evaluate(
        () =>
          typeof (globalThis as { require?: unknown }).require + typeof (globalThis as { process?: unknown }).process,
      ),
    ).toBe('undefinedundefined')
    await screenshot(page, 'electron-01-welcome')
    // Browse… opens the system folder dialog (answered here in the main process, as a user would pick).
    await app.evaluate(({ dialog }, chosen) => {
      dialog.showOpenDialog = async () => ({ canceled: false, filePaths: [chosen] })
    }, repo)
    await page.getByTestId('browse-folders').click()
    await expect.poll(() => page.getByTestId('repo-path').inputValue()).toBe(repo)
    await page.getByTestId('open-repo').click()
    await page.getByTestId('setup').waitFor()
    await page.getByLabel('Skip for now', { exact: false }).check()
    await page.getByTestId('provider-next').click()
    await page.getByTestId('create-team').click()
    await expect.poll(() => page.getByTestId('member-item').count()).toBe(4)
    await page.getByTestId('member-session').waitFor()
    await screenshot(page, 'electron-02-team')
    // Navigation away from the app is refused by the main process.
    await page.evaluate(() => {
      location.href = 'https://example.com/'
    })
    await page.getByTestId('sidebar').waitFor()
    expect(page.url()).not.toContain('example.com')
  }, 120_000)
})
