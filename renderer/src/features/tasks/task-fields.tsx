import type { Task } from '../../../../shared/schemas'
import { reportKinds as kinds } from '../../../../shared/report-kinds'
import { useApp } from '../../stores/app-store'
import { selectDecisions, selectMembers } from '../../stores/selectors'
import { CheckboxRow } from '../../components/CheckboxRow'
import { Field } from '../../components/ui'

export type ReportKind = Task['requiredReports'][number]
export const reportKinds: readonly ReportKind[] = kinds

/** Toggle chips for a set of values (the reports acceptance needs, the decisions a task depends on). */
export function Chips<T extends string>({
  label,
  options,
  picked,
  onChange,
}: {
  label: string
  options: { value: T; text: string; title?: string }[]
  picked: T[]
  onChange(next: T[]): void
}) {
  return (
    <div className="field">
      <span className="field-label">{label}</span>
      <div className="chips">
        {options.map((o) => (
          <button
            type="button"
            key={o.value}
            className={`chip${picked.includes(o.value) ? ' on' : ''}`}
            aria-pressed={picked.includes(o.value)}
            onClick={() =>
              onChange(picked.includes(o.value) ? picked.filter((x) => x !== o.value) : [...picked, o.value])
            }
            title={o.title}
          >
            {o.text}
          </button>
        ))}
      </div>
    </div>
  )
}

export function RequiredReports({ picked, onChange }: { picked: ReportKind[]; onChange(next: ReportKind[]): void }) {
  return (
    <Chips
      label="Reports required to accept"
      options={reportKinds.map((k) => ({ value: k, text: k }))}
      picked={picked}
      onChange={onChange}
    />
  )
}

export function DependsOn({ picked, onChange }: { picked: string[]; onChange(next: string[]): void }) {
  const decisions = useApp(selectDecisions)
  if (decisions.length === 0) return null
  return (
    <Chips
      label="Depends on"
      options={decisions.map((d) => ({ value: d.id, text: d.key, title: d.title }))}
      picked={picked}
      onChange={onChange}
    />
  )
}

export function AssigneeSelect({
  value,
  onChange,
  label,
}: {
  value: string
  onChange(id: string): void
  label?: string
}) {
  const members = useApp(selectMembers)
  return (
    <select value={value} onChange={(e) => onChange(e.target.value)} aria-label={label}>
      <option value="">unassigned</option>
      {members.map((m) => (
        <option key={m.id} value={m.id}>
          {m.name} ({m.role})
        </option>
      ))}
    </select>
  )
}

/** Plan first: the assignee's first turn writes a plan in a read-only tree, and code waits for your approval. */
export function PlanFirstCheck({ checked, onChange }: { checked: boolean; onChange(next: boolean): void }) {
  return (
    <CheckboxRow
      checked={checked}
      onChange={onChange}
      testId="plan-first"
      title="The assignee first writes a plan in a read-only tree; code only once you approve it"
    >
      Plan first: approve a plan before any code is written
    </CheckboxRow>
  )
}

/** What must hold for the task to be accepted. */
export function CriteriaField({
  value,
  onChange,
  placeholder,
}: {
  value: string
  onChange(text: string): void
  placeholder?: string
}) {
  return (
    <Field label="Acceptance criteria">
      <textarea
        value={value}
        onChange={(e) => onChange(e.target.value)}
        rows={2}
        aria-label="Acceptance criteria"
        placeholder={placeholder}
      />
    </Field>
  )
}
