import type { ReactNode } from 'react'

/** One of a few options as a row of buttons (a radio group); the chosen one is lit. */
export function Segmented<T extends string>({
  label,
  options,
  value,
  labelOf,
  onChange,
}: {
  /** The group's aria-label. */
  label: string
  options: readonly T[]
  value: T
  labelOf(option: T): ReactNode
  /** Called on every press, the lit option's too. */
  onChange(option: NoInfer<T>): void
}) {
  return (
    <div className="segmented" role="radiogroup" aria-label={label}>
      {options.map((o) => (
        <button
          key={o}
          type="button"
          role="radio"
          aria-checked={value === o}
          className={value === o ? 'on' : ''}
          onClick={() => onChange(o)}
        >
          {labelOf(o)}
        </button>
      ))}
    </div>
  )
}
