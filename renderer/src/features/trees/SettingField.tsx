import type { ReactNode } from 'react'

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
