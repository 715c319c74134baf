import { useState } from 'react'
import type { Step, StepToolCall } from '../../../../shared/schemas'
import { Markdown } from '../../components/Markdown'
import { Badge } from '../../components/ui'
import { useApp } from '../../stores/app-store'
import { questionText } from '../../stores/steps'
import { ApprovalPreview, approvalView } from './ApprovalPreview'
import { ApproveButtons } from './ApproveButtons'

// The inbox offers the same buttons.
export { ApproveButtons }

const VIEW_LIMIT = 4000

function summarize(argumentsText: string): string {
  try {
    const args = JSON.parse(argumentsText) as Record<string, unknown>
    const parts = Object.entries(args).map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    const text = parts.join(', ')
    return text.length > 90 ? text.slice(0, 89) + '…' : text
  } catch {
    return argumentsText.length > 90 ? argumentsText.slice(0, 89) + '…' : argumentsText
  }
}

function pretty(argumentsText: string): string {
  try {
    return JSON.stringify(JSON.parse(argumentsText), null, 2)
  } catch {
    return argumentsText
  }
}

const statusTone: Record<Step['status'], 'warn' | 'info' | 'good' | 'bad' | 'neutral'> = {
  queued: 'neutral',
  waiting_approval: 'warn',
  running: 'info',
  done: 'good',
  denied: 'bad',
  error: 'bad',
  streaming: 'info',
  interrupted: 'neutral',
}
const statusWord: Record<Step['status'], string> = {
  queued: 'queued',
  waiting_approval: 'needs approval',
  running: 'running',
  done: 'done',
  denied: 'denied',
  error: 'error',
  streaming: 'streaming',
  interrupted: 'interrupted',
}

/** A member's question to the human, shown as a question (not a folded tool call); the open one asks for an answer. */
export function Question({ memberId, question, answered }: { memberId: string; question: string; answered?: boolean }) {
  const member = useApp((s) => s.members[memberId])
  const focusComposer = useApp((s) => s.focusComposer)
  const selectMember = useApp((s) => s.selectMember)
  return (
    <div
      className={`question-box${answered ? ' answered' : ''}`}
      data-testid="question"
      data-answered={answered ? 'true' : 'false'}
    >
      <div className="question-title">
        {member?.name ?? 'The member'} {answered ? 'asked you' : 'asks you'}
      </div>
      <Markdown text={question} />
      {!answered && (
        <button
          className="link-btn small"
          onClick={() => {
            selectMember(memberId)
            focusComposer()
          }}
        >
          Answer in the message box
        </button>
      )}
    </div>
  )
}

interface ToolCallProps {
  memberId: string
  call: StepToolCall
  result: Step | undefined
  awaiting: boolean
}

/** One tool call folded with its result: a line when closed, arguments and observation when open. */
export function ToolCall({ memberId, call, result, awaiting }: ToolCallProps) {
  const question = call.name === 'ask_human' ? questionText(call.argumentsText) : null
  const open = useApp((s) => s.sessions[memberId]?.info.question?.stepId)
  if (question && result?.status === 'done' && !result.tool?.isError)
    return <Question memberId={memberId} question={question} answered={open !== result.id} />
  return <FoldedToolCall memberId={memberId} call={call} result={result} awaiting={awaiting} />
}

function FoldedToolCall({ memberId, call, result, awaiting }: ToolCallProps) {
  const [open, setOpen] = useState(false)
  const [all, setAll] = useState(false)
  const approvalId = result?.tool?.callId ?? call.id
  // The file a waiting write would overwrite, as it is now (on the session's pending approval).
  const pendingCurrent = useApp(
    (s) => s.sessions[memberId]?.info.pendingApprovals.find((a) => a.callId === approvalId)?.current,
  )
  const status = awaiting ? 'waiting_approval' : (result?.status ?? 'running')
  const isError = result?.tool?.isError || status === 'error'
  const output = result?.text ?? ''
  return (
    <div className={`toolcall${isError ? ' is-error' : ''}`} data-testid="tool-call" data-status={status}>
      <button className="toolcall-head" onClick={() => setOpen(!open)} aria-expanded={open}>
        <span className="chev">{open ? '▾' : '▸'}</span>
        <span className="toolcall-name">{call.name}</span>
        <span className="toolcall-args">{summarize(call.argumentsText)}</span>
        <Badge tone={isError ? 'bad' : statusTone[status]}>
          {isError && status === 'done' ? 'error' : statusWord[status]}
        </Badge>
      </button>
      {awaiting && (
        <div className="toolcall-approval">
          <ApprovalPreview argumentsText={call.argumentsText} current={pendingCurrent} />
          Run <code>{call.name}</code>? <ApproveButtons memberId={memberId} callId={approvalId} tool={call.name} />
        </div>
      )}
      {open && (
        <div className="toolcall-body">
          <div className="toolcall-label">Arguments</div>
          {awaiting || approvalView(call.argumentsText).kind === 'json' ? (
            <pre className="code">{pretty(call.argumentsText)}</pre>
          ) : (
            <ApprovalPreview argumentsText={call.argumentsText} />
          )}
          {result && (
            <>
              <div className="toolcall-label">Result</div>
              <pre className="code">
                {all || output.length <= VIEW_LIMIT ? output || '(no output)' : output.slice(0, VIEW_LIMIT)}
              </pre>
              {!all && output.length > VIEW_LIMIT && (
                <button className="link-btn" onClick={() => setAll(true)}>
                  Show all {output.length.toLocaleString()} characters
                </button>
              )}
            </>
          )}
        </div>
      )}
    </div>
  )
}
