import type { ReactNode } from 'react'

/** A select over a fixed list of values, each shown in its words. */
export function OptionSelect<T extends string>({
  value,
  options,
  labelOf = (o) => o,
  onChange,
  label,
}: {
  value: T
  options: readonly T[]
  /** The option's words; the value itself when absent. */
  labelOf?(option: T): ReactNode
  onChange(value: NoInfer<T>): void
  /** The select's aria-label. */
  label: string
}) {
  return (
    <select value={value} onChange={(e) => onChange(e.target.value as T)} aria-label={label}>
      {options.map((o) => (
        <option key={o} value={o}>
          {labelOf(o)}
        </option>
      ))}
    </select>
  )
}
