import { useState, type DragEvent } from 'react'
import type { Task } from '../../../../shared/schemas'
import { canMove, taskStatusWords } from '../../../../shared/task-rules'
import { useApp } from '../../stores/app-store'
import { useColumnTasks, type BoardFilter } from './board-data'
import { useBoardMoves } from './board-moves'
import { TASK_MIME, TaskCard } from './TaskCard'

/**
 * One status of the board: a drop target and its cards. A folded column (blocked, cancelled) shows only its
 * name and count until opened, and still takes drops.
 */
export function BoardColumn({
  status,
  filter,
  folded,
  onToggle,
}: {
  status: Task['status']
  filter: BoardFilter
  folded?: boolean
  onToggle?(): void
}) {
  const { tasks, total, hasMore, loading, loadMore } = useColumnTasks(status, filter)
  const moves = useBoardMoves()
  const byId = useApp((s) => s.tasks)
  const [over, setOver] = useState(false)
  const dragging = moves.dragging
  // While a card is dragged, each column says whether the table lets it go there (the core still decides).
  const hint =
    dragging && dragging.status !== status ? (canMove(dragging.status, status) ? ' can-drop' : ' no-drop') : ''

  const accepts = (e: DragEvent) => e.dataTransfer.types.includes(TASK_MIME)
  return (
    <section
      className={`board-col${folded ? ' folded' : ''}${over ? ' over' : ''}${hint}`}
      data-testid="board-column"
      data-lane={status}
      aria-label={`${taskStatusWords[status]}, ${total} task${total === 1 ? '' : 's'}`}
      onDragOver={(e) => {
        if (!accepts(e)) return
        e.preventDefault()
        e.dataTransfer.dropEffect = 'move'
        if (!over) setOver(true)
      }}
      onDragLeave={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setOver(false)
      }}
      onDrop={(e) => {
        e.preventDefault()
        setOver(false)
        const task = byId[e.dataTransfer.getData(TASK_MIME)] ?? dragging
        moves.setDragging(null)
        if (task) moves.request(task, status)
      }}
    >
      <h4 className="board-col-head">
        {onToggle ? (
          <button
            className="link-btn board-fold"
            onClick={onToggle}
            aria-expanded={!folded}
            data-testid={`fold-${status}`}
          >
            {folded ? '▸' : '▾'} {taskStatusWords[status]}
          </button>
        ) : (
          taskStatusWords[status]
        )}{' '}
        <span className="muted">{total}</span>
      </h4>
      {!folded && (
        <div className="board-col-cards">
          {tasks.map((t) => (
            <TaskCard key={t.id} task={t} lane={status} />
          ))}
          {tasks.length === 0 && (
            <div className="board-col-empty muted small">{loading ? 'Loading…' : dragging ? 'Drop here' : 'None'}</div>
          )}
          {hasMore && (
            <button className="btn small board-more" disabled={loading} onClick={loadMore}>
              {total - tasks.length} more
            </button>
          )}
        </div>
      )}
    </section>
  )
}
