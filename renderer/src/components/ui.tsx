import { createContext, useContext, useEffect, useRef, type ReactNode } from 'react'
import { createPortal } from 'react-dom'
import type { SessionInfo } from '../../../shared/schemas'

type MemberState = SessionInfo['state']
import { hueOf, initials } from '../lib/format'

export function Badge({
  tone = 'neutral',
  children,
  title,
}: {
  tone?: 'neutral' | 'good' | 'warn' | 'bad' | 'info' | 'accent'
  children: ReactNode
  title?: string
}) {
  return (
    <span className={`badge badge-${tone}`} title={title}>
      {children}
    </span>
  )
}

export function Avatar({ id, name, size = 28 }: { id: string; name: string; size?: number }) {
  const hue = hueOf(id)
  return (
    <span
      className="avatar"
      style={{ width: size, height: size, fontSize: size * 0.4, background: `hsl(${hue} 55% 45%)` }}
      aria-hidden
    >
      {initials(name)}
    </span>
  )
}

export const stateWords: Record<MemberState, string> = {
  idle: 'idle',
  running: 'running',
  waiting_approval: 'waiting for approval',
  error: 'error',
}

export function StatusDot({ state }: { state: MemberState }) {
  return <span className={`status-dot status-${state}`} title={stateWords[state]} aria-label={stateWords[state]} />
}

export function EmptyState({ title, children, action }: { title: string; children?: ReactNode; action?: ReactNode }) {
  return (
    <div className="empty">
      <div className="empty-title">{title}</div>
      {children && <div className="empty-text">{children}</div>}
      {action && <div className="empty-action">{action}</div>}
    </div>
  )
}

export function ErrorText({ error }: { error: string | null | undefined }) {
  if (!error) return null
  return (
    <div className="error-text" role="alert">
      {error}
    </div>
  )
}

const focusable =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])'

/** Tab and Shift+Tab cycle within an open dialog instead of walking into the page behind it. */
function keepFocusInside(e: KeyboardEvent, dialog: HTMLElement | null): void {
  const items = dialog ? [...dialog.querySelectorAll<HTMLElement>(focusable)] : []
  const first = items[0]
  const last = items.at(-1)
  if (!dialog || !first || !last) return
  const inside = dialog.contains(document.activeElement)
  if (e.shiftKey && (document.activeElement === first || !inside)) {
    e.preventDefault()
    last.focus()
  } else if (!e.shiftKey && (document.activeElement === last || !inside)) {
    e.preventDefault()
    first.focus()
  }
}

/** How deep a modal is nested in other modals (a folder chooser over a form is 2). */
const ModalDepth = createContext(0)

/**
 * A dialog over the whole window. Rendered into <body>: inside a session panel (CSS containment makes
 * it the containing block of fixed elements) it would otherwise cover only that panel.
 */
export function Modal({
  title,
  onClose,
  children,
  footer,
  wide,
}: {
  title: string
  onClose(): void
  children: ReactNode
  footer?: ReactNode
  wide?: boolean
}) {
  const depth = useContext(ModalDepth) + 1
  const ref = useRef<HTMLDivElement>(null)
  const close = useRef(onClose)
  useEffect(() => {
    close.current = onClose
  })
  useEffect(() => {
    // Focus moves into the dialog, and back to what had it when the dialog closes.
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null
    // A field marked data-autofocus (what the dialog was opened to change) first, else the first field.
    const el =
      ref.current?.querySelector<HTMLElement>('[data-autofocus]') ??
      ref.current?.querySelector<HTMLElement>('input, textarea, select, button.primary')
    el?.focus()
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' && e.key !== 'Tab') return
      // Only the innermost open modal answers.
      const deepest = Math.max(
        ...[...document.querySelectorAll<HTMLElement>('.modal')].map((m) => Number(m.dataset.depth)),
      )
      if (depth !== deepest) return
      if (e.key === 'Tab') {
        keepFocusInside(e, ref.current)
        return
      }
      e.stopPropagation()
      close.current()
    }
    window.addEventListener('keydown', onKey, true)
    return () => {
      window.removeEventListener('keydown', onKey, true)
      if (opener?.isConnected) opener.focus({ preventScroll: true })
    }
  }, [depth])
  return createPortal(
    <ModalDepth.Provider value={depth}>
      <div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
        <div
          className={`modal${wide ? ' modal-wide' : ''}`}
          role="dialog"
          aria-modal="true"
          aria-label={title}
          ref={ref}
          data-depth={depth}
        >
          <div className="modal-head">
            <h2>{title}</h2>
            <button className="icon-btn" onClick={onClose} aria-label="Close">
              ×
            </button>
          </div>
          <div className="modal-body">{children}</div>
          {footer && <div className="modal-foot">{footer}</div>}
        </div>
      </div>
    </ModalDepth.Provider>,
    document.body,
  )
}

export function Field({ label, hint, children }: { label: string; hint?: ReactNode; children: ReactNode }) {
  return (
    <label className="field">
      <span className="field-label">{label}</span>
      {children}
      {hint && <span className="field-hint">{hint}</span>}
    </label>
  )
}

/** A small inline form in a panel: its fields, the last error, then Cancel and the submit button. */
export function CardForm({
  onSubmit,
  onCancel,
  submitLabel,
  canSubmit,
  error,
  extra,
  children,
}: {
  onSubmit(): void
  onCancel(): void
  submitLabel: string
  canSubmit: boolean
  error?: string
  /** Another way to submit, beside the submit button (e.g. "Create and start"). */
  extra?: ReactNode
  children: ReactNode
}) {
  return (
    <form
      className="card-form"
      onSubmit={(e) => {
        e.preventDefault()
        onSubmit()
      }}
    >
      {children}
      <ErrorText error={error} />
      <div className="form-actions">
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
        {extra}
        <button className="btn primary" disabled={!canSubmit}>
          {submitLabel}
        </button>
      </div>
    </form>
  )
}
