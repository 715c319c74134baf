import type { ReactNode } from 'react'

/**
 * A checkbox with its words beside it, in one label (clicking the words ticks the box). `hint` follows the
 * words in small muted type.
 */
export function CheckboxRow({
  checked,
  onChange,
  children,
  hint,
  className = 'check',
  title,
  disabled,
  label,
  testId,
}: {
  checked: boolean
  onChange(checked: boolean): void
  children: ReactNode
  hint?: ReactNode
  /** The label's class: 'check' (the default), 'check small', or a panel's own. */
  className?: string
  title?: string
  disabled?: boolean
  /** The box's aria-label, when its words alone would not name it. */
  label?: string
  testId?: string
}) {
  return (
    <label className={className} title={title}>
      <input
        type="checkbox"
        checked={checked}
        disabled={disabled}
        onChange={(e) => onChange(e.target.checked)}
        aria-label={label}
        data-testid={testId}
      />{' '}
      {children}
      {hint}
    </label>
  )
}
