/**
 * UI benchmarks at scale, in Chromium through the browser bridge (P5, the start, is bench/p5-start.ts):
 *
 * P6  the whole edit as the user sees it: from the HTTP call (decisions.update, made by the page) to the open
 *     Reports panel showing the new stale count and every visible report card stale, with 10,000 reports
 *     (target ≤ 100 ms) and with 1,000,000 (≤ 1.5× the 10k figure; P6_LARGE sets another size); bytes the page receives after the edit
 *     (WebSocket frames + HTTP bodies, from Chromium's network events) ≤ 256 KB; the decision.changed frame
 *     ≤ 64 KB at any size.
 *
 * Run by itself: npx tsx bench/ui-scale.ts (builds the renderer first when it is out of date). P6_TRACE=1 prints,
 * per edit, when the HTTP answer, the decision.changed frame and each later call's answer arrived (ms after the call).
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, CDPSession, Page } from 'playwright-core'
import type { Core } from '../electron/main/core'
import type { Decision, Workspace } from '../shared/schemas'
import { ensureRendererBuilt, launchChromium, newPage, startStack, type Stack } from '../test/e2e/support'
import { seed, type Ctx } from './p1-edit'
import { median, ms, verdict } from './util'

const P6_TARGET = 100
const P6_SCALE_RATIO = 1.5
const P6_BYTES = 256 * 1024
const P6_FRAME = 64 * 1024
const P6_RUNS = 5
const TASKS = 1_000
const CLAIMS = 3
const P6_LARGE = Number(process.env.P6_LARGE ?? 1_000_000)
/** Above this many reports the workspace is seeded in bare SQL (the repositories' per-row inserts take minutes). */
const BULK_ABOVE = 100_000
const TRACE = process.env.P6_TRACE === '1'

