import { useRef, type RefObject } from 'react'
import { Markdown } from '../../components/Markdown'
import { Avatar } from '../../components/ui'
import { shortTime } from '../../lib/format'
import { useApp } from '../../stores/app-store'
import type { Row } from '../../stores/steps'
import { ErrorBox } from './ErrorBox'
import { StepImages } from './StepImages'
import { Actions, type StepActions } from './StepActions'
import { Cards } from './StepCards'
import { ToolCall } from './ToolCall'
import { TurnChanges } from './TurnChanges'
import { TurnUndo } from './TurnUndo'

/** The attributes every step's outer box carries (class, ids, kind, status). */
export interface StepBox {
  className: string
  'data-step-id': string
  'data-kind': string
  'data-status': string
  'data-testid': string
}

export interface StepKindProps {
  row: Row
  memberId: string
  actions: StepActions
  undoable: boolean
  box: StepBox
}

/** A message's text in its bubble (none for images alone), its images, then its cards and the turn's undo. */
function Bubble({
  className,
  bodyRef,
  step,
  memberId,
  undoable,
}: {
  className: string
  bodyRef: RefObject<HTMLDivElement | null>
  step: Row['step']
  memberId: string
  undoable: boolean
}) {
  return (
    <>
      {(step.text.trim() || !step.images) && (
        <div className={`bubble ${className}`} ref={bodyRef}>
          <Markdown text={step.text} refs={step.refs} />
        </div>
      )}
      <StepImages stepId={step.id} count={step.images} />
      <Cards step={step} />
      <TurnUndo step={step} memberId={memberId} undoable={undoable} />
    </>
  )
}

export function UserStep({ row: { step }, memberId, actions, undoable, box }: StepKindProps) {
  const bodyRef = useRef<HTMLDivElement>(null)
  return (
    <div {...box}>
      <div className="step-meta">
        <Actions step={step} bodyRef={bodyRef} actions={actions} />
        <span className="who">You</span>
        <span className="when">{shortTime(step.startedAt)}</span>
      </div>
      <Bubble className="user-bubble" bodyRef={bodyRef} step={step} memberId={memberId} undoable={undoable} />
    </div>
  )
}

export function MessageStep({ row: { step }, memberId, actions, undoable, box }: StepKindProps) {
  const bodyRef = useRef<HTMLDivElement>(null)
  const from = useApp((s) => (step.fromMemberId ? s.members[step.fromMemberId] : undefined))
  return (
    <div {...box}>
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
      <Bubble className="message-bubble" bodyRef={bodyRef} step={step} memberId={memberId} undoable={undoable} />
    </div>
  )
}

export function ToolStep({ row: { step }, memberId, box }: StepKindProps) {
  return (
    <div {...box}>
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
}

export function NoticeStep({ row: { step }, memberId, box }: StepKindProps) {
  const member = useApp((s) => s.members[memberId])
  return (
    <div {...box}>
      <div className="notice-box">
        <div className="notice-title">
          Notice to {member?.name ?? 'member'} · {shortTime(step.startedAt)}
        </div>
        <Markdown text={step.text} refs={step.refs} />
      </div>
      <Cards step={step} />
    </div>
  )
}

export function ErrorStep({ row: { step }, memberId, box }: StepKindProps) {
  return (
    <div {...box}>
      <ErrorBox step={step} memberId={memberId} />
      <TurnChanges step={step} />
    </div>
  )
}

export function InterruptedStep({ row: { step }, box }: StepKindProps) {
  return (
    <div {...box}>
      <div className="interrupted-line">Interrupted{step.text ? `: ${step.text}` : ''}</div>
      <TurnChanges step={step} />
    </div>
  )
}
