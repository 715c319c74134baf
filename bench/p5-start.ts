/**
 * P5  `concord serve` (the built CLI under plain Node, out/cli/concord.js) to the first screen in Chromium: the
 *     welcome screen with an empty data folder, and a workspace with 10,000 reports (its Reports panel shown).
 *     Target ≤ 0.8 s each. Printed beside it, where the time goes: spawn → address printed, the page's first
 *     API request (ms after navigation), and the script the page evaluated before it (first-screen JavaScript).
 *
 * A baseline build can be measured in the same run, interleaved start by start (same load, same browser):
 *   P5_BASELINE=/path/to/copy npx tsx bench/run.ts --only p5
 * where the folder holds an older package.json and out/ (cp -r package.json out /path/to/copy; ln -s the
 * node_modules), so a change is judged against the build before it, not against a figure from another hour.
 *
 * Run by itself: npx tsx bench/p5-start.ts (builds the renderer and the CLI first when they are out of date).
 */
import { spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { createCore, type Core } from '../electron/main/core'
import type { Workspace } from '../shared/schemas'
import { ensureRendererBuilt, launchChromium, newPage } from '../test/e2e/support'
import { seed } from './p1-edit'
import { median, ms, verdict, repoIn } from './util'
import { at } from '../eval/at'

const P5_TARGET = 800
const RUNS = 5
const REPORTS = 10_000
const root = join(import.meta.dirname, '..')

interface Start {
  total: number
  address: number
  /** Navigation start → the screen painted, in the page's own clock. */
  painted: number
  firstApi: number
  scriptKb: number
}

/** A workspace with 10,000 reports (3 claims each) on 1,000 tasks that depend on its decision D-1. */
async function seededWorkspace(core: Core, repoDir: string): Promise<Workspace> {
  const ws = await core.invoke('workspaces.open', { repoPath: repoDir, isolation: 'shared' })
  await core.invoke('members.create', { workspaceId: ws.id, name: 'Tess', role: 'tester' })
  const d = await core.invoke('decisions.create', { workspaceId: ws.id, title: 'Search timeout', statement: 'A' })
  const other = await core.invoke('decisions.create', { workspaceId: ws.id, title: 'Storage', statement: 'SQLite' })
  seed(core.harness.ctx(ws.id), d, [d, other], 1_000, REPORTS, 3)
  return ws
}

const prefs = (workspaceId: string) =>
  `localStorage.setItem('concord.ui', ${JSON.stringify(JSON.stringify({ state: { lastWorkspaceId: workspaceId, rightTab: 'reports', panelOpen: true, theme: 'light' }, version: 1 }))})`

/** Spawns a build's `concord serve`; resolves with its URL once it printed it. */
function serve(cli: string, dataDir: string, token: string): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--data-dir', dataDir, `--token=${token}`], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  return new Promise((resolve, reject) => {
    let out = ''
    let err = ''
    child.stderr.on('data', (b: Buffer) => (err += b.toString()))
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString()
      const m = /serving on (\S+)/.exec(out)
      if (m)
        resolve({
          url: m[1]!,
          stop: () =>
            new Promise<void>((done) => {
              child.once('exit', () => done())
              child.kill('SIGTERM')
            }),
        })
    })
    child.once('exit', (code) => reject(new Error(`concord serve exited (${code}): ${out}${err}`)))
  })
}

/** From spawning `concord serve` to `selector` painted in a page that opens its address (browser already running). */
async function startToScreen(
  browser: Browser,
  cli: string,
  dataDir: string,
  init: string | null,
  selector: string,
): Promise<Start> {
  const token = randomBytes(18).toString('base64url')
  const { page, context, errors } = await newPage(browser)
  try {
    if (init) await page.addInitScript(init)
    const t0 = performance.now()
    const server = await serve(cli, dataDir, token)
    const address = performance.now() - t0
    try {
      await page.goto(server.url)
      await page
        .locator(selector)
        .first()
        .waitFor({ timeout: 20_000 })
        .catch(async (err: unknown) => {
          const text = (
            await page
              .locator('body')
              .innerText()
              .catch(() => '')
          ).slice(0, 400)
          throw new Error(
            `${cli}: ${selector} not shown: ${String(err instanceof Error ? err.message : err).split('\n')[0]}; page errors: ${errors.join('; ') || 'none'}; the page shows: ${text}`,
          )
        })
      const painted = await page.evaluate(
        () => new Promise<number>((r) => requestAnimationFrame(() => setTimeout(() => r(performance.now()), 0))),
      )
      const total = performance.now() - t0
      const timing = await page.evaluate(() => {
        const resources = performance.getEntriesByType('resource') as PerformanceResourceTiming[]
        const api = resources.filter((r) => r.name.includes('/api/')).sort((a, b) => a.startTime - b.startTime)[0]
        const firstApi = api?.startTime ?? -1
        // The scripts fetched before the first API call: what the page parsed and ran before asking for data.
        const before = resources
          .filter((r) => r.initiatorType === 'script' || r.name.endsWith('.js'))
          .filter((r) => r.startTime <= firstApi)
        return { firstApi, scriptBytes: before.reduce((n, r) => n + (r.decodedBodySize || 0), 0) }
      })
      return { total, address, painted, firstApi: timing.firstApi, scriptKb: timing.scriptBytes / 1024 }
    } finally {
      await server.stop()
    }
  } finally {
    await context.close()
  }
}

