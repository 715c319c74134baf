import { useState, type ReactNode } from 'react'

/** One setting in a tree or forge settings dialog: its name in bold, its input, then what it does in small type. */
export function SettingField({ name, hint, children }: { name: string; hint: ReactNode; children: ReactNode }) {
  return (
    <label className="field">
      <b>{name}</b>
      {children}
      <span className="muted small">{hint}</span>
    </label>
  )
}

/** A small link under the board that opens one of the task-tree settings dialogs. */
export function SettingsLink({
  testId,
  title,
  label,
  dialog,
}: {
  testId: string
  title: string
  label: string
  dialog(onClose: () => void): ReactNode
}) {
  const [open, setOpen] = useState(false)
  return (
    <>
      <button
        className="link-btn small tree-settings-link"
        onClick={() => setOpen(true)}
        data-testid={testId}
        title={title}
      >
        {label}
      </button>
      {open && dialog(() => setOpen(false))}
    </>
  )
}
