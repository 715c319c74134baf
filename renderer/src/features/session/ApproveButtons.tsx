/**
 * A waiting tool call's buttons: Allow, Always allow (a rule for this member or the whole team, made from the call),
 * Deny with a reason. The buttons carry data-action so the approval bar's keys (A, L, D) press them.
 */
import { useEffect, useRef, useState } from 'react'
import { ChoiceButtons } from '../../components/ChoiceButtons'
import { SubmitForm } from '../../components/SubmitForm'
import { Badge } from '../../components/ui'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'

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

export function ApproveButtons({ memberId, callId, tool }: { memberId: string; callId: string; tool?: string }) {
  const api = useApp((s) => s.api)
  const suggestion = useApp(
    (s) => s.sessions[memberId]?.info.pendingApprovals.find((a) => a.callId === callId)?.suggestion,
  )
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
  const back = () => setMode('buttons')
  if (mode === 'deny')
    return (
      <DenyReason
        reason={reason}
        setReason={setReason}
        pending={act.pending}
        error={act.error}
        onDeny={() => void act.run(false)}
        onBack={back}
      />
    )
  if (mode === 'always')
    return <AlwaysAllow memberId={memberId} tool={tool} suggestion={suggestion} always={always} onBack={back} />
  return (
    <span className="approve">
      {tool && <SandboxBadge tool={tool} />}
      <ChoiceButtons
        disabled={act.pending}
        choices={[
          {
            label: 'Allow',
            tone: 'primary',
            onClick: () => void act.run(true),
            action: 'allow',
            title: 'Allow this call (A)',
          },
          {
            label: 'Always…',
            onClick: () => setMode('always'),
            action: 'always',
            title: 'Allow it and every call like it, for this member or the team (L)',
          },
          {
            label: 'Deny…',
            tone: 'danger',
            onClick: () => setMode('deny'),
            action: 'deny',
            title: 'Deny this call, with a reason the agent receives (D)',
          },
        ]}
      />
      {error && <span className="error-inline">{error.message}</span>}
    </span>
  )
}

/** Deny, with a reason the agent receives (optional); Escape or Back returns to the buttons. */
function DenyReason(p: {
  reason: string
  setReason(text: string): void
  pending: boolean
  error: { message: string } | null
  onDeny(): void
  onBack(): void
}) {
  return (
    <SubmitForm className="deny-reason" onSubmit={p.onDeny}>
      <input
        autoFocus
        value={p.reason}
        onChange={(e) => p.setReason(e.target.value)}
        placeholder="Why not? (optional; the agent receives it)"
        aria-label="Reason for denying"
        onKeyDown={(e) => e.key === 'Escape' && p.onBack()}
      />
      <button type="submit" className="btn small danger" disabled={p.pending}>
        Deny
      </button>
      <button type="button" className="btn small" onClick={p.onBack}>
        Back
      </button>
      {p.error && <span className="error-inline">{p.error.message}</span>}
    </SubmitForm>
  )
}

/**
 * "Always allow <rule>" for this member or for the team; never the whole tool: a command Concord cannot take apart
 * (or a shell, an interpreter) gets no rule, and says why.
 */
function AlwaysAllow({
  memberId,
  tool,
  suggestion,
  always,
  onBack,
}: {
  memberId: string
  tool?: string
  suggestion?: Suggestion
  always: { run(scope: 'member' | 'team'): unknown; pending: boolean; error: { message: string } | null }
  onBack(): void
}) {
  const memberName = useApp((s) => s.members[memberId]?.name ?? 'this member')
  // Opened from the keyboard (L): Enter then makes the rule for this member.
  const forMember = useRef<HTMLButtonElement>(null)
  useEffect(() => {
    forMember.current?.focus()
  }, [])
  const noRule = suggestion?.noRule
  return (
    <span
      className="approve always-allow"
      role="group"
      aria-label="Always allow"
      data-testid={noRule ? 'no-rule' : undefined}
      onKeyDown={(e) => e.key === 'Escape' && onBack()}
    >
      {noRule ? (
        <>
          <span className="small">No rule offered: {noRule}. Allow it once, or deny it.</span>
          <button ref={forMember} type="button" className="btn small ghost" onClick={onBack} data-action="back">
            Back
          </button>
        </>
      ) : (
        <>
          <span className="small">
            Always allow <code>{suggestionWords(tool ?? 'this tool', suggestion)}</code>
          </span>
          <ChoiceButtons
            disabled={always.pending}
            choices={[
              {
                label: `for ${memberName}`,
                tone: 'primary',
                onClick: () => void always.run('member'),
                action: 'always-member',
                buttonRef: forMember,
              },
              { label: 'for the team', onClick: () => void always.run('team'), action: 'always-team' },
            ]}
          />
          <button type="button" className="btn small ghost" onClick={onBack}>
            Back
          </button>
          {always.error && <span className="error-inline">{always.error.message}</span>}
        </>
      )}
    </span>
  )
}
