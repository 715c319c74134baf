import { useRef } from 'react'
import type { Step } from '../../../../shared/schemas'
import { Markdown } from '../../components/Markdown'
import { Avatar } from '../../components/ui'
import { compactNumber, shortTime } from '../../lib/format'
import { useApp } from '../../stores/app-store'
import type { Row } from '../../stores/steps'
import { Actions } from './StepActions'
import { Cards } from './StepCards'
import type { StepKindProps } from './StepKinds'
import { ToolCall } from './ToolCall'
import { TurnChanges } from './TurnChanges'

/** The tokens a reply used, or that the provider sent none. */
function Tokens({ step }: { step: Step }) {
  if (step.usage)
    return (
      <span className="tokens" title="tokens in / out">
        {compactNumber(step.usage.input)} → {compactNumber(step.usage.output)} tok
      </span>
    )
  return (
    step.status === 'done' && (
      <span className="tokens" title="The provider sent no token usage for this reply">
        tokens not reported
      </span>
    )
  )
}

/** The calls a model step made, each with its result and whether it waits for approval. */
function ToolCalls({ row, memberId }: { row: Row; memberId: string }) {
  const approvals = useApp((s) => s.sessions[memberId]?.info.pendingApprovals)
  return (
    <div className="toolcalls">
      {row.step.toolCalls.map((c) => {
        const result = row.results.get(c.id)
        const approvalId = result?.tool?.callId ?? c.id
        const awaiting =
          result?.status === 'waiting_approval' || approvals?.some((a) => a.callId === approvalId) === true
        return <ToolCall key={c.id} memberId={memberId} call={c} result={result} awaiting={awaiting} />
      })}
    </div>
  )
}

/** A model reply or plan: who, when, tokens, the text (streaming), its tool calls, cards and changes. */
export function ModelStep({ row, memberId, actions, box }: StepKindProps) {
  const { step } = row
  const bodyRef = useRef<HTMLDivElement>(null)
  const member = useApp((s) => s.members[memberId])
  // A model call that failed or was stopped before its first word: the error or interrupted
  // step after it says what happened.
  if (!step.text && !step.toolCalls.length && (step.status === 'error' || step.status === 'interrupted')) return null
  return (
    <div {...box}>
      <div className="step-meta">
        {member && <Avatar id={member.id} name={member.name} size={20} />}
        <span className="who">{member?.name ?? 'Member'}</span>
        {step.kind === 'plan' && <span className="badge badge-info">plan</span>}
        <span className="when">{shortTime(step.startedAt)}</span>
        <Actions step={step} bodyRef={bodyRef} actions={actions} />
        <Tokens step={step} />
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
      {step.toolCalls.length > 0 && <ToolCalls row={row} memberId={memberId} />}
      <Cards step={step} tools={row.tools} />
      <TurnChanges step={step} />
      {/* A turn that ended with a tool call (submit_report) has its changes on that folded tool step. */}
      {row.tools.map((t) => (
        <TurnChanges key={t.id} step={t} />
      ))}
    </div>
  )
}
