/**
 * A number input that keeps what is typed within [min, max]: a larger number becomes max, a smaller one min, and
 * what is not a number (an emptied field) min.
 */
export function BoundedNumber({
  value,
  min,
  max,
  onChange,
  label,
}: {
  value: number
  min: number
  max: number
  onChange(value: number): void
  /** The input's aria-label. */
  label: string
}) {
  return (
    <input
      type="number"
      min={min}
      max={max}
      value={value}
      onChange={(e) => onChange(Math.min(max, Math.max(min, Number(e.target.value) || min)))}
      aria-label={label}
    />
  )
}
