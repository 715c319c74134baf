import { useEffect } from 'react'
import { FocusedFrame } from '../../components/FocusedFrame'
import { useApp } from '../../stores/app-store'
import { TaskCard } from './TaskCard'

/** One task above the board, as search opened it, with the way back to every task. */
export function FocusedTask({ id }: { id: string }) {
  const task = useApp((s) => s.tasks[id])
  const needTasks = useApp((s) => s.needTasks)
  const openTask = useApp((s) => s.openTask)
  useEffect(() => {
    void needTasks([id])
  }, [id, needTasks])
  return (
    <FocusedFrame kind="task" itemKey={task?.key} onBack={() => openTask(null)}>
      {task ? <TaskCard task={task} lane={task.status} /> : <div className="muted pad">Loading…</div>}
    </FocusedFrame>
  )
}
