/**
 * P4: the context view. Build time for one model call on a 2,000-step session, and tokens sent per
 * turn on a 200-step session compared with replaying the full history, with every current decision present.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCore } from '../electron/main/core'
import type { Ctx } from '../electron/main/harness/context'
import { buildBrief } from '../electron/main/runtime/brief'
import { buildView, defaultViewOptions } from '../electron/main/runtime/context-view'
import { systemPrompt } from '../electron/main/runtime/agent-loop'
import { anthropicParams, VOLATILE_SYSTEM } from '../electron/main/runtime/providers/anthropic'
import { toOpenAIMessages } from '../electron/main/runtime/providers/openai'
import type { ChatMessage } from '../electron/main/runtime/providers/types'
import { median, ms, verdict, repoIn } from './util'
import { at } from '../eval/at'

const DECISIONS = 25

function seedSession(ctx: Ctx, memberId: number, steps: number): number {
  const { store } = ctx
  const at = new Date().toISOString()
  let last = 0
  store.transaction(() => {
    for (let i = 0; i * 4 < steps; i++) {
      const user = store.steps.insert({
        member_id: memberId,
        kind: 'user',
        status: 'done',
        text: `Please look at module ${i} and fix what the decisions require.`,
        started_at: at,
      })
      const call = JSON.stringify([
        { id: `c${i}`, name: 'read_file', argumentsText: JSON.stringify({ path: `src/module${i}.ts` }) },
      ])
      store.steps.insert({
        member_id: memberId,
        turn_id: user,
        kind: 'model',
        status: 'done',
        text: 'Let me read it.',
        tool_calls: call,
        input_tokens: 1000,
        output_tokens: 20,
        started_at: at,
      })
      store.steps.insert({
        member_id: memberId,
        turn_id: user,
        kind: 'tool',
        status: 'done',
        tool_call_id: `c${i}`,
        tool_name: 'read_file',
        text: `// module ${i}\n` + 'export function f() { return 1 }\n'.repeat(120),
        started_at: at,
      })
      last = store.steps.insert({
        member_id: memberId,
        turn_id: user,
        kind: 'model',
        status: 'done',
        text: `Module ${i} now follows the decisions. ${'Details. '.repeat(20)}`,
        started_at: at,
      })
    }
  })
  return last
}

const approxTokens = (chars: number) => Math.ceil(chars / 4)

export async function p4(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'concord-bench-p4-'))
  const core = createCore({ dataDir: join(root, 'data') })
  try {
    const ws = await core.invoke('workspaces.open', { repoPath: repoIn(root) })
    const big = await core.invoke('members.create', { workspaceId: ws.id, name: 'Impl', role: 'implementer' })
    const small = await core.invoke('members.create', { workspaceId: ws.id, name: 'Tess', role: 'tester' })
    const decisions = []
    for (let i = 0; i < DECISIONS; i++) {
      decisions.push(
        await core.invoke('decisions.create', {
          workspaceId: ws.id,
          title: `Decision ${i}`,
          statement: `Rule ${i}: modules must do thing ${i} in exactly this way.`,
        }),
      )
    }
    for (let i = 0; i < 5; i++) {
      for (const m of [big, small]) {
        await core.invoke('tasks.create', {
          workspaceId: ws.id,
          title: `Task ${i}`,
          assigneeId: m.id,
          decisionIds: decisions.slice(i * 5, i * 5 + 5).map((d) => d.id),
        })
      }
    }
    const ctx = core.harness.ctx(ws.id)
    const opts = { ...defaultViewOptions, stepId: (n: number) => `s${n}`, memberName: () => 'someone' }
    const bigRow = ctx.store.members.get(1)!
    const smallRow = ctx.store.members.get(2)!

    // Build time: what the loop does before every call (brief + recent steps + projection).
    seedSession(ctx, bigRow.id, 2000)
    const start = at(ctx.store.steps.recent(bigRow.id, 1), 0).id
    const times: number[] = []
    for (let i = 0; i < 60; i++) {
      const t0 = performance.now()
      buildBrief(ctx, bigRow, [])
      buildView(ctx.store.steps.recent(bigRow.id, 400), start, opts)
      times.push(performance.now() - t0)
    }
    const build = median(times.slice(10))
    console.log(
      `P4a context view for a 2,000-step session: median build ${ms(build)} (target ≤ 5 ms: ${verdict(build <= 5)})`,
    )

    // Tokens per turn against replaying everything.
    seedSession(ctx, smallRow.id, 200)
    const all = ctx.store.steps.recent(smallRow.id, 10_000)
    const lastStart = all.filter((s) => s.kind === 'user').at(-1)!.id
    const brief = buildBrief(ctx, smallRow, [])
    const system = `${systemPrompt(smallRow, join(root, 'repo'))}\n\n${brief.text}`
    const chars = (msgs: { content: string }[]) => msgs.reduce((n, m) => n + m.content.length, 0)
    const viewChars = system.length + chars(buildView(all, lastStart, opts))
    const fullChars =
      system.length +
      chars(
        buildView(all, lastStart, {
          ...opts,
          maxChars: Number.MAX_SAFE_INTEGER,
          toolOutputLimit: Number.MAX_SAFE_INTEGER,
        }),
      )
    const allPresent = decisions.every((d) => system.includes(d.statement))
    const ratio = viewChars / fullChars
    console.log(
      `P4b tokens per turn on a ${all.length}-step session: ~${approxTokens(viewChars)} vs ~${approxTokens(fullChars)} replaying the full history = ${(ratio * 100).toFixed(1)}% (target ≤ 40%: ${verdict(ratio <= 0.4)}); all ${decisions.length} current decisions present: ${allPresent ? 'yes' : 'NO'}`,
    )

    // P4c: the share of each request the provider's prompt cache can serve, for the calls of the last turn (each
    // repeats the previous call and adds the tool step) and the next turn's first call (older turns may drop out).
    const turnStarts = all.filter((s) => s.kind === 'user').map((s) => s.id)
    const prevStart = turnStarts.at(-2)!
    const calls: ChatMessage[][] = []
    const lastTurn = all.filter((s) => s.id >= prevStart)
    let turnOf = prevStart
    for (const s of lastTurn.filter((x) => x.kind === 'user' || x.kind === 'tool')) {
      if (s.kind === 'user') turnOf = s.id
      calls.push(
        buildView(
          all.filter((x) => x.id <= s.id),
          turnOf,
          opts,
        ),
      )
    }
    const shares = calls.slice(1).map((msgs, i) => cacheable(system, at(calls, i), msgs))
    const fmt = (xs: number[]) => xs.map((x) => `${(x * 100).toFixed(0)}%`).join(', ')
    console.log(
      `P4c cacheable share of each request (chars the prompt cache serves ÷ chars sent), calls after the first of the last two turns (within a turn, next turn, within it): Anthropic ${fmt(shares.map((x) => x.anthropic))}; OpenAI ${fmt(shares.map((x) => x.openai))}`,
    )
  } finally {
    await core.close()
    rmSync(root, { recursive: true, force: true })
  }
}

/**
 * How much of `next` a provider's prompt cache serves after `prev` was sent. Anthropic: the request up to the last
 * breakpoint whose prefix the previous request had (the stable system prompt; then the messages up to where the
 * previous request's breakpoint sat). OpenAI: the longest common prefix of the two requests' messages.
 */
