/**
 * UI benchmarks, measured in Chromium through the browser bridge (the same path `concord serve` uses):
 *
 * P2  open a 10,000-step session: time from the click on the member to its first screen of steps
 *     painted (target ≤ 100 ms), median of several cold opens (page reloaded, session not loaded).
 * P3  three members streaming 200 tokens/s each, all on screen in the team view, while a normative edit of a
 *     decision 10,000 reports depend on lands mid-stream: the longest task on the renderer's main thread
 *     (Long Tasks API, and a Chromium trace) ≤ 50 ms, the longest stall of the server's event loop ≤ 50 ms,
 *     and every streamed text durable in SQLite ≤ 200 ms after the core received it. The verdict counts
 *     every round, traced or not.
 *
 * Run by itself: npx tsx bench/ui.ts [p2|p3] (builds the renderer first when it is out of date; one of the two when
 * named).
 */
import { mkdirSync } from 'node:fs'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import type { Member, Workspace } from '../shared/schemas'
import { ensureRendererBuilt, launchChromium, newPage, startStack, type Stack } from '../test/e2e/support'
import { seed } from './p1-edit'
import { median, ms, verdict } from './util'
import { at } from '../eval/at'

const STEPS = 10_000
const P2_RUNS = 7
const P2_TARGET = 100
const P3_TARGET = 50
const TOKENS_PER_SECOND = 200
/** Two tokens per chunk every 10 ms: 200 tokens/s without leaning on sub-5 ms timers. */
const TOKENS_PER_CHUNK = 2
const STREAM_SECONDS = 8
const CHARS_PER_TOKEN = 4
/** P3's edit lands mid-stream on a decision 10,000 reports depend on. */
const P3_REPORTS = 10_000
const P3_STALL_TARGET = 50
const P3_DURABLE_TARGET = 200

const paragraph = (i: number) =>
  `Step ${i}: I checked **D-${(i % 7) + 1}** against the handler in \`src/api/items.ts\`. The request body is parsed once and validated; ` +
  `errors map to stable codes. Next I will look at pagination and the cursor format.`

/** A realistic mix: the human, model replies (some with tool calls and code), tool observations. */
function seedSession(stack: Stack, ws: Workspace, member: Member): void {
  const { store } = stack.core.harness.ctx(ws.id)
  const memberRow = Number(member.id.split('-m')[1])
  const at = new Date().toISOString()
  store.transaction(() => {
    let turn = 0
    for (let i = 0; i < STEPS; i++) {
      const phase = i % 5
      const base = { member_id: memberRow, started_at: at, ended_at: at }
      if (phase === 0) {
        turn = store.steps.insert({
          ...base,
          kind: 'user',
          status: 'done',
          text: `Question ${i}: does the change in T-${(i % 9) + 1} still follow D-2?`,
        })
        store.steps.finish(turn, { status: 'done', ended_at: at })
      } else if (phase === 1) {
        const calls = [
          { id: `call_${i}`, name: 'read_file', argumentsText: JSON.stringify({ path: `src/file${i}.ts` }) },
        ]
        store.steps.insert({
          ...base,
          turn_id: turn,
          kind: 'model',
          status: 'done',
          text: paragraph(i),
          tool_calls: JSON.stringify(calls),
          input_tokens: 900,
          output_tokens: 60,
        })
      } else if (phase === 2) {
        store.steps.insert({
          ...base,
          turn_id: turn,
          kind: 'tool',
          status: 'done',
          tool_call_id: `call_${i - 1}`,
          tool_name: 'read_file',
          tool_args: JSON.stringify({ path: `src/file${i - 1}.ts` }),
          text: `export const value${i} = ${i}\n`.repeat(20),
        })
      } else if (phase === 3) {
        store.steps.insert({
          ...base,
          turn_id: turn,
          kind: 'model',
          status: 'done',
          text: `${paragraph(i)}\n\n\`\`\`ts\nexport function handler${i}(req: Request): Response {\n  return json({ ok: true, id: ${i} })\n}\n\`\`\``,
          input_tokens: 1200,
          output_tokens: 120,
        })
      } else {
        store.steps.insert({
          ...base,
          turn_id: turn,
          kind: 'model',
          status: 'done',
          text: `${paragraph(i)}\n\n- checked the handler\n- checked the tests\n- no change to D-3 needed`,
          input_tokens: 1300,
          output_tokens: 90,
        })
      }
    }
  })
}