const line = (label: string, runs: Start[], baseline?: Start[]) => {
  const m = (k: keyof Start) => median(runs.map((r) => r[k]))
  const total = m('total')
  const against = baseline
    ? `; baseline ${ms(median(baseline.map((r) => r.total)))}, new ÷ baseline ${(total / median(baseline.map((r) => r.total))).toFixed(2)}x`
    : ''
  console.log(
    `    ${label}: ${ms(total)} (target ≤ ${P5_TARGET} ms: ratio ${(total / P5_TARGET).toFixed(2)} → ${verdict(total <= P5_TARGET)})${against}`,
  )
  const parts = (rs: Start[]) => {
    const q = (k: keyof Start) => median(rs.map((r) => r[k]))
    return `address printed ${ms(q('address'))}; in the page: first API request ${ms(q('firstApi'))} after navigation (${q('scriptKb').toFixed(0)} KB of script before it), screen painted ${ms(q('painted'))} after navigation`
  }
  console.log(`        ${parts(runs)}`)
  if (baseline) console.log(`        baseline: ${parts(baseline)}`)
}

export async function p5(): Promise<void> {
  ensureRendererBuilt()
  spawnSync(process.execPath, [join(root, 'scripts', 'build-cli.mjs'), '--if-stale'], { stdio: 'inherit' })
  const baselineDir = process.env.P5_BASELINE
  const builds: [string, string][] = [['new', join(root, 'out', 'cli', 'concord.js')]]
  if (baselineDir) {
    const cli = join(baselineDir, 'out', 'cli', 'concord.js')
    if (!existsSync(cli)) throw new Error(`P5_BASELINE: ${cli} does not exist`)
    builds.unshift(['baseline', cli])
  }
  const dir = mkdtempSync(join(tmpdir(), 'concord-bench-p5-'))
  const browser = await launchChromium()
  try {
    const dataDir = join(dir, 'data')
    const core = createCore({ dataDir })
    const ws = await seededWorkspace(core, repoIn(dir))
    await core.close()
    const empty = join(dir, 'empty')
    const full = new Map<string, Start[]>(builds.map(([n]) => [n, []]))
    const none = new Map<string, Start[]>(builds.map(([n]) => [n, []]))
    // One untimed start of each build first: the first run of a build pays for the disk cache, as any first start does.
    for (const [, cli] of builds)
      await startToScreen(browser, cli, dataDir, prefs(ws.id), '[data-testid=reports-count]')
    for (let i = 0; i < RUNS; i++) {
      for (const [name, cli] of builds) {
        full.get(name)!.push(await startToScreen(browser, cli, dataDir, prefs(ws.id), '[data-testid=reports-count]'))
        rmSync(empty, { recursive: true, force: true })
        none.get(name)!.push(await startToScreen(browser, cli, empty, null, '[data-testid=welcome]'))
      }
    }
    const base = (m: Map<string, Start[]>) => (baselineDir ? m.get('baseline') : undefined)
    console.log(
      `P5  concord serve (built CLI, plain Node) to the first screen in Chromium, median of ${RUNS} starts${baselineDir ? ` interleaved with the baseline build in ${baselineDir}` : ''} (load average ${at(loadavg(), 0).toFixed(2)} on ${cpus().length} cores)`,
    )
    line('empty data folder (welcome screen)', none.get('new')!, base(none))
    line(`workspace with ${REPORTS.toLocaleString()} reports (Reports panel shown)`, full.get('new')!, base(full))
  } finally {
    await browser.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await p5()
