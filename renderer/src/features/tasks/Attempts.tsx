import { useCallback, useEffect, useState } from 'react'
import type { Task, TaskAttempt, TaskAttempts } from '../../../../shared/schemas'
import { taskStatusWords } from '../../../../shared/task-rules'
import { DialogActions } from '../../components/DialogActions'
import { Avatar, Badge, ErrorText, Modal } from '../../components/ui'
import { asClientError } from '../../api/errors'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'
import './attempts.css'

const MIN = 2
const MAX = 4
const verdictTone = { pass: 'good', fail: 'bad', partial: 'warn' } as const

/** "Try it with…": 2–4 members, each runs the task in its own branch and tree. */
export function TryWithDialog({ task, onClose }: { task: Task; onClose(): void }) {
  const api = useApp((s) => s.api)
  const applyTask = useApp((s) => s.applyTask)
  const all = useApp((s) => s.members)
  const members = Object.values(all).filter((m) => !m.archivedAt)
  const [picked, setPicked] = useState<string[]>(task.assigneeId ? [task.assigneeId] : [])
  const start = useAction(async () => {
    const r = await api.call('tasks.tryWith', { taskId: task.id, memberIds: picked })
    for (const t of [r.task, ...r.attempts]) applyTask(t)
    onClose()
  })
  const toggle = (id: string) => setPicked((p) => (p.includes(id) ? p.filter((x) => x !== id) : [...p, id]))
  const ok = picked.length >= MIN && picked.length <= MAX
  return (
    <Modal
      title={`Try ${task.key} with…`}
      onClose={onClose}
      footer={
        <DialogActions
          before={
            <span className="muted small grow" data-testid="try-with-count">
              {picked.length} of {MIN}–{MAX} chosen
            </span>
          }
          onCancel={onClose}
          onConfirm={() => void start.run()}
          confirmLabel={start.pending ? 'Starting…' : `Start ${picked.length >= MIN ? picked.length : ''} attempts`}
          disabled={!ok || start.pending}
          testId="try-with-start"
        />
      }
    >
      <p className="muted small try-with-lead">
        Each member runs “{task.title}” in its own branch and tree, with the same decisions and required reports. You
        compare what they deliver and pick one; the others are archived.
      </p>
      <ul className="try-with-members" data-testid="try-with-members">
        {members.map((m) => (
          <li key={m.id}>
            <label>
              <input
                type="checkbox"
                checked={picked.includes(m.id)}
                disabled={!picked.includes(m.id) && picked.length >= MAX}
                onChange={() => toggle(m.id)}
                aria-label={m.name}
              />
              <Avatar id={m.id} name={m.name} size={18} />
              <span className="try-with-name">{m.name}</span>
              <span className="muted small">
                {m.role}
                {m.provider ? ` · ${m.provider.model}` : ''}
              </span>
            </label>
          </li>
        ))}
      </ul>
      <ErrorText error={start.error?.message} />
    </Modal>
  )
}