/** Clicks the member and resolves when its first steps are in the DOM and the next frame has been painted. */
async function openSession(page: Page, memberId: string): Promise<{ inDom: number; painted: number; rows: number }> {
  return page.evaluate(
    (id) =>
      new Promise<{ inDom: number; painted: number; rows: number }>((resolve) => {
        const selector = `[data-testid=member-session][data-member-id="${id}"] [data-testid=step]`
        const button = document.querySelector<HTMLElement>(`[data-testid=member-item][data-member-id="${id}"]`)!
        let inDom = 0
        const t0 = performance.now()
        const done = () => {
          // The frame that shows the rows: after the next animation frame, once it has been committed.
          requestAnimationFrame(() =>
            setTimeout(
              () =>
                resolve({ inDom, painted: performance.now() - t0, rows: document.querySelectorAll(selector).length }),
              0,
            ),
          )
        }
        const observer = new MutationObserver(() => {
          if (!inDom && document.querySelector(selector)) {
            inDom = performance.now() - t0
            observer.disconnect()
            done()
          }
        })
        observer.observe(document.body, { childList: true, subtree: true })
        button.click()
      }),
    memberId,
  )
}

/** tsx names functions with an `__name` helper that page.evaluate cannot see: give the page one. */
async function benchPage(browser: Awaited<ReturnType<typeof launchChromium>>): Promise<Page> {
  const { page } = await newPage(browser)
  await page.addInitScript('globalThis.__name = (fn) => fn')
  return page
}

async function p2(stack: Stack): Promise<void> {
  const ws = await stack.core.invoke('workspaces.open', { repoPath: stack.repoDir, name: 'bench' })
  // The first member is selected on load, so the long session is opened cold by a click each run.
  await stack.core.invoke('members.create', { workspaceId: ws.id, name: 'Fresh', role: 'reviewer' })
  const archivist = await stack.core.invoke('members.create', {
    workspaceId: ws.id,
    name: 'Archivist',
    role: 'implementer',
  })
  seedSession(stack, ws, archivist)

  const browser = await launchChromium()
  try {
    const page = await benchPage(browser)
    await page.goto(stack.url)
    await page.getByTestId('member-session').waitFor()
    const cold: number[] = []
    const domTimes: number[] = []
    let rows = 0
    for (let i = 0; i < P2_RUNS; i++) {
      // A reload lands on the member the user left (the previous run's Archivist): forget it, so that the page opens
      // on the first member and the long session is opened cold, by the click.
      await page.evaluate(() => localStorage.removeItem('concord.ui'))
      await page.reload()
      await page.locator('[data-testid=member-session]').filter({ hasText: 'Fresh' }).waitFor()
      // The app has started and done its idle warm-up: the user's click comes now.
      await page.locator('html[data-ready=true]').waitFor({ state: 'attached' })
      const r = await openSession(page, archivist.id)
      cold.push(r.painted)
      domTimes.push(r.inDom)
      rows = r.rows
    }
    // Warm: switch away and back (the session stays in the store).
    await page.getByTestId('member-item').filter({ hasText: 'Fresh' }).click()
    const warm = await openSession(page, archivist.id)
    // Paging older steps in from the store when scrolled to the top.
    const olderMs = await page.evaluate(async (id) => {
      const scroller = document.querySelector<HTMLElement>(`[data-testid=session-scroll][data-member-id="${id}"]`)!
      const before = scroller.scrollHeight
      const t0 = performance.now()
      // As a user would: a wheel turn up (which unsticks the view from the bottom), to the top.
      scroller.dispatchEvent(new WheelEvent('wheel', { deltaY: -100, bubbles: true }))
      scroller.scrollTop = 0
      while (scroller.scrollHeight === before && performance.now() - t0 < 5000)
        await new Promise((r) => requestAnimationFrame(r))
      return performance.now() - t0
    }, archivist.id)
    const med = median(cold)
    console.log(
      `P2 open a ${STEPS.toLocaleString()}-step session (Chromium, through the bridge), ${P2_RUNS} cold opens`,
    )
    console.log(
      `   first screen painted: median ${ms(med)} (min ${ms(Math.min(...cold))}, max ${ms(Math.max(...cold))}); first rows in the DOM: median ${ms(median(domTimes))}`,
    )
    console.log(
      `   warm switch back: ${ms(warm.painted)}; rows in the DOM: ${rows} of ${STEPS.toLocaleString()} steps (virtualized); older page on scroll-up: ${ms(olderMs)}`,
    )
    console.log(`   target ≤ ${P2_TARGET} ms: ratio ${(med / P2_TARGET).toFixed(2)} → ${verdict(med <= P2_TARGET)}`)
  } finally {
    await browser.close()
  }
}

