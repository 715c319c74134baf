import { useCallback, useEffect, useRef, type RefObject } from 'react'
import { ChoiceButtons } from '../../components/ChoiceButtons'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'
import { approvalSummary } from './ApprovalPreview'
import { ApproveButtons } from './ApproveButtons'

/** Whether a key press belongs to a field (typing), not to the approval bar's shortcuts. */
const typing = (t: EventTarget | null) =>
  t instanceof HTMLElement && (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName))

/** The bar's keys: A, L and D press the first call's buttons (by their data-action), Shift+A allows every call. */
function useApprovalKeys(bar: RefObject<HTMLDivElement | null>, on: boolean, allowAll: () => void) {
  useEffect(() => {
    if (!on) return
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return
      const press = (action: string) => {
        const button = bar.current?.querySelector<HTMLButtonElement>(
          `[data-testid=approval-item] [data-action=${action}]`,
        )
        if (!button) return
        e.preventDefault()
        button.click()
      }
      if (e.key === 'A' && e.shiftKey) {
        e.preventDefault()
        allowAll()
      } else if (e.key === 'a') press('allow')
      else if (e.key === 'l') press('always')
      else if (e.key === 'd') press('deny')
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [bar, on, allowAll])
}

/**
 * The calls a member waits on, each with why it asks and its buttons. Keys (outside a text field): A allows the
 * first, L "always allows" it, D denies it (with a reason), Shift+A allows every call waiting.
 */
export function ApprovalBar({ memberId, keys }: { memberId: string; keys: boolean }) {
  const api = useApp((s) => s.api)
  const approvals = useApp((s) => s.sessions[memberId]?.info.pendingApprovals)
  const bar = useRef<HTMLDivElement>(null)
  const all = useAction(async (allow: boolean) => {
    for (const a of approvals ?? [])
      await api.call('sessions.approve', { memberId, callId: a.callId, allow }).catch(() => undefined)
  })
  const count = approvals?.length ?? 0
  const allRun = all.run
  const allowAll = useCallback(() => void allRun(true), [allRun])
  useApprovalKeys(bar, keys && count > 0, allowAll)
  if (!approvals?.length) return null
  return (
    <div className="approval-bar" data-testid="approval-bar" ref={bar}>
      {approvals.map((a) => (
        <div key={a.callId} className="approval-item" data-testid="approval-item" data-call-id={a.callId}>
          <span className="approval-what">
            Wants to run <code>{a.name}</code> <span className="muted mono">{approvalSummary(a.argumentsText)}</span>
            {a.why && (
              <span className="approval-why small" data-testid="approval-why">
                Asks because {a.why}.
              </span>
            )}
          </span>
          <ApproveButtons memberId={memberId} callId={a.callId} tool={a.name} />
        </div>
      ))}
      <div className="approval-keys muted small">
        {count > 1 && (
          <ChoiceButtons
            disabled={all.pending}
            choices={[
              { label: `Allow all ${count}`, tone: 'primary', onClick: () => void all.run(true), testId: 'allow-all' },
              { label: 'Deny all', tone: 'danger', onClick: () => void all.run(false), testId: 'deny-all' },
            ]}
          />
        )}
        {keys && <KeysHint many={count > 1} />}
      </div>
    </div>
  )
}

function KeysHint({ many }: { many: boolean }) {
  return (
    <span>
      Keys: <kbd>A</kbd> allow · <kbd>L</kbd> always allow · <kbd>D</kbd> deny{many ? ' (the first)' : ''}
      {many ? (
        <>
          {' '}
          · <kbd>Shift</kbd>+<kbd>A</kbd> allow all
        </>
      ) : null}
    </span>
  )
}
