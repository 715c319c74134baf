import { useMemo, useState } from 'react'
import type { Task } from '../../../../shared/schemas'
import { refusalReasons, type RefusalReason } from '../../api/errors'
import { Avatar, Badge, CardForm, EmptyState, ErrorText, Field } from '../../components/ui'
import { flagWords, taskStatusWords } from '../../lib/impact'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'
import { selectDecisions, selectMembers, selectTasks } from '../../stores/selectors'
import { RefChip } from '../decisions/RefChip'
import { ChangesDialog } from '../diff/ChangesDialog'

const lanes: Task['status'][] = ['in_progress', 'todo', 'delivered', 'blocked', 'accepted', 'cancelled']
const flagTone = { requirements_updated: 'info', needs_adjustment: 'warn', needs_reverification: 'bad' } as const
const moves: Record<Task['status'], Task['status'][]> = {
  todo: ['in_progress', 'blocked', 'cancelled'],
  in_progress: ['delivered', 'blocked', 'todo', 'cancelled'],
  delivered: ['in_progress', 'cancelled'],
  accepted: ['in_progress'],
  blocked: ['todo', 'in_progress', 'cancelled'],
  cancelled: ['todo'],
}

function TaskCard({ task }: { task: Task }) {
  const api = useApp((s) => s.api)
  const assignee = useApp((s) => (task.assigneeId ? s.members[task.assigneeId] : undefined))
  const tasks = useApp((s) => s.tasks)
  const applyTask = useApp((s) => s.applyTask)
  const [reasons, setReasons] = useState<RefusalReason[] | null>(null)
  const [delivering, setDelivering] = useState(false)
  const [artifact, setArtifact] = useState('')
  const [open, setOpen] = useState(false)
  const [showChanges, setShowChanges] = useState(false)
  const [strategy, setStrategy] = useState<'merge' | 'squash' | 'ff-only'>('merge')
  const merge = useAction(async () => applyTask(await api.call('tasks.merge', { taskId: task.id, strategy })))
  const suspect = task.links.filter((l) => l.state === 'suspect')

  const accept = useAction(async () => {
    setReasons(null)
    try {
      applyTask(await api.call('tasks.accept', { taskId: task.id }))
    } catch (err) {
      const r = refusalReasons(err as never)
      if (r.length) setReasons(r)
      throw err
    }
  })
  const move = useAction(async (status: Task['status'], art?: string) => {
    const a = art?.trim()
    // A commit, branch or tag is resolved by the core; anything with a colon (sha256:…) is a content digest.
    const artifactParam = a ? (a.includes(':') ? { digest: a } : { commit: a }) : undefined
    applyTask(await api.call('tasks.setStatus', { taskId: task.id, status, ...(artifactParam ? { artifact: artifactParam } : {}) }))
    setDelivering(false)
    setReasons(null)
  })
  const ack = useAction(async () => applyTask(await api.call('tasks.acknowledge', { taskId: task.id })))

  return (
    <div className={`tcard${task.flag ? ` flag-${task.flag}` : ''}`} data-testid="task-card" data-key={task.key} data-status={task.status} data-flag={task.flag ?? ''}>
      <div className="tcard-head">
        <span className="dkey">{task.key}</span>
        <button className="tcard-title link-btn" onClick={() => setOpen(!open)}>
          {task.title}
        </button>
      </div>
      <div className="tcard-badges">
        {task.flag && (
          <Badge tone={flagTone[task.flag]} title="This task's decisions changed after it was aligned">
            {flagWords[task.flag]}
          </Badge>
        )}
        {suspect.map((l) => (
          <Badge key={l.decisionId} tone="warn" title={`${l.decisionKey} changed since this task was aligned with it`}>
            {l.decisionKey} suspect v{l.pinnedVersion}→v{l.currentVersion}
          </Badge>
        ))}
      </div>
      <div className="tcard-meta">
        {assignee ? (
          <span className="tcard-assignee">
            <Avatar id={assignee.id} name={assignee.name} size={16} /> {assignee.name}
          </span>
        ) : (
          <span className="muted">unassigned</span>
        )}
        {task.links.map((l) => (
          <RefChip key={l.decisionId} refKey={l.decisionKey} />
        ))}
        {task.blockedBy.length > 0 && <span className="muted small">blocked by {task.blockedBy.map((id) => tasks[id]?.key ?? id).join(', ')}</span>}
        {task.artifact && (task.artifact.commit || task.artifact.digest) && (
          <code className="small" title="delivered artifact">
            {task.artifact.commit ? task.artifact.commit.slice(0, 8) : task.artifact.digest}
          </code>
        )}
      </div>
      {task.branch && (
        <div className="tcard-branch small" data-testid="task-branch">
          <span className="branch-name" title="The task's branch; its worktree lives in Concord's data folder">
            ⎇ {task.branch}
          </span>
          {task.head && <code title={`head ${task.head}`}>{task.head.slice(0, 8)}</code>}
          {task.merged && (
            <Badge tone="good" title={`merged as ${task.merged.commit}`}>
              merged
            </Badge>
          )}
        </div>
      )}
      {open && (
        <div className="tcard-detail">
          {task.spec && <div className="tcard-spec">{task.spec}</div>}
          {task.acceptanceCriteria && (
            <div className="tcard-spec">
              <b>Acceptance:</b> {task.acceptanceCriteria}
            </div>
          )}
          <div className="muted small">Requires: {task.requiredReports.join(', ') || 'no reports'} report(s)</div>
        </div>
      )}
      {reasons && (
        <div className="refusal" role="alert" data-testid="refusal">
          <b>Not accepted:</b>
          <ul>
            {reasons.map((r, i) => (
              <li key={i}>
                <span className={`badge badge-${r.code === 'evidence_stale' ? 'bad' : 'warn'}`}>{r.code === 'evidence_stale' ? 'stale' : 'missing'}</span>
                <span>{r.message}</span>
              </li>
            ))}
          </ul>
        </div>
      )}
      {!reasons && accept.error && <ErrorText error={accept.error.message} />}
      <ErrorText error={move.error?.message ?? ack.error?.message ?? merge.error?.message} />
      {showChanges && (
        <ChangesDialog title={`${task.key} · changes on ${task.branch ?? 'its commit'}`} load={() => api.call('tasks.diff', { taskId: task.id })} onClose={() => setShowChanges(false)} />
      )}
      {delivering ? (
        <div className="tcard-actions">
          <input
            className="grow"
            value={artifact}
            onChange={(e) => setArtifact(e.target.value)}
            placeholder={task.branch ? 'empty: the branch head; or a commit' : 'commit, branch or digest delivered'}
            aria-label="Delivered artifact"
          />
          <button className="btn small primary" disabled={move.pending} onClick={() => void move.run('delivered', artifact)}>
            Deliver
          </button>
          <button className="btn small" onClick={() => setDelivering(false)}>
            Cancel
          </button>
        </div>
      ) : (
        <div className="tcard-actions">
          {task.status === 'delivered' && (
            <button className="btn small primary" disabled={accept.pending} onClick={() => void accept.run()} data-testid="accept-task">
              Accept
            </button>
          )}
          {task.flag && (
            <button className="btn small" disabled={ack.pending} onClick={() => void ack.run()} title="Re-pin its decisions to the current versions">
              Acknowledge
            </button>
          )}
          {(task.branch || task.artifact?.commit) && (
            <button className="btn small" onClick={() => setShowChanges(true)} data-testid="task-changes">
              Changes
            </button>
          )}
          {task.status === 'accepted' && task.branch && !task.merged && (
            <>
              <button
                className="btn small primary"
                disabled={merge.pending}
                onClick={() => void merge.run()}
                data-testid="merge-task"
                title={`Land the accepted commit in the base branch (${strategy})`}
              >
                Merge
              </button>
              <select className="small" value={strategy} onChange={(e) => setStrategy(e.target.value as typeof strategy)} aria-label={`How to merge ${task.key}`}>
                <option value="merge">merge commit</option>
                <option value="squash">squash</option>
                <option value="ff-only">fast-forward only</option>
              </select>
            </>
          )}
          <select
            className="small"
            value=""
            onChange={(e) => {
              const to = e.target.value as Task['status']
              if (to === 'delivered') setDelivering(true)
              else if (to) void move.run(to)
            }}
            aria-label={`Move ${task.key}`}
          >
            <option value="">Move to…</option>
            {moves[task.status].map((s) => (
              <option key={s} value={s}>
                {taskStatusWords[s]}
              </option>
            ))}
          </select>
        </div>
      )}
    </div>
  )
}

