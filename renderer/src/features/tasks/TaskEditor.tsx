import { useState } from 'react'
import type { Task } from '../../../../shared/schemas'
import { CardForm, Field } from '../../components/ui'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'
import { AssigneeSelect, CriteriaField, DependsOn, PlanFirstCheck, RequiredReports } from './task-fields'

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x))

/** A task edited where it is on the board; only what changed is sent, and the core's refusal (authority, a cycle) is shown here. */
export function TaskEditor({ task, onClose }: { task: Task; onClose(): void }) {
  const api = useApp((s) => s.api)
  const applyTask = useApp((s) => s.applyTask)
  const [title, setTitle] = useState(task.title)
  const [spec, setSpec] = useState(task.spec)
  const [criteria, setCriteria] = useState(task.acceptanceCriteria)
  const [assigneeId, setAssigneeId] = useState(task.assigneeId ?? '')
  const [decisionIds, setDecisionIds] = useState(task.links.map((l) => l.decisionId))
  const [required, setRequired] = useState(task.requiredReports)
  const [planFirst, setPlanFirst] = useState(!!task.planFirst)
  // Plan first changes only before coding starts: to do, or in progress with no plan waiting or approved.
  const planOpen =
    task.status === 'todo' ||
    (task.status === 'in_progress' && task.plan?.state !== 'pending' && task.plan?.state !== 'approved')

  const changes = {
    ...(title.trim() !== task.title ? { title: title.trim() } : {}),
    ...(spec !== task.spec ? { spec } : {}),
    ...(criteria !== task.acceptanceCriteria ? { acceptanceCriteria: criteria } : {}),
    ...(assigneeId !== (task.assigneeId ?? '') ? { assigneeId: assigneeId || null } : {}),
    ...(!sameSet(
      decisionIds,
      task.links.map((l) => l.decisionId),
    )
      ? { decisionIds }
      : {}),
    ...(!sameSet(required, task.requiredReports) ? { requiredReports: required } : {}),
    ...(planFirst !== !!task.planFirst ? { planFirst } : {}),
  }
  const changed = Object.keys(changes).length > 0
  const save = useAction(async () => {
    applyTask(await api.call('tasks.update', { taskId: task.id, ...changes }))
    onClose()
  })
  return (
    <div className="tcard-editor" data-testid="task-editor">
      <CardForm
        onSubmit={() => void save.run()}
        onCancel={onClose}
        submitLabel="Save"
        canSubmit={!save.pending && changed && !!title.trim()}
        error={save.error?.message}
      >
        <Field label="Title">
          <input value={title} onChange={(e) => setTitle(e.target.value)} required aria-label="Title" autoFocus />
        </Field>
        <Field label="Spec">
          <textarea value={spec} onChange={(e) => setSpec(e.target.value)} rows={3} aria-label="Spec" />
        </Field>
        <CriteriaField value={criteria} onChange={setCriteria} />
        <Field label="Assignee">
          <AssigneeSelect value={assigneeId} onChange={setAssigneeId} label="Assignee" />
        </Field>
        <DependsOn picked={decisionIds} onChange={setDecisionIds} />
        <RequiredReports picked={required} onChange={setRequired} />
        {planOpen && <PlanFirstCheck checked={planFirst} onChange={setPlanFirst} />}
      </CardForm>
    </div>
  )
}
