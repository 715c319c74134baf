/**
 * Concord as shipped: the npm package packed from this checkout and installed into an empty folder as a user would,
 * the Claude Code, Codex, Gemini CLI and Qwen Code adapters installed from npm as the README says (`npm i -g`, at the versions
 * this project tests), `concord serve` from the installed bin on a fresh data folder, driven only over HTTP and the
 * event WebSocket. The agents play against the scripted model server, offline.
 *
 * One installation for the whole file (npm pack and the two installs run once, in beforeAll; better-sqlite3 may
 * compile from source there), one `concord serve`, then one test per agent and the command line and the browser.
 * The run time of each part is printed at the end.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { geminiRouter, opencodeTitle } from '../fixtures/agents'
import { startModelServer, type ModelServer } from '../fixtures/model-server'
import { agentCases } from './agent-cases'
import { agentChecks, type Shipped } from './agent-checks'
import { launchChromium } from './chromium'
import { concord, ensureBuilt, installShipped, serve, type Installation, type Served } from './installed'

// Not under /tmp: the sandbox gives each agent a private /tmp, where the agents' programs would not be.
const base = mkdtempSync(join(existsSync('/var/tmp') ? '/var/tmp' : '/tmp', 'concord-shipped-'))
const started = Date.now()
const timings: string[] = []
let inst: Installation
let app: Served
let server: ModelServer

function timed(label: string, since: number): void {
  timings.push(`${label} ${((Date.now() - since) / 1000).toFixed(1)} s`)
}

/** What the per-agent checks use of this suite (read when they run, after beforeAll). */
const ctx: Shipped = {
  base,
  get app() {
    return app
  },
  get server() {
    return server
  },
  async restart() {
    await app.stop()
    app = await serve(inst, join(base, 'data'))
  },
  afterDeny: undefined,
  timed,
}
const agents = agentCases(() => server)

beforeAll(async () => {
  let t = Date.now()
  ensureBuilt()
  timed('build check', t)
  inst = await installShipped(base)
  timings.push(
    `npm pack ${inst.seconds.pack.toFixed(1)} s`,
    `npm install (package and agents, side by side) ${inst.seconds.install.toFixed(1)} s`,
  )
  // Gemini CLI asks its model router which model to use (generateContent), opencode names each new session (a title
  // request): answered aside, not from the queue.
  server = await startModelServer({
    unscripted: (r) => {
      // After a denied call the agent may or may not ask the model again within the turn; every turn request is
      // answered the same until Concord's next prompt (which carries the human's reason) has been answered.
      return geminiRouter(r) ?? opencodeTitle(r) ?? ctx.afterDeny?.(r)
    },
  })
  t = Date.now()
  app = await serve(inst, join(base, 'data'))
  timed('concord serve start', t)
}, 30 * 60_000)

afterAll(async () => {
  await app?.stop()
  await server?.close()
  timed('shipped suite', started)
  process.stdout.write(`\nshipped suite: ${timings.join('; ')}\n`)
  rmSync(base, { recursive: true, force: true })
})

describe('Concord as shipped', () => {
  it('serves the renderer from the installed package', async () => {
    expect(inst.bin).toContain(join('node_modules', 'concord'))
    const page = await (await fetch(`http://127.0.0.1:${app.port}/`)).text()
    expect(page).toContain('<div id="root">')
    expect(app.stdout()).not.toContain('UI not built')
  })

  for (const agent of agents) agentChecks(agent, ctx)

  it('concord export and concord import from the installed bin', async () => {
    const t = Date.now()
    const repo = join(base, 'repos', 'claude-code')
    // While the app runs, as a user would; the export leaves it alone.
    const exp = await concord(
      inst,
      ['export', '--repo', repo, '--format', 'json', '--out', join(base, 'backup'), '--data-dir', join(base, 'data')],
      repo,
    )
    expect(exp.code, exp.stderr).toBe(0)
    const file = join(base, 'backup', 'concord-export.json')
    const doc = JSON.parse(readFileSync(file, 'utf8'))
    expect(JSON.stringify(doc)).toContain('Use GraphQL')
    expect(existsSync(join(base, 'backup', 'concord-export.schema.json'))).toBe(true)
    const clone = join(base, 'clone')
    execFileSync('git', ['clone', '-q', repo, clone])
    const other = join(base, 'other-data')
    mkdirSync(other)
    const imp = await concord(inst, ['import', file, '--repo', clone, '--data-dir', other], base)
    expect(imp.code, imp.stderr).toBe(0)
    const md = await concord(inst, ['export', '--repo', clone, '--format', 'markdown', '--data-dir', other], clone)
    expect(md.code, md.stderr).toBe(0)
    expect(readFileSync(join(clone, 'DECISIONS.md'), 'utf8')).toContain('Use GraphQL')
    // The app saw no crash's leftovers in the export: its members are still idle and reachable.
    expect((await app.call('workspaces.list', {})).length).toBe(agents.length)
    timed('export and import', t)
  }, 120_000)

  it('says once at start that commands will run without a sandbox', async () => {
    const off = await serve(inst, join(base, 'data-no-sandbox'), { CONCORD_SANDBOX: 'off' })
    try {
      // The notice follows the sandbox check, which is asynchronous: wait for the line on stderr.
      while (!off.stderr().includes('without a sandbox')) await new Promise((ok) => off.child.stderr?.once('data', ok))
      expect(off.stderr().match(/without a sandbox/g)).toHaveLength(1)
      expect(off.stderr()).toContain('CONCORD_SANDBOX=off')
    } finally {
      await off.stop()
    }
  }, 60_000)

  it('the browser UI served from the installed package opens in Chromium', async () => {
    const t = Date.now()
    const browser = await launchChromium()
    try {
      const page = await browser.newPage()
      const errors: string[] = []
      page.on('pageerror', (e) => errors.push(e.message))
      await page.goto(app.url)
      await page.locator('[data-testid="member-item"], [data-testid="welcome"]').first().waitFor({ timeout: 60_000 })
      expect(await page.title()).toBe('Concord')
      expect(errors).toEqual([])
    } finally {
      await browser.close()
    }
    timed('browser', t)
  }, 120_000)
})