function cacheable(system: string, prev: ChatMessage[], next: ChatMessage[]): { anthropic: number; openai: number } {
  const request = (messages: ChatMessage[]) => anthropicParams('m', { system, messages, tools: [] })
  const unmarked = (v: unknown) => JSON.stringify(v, (k, x: unknown) => (k === 'cache_control' ? undefined : x))
  const a = request(prev)
  const b = request(next)
  const total = unmarked(b.system).length + unmarked(b.messages).length
  const stable = system.includes(VOLATILE_SYSTEM) ? system.indexOf(VOLATILE_SYSTEM) : system.length
  let served = unmarked(a.system) === unmarked(b.system) ? stable : 0
  const n = a.messages.length
  // The previous request's last message carried the breakpoint; the same messages lead this one.
  const same = (i: number) =>
    unmarked(a.messages[i]).replace(/"content":"((?:[^"\\]|\\.)*)"/, '"content":[{"type":"text","text":"$1"}]') ===
    unmarked(b.messages[i]).replace(/"content":"((?:[^"\\]|\\.)*)"/, '"content":[{"type":"text","text":"$1"}]')
  if (served && n <= b.messages.length && Array.from({ length: n }, (_, i) => i).every(same))
    served = unmarked(b.system).length + unmarked(b.messages.slice(0, n)).length
  const ja = JSON.stringify(toOpenAIMessages(system, prev))
  const jb = JSON.stringify(toOpenAIMessages(system, next))
  let k = 0
  while (k < ja.length && k < jb.length && ja[k] === jb[k]) k++
  // OpenAI serves the common prefix in 128-token steps after the first 1,024 tokens (about 4 characters a token).
  const openaiServed = k < 4096 ? 0 : Math.floor(k / 512) * 512
  return { anthropic: served / total, openai: openaiServed / jb.length }
}
