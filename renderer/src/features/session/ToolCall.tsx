import { useEffect, useRef, useState } from 'react'
import type { Step, StepToolCall } from '../../../../shared/schemas'
import { Markdown } from '../../components/Markdown'
import { Badge } from '../../components/ui'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'
import { questionText } from '../../stores/steps'
import { ApprovalPreview, approvalView } from './ApprovalPreview'

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

/** Tools that run programs: their approval says whether they will run in the OS sandbox. */
const runsPrograms = new Set(['run_command', 'git_commit'])

/** "sandboxed" or, plainly, "not sandboxed" — never a claim the machine cannot back. */
export function SandboxBadge({ tool }: { tool: string }) {
  const sandbox = useApp((s) => s.system?.sandbox)
  if (!sandbox || !runsPrograms.has(tool)) return null
  return sandbox.available ? (
    <Badge
      tone="good"
      title={`Runs in the OS sandbox (${sandbox.kind}): the repository writable, the rest read-only, secrets invisible`}
    >
      sandboxed
    </Badge>
  ) : (
    <Badge tone="warn" title={sandbox.reason ?? 'No OS sandbox on this machine'}>
      not sandboxed
    </Badge>
  )
}

/** The rule "Always allow" adds, in words: the command's first words, else the tool. */
export function suggestionWords(tool: string, suggestion?: Suggestion): string {
  return suggestion?.commandPrefix ? `${suggestion.commandPrefix} …` : (suggestion?.tool ?? tool)
}

type Suggestion = { tool: string; commandPrefix?: string; noRule?: string }

/**
 * Allow, Always allow (a rule for this member or the whole team, made from the call), Deny with a reason. The
 * buttons carry data-action so the approval bar's keys (A, L, D) press them.
 */
export function ApproveButtons({ memberId, callId, tool }: { memberId: string; callId: string; tool?: string }) {
  const api = useApp((s) => s.api)
  const suggestion = useApp(
    (s) => s.sessions[memberId]?.info.pendingApprovals.find((a) => a.callId === callId)?.suggestion,
  )
  const memberName = useApp((s) => s.members[memberId]?.name ?? 'this member')
  const [mode, setMode] = useState<'buttons' | 'deny' | 'always'>('buttons')
  const [reason, setReason] = useState('')
  // The state that follows comes through session.state events; the reply may arrive after newer ones.
  const act = useAction(async (allow: boolean) =>
    api.call('sessions.approve', {
      memberId,
      callId,
      allow,
      ...(!allow && reason.trim() ? { reason: reason.trim() } : {}),
    }),
  )
  const always = useAction(async (scope: 'member' | 'team') =>
    api.call('sessions.allowAlways', { memberId, callId, scope }),
  )
  const error = act.error ?? always.error
  // Opened from the keyboard (L): Enter then makes the rule for this member.
  const forMember = useRef<HTMLButtonElement>(null)
  useEffect(() => {
    if (mode === 'always') forMember.current?.focus()
  }, [mode])
  if (mode === 'deny') {
    return (
      <form
        className="deny-reason"
        onSubmit={(e) => {
          e.preventDefault()
          void act.run(false)
        }}
      >
        <input
          autoFocus
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          placeholder="Why not? (optional; the agent receives it)"
          aria-label="Reason for denying"
          onKeyDown={(e) => e.key === 'Escape' && setMode('buttons')}
        />
        <button type="submit" className="btn small danger" disabled={act.pending}>
          Deny
        </button>
        <button type="button" className="btn small" onClick={() => setMode('buttons')}>
          Back
        </button>
        {act.error && <span className="error-inline">{act.error.message}</span>}
      </form>
    )
  }
  if (mode === 'always' && suggestion?.noRule) {
    // Never the whole tool: a command Concord cannot take apart (or a shell, an interpreter) gets no rule.
    return (
      <span
        className="approve always-allow"
        role="group"
        aria-label="Always allow"
        data-testid="no-rule"
        onKeyDown={(e) => e.key === 'Escape' && setMode('buttons')}
      >
        <span className="small">No rule offered: {suggestion.noRule}. Allow it once, or deny it.</span>
        <button
          ref={forMember}
          type="button"
          className="btn small ghost"
          onClick={() => setMode('buttons')}
          data-action="back"
        >
          Back
        </button>
      </span>
    )
  }
  if (mode === 'always') {
    const words = suggestionWords(tool ?? 'this tool', suggestion)
    return (
      <span
        className="approve always-allow"
        role="group"
        aria-label="Always allow"
        onKeyDown={(e) => e.key === 'Escape' && setMode('buttons')}
      >
        <span className="small">
          Always allow <code>{words}</code>
        </span>
        <button
          ref={forMember}
          className="btn small primary"
          disabled={always.pending}
          onClick={() => void always.run('member')}
          data-action="always-member"
        >
          for {memberName}
        </button>
        <button
          className="btn small"
          disabled={always.pending}
          onClick={() => void always.run('team')}
          data-action="always-team"
        >
          for the team
        </button>
        <button type="button" className="btn small ghost" onClick={() => setMode('buttons')}>
          Back
        </button>
        {always.error && <span className="error-inline">{always.error.message}</span>}
      </span>
    )
  }
  return (
    <span className="approve">
      {tool && <SandboxBadge tool={tool} />}
      <button
        className="btn small primary"
        disabled={act.pending}
        onClick={() => void act.run(true)}
        data-action="allow"
        title="Allow this call (A)"
      >
        Allow
      </button>
      <button
        className="btn small"
        disabled={act.pending}
        onClick={() => setMode('always')}
        data-action="always"
        title="Allow it and every call like it, for this member or the team (L)"
      >
        Always…
      </button>
      <button
        className="btn small danger"
        disabled={act.pending}
        onClick={() => setMode('deny')}
        data-action="deny"
        title="Deny this call, with a reason the agent receives (D)"
      >
        Deny…
      </button>
      {error && <span className="error-inline">{error.message}</span>}
    </span>
  )
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

/** One tool call folded with its result: a line when closed, arguments and observation when open. */
export function ToolCall({
  memberId,
  call,
  result,
  awaiting,
}: {
  memberId: string
  call: StepToolCall
  result: Step | undefined
  awaiting: boolean
}) {
  const question = call.name === 'ask_human' ? questionText(call.argumentsText) : null
  const open = useApp((s) => s.sessions[memberId]?.info.question?.stepId)
  if (question && result?.status === 'done' && !result.tool?.isError)
    return <Question memberId={memberId} question={question} answered={open !== result.id} />
  return <FoldedToolCall memberId={memberId} call={call} result={result} awaiting={awaiting} />
}

function FoldedToolCall({
  memberId,
  call,
  result,
  awaiting,
}: {
  memberId: string
  call: StepToolCall
  result: Step | undefined
  awaiting: boolean
}) {
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