interface TraceEvent {
  name: string
  ph: string
  pid: number
  tid: number
  dur?: number
  /** Thread (CPU) time of the event, in µs. */
  tdur?: number
  ts: number
  args?: { name?: string }
}

/** The longest task on the busiest renderer main thread of a Chromium trace, with the count over 50 ms. */
function longestMainThreadTask(trace: { traceEvents: TraceEvent[] }): {
  inside: string
  longest: number
  over50: number
  tasks: number
  p99: number
  longestCpu: number
  cpuOver50: number
} {
  const mains = new Set(
    trace.traceEvents
      .filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain')
      .map((e) => `${e.pid}:${e.tid}`),
  )
  const byThread = new Map<string, { wall: number; cpu: number }[]>()
  for (const e of trace.traceEvents) {
    if (e.ph !== 'X' || e.name !== 'RunTask' || e.dur === undefined) continue
    const key = `${e.pid}:${e.tid}`
    if (!mains.has(key)) continue
    const list = byThread.get(key) ?? []
    list.push({ wall: e.dur / 1000, cpu: (e.tdur ?? e.dur) / 1000 })
    byThread.set(key, list)
  }
  const sum = (l: { wall: number }[]) => l.reduce((x, y) => x + y.wall, 0)
  const busiest = [...byThread.entries()].sort((a, b) => sum(b[1]) - sum(a[1]))[0]
  const tasks = busiest?.[1] ?? []
  const wall = tasks.map((t) => t.wall).sort((a, b) => a - b)
  const cpu = tasks.map((t) => t.cpu).sort((a, b) => a - b)
  // What the longest task spent its time on (direct work inside it, by event name), for whoever tunes P3 next.
  let inside = ''
  if (busiest) {
    const [pid, tid] = busiest[0].split(':').map(Number)
    const runs = trace.traceEvents.filter(
      (e) => e.ph === 'X' && e.name === 'RunTask' && e.pid === pid && e.tid === tid && e.dur !== undefined,
    )
    const top = runs.sort((a, b) => b.dur! - a.dur!)[0]
    if (top) {
      const byName = new Map<string, number>()
      for (const e of trace.traceEvents) {
        if (e.ph !== 'X' || e.pid !== pid || e.tid !== tid || e.dur === undefined || e === top || e.name === 'RunTask')
          continue
        if (e.ts < top.ts || e.ts + e.dur > top.ts + top.dur!) continue
        byName.set(e.name, Math.max(byName.get(e.name) ?? 0, e.dur / 1000))
      }
      inside = [...byName.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 6)
        .map(([n, d]) => `${n} ${d.toFixed(1)}`)
        .join(', ')
    }
  }
  return {
    inside,
    longest: wall.at(-1) ?? 0,
    over50: wall.filter((d) => d > 50).length,
    tasks: wall.length,
    p99: wall[Math.floor(wall.length * 0.99)] ?? 0,
    longestCpu: cpu.at(-1) ?? 0,
    cpuOver50: cpu.filter((d) => d > 50).length,
  }
}