const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`

/** A workspace with `reports` reports (3 claims each) on 1,000 tasks that depend on its decision D-1. */
async function seededWorkspace(
  core: Core,
  repoDir: string,
  reports: number,
): Promise<{ ws: Workspace; decisionId: string }> {
  mkdirSync(repoDir, { recursive: true })
  const ws = await core.invoke('workspaces.open', { repoPath: repoDir, isolation: 'shared' })
  await core.invoke('members.create', { workspaceId: ws.id, name: 'Tess', role: 'tester' })
  const d = await core.invoke('decisions.create', { workspaceId: ws.id, title: 'Search timeout', statement: 'A' })
  const other = await core.invoke('decisions.create', { workspaceId: ws.id, title: 'Storage', statement: 'SQLite' })
  const ctx = core.harness.ctx(ws.id)
  if (reports <= BULK_ABOVE) seed(ctx, d, [d, other], TASKS, reports, CLAIMS)
  else {
    const firstTask = ctx.store.tasks.list(undefined, true).length + 1
    seed(ctx, d, [d, other], TASKS, 0, CLAIMS)
    bulkReports(ctx.store.db, d, firstTask, reports)
  }
  return { ws, decisionId: d.id }
}

/**
 * The same reports as seed() writes (3 claims each, basis and claims pinned to d's current content, round-robin over
 * the tasks), in set-based SQL as bench/reports-page.ts does for its 1M case; the store's triggers run per row.
 */
function bulkReports(db: Ctx['store']['db'], d: Decision, firstTask: number, reports: number): void {
  const dn = Number(d.id.split('-d')[1])
  const at = new Date().toISOString()
  const chunk = 100_000
  for (let done = 0; done < reports; done += chunk) {
    const n = Math.min(chunk, reports - done)
    db.transaction(() => {
      const first = (db.prepare('SELECT coalesce(max(id), 0) FROM reports').pluck().get() as number) + 1
      db.prepare(
        `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ? - 1)
         INSERT INTO reports (task_id, author_id, kind, verdict, summary, artifact_commit, artifact_digest, claim_count, created_at)
         SELECT ? + ((? + i) % ?), 1, 'test', 'pass', '', 'abcdef1', NULL, ?, ? FROM n`,
      ).run(n, firstTask, done, TASKS, CLAIMS, at)
      db.prepare(
        `INSERT INTO report_basis (decision_id, report_id, version, fingerprint, task_id, author_id, claim_count)
         SELECT ?, id, ?, ?, task_id, author_id, claim_count FROM reports WHERE id >= ?`,
      ).run(dn, d.version, d.fingerprint, first)
      db.prepare(
        `WITH RECURSIVE o(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM o WHERE i < ? - 1)
         INSERT INTO claims (report_id, ordinal, text) SELECT r.id, o.i, 'claim ' || o.i FROM reports r, o WHERE r.id >= ? ORDER BY r.id, o.i`,
      ).run(CLAIMS, first)
      db.prepare(
        `INSERT INTO claim_links (decision_id, report_id, claim_id, pinned_fingerprint)
         SELECT ?, report_id, id, ? FROM claims WHERE report_id >= ? ORDER BY id`,
      ).run(dn, d.fingerprint, first)
    })()
  }
}

/** What the page receives, from Chromium's network events: every WebSocket frame and HTTP body. */
function countBytes(cdp: CDPSession) {
  let bytes = 0
  let largestEventFrame = 0
  cdp.on('Network.webSocketFrameReceived', (e: { response: { payloadData: string } }) => {
    const n = Buffer.byteLength(e.response.payloadData)
    bytes += n
    if (e.response.payloadData.includes('"decision.changed"')) largestEventFrame = Math.max(largestEventFrame, n)
  })
  cdp.on('Network.dataReceived', (e: { dataLength: number }) => {
    bytes += e.dataLength
  })
  return {
    take() {
      const out = { bytes, largestEventFrame }
      bytes = 0
      largestEventFrame = 0
      return out
    },
  }
}

const prefs = (workspaceId: string, rightTab: string) =>
  `localStorage.setItem('concord.ui', ${JSON.stringify(JSON.stringify({ state: { lastWorkspaceId: workspaceId, rightTab, panelOpen: true, theme: 'light' }, version: 1 }))})`

/** The page edits D-1 through the API and resolves when the Reports panel shows `stale` stale reports, painted. */
async function editAndWait(
  page: Page,
  token: string,
  decisionId: string,
  expectedVersion: number,
  statement: string,
  stale: number,
): Promise<number> {
  return page.evaluate(
    async ({ token, decisionId, expectedVersion, statement, stale }) => {
      const shown = () => {
        const count = document.querySelector('[data-testid=reports-stale-count]')?.textContent ?? ''
        if (count.replace(/\D/g, '') !== String(stale)) return false
        const cards = [...document.querySelectorAll('[data-testid=report-card]')]
        return cards.length > 0 && cards.every((c) => (c.getAttribute('data-validity') === 'stale') === stale > 0)
      }
      const trace = (globalThis as unknown as { __p6?: { t: number; what: string }[] }).__p6
      if (trace) trace.length = 0
      const t0 = performance.now()
      const res = await fetch('/api/decisions.update', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ decisionId, expectedVersion, statement }),
      })
      if (!res.ok) throw new Error(`decisions.update: ${res.status} ${await res.text()}`)
      await res.arrayBuffer()
      trace?.push({ t: performance.now(), what: 'answer' })
      await new Promise<void>((resolve) => {
        if (shown()) return resolve()
        const observer = new MutationObserver(() => {
          if (shown()) {
            observer.disconnect()
            resolve()
          }
        })
        observer.observe(document.body, { childList: true, subtree: true, characterData: true, attributes: true })
      })
      // The frame that shows it.
      const seen = performance.now()
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)))
      const t = performance.now() - t0
      if (trace) {
        const calls = performance
          .getEntriesByType('resource')
          .filter((e) => e.startTime >= t0 && e.name.includes('/api/') && !e.name.includes('decisions.update'))
          .map((e) => ({
            t: e.startTime + e.duration,
            what: `${e.name.split('/api/')[1]} (${Math.round(e.startTime - t0)}→, ${Math.round((e as PerformanceResourceTiming).encodedBodySize / 1024)} KB)`,
          }))
        const rows = [...trace, ...calls, { t: seen, what: 'shown' }].sort((a, b) => a.t - b.t)
        console.log(`total ${t.toFixed(1)}: ${rows.map((r) => `${(r.t - t0).toFixed(1)} ${r.what}`).join(' | ')}`)
      }
      performance.clearResourceTimings()
      return t
    },
    { token, decisionId, expectedVersion, statement, stale },
  )
}

/** Waits until the page has received nothing for `quietMs` (late refetches count as part of the edit's bytes). */
async function settle(page: Page, cdp: CDPSession, quietMs = 400): Promise<void> {
  let last = Date.now()
  const bump = () => (last = Date.now())
  cdp.on('Network.webSocketFrameReceived', bump)
  cdp.on('Network.dataReceived', bump)
  while (Date.now() - last < quietMs) await page.waitForTimeout(50)
  cdp.off('Network.webSocketFrameReceived', bump)
  cdp.off('Network.dataReceived', bump)
}

async function p6Case(browser: Browser, stack: Stack, reports: number) {
  const { ws, decisionId } = await seededWorkspace(stack.core, join(stack.repoDir, `p6-${reports}`), reports)
  const token = new URL(stack.url).searchParams.get('token')!
  const { page, context } = await newPage(browser)
  try {
    // tsx names functions with an `__name` helper that page.evaluate cannot see: give the page one.
    await page.addInitScript('globalThis.__name = (fn) => fn')
    await page.addInitScript(prefs(ws.id, 'reports'))
    if (TRACE) {
      // Each WebSocket message's arrival, before the app's own listener runs.
      await page.addInitScript(`globalThis.__p6 = []; performance.setResourceTimingBufferSize(10000);
        const W = WebSocket; globalThis.WebSocket = class extends W { constructor(...a) { super(...a);
          this.addEventListener('message', (e) => { if (String(e.data).includes('"decision.changed"'))
            globalThis.__p6.push({ t: performance.now(), what: 'event ' + Math.round(String(e.data).length / 1024) + ' KB' }) }) } }`)
      page.on('console', (m) => {
        if (m.text().startsWith('total ')) console.log(`    [${reports}] ${m.text()}`)
      })
    }
    await page.goto(stack.url)
    await page.getByTestId('reports-count').waitFor()
    const cdp = await context.newCDPSession(page)
    await cdp.send('Network.enable')
    const bytes = countBytes(cdp)
    let version = (await stack.core.invoke('decisions.get', { decisionId })).version
    const times: number[] = []
    const received: number[] = []
    let frame = 0
    for (let i = 0; i < P6_RUNS; i++) {
      await settle(page, cdp)
      bytes.take()
      times.push(await editAndWait(page, token, decisionId, version++, 'B', reports))
      await settle(page, cdp)
      const got = bytes.take()
      received.push(got.bytes)
      frame = Math.max(frame, got.largestEventFrame)
      await editAndWait(page, token, decisionId, version++, 'A', 0)
    }
    return { ms: median(times), bytes: median(received), frame }
  } finally {
    await context.close()
  }
}

async function p6(browser: Browser, stack: Stack): Promise<void> {
  const small = await p6Case(browser, stack, 10_000)
  const large = await p6Case(browser, stack, P6_LARGE)
  const ratio = large.ms / small.ms
  console.log(
    `P6  an edit as the user sees it: HTTP call → Reports panel updated (Chromium, through the bridge), median of ${P6_RUNS}`,
  )
  console.log(
    `    10,000 reports: ${ms(small.ms)} (target ≤ ${P6_TARGET} ms: ${verdict(small.ms <= P6_TARGET)}); bytes received ${kb(small.bytes)}; decision.changed frame ${kb(small.frame)}`,
  )
  console.log(
    `    ${P6_LARGE.toLocaleString()} reports: ${ms(large.ms)}; ratio to 10k ${ratio.toFixed(2)}x (target ≤ ${P6_SCALE_RATIO}x: ${verdict(ratio <= P6_SCALE_RATIO)}); bytes ${kb(large.bytes)}; frame ${kb(large.frame)}`,
  )
  const worstBytes = Math.max(small.bytes, large.bytes)
  const worstFrame = Math.max(small.frame, large.frame)
  console.log(
    `    bytes after the edit ≤ ${kb(P6_BYTES)}: ${verdict(worstBytes <= P6_BYTES)} (ratio ${(worstBytes / P6_BYTES).toFixed(2)}); decision.changed frame ≤ ${kb(P6_FRAME)}: ${verdict(worstFrame <= P6_FRAME && worstFrame > 0)} (ratio ${(worstFrame / P6_FRAME).toFixed(2)})`,
  )
}

ensureRendererBuilt()
const browser = await launchChromium()
try {
  const stack = await startStack()
  try {
    await p6(browser, stack)
  } finally {
    await stack.close()
  }
} finally {
  await browser.close()
}
