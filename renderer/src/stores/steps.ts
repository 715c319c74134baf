/** Pure operations on a session's steps (ascending seq), shared by the store and the session view. */
import { mentionPattern } from '../../../shared/keys'
import type { SessionInfo, Step } from '../../../shared/schemas'

export function idleInfo(memberId: string): SessionInfo {
  return {
    memberId,
    state: 'idle',
    error: null,
    errorCode: null,
    queued: 0,
    pendingApprovals: [],
    pendingNotices: 0,
    question: null,
  }
}

/** Of two copies of one step, the one that knows more: a finished step beats a running one, then the longer text. */
export function pickNewer(held: Step, incoming: Step): Step {
  if (held.endedAt && !incoming.endedAt) return held
  if (incoming.endedAt && !held.endedAt) return incoming
  if (held.status === 'streaming' && incoming.status === 'streaming' && held.text.length > incoming.text.length)
    return held
  return incoming
}

function insertSorted(steps: Step[], step: Step): Step[] {
  const out = steps.slice()
  let i = out.length
  while (i > 0 && out[i - 1]!.seq > step.seq) i--
  out.splice(i, 0, step)
  return out
}

function indexFromEnd(steps: Step[], id: string): number {
  return steps.findLastIndex((s) => s.id === id)
}

/** Inserts or replaces one step by id (the event copy is authoritative for its moment). */
export function upsertStep(steps: Step[], step: Step): Step[] {
  const i = indexFromEnd(steps, step.id)
  const held = steps[i]
  if (!held) return insertSorted(steps, step)
  if (held.seq === step.seq) {
    const out = steps.slice()
    out[i] = step
    return out
  }
  return insertSorted(
    steps.filter((_, j) => j !== i),
    step,
  )
}

/** Union of two lists by id, the newer copy of each, sorted by seq. */
export function mergeSteps(a: Step[], b: Step[]): Step[] {
  const byId = new Map<string, Step>()
  for (const s of a) byId.set(s.id, s)
  for (const s of b) {
    const held = byId.get(s.id)
    byId.set(s.id, held ? pickNewer(held, s) : s)
  }
  return [...byId.values()].sort((x, y) => x.seq - y.seq)
}

/** Appends streamed text to a step; a step not seen yet gets a streaming placeholder at the end. */
export function appendText(steps: Step[], memberId: string, stepId: string, text: string): Step[] {
  const i = indexFromEnd(steps, stepId)
  const held = steps[i]
  if (held) {
    const out = steps.slice()
    out[i] = { ...held, text: held.text + text }
    return out
  }
  const last = steps.at(-1)
  const placeholder: Step = {
    id: stepId,
    seq: (last?.seq ?? 0) + 0.5,
    memberId,
    turnId: last?.turnId ?? '',
    kind: 'model',
    status: 'streaming',
    text,
    toolCalls: [],
    tool: null,
    fromMemberId: null,
    taskId: null,
    usage: null,
    changes: null,
    refs: [],
    startedAt: new Date().toISOString(),
    endedAt: null,
  }
  return [...steps, placeholder]
}

/** One rendered row: a step, with the tool steps that executed its tool calls folded in. */
export interface Row {
  key: string
  step: Step
  /** Where the row's own step is in the steps it was built from. */
  index: number
  tools: Step[]
  /** Model tool-call id → the tool step that executed it. */
  results: Map<string, Step>
}

/**
 * Where a rebuild can start: the last row that begins before the first changed step and is not a loose
 * tool step. Its own step is unchanged and resets the folding, so every row before it only holds
 * unchanged steps (a changed step may fold into the row before it, so that row is built again).
 */
function reusable(prev: { steps: Step[]; rows: Row[] }, steps: Step[]): { rows: Row[]; from: number } | null {
  const n = Math.min(prev.steps.length, steps.length)
  let changed = 0
  while (changed < n && prev.steps[changed] === steps[changed]) changed++
  if (changed === steps.length && changed === prev.steps.length) return { rows: prev.rows, from: steps.length }
  // r stays within the rows: it starts at the last and stops at 0 (hence the `!`s).
  let r = prev.rows.length - 1
  while (r > 0 && prev.rows[r]!.index >= changed) r--
  while (r > 0 && prev.rows[r]!.step.kind === 'tool') r--
  return r > 0 ? { rows: prev.rows.slice(0, r), from: prev.rows[r]!.index } : null
}

/**
 * Folds each `tool` step under the `model` step of the same turn that asked for it. A tool step names
 * its call by the model's call id when it can, else by tool name and arguments (the runtime records
 * the tool steps right after the model step, in call order).
 *
 * Given the previous steps and rows, only the rows from the first changed step on are built again (a
 * streaming reply changes the last step every frame; a long session may hold thousands).
 */
export function buildRows(steps: Step[], prev?: { steps: Step[]; rows: Row[] }): Row[] {
  const reuse = prev ? reusable(prev, steps) : null
  if (reuse && reuse.from === steps.length && reuse.rows === prev!.rows) return reuse.rows
  const rows: Row[] = reuse ? reuse.rows : []
  let open: { row: Row; unmatched: Step['toolCalls'] } | null = null
  for (let index = reuse?.from ?? 0; index < steps.length; index++) {
    const step = steps[index]!
    const tool = step.tool
    if (step.kind === 'tool' && tool && open && open.row.step.turnId === step.turnId) {
      const calls = open.unmatched
      let i = calls.findIndex((c) => c.id === tool.toolCallId)
      if (i < 0) i = calls.findIndex((c) => c.name === tool.name && c.argumentsText === tool.argumentsText)
      if (i < 0) i = calls.findIndex((c) => c.name === tool.name)
      if (i >= 0) {
        open.row.tools.push(step)
        open.row.results.set(calls[i]!.id, step)
        calls.splice(i, 1)
        continue
      }
    }
    const row: Row = { key: step.id, step, index, tools: [], results: new Map() }
    rows.push(row)
    if (step.kind === 'model') open = step.toolCalls.length ? { row, unmatched: [...step.toolCalls] } : null
    else if (step.kind !== 'tool') open = null
  }
  return rows
}

/** The question of an ask_human call, or null when its arguments hold none. */
export function questionText(argumentsText: string): string | null {
  try {
    const q = (JSON.parse(argumentsText) as { question?: unknown } | null)?.question
    return typeof q === 'string' && q.trim() ? q.trim() : null
  } catch {
    return null
  }
}

// Chips for decisions, proposals and tasks (reports have no chip): the pattern from the one home of the key format.
const REF = mentionPattern('DPT')

/** Distinct `D-n` / `P-n` / `T-n` references in text, outside code spans and fences, in order. */
export function references(text: string): string[] {
  const prose = text.replace(/```[\s\S]*?(```|$)/g, ' ').replace(/`[^`\n]*`/g, ' ')
  const seen = new Set<string>()
  for (const m of prose.matchAll(REF)) seen.add(m[0])
  return [...seen]
}

export const refPattern = () => new RegExp(REF.source, 'g')
