/**
 * Projects the stored steps of a session into the message view for one model call (DESIGN §3):
 * recent steps within a budget, long tool outputs cut with a pointer (kept whole in the store),
 * old plans left out, and every tool call paired with a result so both wire formats accept it.
 */
import type { ChatMessage, ToolCall } from './providers/types'
import type { StepRow } from '../harness/rows'
import type { ImageInput } from '../../../shared/images'

export interface ViewOptions {
  /** Rough budget for the projected history, in characters. */
  maxChars: number
  /** Tool observations longer than this are cut in the view. */
  toolOutputLimit: number
  /** Leave out every plan (the planning call itself). Otherwise only the latest plan is shown. */
  omitPlans?: boolean
  stepId: (rowId: number) => string
  memberName: (memberId: number) => string
  /** The images a user step carries (read only for steps that have some). */
  images?: (stepRowId: number) => ImageInput[]
}

export const defaultViewOptions = { maxChars: 24_000, toolOutputLimit: 4_000 }

export function cutToolOutput(text: string, limit: number, pointer: string): string {
  if (text.length <= limit) return text
  const head = Math.floor(limit * 0.7)
  const tail = Math.floor(limit * 0.25)
  return `${text.slice(0, head)}\n[… ${text.length - head - tail} characters cut here; ${pointer}]\n${text.slice(text.length - tail)}`
}

function project(step: StepRow, o: ViewOptions, latestPlanId: number | null): ChatMessage | null {
  switch (step.kind) {
    case 'user': {
      if (step.status === 'queued') return null
      const images = step.images && o.images ? o.images(step.id) : []
      return images.length ? { role: 'user', content: step.text, images } : { role: 'user', content: step.text }
    }
    case 'message':
      if (step.status === 'queued') return null
      return {
        role: 'user',
        content: `[${step.from_member_id === null ? 'From Concord' : `Message from ${o.memberName(step.from_member_id)}`}] ${step.text}`,
      }
    case 'model': {
      const toolCalls = JSON.parse(step.tool_calls) as ToolCall[]
      const text = step.status === 'interrupted' && step.text ? `${step.text} [interrupted]` : step.text
      if (!text && !toolCalls.length) return null
      return { role: 'assistant', content: text, toolCalls: toolCalls.length ? toolCalls : undefined }
    }
    case 'tool': {
      const pointer = `call read_tool_output with stepId "${o.stepId(step.id)}" and an offset to read the rest`
      return {
        role: 'tool',
        toolCallId: step.tool_call_id ?? '',
        name: step.tool_name ?? '',
        content: cutToolOutput(step.text || `[${step.status}]`, o.toolOutputLimit, pointer),
        isError: step.is_error === 1,
      }
    }
    case 'plan':
      if (o.omitPlans || step.id !== latestPlanId || step.status !== 'done') return null
      return { role: 'user', content: `[Your current plan, written at an earlier step]\n${step.text}` }
    case 'interrupted':
      return { role: 'user', content: `[${step.text || 'The previous turn was interrupted.'}]` }
    case 'error':
      // The failed turn is closed by an answer of its own, so the next message starts a turn with only its
      // own text instead of being merged into the unanswered one.
      return { role: 'assistant', content: `[This turn ended with an error: ${step.text}]` }
    case 'notice': // delivered through the brief at the call that followed it
      return null
  }
}

const size = (m: ChatMessage) =>
  m.content.length +
  (m.role === 'assistant' && m.toolCalls
    ? m.toolCalls.reduce((n, c) => n + c.argumentsText.length + c.name.length, 0)
    : 0)

/**
 * steps: the session in ascending order. turnStart: the id of the step that began the current turn;
 * everything from it on is always kept, older turns are added newest-first while the budget (less the
 * turn's first message) lasts, whole turns at a time (so a tool call is never separated from its result).
 */