function duration(ms: number | null): string {
  if (ms === null) return '—'
  const s = Math.round(ms / 1000)
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`
}

function AttemptColumn({
  a,
  canPick,
  picking,
  onPick,
}: {
  a: TaskAttempt
  canPick: boolean
  picking: boolean
  onPick(): void
}) {
  const delivered = a.task.status === 'delivered' || a.task.status === 'accepted'
  return (
    <section
      className={`attempt${a.picked ? ' picked' : ''}`}
      data-testid="attempt"
      data-key={a.task.key}
      aria-label={`${a.member?.name ?? 'unassigned'}’s attempt ${a.task.key}`}
    >
      <AttemptHead a={a} delivered={delivered} />
      <AttemptFiles a={a} />
      <AttemptReports a={a} />
      <dl className="attempt-figures">
        <dt>Tokens</dt>
        <dd data-testid="attempt-tokens">
          {a.tokens ? `${a.tokens.input.toLocaleString()} in · ${a.tokens.output.toLocaleString()} out` : '—'}
        </dd>
        <dt>Time</dt>
        <dd>{duration(a.durationMs)}</dd>
      </dl>
      {canPick && (
        <button
          className="btn small primary attempt-pick"
          disabled={!delivered || picking}
          onClick={onPick}
          data-testid="pick-attempt"
          title={
            delivered
              ? `Make ${a.task.key}'s work this task's delivery; the other attempts are archived and their trees removed`
              : `${a.task.key} has not delivered yet`
          }
        >
          Pick this one
        </button>
      )}
    </section>
  )
}

/** Who made the attempt, with which model, and where it stands. */
function AttemptHead({ a, delivered }: { a: TaskAttempt; delivered: boolean }) {
  return (
    <header className="attempt-head">
      {a.member && <Avatar id={a.member.id} name={a.member.name} size={22} />}
      <div>
        <div className="attempt-member">{a.member?.name ?? 'unassigned'}</div>
        <div className="muted small">
          {a.task.key}
          {a.member?.model ? ` · ${a.member.model}` : ''}
        </div>
      </div>
      {a.picked ? (
        <Badge tone="good">picked</Badge>
      ) : (
        <Badge tone={delivered ? 'info' : 'neutral'}>{taskStatusWords[a.task.status]}</Badge>
      )}
    </header>
  )
}

/** The files the attempt changed, with their line counts. */
function AttemptFiles({ a }: { a: TaskAttempt }) {
  return (
    <div className="attempt-block" data-testid="attempt-files">
      <div className="attempt-label">
        {a.files.length} file{a.files.length === 1 ? '' : 's'} <span className="add">+{a.additions}</span>{' '}
        <span className="del">−{a.deletions}</span>
      </div>
      <ul className="attempt-files">
        {a.files.map((f) => (
          <li key={f.path}>
            <code title={f.path}>{f.path}</code>
            <span className="add">+{f.additions ?? '?'}</span>
            <span className="del">−{f.deletions ?? '?'}</span>
          </li>
        ))}
      </ul>
      {!a.hasTree && !a.picked && <div className="muted small">tree removed</div>}
    </div>
  )
}

/** The reports submitted on the attempt: kind, verdict and claims. */
function AttemptReports({ a }: { a: TaskAttempt }) {
  return (
    <div className="attempt-block" data-testid="attempt-reports">
      <div className="attempt-label">Reports</div>
      {a.reports.length === 0 && <div className="muted small">none yet</div>}
      <ul className="attempt-reports">
        {a.reports.map((r) => (
          <li key={r.id} title={r.summary}>
            <span className="dkey">{r.key}</span> {r.kind} <Badge tone={verdictTone[r.verdict]}>{r.verdict}</Badge>
            <span className="muted small">
              {r.claims} claim{r.claims === 1 ? '' : 's'}
            </span>
          </li>
        ))}
      </ul>
    </div>
  )
}

/** The attempts side by side (stacked on a narrow window), with "Pick this one" until one is picked. */
export function AttemptsDialog({ task, onClose }: { task: Task; onClose(): void }) {
  const api = useApp((s) => s.api)
  const applyTask = useApp((s) => s.applyTask)
  const tasks = useApp((s) => s.tasks)
  const [data, setData] = useState<TaskAttempts | null>(null)
  const [error, setError] = useState<string | null>(null)
  const load = useCallback(
    () =>
      api.call('tasks.attempts', { taskId: task.id }).then(setData, (e: unknown) => setError(asClientError(e).message)),
    [api, task.id],
  )
  useEffect(() => {
    void load()
  }, [load])
  const pick = useAction(async (attemptId: string) => {
    const r = await api.call('tasks.pickAttempt', { taskId: data!.taskId, attemptId })
    setData(r)
    applyTask(await api.call('tasks.get', { taskId: r.taskId }))
  })
  const original = data ? (tasks[data.taskId]?.key ?? task.key) : task.key
  return (
    <Modal title={`${original} · attempts`} onClose={onClose} wide>
      <div className="attempts-compare" data-testid="attempts-compare">
        <ErrorText error={error ?? pick.error?.message} />
        {!data && !error && <div className="muted">Reading the attempts…</div>}
        {data?.pickedId && (
          <div className="attempts-picked small" data-testid="attempts-picked">
            {data.attempts.find((a) => a.picked)?.member?.name}’s attempt is {original}’s delivery; the others are
            archived.
          </div>
        )}
        {data && (
          <div className="attempts-grid" style={{ ['--attempts' as string]: data.attempts.length }}>
            {data.attempts.map((a) => (
              <AttemptColumn
                key={a.task.id}
                a={a}
                canPick={!data.pickedId}
                picking={pick.pending}
                onPick={() => void pick.run(a.task.id)}
              />
            ))}
          </div>
        )}
      </div>
    </Modal>
  )
}
