import { useState } from 'react'
import { CardForm, Field } from '../../components/ui'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'
import { AssigneeSelect, DependsOn, PlanFirstCheck, RequiredReports, type ReportKind } from './task-fields'

export function NewTaskForm({ onClose }: { onClose(): void }) {
  const api = useApp((s) => s.api)
  const workspaceId = useApp((s) => s.workspaceId)!
  const applyTask = useApp((s) => s.applyTask)
  const [title, setTitle] = useState('')
  const [spec, setSpec] = useState('')
  const [assigneeId, setAssigneeId] = useState('')
  const [picked, setPicked] = useState<string[]>([])
  const [criteria, setCriteria] = useState('')
  const [required, setRequired] = useState<ReportKind[]>(['test', 'review'])
  const planFirstDefault = useApp((s) => s.workspaceSettings?.planFirst ?? false)
  const [planFirst, setPlanFirst] = useState(planFirstDefault)
  const create = useAction(async () => {
    applyTask(
      await api.call('tasks.create', {
        workspaceId,
        title: title.trim(),
        ...(spec.trim() ? { spec: spec.trim() } : {}),
        ...(criteria.trim() ? { acceptanceCriteria: criteria.trim() } : {}),
        ...(assigneeId ? { assigneeId } : {}),
        decisionIds: picked,
        requiredReports: required,
        planFirst,
      }),
    )
    onClose()
  })
  return (
    <CardForm
      onSubmit={() => void create.run()}
      onCancel={onClose}
      submitLabel="Create task"
      canSubmit={!create.pending && !!title.trim()}
      error={create.error?.message}
    >
      <Field label="Title">
        <input value={title} onChange={(e) => setTitle(e.target.value)} required aria-label="Task title" />
      </Field>
      <Field label="Spec">
        <textarea value={spec} onChange={(e) => setSpec(e.target.value)} rows={2} />
      </Field>
      <Field label="Acceptance criteria">
        <textarea
          value={criteria}
          onChange={(e) => setCriteria(e.target.value)}
          rows={2}
          aria-label="Acceptance criteria"
          placeholder="What must hold for you to accept it"
        />
      </Field>
      <RequiredReports picked={required} onChange={setRequired} />
      <Field label="Assignee">
        <AssigneeSelect value={assigneeId} onChange={setAssigneeId} />
      </Field>
      <DependsOn picked={picked} onChange={setPicked} />
      <PlanFirstCheck checked={planFirst} onChange={setPlanFirst} />
    </CardForm>
  )
}
