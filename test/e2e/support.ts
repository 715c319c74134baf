/**
 * The browser e2e stack: a real core and the browser bridge in this process (port 0, random token,
 * the built renderer), a scripted wire-format model server for members that stream, and Chromium
 * (Debian's when installed, else the build @sparticuz/chromium ships in its npm package) driven by
 * playwright-core.
 */
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll } from 'vitest'
import { createCore, type Core } from '../../electron/main/core'
import { startBridge, type Bridge } from '../../electron/main/transport/bridge'
import { startModelServer, type ModelServer, type ModelServerOptions } from '../fixtures/model-server'

export const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const rendererOut = join(projectRoot, 'out', 'renderer')
export const screenshotDir = join(projectRoot, 'test', 'e2e', '__screenshots__')
/** Debian's Chromium, where the e2e tests have always run. */
const SYSTEM_CHROMIUM = '/usr/bin/chromium'
export const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
]

function newestMtime(dir: string): number {
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name)
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs)
  }
  return newest
}

/** Builds the renderer when out/renderer is missing or older than its sources (CI builds before testing). */
export function ensureRendererBuilt(): void {
  const index = join(rendererOut, 'index.html')
  const sources = Math.max(newestMtime(join(projectRoot, 'renderer')), newestMtime(join(projectRoot, 'shared')))
  if (existsSync(index) && statSync(index).mtimeMs >= sources) return
  execFileSync(
    process.execPath,
    [join(projectRoot, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'],
    {
      cwd: projectRoot,
      stdio: 'pipe',
      env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' },
    },
  )
}

/** An installed package's version (this one does not export its package.json). */
function packageVersion(name: string): string {
  let dir = dirname(createRequire(import.meta.url).resolve(name))
  for (;;) {
    const file = join(dir, 'package.json')
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version: string }
      if (pkg.name === name) return pkg.version
    }
    if (dirname(dir) === dir) throw new Error(`${name}: package.json not found`)
    dir = dirname(dir)
  }
}

/**
 * The packaged Chromium, unpacked once per version into the temp folder. The package unpacks into
 * os.tmpdir() and takes any file already there as done, so each unpack goes to a private folder that
 * is renamed into place when complete: test files starting together never launch a half-written binary.
 */
async function bundledChromium(): Promise<{ executablePath: string; env: NodeJS.ProcessEnv }> {
  const dir = join(tmpdir(), `concord-chromium-${packageVersion('@sparticuz/chromium')}`)
  if (!existsSync(join(dir, 'fonts.conf'))) {
    const work = mkdtempSync(join(tmpdir(), 'concord-chromium-unpack-'))
    const saved = process.env.TMPDIR
    process.env.TMPDIR = work
    try {
      const { default: packaged } = await import('@sparticuz/chromium')
      await packaged.executablePath()
    } finally {
      if (saved === undefined) delete process.env.TMPDIR
      else process.env.TMPDIR = saved
    }
    // The package's own fonts.conf names /tmp/fonts; this one names the unpacked fonts, then the system's.
    const fontsConf = [
      '<?xml version="1.0"?>',
      '<!DOCTYPE fontconfig SYSTEM "fonts.dtd">',
      '<fontconfig>',
      `  <dir>${join(dir, 'fonts', 'fonts')}</dir>`,
      '  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>',
      `  <cachedir>${join(dir, 'fonts-cache')}</cachedir>`,
      '</fontconfig>',
    ]
    writeFileSync(join(work, 'fonts.conf'), `${fontsConf.join('\n')}\n`)
    try {
      renameSync(work, dir)
    } catch {
      rmSync(work, { recursive: true, force: true }) // another test file got there first
    }
  }
  return { executablePath: join(dir, 'chromium'), env: { ...process.env, FONTCONFIG_FILE: join(dir, 'fonts.conf') } }
}

/**
 * Which Chromium: the one CONCORD_CHROMIUM names (a path, or `bundled` for the packaged one); else
 * Debian's when installed; else the packaged one, so `npm install && npm test` needs no other browser.
 * A named browser that is missing fails loudly (never skips).
 */
export async function chromiumToLaunch(): Promise<{ executablePath: string; env?: NodeJS.ProcessEnv }> {
  const named = process.env.CONCORD_CHROMIUM
  if (named === 'bundled') return bundledChromium()
  if (named) {
    if (!existsSync(named))
      throw new Error(
        `Chromium is missing at ${named} (CONCORD_CHROMIUM): unset it to use ${SYSTEM_CHROMIUM} or the packaged one, or set CONCORD_CHROMIUM=bundled`,
      )
    return { executablePath: named }
  }
  return existsSync(SYSTEM_CHROMIUM) ? { executablePath: SYSTEM_CHROMIUM } : bundledChromium()
}

