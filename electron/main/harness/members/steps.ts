import { parseKey } from '../../../../shared/keys'
import type { Step, StepRef } from '../../../../shared/schemas'
import { makeId } from '../ids'
import type { PinnedRef, StepRow } from '../../store/steps-repo'
import { parseCheckpoint, parseUndone } from '../../store/turn-undo-repo'

/**
 * Streamed text is saved at most this long after its first unsaved delta, so a crash loses at most that much and
 * every delta is durable within 200 ms (P3) with half of it to spare for a loop that is briefly busy (a write of one
 * step's text every 100 ms per streaming member is cheap: one UPDATE of one row).
 */
export const TEXT_FLUSH_MS = 100

export function toStep(ws: string, r: StepRow): Step {
  const id = (kind: 'member' | 'task', n: number | null) => (n === null ? null : makeId(ws, kind, n))
  return {
    id: makeId(ws, 'step', r.id),
    seq: r.id,
    memberId: makeId(ws, 'member', r.member_id),
    turnId: r.turn_id === null ? '' : makeId(ws, 'step', r.turn_id),
    kind: r.kind,
    status: r.status,
    text: r.text,
    toolCalls: JSON.parse(r.tool_calls) as Step['toolCalls'],
    tool:
      r.kind === 'tool'
        ? {
            callId: makeId(ws, 'step', r.id),
            toolCallId: r.tool_call_id ?? '',
            name: r.tool_name ?? '',
            argumentsText: r.tool_args ?? '',
            isError: r.is_error === 1,
          }
        : null,
    fromMemberId: id('member', r.from_member_id),
    taskId: id('task', r.task_id),
    usage: r.input_tokens === null ? null : { input: r.input_tokens, output: r.output_tokens ?? 0 },
    changes: turnChanges(r)?.files ?? null,
    // A message no member sent is a turn Concord started itself (auto-turns.ts); the human's own are `user` steps.
    origin: r.kind === 'message' && r.from_member_id === null ? 'concord' : null,
    refs: stepRefs(ws, r.refs),
    checkpoint: stepCheckpoint(r),
    ...(r.images ? { images: r.images } : {}),
    startedAt: r.started_at,
    endedAt: r.ended_at,
  }
}

/** A turn's checkpoint as the session shows it (only the first step of a turn in a task's tree has one). */
function stepCheckpoint(r: StepRow): Step['checkpoint'] {
  const c = parseCheckpoint(r)
  if (!c) return null
  const u = parseUndone(r)
  return {
    commit: c.commit,
    undone: u ? { at: u.at, commit: u.commit, keptRef: u.keptRef, keptCommit: u.keptCommit } : null,
  }
}

/** What a turn changed, as stored on its last step. */
export interface StoredTurnChanges {
  /** The trees before and after it (what was in the tree, committed or not). */
  from: string
  to: string
  /** The commits the tree was at before and after (absent on turns recorded before they were kept). */
  fromCommit?: string | null
  toCommit?: string | null
  files: NonNullable<Step['changes']>
}

export function turnChanges(r: StepRow): StoredTurnChanges | null {
  if (!r.changes) return null
  const v = JSON.parse(r.changes) as StoredTurnChanges
  return Array.isArray(v.files) ? v : null
}

/** The pins stored with a step, as the API gives them (ids routable to this workspace). */
export function stepRefs(ws: string, json: string | null): StepRef[] {
  if (!json) return []
  const out: StepRef[] = []
  for (const p of JSON.parse(json) as PinnedRef[]) {
    const k = parseKey(p.key)
    if (!k || k.kind === 'proposal') continue
    out.push(
      p.version === undefined
        ? { key: p.key, kind: k.kind, id: makeId(ws, k.kind, k.n) }
        : { key: p.key, kind: k.kind, id: makeId(ws, k.kind, k.n), version: p.version },
    )
  }
  return out
}