type ReportKind = Task['requiredReports'][number]
const reportKinds: ReportKind[] = ['implementation', 'test', 'review']

function NewTaskForm({ onClose }: { onClose(): void }) {
  const api = useApp((s) => s.api)
  const workspaceId = useApp((s) => s.workspaceId)!
  const members = useApp(selectMembers)
  const decisions = useApp(selectDecisions)
  const applyTask = useApp((s) => s.applyTask)
  const [title, setTitle] = useState('')
  const [spec, setSpec] = useState('')
  const [assigneeId, setAssigneeId] = useState('')
  const [picked, setPicked] = useState<string[]>([])
  const [criteria, setCriteria] = useState('')
  const [required, setRequired] = useState<ReportKind[]>(['test', 'review'])
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
      }),
    )
    onClose()
  })
  return (
    <CardForm onSubmit={() => void create.run()} onCancel={onClose} submitLabel="Create task" canSubmit={!create.pending && !!title.trim()} error={create.error?.message}>
      <Field label="Title">
        <input value={title} onChange={(e) => setTitle(e.target.value)} required aria-label="Task title" />
      </Field>
      <Field label="Spec">
        <textarea value={spec} onChange={(e) => setSpec(e.target.value)} rows={2} />
      </Field>
      <Field label="Acceptance criteria">
        <textarea value={criteria} onChange={(e) => setCriteria(e.target.value)} rows={2} aria-label="Acceptance criteria" placeholder="What must hold for you to accept it" />
      </Field>
      <div className="field">
        <span className="field-label">Reports required to accept</span>
        <div className="chips">
          {reportKinds.map((k) => (
            <button
              type="button"
              key={k}
              className={`chip${required.includes(k) ? ' on' : ''}`}
              aria-pressed={required.includes(k)}
              onClick={() => setRequired((r) => (r.includes(k) ? r.filter((x) => x !== k) : [...r, k]))}
            >
              {k}
            </button>
          ))}
        </div>
      </div>
      <Field label="Assignee">
        <select value={assigneeId} onChange={(e) => setAssigneeId(e.target.value)}>
          <option value="">unassigned</option>
          {members.map((m) => (
            <option key={m.id} value={m.id}>
              {m.name} ({m.role})
            </option>
          ))}
        </select>
      </Field>
      {decisions.length > 0 && (
        <div className="field">
          <span className="field-label">Depends on</span>
          <div className="chips">
            {decisions.map((d) => (
              <button
                type="button"
                key={d.id}
                className={`chip${picked.includes(d.id) ? ' on' : ''}`}
                onClick={() => setPicked((p) => (p.includes(d.id) ? p.filter((x) => x !== d.id) : [...p, d.id]))}
                title={d.title}
              >
                {d.key}
              </button>
            ))}
          </div>
        </div>
      )}
    </CardForm>
  )
}