export async function launchChromium(): Promise<Browser> {
  const { executablePath, env } = await chromiumToLaunch()
  return chromium.launch({ executablePath, args: chromiumArgs, ...(env ? { env } : {}) })
}

export interface Stack {
  core: Core
  bridge: Bridge
  models: ModelServer
  dataDir: string
  repoDir: string
  /** The bridge URL with its token, as `concord serve` prints it. */
  url: string
  close(): Promise<void>
}

/** A real core + bridge serving the built renderer, and a model server for the members. */
export interface StackOptions {
  taskStartTurns?: boolean
  /** Options of the model server (e.g. `unscripted: onlyKey('sk-test')`: a 401 for any other key). */
  models?: ModelServerOptions
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const root = mkdtempSync(join(tmpdir(), 'concord-e2e-'))
  const dataDir = join(root, 'data')
  const repoDir = join(root, 'repo')
  mkdirSync(repoDir)
  // Scenarios script every model reply: a task start queues no turn unless the test asks for it.
  const core = createCore({ dataDir, taskStartTurns: options.taskStartTurns ?? false })
  const token = randomBytes(18).toString('base64url')
  const bridge = await startBridge({ core, port: 0, token, staticDir: rendererOut })
  const models = await startModelServer(options.models)
  return {
    core,
    bridge,
    models,
    dataDir,
    repoDir,
    url: bridge.url,
    async close() {
      await bridge.close()
      await models.close()
      await core.close()
      rmSync(root, { recursive: true, force: true })
    },
  }
}

export async function newPage(
  browser: Browser,
  options: { width?: number; height?: number; colorScheme?: 'light' | 'dark' } = {},
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1440, height: options.height ?? 900 },
    colorScheme: options.colorScheme ?? 'light',
    deviceScaleFactor: 1,
  })
  const page = await context.newPage()
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`))
  page.on('console', (m) => {
    // A refused call (409 for a stale acceptance, say) is logged by Chromium as a failed load: expected, not an error.
    if (m.type() === 'error' && !/Failed to load resource: the server responded with a status of 4\d\d/.test(m.text()))
      errors.push(`console: ${m.text()}`)
  })
  page.on('response', (r) => {
    if (r.status() >= 500) errors.push(`HTTP ${r.status()} ${r.url()}`)
  })
  return { context, page, errors }
}

/** The PNG goes with the other e2e screenshots, and also to CONCORD_SHOTS when set (to look at them outside the repo). */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(screenshotDir, { recursive: true })
  const path = join(screenshotDir, `${name}.png`)
  await page.screenshot({ path })
  const shots = process.env.CONCORD_SHOTS
  if (shots) {
    mkdirSync(shots, { recursive: true })
    copyFileSync(path, join(shots, `${name}.png`))
  }
  return path
}

export interface BrowserSession {
  stack: Stack
  browser: Browser
  page: Page
  /** Page errors, failed loads (5xx) and console errors seen so far. */
  errors: string[]
}

/** One stack, one Chromium and one page for a test file: filled in before its tests, closed after. */
export function browserSession(options: StackOptions = {}): BrowserSession {
  const session = {} as BrowserSession
  beforeAll(async () => {
    ensureRendererBuilt()
    session.browser = await launchChromium()
    session.stack = await startStack(options)
    const { page, errors } = await newPage(session.browser)
    Object.assign(session, { page, errors })
  }, 120_000)
  // A failed test says what the core and the model server saw, so a failure in CI can be understood from its log.
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail' && session.stack) console.error(await whatTheStackSaw(session.stack))
  })
  afterAll(async () => {
    await session.browser?.close()
    await session.stack?.close()
  })
  return session
}

/** Each member's session state (queued messages, error, approvals waiting) and the model server's last request. */
async function whatTheStackSaw({ core, models }: Stack): Promise<string> {
  const lines = ['what the stack saw when the test failed:']
  for (const ws of await core.invoke('workspaces.list', {})) {
    const members = new Map((await core.invoke('members.list', { workspaceId: ws.id })).map((m) => [m.id, m.name]))
    for (const s of await core.invoke('sessions.list', { workspaceId: ws.id }))
      lines.push(
        `  ${ws.name} / ${members.get(s.memberId) ?? s.memberId}: ${s.state}, ${s.queued} queued` +
          `${s.error ? `, error: ${s.error}` : ''}${s.pendingApprovals.length ? `, ${s.pendingApprovals.length} approval(s) waiting` : ''}`,
      )
  }
  const last = models.requests.at(-1)
  const said = JSON.stringify((last?.body as { messages?: unknown[] } | undefined)?.messages?.at(-1) ?? null)
  lines.push(
    `  model server: ${models.requests.length} request(s)` +
      (last ? `, the last ${last.method} ${last.path}, its last message: ${said.slice(0, 400)}` : ''),
    `  replies still scripted: ${models.pending}`,
  )
  return lines.join('\n')
}
