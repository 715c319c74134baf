import { useMemo } from 'react'
import { keyKind } from '../../../../shared/keys'
import type { Step } from '../../../../shared/schemas'
import { useApp, useAppStore } from '../../stores/app-store'
import { decisionKeyProposedBy, proposalByKey, recordedFrom } from '../../stores/selectors'
import { references } from '../../stores/steps'
import { DecisionCard } from '../decisions/DecisionCard'
import { ProposalCard } from '../decisions/ProposalCard'

const MAX_CARDS = 6

function ProposalByKey({ refKey }: { refKey: string }) {
  const p = useApp(proposalByKey(refKey))
  return p ? <ProposalCard proposal={p} /> : null
}

// Per steps array (the session's, as the store holds it): where each decision or proposal key is first mentioned.
const firstMentions = new WeakMap<Step[], Map<string, number>>()
function firstMentionSeq(steps: Step[]): Map<string, number> {
  let out = firstMentions.get(steps)
  if (!out) {
    out = new Map()
    for (const st of steps) for (const k of references(st.text)) if (!out.has(k)) out.set(k, st.seq)
    firstMentions.set(steps, out)
  }
  return out
}

/** The version each decision key was pinned to in these steps (the message's own pin first). */
function pinnedVersions(steps: Step[]): Map<string, number> {
  const out = new Map<string, number>()
  for (const s of steps)
    for (const r of s.refs) if (r.version !== undefined && !out.has(r.key)) out.set(r.key, r.version)
  return out
}

/**
 * Cards for the decisions and proposals a message mentions or was recorded as: a mentioned decision at
 * the version the message pinned (and the change since), the others live.
 */
export function Cards({ step, tools }: { step: Step; tools?: Step[] }) {
  const recorded = useApp(recordedFrom(step.id))
  // What the member's decision tools reported ("Proposal P-3 recorded for D-1") shows as cards too.
  const isDecisionTool = (t: Step) => /decision|propos/.test(t.tool?.name ?? '') && t.status === 'done'
  const toolText = (tools ?? [])
    .filter(isDecisionTool)
    .map((t) => t.text)
    .join('\n')
  const streaming = step.status === 'streaming'
  const proposals = useApp((s) => s.proposals)
  const decisions = useApp((s) => s.decisions)
  const store = useAppStore()
  // Read again when older steps are loaded above (a first mention may move up).
  const firstLoaded = useApp((s) => s.sessions[step.memberId]?.steps?.[0]?.id)
  const keys = useMemo(() => {
    // Cards appear once the reply is complete; while it streams, its references show as inline chips.
    if (streaming) return []
    const all = [...new Set([...references(step.text), ...references(toolText), ...recorded])].filter(
      (k) => keyKind(k) === 'decision' || keyKind(k) === 'proposal',
    )
    // A proposal's card already shows its decision (and the change against it): no second card for that decision.
    const proposed = new Set(
      all.map((k) => (keyKind(k) === 'proposal' ? decisionKeyProposedBy({ proposals, decisions }, k) : undefined)),
    )
    // A decision's card shows once, under the session's first mention of it; later mentions are its inline chips.
    const first = firstMentionSeq(store.getState().sessions[step.memberId]?.steps ?? [])
    const shownAbove = (k: string) =>
      keyKind(k) === 'decision' && !recorded.includes(k) && (first.get(k) ?? step.seq) < step.seq
    return all.filter((k) => !proposed.has(k) && !shownAbove(k)).slice(0, MAX_CARDS)
    // firstLoaded is read through the store (not every streaming frame): it only says when to look again.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [streaming, step.text, toolText, recorded, proposals, decisions, store, step.memberId, step.seq, firstLoaded])
  if (!keys.length) return null
  const pins = pinnedVersions([step, ...(tools ?? []).filter(isDecisionTool)])
  return (
    <div className="cards">
      {keys.map((k) =>
        keyKind(k) === 'decision' ? (
          <DecisionCard key={k} decisionKey={k} sourceMessageId={step.id} pinnedVersion={pins.get(k)} />
        ) : (
          <ProposalByKey key={k} refKey={k} />
        ),
      )}
    </div>
  )
}