/** How many compositor layers the page has now (each costs layerization time on every frame). */
async function compositedLayers(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page)
  try {
    const changed = new Promise<number>((resolve) =>
      cdp.on('LayerTree.layerTreeDidChange', (e) => e.layers && resolve(e.layers.length)),
    )
    await cdp.send('LayerTree.enable')
    // A frame must be produced for the tree to be reported.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))))
    return await Promise.race([changed, new Promise<number>((r) => setTimeout(() => r(-1), 2000))])
  } finally {
    await cdp.detach()
  }
}

function streamedText(member: string, chars: number): string {
  const parts: string[] = []
  let i = 0
  while (parts.join('').length < chars) {
    i++
    parts.push(
      i % 4 === 0
        ? `\n\n\`\`\`ts\n// ${member}, part ${i}\nexport function step${i}(input: string): string {\n  return input.trim().toLowerCase()\n}\n\`\`\`\n\n`
        : i % 4 === 1
          ? `\n\n- ${member} checked D-1 in part ${i}\n- the handler keeps **T-2** aligned\n- nothing else changed\n\n`
          : `${member} keeps working on part ${i}: the request is parsed once, validated against D-1, and answered with a stable error code when it is wrong. `,
    )
  }
  return parts.join('').slice(0, chars)
}

/**
 * How long streamed text waits to be durable: every delta the core emits (session.delta) against the first
 * write of that step's text to SQLite that contains it (the store's setText while streaming, finish at the end).
 */
function durability(stack: Stack, workspaceId: string) {
  const steps = stack.core.harness.ctx(workspaceId).store.steps as unknown as Record<
    'setText' | 'finish',
    (id: number, arg: unknown) => void
  >
  const pending = new Map<number, { length: number; at: number }[]>()
  const received = new Map<number, number>()
  let worst = 0
  let deltas = 0
  const written = (id: number, length: number) => {
    const now = performance.now()
    const queue = pending.get(id) ?? []
    while (queue.length && at(queue, 0).length <= length) worst = Math.max(worst, now - queue.shift()!.at)
  }
  const originals = { setText: steps.setText, finish: steps.finish }
  steps.setText = function (id: number, text: unknown) {
    originals.setText.call(this, id, text)
    written(id, String(text).length)
  }
  steps.finish = function (id: number, patch: unknown) {
    originals.finish.call(this, id, patch)
    const text = (patch as { text?: string }).text
    if (typeof text === 'string') written(id, text.length)
  }
  const off = stack.core.bus.on((e) => {
    if (e.event !== 'session.delta' || e.payload.workspaceId !== workspaceId) return
    const id = Number(e.payload.stepId.split('-s')[1])
    const length = (received.get(id) ?? 0) + e.payload.text.length
    received.set(id, length)
    deltas++
    const queue = pending.get(id) ?? []
    queue.push({ length, at: performance.now() })
    pending.set(id, queue)
  })
  return {
    peekDeltas: () => deltas,
    take() {
      const unwritten = [...pending.values()].reduce((n, q) => n + q.length, 0)
      const out = { worst, deltas, unwritten }
      worst = 0
      deltas = 0
      return out
    },
    stop() {
      off()
      steps.setText = originals.setText
      steps.finish = originals.finish
    },
  }
}

