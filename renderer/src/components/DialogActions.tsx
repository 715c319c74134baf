import type { ReactNode } from 'react'

/**
 * A dialog's footer: Cancel, then its one primary button (Save, Add member, Start…). `before` goes first
 * (a count, a note).
 */
export function DialogActions({
  onCancel,
  onConfirm,
  confirmLabel,
  disabled,
  testId,
  before,
}: {
  onCancel(): void
  onConfirm(): void
  confirmLabel: ReactNode
  disabled?: boolean
  testId?: string
  before?: ReactNode
}) {
  return (
    <>
      {before}
      <button className="btn" onClick={onCancel}>
        Cancel
      </button>
      <button className="btn primary" disabled={disabled} onClick={onConfirm} data-testid={testId}>
        {confirmLabel}
      </button>
    </>
  )
}
