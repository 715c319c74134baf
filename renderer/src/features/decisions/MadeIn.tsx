import { useApp } from '../../stores/app-store'
import { excerpt } from '../../lib/format'
import { markdownToPlain } from '../../lib/plain-text'
import { findStep } from '../../stores/selectors'

/**
 * "Made in Implementer's session: '…'" with a link that opens the message in its session; when the step is
 * not loaded yet, the member it belongs to (from the history) is enough to open the session at it.
 */
export function MadeIn({ stepId, memberId: knownMemberId }: { stepId: string | null; memberId?: string | null }) {
  // Two selections of stable values (a fresh {memberId, step} object each time would re-render forever).
  const memberId = useApp((s) => (stepId ? findStep(s, stepId)?.memberId : undefined))
  const step = useApp((s) => (stepId ? findStep(s, stepId)?.step : undefined))
  const where = memberId && step ? { memberId, step } : null
  const name = useApp((s) => (memberId ? s.members[memberId]?.name : undefined))
  const knownName = useApp((s) => (knownMemberId ? s.members[knownMemberId]?.name : undefined))
  const focusStep = useApp((s) => s.focusStep)
  const selectMember = useApp((s) => s.selectMember)
  if (!stepId) return null
  if (!where) {
    if (!knownMemberId) return <span className="muted">from a message that is no longer in any session</span>
    return (
      <button
        className="link-btn made-in"
        data-testid="made-in"
        onClick={() => {
          selectMember(knownMemberId)
          focusStep(knownMemberId, stepId)
        }}
      >
        from a message in {knownName ?? 'a member'}’s session
      </button>
    )
  }
  return (
    <button className="link-btn made-in" onClick={() => focusStep(where.memberId, stepId)} data-testid="made-in">
      from {where.step.kind === 'user' ? 'your message to' : 'a message in'} {name ?? 'a member'}’s session: “
      {excerpt(markdownToPlain(where.step.text), 60)}”
    </button>
  )
}