async function p3(stack: Stack): Promise<void> {
  const repo = join(stack.repoDir, 'p3')
  mkdirSync(repo)
  const ws = await stack.core.invoke('workspaces.open', { repoPath: repo, name: 'streaming', isolation: 'shared' })
  const provider = {
    kind: 'openai-compatible' as const,
    model: 'bench',
    baseURL: stack.models.openaiBaseURL,
    apiKey: 'sk-bench',
  }
  const names = ['Ada', 'Brook', 'Cato']
  const members: Member[] = []
  for (const name of names)
    members.push(
      await stack.core.invoke('members.create', {
        workspaceId: ws.id,
        name,
        role: 'implementer',
        provider,
        approval: 'auto',
      }),
    )
  const decision = await stack.core.invoke('decisions.create', {
    workspaceId: ws.id,
    title: 'API style',
    statement: 'REST with JSON bodies',
  })
  const other = await stack.core.invoke('decisions.create', {
    workspaceId: ws.id,
    title: 'Storage',
    statement: 'SQLite',
  })
  seed(stack.core.harness.ctx(ws.id), decision, [decision, other], 1_000, P3_REPORTS, 3)
  let version = decision.version
  const statements = ['GraphQL over HTTP', 'REST with JSON bodies']

  const chars = TOKENS_PER_SECOND * STREAM_SECONDS * CHARS_PER_TOKEN
  const browser = await launchChromium()
  const loop = monitorEventLoopDelay({ resolution: 5 })
  const durable = durability(stack, ws.id)
  try {
    const page = await benchPage(browser)
    await page.goto(stack.url)
    // Two workspaces and a fresh browser: the welcome screen lists them.
    await page.getByTestId('welcome').waitFor()
    await page.locator('.recent-item').filter({ hasText: 'streaming' }).click()
    await page.getByTestId('member-item').filter({ hasText: 'Cato' }).waitFor()
    await page.keyboard.press('Alt+t')
    await page.getByTestId('team-view').waitFor()
    await page.evaluate(() => {
      const w = window as unknown as { __longTasks: number[] }
      w.__longTasks = []
      new PerformanceObserver((list) => list.getEntries().forEach((e) => w.__longTasks.push(e.duration))).observe({
        type: 'longtask',
        buffered: false,
      })
    })
    /** One round: every member streams one long reply at once, and the edit lands halfway; resolves when all three are done. */
    const round = async (n: number): Promise<{ seconds: number; stall: number; impactReports: number }> => {
      for (const m of members) {
        stack.models.enqueue({
          text: streamedText(m.name, chars),
          chunkSize: CHARS_PER_TOKEN * TOKENS_PER_CHUNK,
          chunkDelayMs: (1000 * TOKENS_PER_CHUNK) / TOKENS_PER_SECOND,
          usage: { input: 100, output: chars / CHARS_PER_TOKEN },
        })
      }
      const t0 = Date.now()
      loop.reset()
      loop.enable()
      await Promise.all(
        members.map((m) =>
          stack.core.invoke('sessions.send', { memberId: m.id, text: `Write it all out, please (${n}).` }),
        ),
      )
      // Halfway through the stream (by the text the core has received), the edit lands.
      await new Promise<void>((resolve) => {
        const off = stack.core.bus.on((e) => {
          if (
            e.event === 'session.delta' &&
            e.payload.workspaceId === ws.id &&
            durable.peekDeltas() >= (chars / (CHARS_PER_TOKEN * TOKENS_PER_CHUNK)) * 1.5
          ) {
            off()
            resolve()
          }
        })
      })
      const edit = await stack.core.invoke('decisions.update', {
        decisionId: decision.id,
        expectedVersion: version++,
        statement: statements[(n - 1) % 2],
      })
      for (const m of members) {
        await page
          .locator(`[data-testid=member-session][data-member-id="${m.id}"] [data-kind=model][data-status=done]`)
          .nth(n - 1)
          .waitFor({ timeout: 60_000 })
      }
      loop.disable()
      return { seconds: (Date.now() - t0) / 1000, stall: loop.max / 1e6, impactReports: edit.impact.counts.reports }
    }
    const takeLongTasks = () =>
      page.evaluate(() => (window as unknown as { __longTasks: number[] }).__longTasks.splice(0))

    // Round 1 as a user runs it (no tracer): Chromium's Long Tasks API reports every task over 50 ms.
    const r1 = await round(1)
    const d1 = durable.take()
    const longTasks = await takeLongTasks()
    const layers = await compositedLayers(page)
    // Round 2 under a trace, for every task's length in wall-clock and in thread CPU time.
    await browser.startTracing(page, {
      categories: ['toplevel', 'devtools.timeline', 'disabled-by-default-devtools.timeline'],
    })
    const r2 = await round(2)
    const trace = JSON.parse((await browser.stopTracing()).toString('utf8')) as { traceEvents: TraceEvent[] }
    const d2 = durable.take()
    const tracedLongTasks = await takeLongTasks()
    const shown = await page.evaluate(() =>
      [...document.querySelectorAll('[data-kind=model]')].map((e) => e.textContent?.length ?? 0),
    )
    const r = longestMainThreadTask(trace)
    const tokens = chars / CHARS_PER_TOKEN
    const cores = availableParallelism()
    const longest = Math.max(0, ...longTasks)
    const longestTraced = Math.max(0, ...tracedLongTasks)
    console.log(
      `P3 three members streaming ${TOKENS_PER_SECOND} tokens/s each, all in the team view, an edit of a decision ${P3_REPORTS.toLocaleString()} reports depend on landing halfway (impact: ${r1.impactReports} reports): ${tokens} tokens each in ${r1.seconds.toFixed(1)} s (${(tokens / r1.seconds).toFixed(0)} tokens/s achieved)`,
    )
    console.log(
      `   untraced round: tasks over 50 ms (Long Tasks API): ${longTasks.length}${longTasks.length ? `, longest ${ms(longest)}` : ''}`,
    )
    console.log(
      `   traced round: ${r.tasks} main-thread tasks; longest ${ms(r.longest)} wall-clock (p99 ${ms(r.p99)}, ${r.over50} over 50 ms; Long Tasks API ${tracedLongTasks.length}${tracedLongTasks.length ? `, longest ${ms(longestTraced)}` : ''})`,
    )
    console.log(`                 inside the longest task (largest events, ms): ${r.inside || 'n/a'}`)
    console.log(
      `                 longest in thread CPU time ${ms(r.longestCpu)} (${r.cpuOver50} over 50 ms); wall-clock also counts waiting for one of ${cores} cores shared with the core, bridge and model server`,
    )
    console.log(
      `   composited layers with three long replies on screen: ${layers} (each is re-layerized every frame; sideways-scrolling code blocks once made 194)`,
    )
    console.log(`   text on screen per reply: ${shown.slice(-3).join(', ')} characters of ${chars}`)
    const stall = Math.max(r1.stall, r2.stall)
    const durableMs = Math.max(d1.worst, d2.worst)
    const unwritten = d1.unwritten + d2.unwritten
    console.log(`   server event loop: longest stall ${ms(r1.stall)} (untraced round), ${ms(r2.stall)} (traced round)`)
    console.log(
      `   streamed text durable: ${(d1.deltas + d2.deltas).toLocaleString()} deltas, the slowest written ${ms(durableMs)} after the core received it${unwritten ? `; ${unwritten} never written` : ''}`,
    )
    // Every round counts: the traced one too (the tracer adds work, which is what a user's extensions do as well).
    const renderer = Math.max(longest, longestTraced, r.longest)
    console.log(
      `   targets: renderer task ≤ ${P3_TARGET} ms: longest ${ms(renderer)} over both rounds → ${verdict(renderer <= P3_TARGET)} (CPU time ratio ${(r.longestCpu / P3_TARGET).toFixed(2)} → ${verdict(r.longestCpu <= P3_TARGET)}); ` +
        `server stall ≤ ${P3_STALL_TARGET} ms → ${verdict(stall <= P3_STALL_TARGET)}; durable ≤ ${P3_DURABLE_TARGET} ms → ${verdict(durableMs <= P3_DURABLE_TARGET && unwritten === 0)}`,
    )
  } finally {
    durable.stop()
    loop.disable()
    await browser.close()
  }
}

ensureRendererBuilt()
const stack = await startStack()
const which = process.argv[2]
try {
  if (which !== 'p3') await p2(stack)
  // P3 expects the welcome screen P2's workspace makes (two workspaces: the app opens neither by itself).
  else await stack.core.invoke('workspaces.open', { repoPath: stack.repoDir, name: 'bench' })
  if (which !== 'p2') await p3(stack)
} finally {
  await stack.close()
}
