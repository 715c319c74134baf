/** A drop-down of values, each with its words; `label` names it for assistive technology. */
export function SelectOne<T extends string>({
  value,
  onChange,
  options,
  label,
  className,
  testId,
}: {
  value: T
  onChange(value: NoInfer<T>): void
  options: readonly { value: T; text: string }[]
  label: string
  className?: string
  testId?: string
}) {
  return (
    <select
      value={value}
      onChange={(e) => onChange(e.target.value as T)}
      aria-label={label}
      className={className}
      data-testid={testId}
    >
      {options.map((o) => (
        <option key={o.value} value={o.value}>
          {o.text}
        </option>
      ))}
    </select>
  )
}
