import type { ReactNode } from 'react'
import { DialogActions } from './DialogActions'
import { Modal } from './ui'

/**
 * A dialog that does one thing (save settings, add a member): its fields, then Cancel and the primary button that
 * runs `action` (a useAction), disabled while it runs or while `disabled` says the fields are not ready.
 */
export function ActionDialog({
  title,
  onClose,
  action,
  confirmLabel = 'Save',
  disabled,
  testId,
  wide,
  children,
}: {
  title: string
  onClose(): void
  action: { run(): Promise<unknown>; pending: boolean }
  confirmLabel?: ReactNode
  disabled?: boolean
  testId?: string
  wide?: boolean
  children: ReactNode
}) {
  return (
    <Modal
      title={title}
      onClose={onClose}
      wide={wide}
      footer={
        <DialogActions
          onCancel={onClose}
          onConfirm={() => void action.run()}
          confirmLabel={confirmLabel}
          disabled={action.pending || disabled}
          testId={testId}
        />
      }
    >
      {children}
    </Modal>
  )
}
