import { useState } from 'react'
import { CardForm, Field } from '../../components/ui'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'
import { selectMembers } from '../../stores/selectors'
import {
  AssigneeSelect,
  CriteriaField,
  DependsOn,
  PlanFirstCheck,
  RequiredReports,
  type ReportKind,
} from './task-fields'

export function NewTaskForm({ onClose }: { onClose(): void }) {
  const api = useApp((s) => s.api)
  const workspaceId = useApp((s) => s.workspaceId)!
  const applyTask = useApp((s) => s.applyTask)
  const [title, setTitle] = useState('')
  const [spec, setSpec] = useState('')
  // Sensible defaults: the team's implementer does the work, and a form opened on a decision has it linked.
  const implementer = useApp((s) => selectMembers(s).find((m) => m.role === 'implementer')?.id ?? '')
  const on = useApp((s) => s.newTaskOn)
  const [assigneeId, setAssigneeId] = useState(implementer)
  const [picked, setPicked] = useState<string[]>(on ? [on] : [])
  const [criteria, setCriteria] = useState('')
  const [required, setRequired] = useState<ReportKind[]>(['test', 'review'])
  const planFirstDefault = useApp((s) => s.workspaceSettings?.planFirst ?? false)
  const [planFirst, setPlanFirst] = useState(planFirstDefault)
  // `start`: "Create and start" moves it to in progress at once (which starts its assignee's turn by default).
  const create = useAction(async (start?: boolean) => {
    const created = await api.call('tasks.create', {
      workspaceId,
      title: title.trim(),
      ...(spec.trim() ? { spec: spec.trim() } : {}),
      ...(criteria.trim() ? { acceptanceCriteria: criteria.trim() } : {}),
      ...(assigneeId ? { assigneeId } : {}),
      decisionIds: picked,
      requiredReports: required,
      planFirst,
    })
    applyTask(created)
    if (start) applyTask(await api.call('tasks.setStatus', { taskId: created.id, status: 'in_progress' }))
    onClose()
  })
  return (
    <CardForm
      onSubmit={() => void create.run()}
      onCancel={onClose}
      submitLabel="Create task"
      canSubmit={!create.pending && !!title.trim()}
      error={create.error?.message}
      extra={
        assigneeId ? (
          <button
            type="button"
            className="btn"
            disabled={create.pending || !title.trim()}
            onClick={() => void create.run(true)}
            data-testid="create-start-task"
            title="Create it and move it to in progress: its assignee starts on it"
          >
            Create and start
          </button>
        ) : null
      }
    >
      <Field label="Title">
        <input value={title} onChange={(e) => setTitle(e.target.value)} required aria-label="Task title" />
      </Field>
      <Field label="Spec">
        <textarea value={spec} onChange={(e) => setSpec(e.target.value)} rows={2} />
      </Field>
      <CriteriaField value={criteria} onChange={setCriteria} placeholder="What must hold for you to accept it" />
      <RequiredReports picked={required} onChange={setRequired} />
      <Field label="Assignee">
        <AssigneeSelect value={assigneeId} onChange={setAssigneeId} />
      </Field>
      <DependsOn picked={picked} onChange={setPicked} />
      <PlanFirstCheck checked={planFirst} onChange={setPlanFirst} />
    </CardForm>
  )
}
