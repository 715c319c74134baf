import { memo, useMemo, useRef, useState } from 'react'
import { keyKind } from '../../../../shared/keys'
import type { Step } from '../../../../shared/schemas'
import { Markdown } from '../../components/Markdown'
import { Avatar } from '../../components/ui'
import { compactNumber, shortTime } from '../../lib/format'
import { useApp, useAppStore } from '../../stores/app-store'
import { decisionKeyProposedBy, proposalByKey, recordedFrom } from '../../stores/selectors'
import { references, type Row } from '../../stores/steps'
import { DecisionCard } from '../decisions/DecisionCard'
import { ProposalCard } from '../decisions/ProposalCard'
import { ToolCall } from './ToolCall'
import { ChangesDialog } from '../diff/LazyChangesDialog'
import { MemberEditor } from '../team/MemberEditor'
import { TurnUndo } from './TurnUndo'

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
function Cards({ step, tools }: { step: Step; tools?: Step[] }) {
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

/** A failed model call: what the provider said, and the way to the settings that usually fix it. */
/** Under a turn's last step: the files the turn changed, opening the turn's own diff. */
function TurnChanges({ step }: { step: Step }) {
  const api = useApp((s) => s.api)
  const [open, setOpen] = useState(false)
  const files = step.changes
  if (!files?.length) return null
  const names = files
    .slice(0, 3)
    .map((f) => f.path.split('/').pop())
    .join(', ')
  return (
    <div className="turn-changes">
      <button
        className="link-btn small"
        onClick={() => setOpen(true)}
        data-testid="turn-changes"
        title={files.map((f) => `${f.status} ${f.path}`).join('\n')}
      >
        {files.length} file{files.length === 1 ? '' : 's'} changed
      </button>
      <span className="muted small">
        {' '}
        · {names}
        {files.length > 3 ? ', …' : ''}
      </span>
      {open && (
        <ChangesDialog
          title="What this turn changed"
          load={() => api.call('sessions.changes', { stepId: step.id })}
          onClose={() => setOpen(false)}
        />
      )}
    </div>
  )
}

function ErrorBox({ step, memberId }: { step: Step; memberId: string }) {
  const member = useApp((s) => s.members[memberId])
  const [editing, setEditing] = useState(false)
  const modelCall = step.text.startsWith('The model call failed')
  return (
    <div className="error-box">
      <strong>Error</strong> {step.text}
      {modelCall && member && (
        <>
          {' '}
          <button className="link-btn" onClick={() => setEditing(true)} data-testid="fix-provider">
            Check {member.name}’s provider settings
          </button>
          {editing && <MemberEditor member={member} onClose={() => setEditing(false)} />}
        </>
      )}
    </div>
  )
}

export interface StepActions {
  onRecord(step: Step, text: string): void
}

function selectedTextWithin(el: HTMLElement | null): string {
  const sel = window.getSelection()
  if (!el || !sel || sel.isCollapsed || sel.rangeCount === 0) return ''
  const range = sel.getRangeAt(0)
  return el.contains(range.commonAncestorContainer) ? sel.toString().trim() : ''
}

function Actions({
  step,
  bodyRef,
  actions,
}: {
  step: Step
  bodyRef: React.RefObject<HTMLDivElement | null>
  actions: StepActions
}) {
  // An empty box still takes the spacer's place in the meta line.
  if (!step.text.trim() || step.status === 'streaming') return <div className="step-actions" />
  return (
    <div className="step-actions">
      <button
        className="link-btn"
        // Keep the text selection alive while the button is pressed.
        onMouseDown={(e) => e.preventDefault()}
        onClick={() => actions.onRecord(step, selectedTextWithin(bodyRef.current) || step.text)}
        title="Record this message, or the part you selected, as a decision or a proposed change"
      >
        Record decision
      </button>
      <button
        className="link-btn"
        onMouseDown={(e) => e.preventDefault()}
        onClick={() => void navigator.clipboard?.writeText(step.text)}
      >
        Copy
      </button>
    </div>
  )
}

export const StepRow = memo(
  function StepRow({
    row,
    memberId,
    actions,
    highlighted,
    undoable = false,
    undone = false,
  }: {
    row: Row
    memberId: string
    actions: StepActions
    highlighted: boolean
    /** The turn this step starts is the one "Undo this turn" is offered on (turn-undo.ts). */
    undoable?: boolean
    /** The step belongs to a turn that was undone: shown struck. */
    undone?: boolean
  }) {
    const { step } = row
    const bodyRef = useRef<HTMLDivElement>(null)
    const member = useApp((s) => s.members[memberId])
    const from = useApp((s) => (step.fromMemberId ? s.members[step.fromMemberId] : undefined))
    const approvals = useApp((s) => s.sessions[memberId]?.info.pendingApprovals)
    const cls = `step step-${step.kind}${step.status === 'streaming' ? ' streaming' : ''}${highlighted ? ' highlighted' : ''}${undone ? ' turn-undone' : ''}`
    const common = {
      className: cls,
      'data-step-id': step.id,
      'data-kind': step.kind,
      'data-status': step.status,
      'data-testid': 'step',
    }

    switch (step.kind) {
      case 'user':
        return (
          <div {...common}>
            <div className="step-meta">
              <Actions step={step} bodyRef={bodyRef} actions={actions} />
              <span className="who">You</span>
              <span className="when">{shortTime(step.startedAt)}</span>
            </div>
            <div className="bubble user-bubble" ref={bodyRef}>
              <Markdown text={step.text} refs={step.refs} />
            </div>
            <Cards step={step} />
            <TurnUndo step={step} memberId={memberId} undoable={undoable} />
          </div>
        )
      case 'message':
        return (
          <div {...common}>
            <div className="step-meta">
              {from && <Avatar id={from.id} name={from.name} size={20} />}
              <span className="who" data-origin={step.origin ?? undefined}>
                {step.origin === 'concord'
                  ? `Started by Concord: ${step.text.split('\n')[0]}`
                  : `From ${from?.name ?? 'another member'}`}
              </span>
              <span className="when">{shortTime(step.startedAt)}</span>
              <Actions step={step} bodyRef={bodyRef} actions={actions} />
            </div>
            <div className="bubble message-bubble" ref={bodyRef}>
              <Markdown text={step.text} refs={step.refs} />
            </div>
            <Cards step={step} />
            <TurnUndo step={step} memberId={memberId} undoable={undoable} />
          </div>
        )
      case 'model':
      case 'plan': {
        // A model call that failed or was stopped before its first word: the error or interrupted
        // step after it says what happened.
        if (!step.text && !step.toolCalls.length && (step.status === 'error' || step.status === 'interrupted'))
          return null
        return (
          <div {...common}>
            <div className="step-meta">
              {member && <Avatar id={member.id} name={member.name} size={20} />}
              <span className="who">{member?.name ?? 'Member'}</span>
              {step.kind === 'plan' && <span className="badge badge-info">plan</span>}
              <span className="when">{shortTime(step.startedAt)}</span>
              <Actions step={step} bodyRef={bodyRef} actions={actions} />
              {step.usage ? (
                <span className="tokens" title="tokens in / out">
                  {compactNumber(step.usage.input)} → {compactNumber(step.usage.output)} tok
                </span>
              ) : (
                step.status === 'done' && (
                  <span className="tokens" title="The provider sent no token usage for this reply">
                    tokens not reported
                  </span>
                )
              )}
            </div>
            {(step.text || step.status === 'streaming') && (
              <div className={`bubble model-bubble${step.status === 'streaming' ? ' is-streaming' : ''}`} ref={bodyRef}>
                {step.text ? (
                  <Markdown text={step.text} streaming={step.status === 'streaming'} refs={step.refs} />
                ) : (
                  <span className="cursor" aria-label="waiting for the first words" />
                )}
              </div>
            )}
            {step.toolCalls.length > 0 && (
              <div className="toolcalls">
                {step.toolCalls.map((c) => {
                  const result = row.results.get(c.id)
                  const approvalId = result?.tool?.callId ?? c.id
                  const awaiting =
                    result?.status === 'waiting_approval' || approvals?.some((a) => a.callId === approvalId) === true
                  return <ToolCall key={c.id} memberId={memberId} call={c} result={result} awaiting={awaiting} />
                })}
              </div>
            )}
            <Cards step={step} tools={row.tools} />
            <TurnChanges step={step} />
            {/* A turn that ended with a tool call (submit_report) has its changes on that folded tool step. */}
            {row.tools.map((t) => (
              <TurnChanges key={t.id} step={t} />
            ))}
          </div>
        )
      }
      case 'tool':
        return (
          <div {...common}>
            {step.tool && (
              <ToolCall
                memberId={memberId}
                call={{ id: step.tool.callId, name: step.tool.name, argumentsText: step.tool.argumentsText }}
                result={step}
                awaiting={step.status === 'waiting_approval'}
              />
            )}
            <TurnChanges step={step} />
          </div>
        )
      case 'notice':
        return (
          <div {...common}>
            <div className="notice-box">
              <div className="notice-title">
                Notice to {member?.name ?? 'member'} · {shortTime(step.startedAt)}
              </div>
              <Markdown text={step.text} refs={step.refs} />
            </div>
            <Cards step={step} />
          </div>
        )
      case 'error':
        return (
          <div {...common}>
            <ErrorBox step={step} memberId={memberId} />
            <TurnChanges step={step} />
          </div>
        )
      case 'interrupted':
        return (
          <div {...common}>
            <div className="interrupted-line">Interrupted{step.text ? `: ${step.text}` : ''}</div>
            <TurnChanges step={step} />
          </div>
        )
      default:
        return null
    }
  },
  (a, b) =>
    a.row.step === b.row.step &&
    a.memberId === b.memberId &&
    a.actions === b.actions &&
    a.highlighted === b.highlighted &&
    a.undoable === b.undoable &&
    a.undone === b.undone &&
    a.row.tools.length === b.row.tools.length &&
    a.row.tools.every((t, i) => t === b.row.tools[i]),
)
