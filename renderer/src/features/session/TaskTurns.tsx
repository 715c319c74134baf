/**
 * A member's session read per task (issue 31): the header's picker of the task whose turns the session shows, and the
 * banner above those turns. The turns are read with sessions.get's taskId (stores/sessions-slice.ts).
 */
import { useEffect, useMemo } from 'react'
import { useApp } from '../../stores/app-store'
import { SelectOne } from '../../components/SelectOne'

/** The tasks a member's session can be read by: its tasks the board knows, and those its loaded turns were on. */
function useMemberTasks(memberId: string, current: string | undefined) {
  const tasks = useApp((s) => s.tasks)
  const steps = useApp((s) => s.sessions[memberId]?.steps)
  const needTasks = useApp((s) => s.needTasks)
  const ids = useMemo(() => {
    const out = new Set<string>()
    for (const t of Object.values(tasks)) if (t.assigneeId === memberId) out.add(t.id)
    for (const st of steps ?? []) if (st.taskId) out.add(st.taskId)
    if (current) out.add(current)
    return [...out]
  }, [tasks, steps, memberId, current])
  useEffect(() => {
    const missing = ids.filter((id) => !tasks[id])
    if (missing.length) void needTasks(missing)
  }, [ids, tasks, needTasks])
  return ids
    .map((id) => tasks[id])
    .filter((t) => t !== undefined)
    .sort((a, b) => Number(a.key.slice(2)) - Number(b.key.slice(2)))
}

/** "Turns: all tasks | T-1 … | T-2 …" in the session header; nothing when the member has no task. */
export function TaskTurnsPicker({ memberId }: { memberId: string }) {
  const current = useApp((s) => s.sessionTask[memberId])
  const openTaskSession = useApp((s) => s.openTaskSession)
  const showAllTurns = useApp((s) => s.showAllTurns)
  const tasks = useMemberTasks(memberId, current)
  if (!tasks.length) return null
  return (
    <label className="task-turns-pick">
      <span className="muted"> · turns of</span>
      <SelectOne
        className="small"
        value={current ?? ''}
        onChange={(v) => (v ? openTaskSession(memberId, v) : showAllTurns(memberId))}
        options={[
          { value: '', text: 'every task' },
          ...tasks.map((t) => ({ value: t.id, text: `${t.key} ${t.title}` })),
        ]}
        label="Show the turns of"
        testId="session-task"
      />
    </label>
  )
}

/** Above a session read per task: which task, and the way back to every turn. */
export function TaskTurnsBanner({ memberId, taskId }: { memberId: string; taskId: string }) {
  const task = useApp((s) => s.tasks[taskId])
  const name = useApp((s) => s.members[memberId]?.name)
  const showAllTurns = useApp((s) => s.showAllTurns)
  return (
    <div className="task-turns" data-testid="task-turns" data-task-id={taskId}>
      <span>
        {name}’s turns on <b>{task?.key ?? 'this task'}</b>
        {task && <span className="muted"> · {task.title}</span>} only
      </span>
      <button className="btn small" onClick={() => showAllTurns(memberId)} data-testid="all-turns">
        Show every turn
      </button>
    </div>
  )
}