export function buildView(stored: StepRow[], turnStart: number, o: ViewOptions): ChatMessage[] {
  const steps = inTurnOrder(stored)
  const latestPlanId = o.omitPlans
    ? null
    : (steps.filter((s) => s.kind === 'plan' && s.status === 'done').at(-1)?.id ?? null)
  const turns: StepRow[][] = []
  for (const s of steps) {
    const last = turns.at(-1)
    const starts = s.kind === 'user' || s.kind === 'message' || !last
    if ((starts && s.id <= turnStart) || !last) turns.push([s])
    else last.push(s)
  }
  const chosen: ChatMessage[][] = []
  let budget = o.maxChars
  for (const turn of turns.toReversed()) {
    const msgs = turn.map((s) => project(s, o, latestPlanId)).filter((m): m is ChatMessage => m !== null)
    const cost = msgs.reduce((n, m) => n + size(m), 0)
    const current = turn[0]!.id >= turnStart // a turn is opened with its first step
    if (!current && cost > budget) break
    // The current turn's growth (its tool steps) does not push older turns out: they are chosen from what the turn
    // began with, so every call of a turn repeats the same history and the provider's prompt cache serves it.
    budget -= current ? (msgs[0] ? size(msgs[0]) : 0) : cost
    chosen.unshift(msgs)
  }
  // Keep the latest plan even when its turn fell out of the window.
  const planInWindow = chosen.some((msgs) =>
    msgs.some((m) => m.role === 'user' && m.content.startsWith('[Your current plan')),
  )
  if (latestPlanId !== null && !planInWindow) {
    const plan = steps.find((s) => s.id === latestPlanId)!
    chosen.unshift([project(plan, o, latestPlanId)!])
  }
  return normalize(chosen.flat())
}

/**
 * The steps in the order their turns ran: a message queued behind a running turn has a lower id than that
 * turn's replies, but enters the view only when its own turn starts (after the reply to the one before it).
 * Steps of a turn carry its start's id; a step outside any turn stays where its id puts it.
 */
export function inTurnOrder(steps: StepRow[]): StepRow[] {
  const key = (s: StepRow) => s.turn_id ?? s.id
  return steps
    .map((s, i) => [s, i] as const)
    .sort(([a, i], [b, j]) => key(a) - key(b) || i - j)
    .map(([s]) => s)
}

/** Pairs every tool call with a result, drops orphans, merges adjacent user (and plain assistant) messages, starts with a user message. */
export function normalize(messages: ChatMessage[]): ChatMessage[] {
  const out: ChatMessage[] = []
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!
    if (m.role === 'tool') continue // emitted right after their assistant message below
    if (m.role === 'assistant') {
      const prev = out.at(-1)
      // Two replies in a row (a partial reply, then the error that ended it) read as one.
      if (prev?.role === 'assistant' && !prev.toolCalls?.length && !m.toolCalls?.length) {
        prev.content = prev.content ? `${prev.content}\n\n${m.content}` : m.content
        continue
      }
      out.push(m)
      const results = new Map<string, ChatMessage>()
      let j = i + 1
      for (; messages[j]?.role === 'tool'; j++) {
        const t = messages[j] as Extract<ChatMessage, { role: 'tool' }>
        results.set(t.toolCallId, t)
      }
      for (const call of m.toolCalls ?? []) {
        out.push(
          results.get(call.id) ?? {
            role: 'tool',
            toolCallId: call.id,
            name: call.name,
            content: '[no result: the turn ended before this call ran]',
            isError: true,
          },
        )
      }
      i = j - 1
      continue
    }
    const prev = out.at(-1)
    if (prev && prev.role === 'user') {
      prev.content = [prev.content, m.content].filter((t) => t.trim()).join('\n\n')
      if (m.role === 'user' && m.images?.length) prev.images = [...(prev.images ?? []), ...m.images]
    } else out.push({ ...m })
  }
  if (out[0]?.role !== 'user') out.unshift({ role: 'user', content: '[Earlier steps of this session are not shown.]' })
  return out
}