export function TaskBoard() {
  const tasks = useApp(selectTasks)
  const [creating, setCreating] = useState(false)
  const [flaggedOnly, setFlaggedOnly] = useState(false)
  const grouped = useMemo(() => {
    const shown = flaggedOnly ? tasks.filter((t) => t.flag || t.links.some((l) => l.state === 'suspect')) : tasks
    return lanes.map((status) => ({ status, tasks: shown.filter((t) => t.status === status) }))
  }, [tasks, flaggedOnly])
  return (
    <div className="panel-section" data-testid="task-board">
      <div className="panel-toolbar">
        <label className="check small">
          <input type="checkbox" checked={flaggedOnly} onChange={(e) => setFlaggedOnly(e.target.checked)} /> Flagged only
        </label>
        <span className="spacer" />
        <button className="btn small primary" onClick={() => setCreating(true)}>
          New task
        </button>
      </div>
      {creating && <NewTaskForm onClose={() => setCreating(false)} />}
      {tasks.length === 0 && !creating ? (
        <EmptyState title="No tasks yet">Tasks turn decisions into checkable work. Ask your lead to break the goal into tasks linked to the decisions they depend on, or add one here.</EmptyState>
      ) : (
        grouped.map(
          (lane) =>
            (lane.tasks.length > 0 || ['todo', 'in_progress', 'delivered'].includes(lane.status)) && (
              <section key={lane.status} className="lane" data-lane={lane.status}>
                <h4>
                  {taskStatusWords[lane.status]} <span className="muted">{lane.tasks.length}</span>
                </h4>
                {lane.tasks.map((t) => (
                  <TaskCard key={t.id} task={t} />
                ))}
              </section>
            ),
        )
      )}
    </div>
  )
}
