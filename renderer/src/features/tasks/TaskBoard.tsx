import { useEffect, useState } from 'react'
import { createPortal } from 'react-dom'
import type { Task } from '../../../../shared/schemas'
import { foldedStatuses, workingStatuses } from '../../../../shared/task-rules'
import { useApp } from '../../stores/app-store'
import { selectDecisions, selectMembers } from '../../stores/selectors'
import { useHasTasks, type BoardFilter } from './board-data'
import { BoardMovesProvider } from './board-moves'
import { BoardColumn } from './BoardColumn'
import { NewTaskForm } from './NewTaskForm'
import { NoTasks } from './NoTasks'
import { takeBoardFilter } from '../../stores/open-filtered'
import { FocusedTask } from './FocusedTask'
import './board.css'
import { CheckboxRow } from '../../components/CheckboxRow'
import { useNewRecordForm } from '../../components/new-record-form'
import { SelectOne } from '../../components/SelectOne'

const working = workingStatuses
const foldable = foldedStatuses

function Filters({ filter, onChange }: { filter: BoardFilter; onChange(f: BoardFilter): void }) {
  const members = useApp(selectMembers)
  const decisions = useApp(selectDecisions)
  return (
    <div className="board-filters" data-testid="board-filters">
      <SelectOne
        value={filter.assigneeId ?? ''}
        onChange={(v) => onChange({ ...filter, assigneeId: v || undefined })}
        options={[{ value: '', text: 'Everyone' }, ...members.map((m) => ({ value: m.id, text: m.name }))]}
        label="Filter by member"
        className="small"
      />
      <SelectOne
        value={filter.decisionId ?? ''}
        onChange={(v) => onChange({ ...filter, decisionId: v || undefined })}
        options={[
          { value: '', text: 'Any decision' },
          ...decisions.map((d) => ({ value: d.id, text: `${d.key} ${d.title}` })),
        ]}
        label="Filter by decision"
        className="small"
      />
      <CheckboxRow
        className="check small"
        checked={!!filter.flagged}
        onChange={(on) => onChange({ ...filter, flagged: on ? true : undefined })}
      >
        Flagged only
      </CheckboxRow>
    </div>
  )
}

function Columns({ filter, wide }: { filter: BoardFilter; wide: boolean }) {
  const [unfolded, setUnfolded] = useState<Task['status'][]>([])
  const toggle = (s: Task['status']) => setUnfolded((u) => (u.includes(s) ? u.filter((x) => x !== s) : [...u, s]))
  return (
    <div className={`board ${wide ? 'board-wide-cols' : 'board-stacked'}`} data-testid="board">
      {working.map((s) => (
        <BoardColumn key={s} status={s} filter={filter} />
      ))}
      <div className="board-folded">
        {foldable.map((s) => (
          <BoardColumn key={s} status={s} filter={filter} folded={!unfolded.includes(s)} onToggle={() => toggle(s)} />
        ))}
      </div>
    </div>
  )
}

/** The task board: columns by status, moved by drag or keyboard, checked by the core. In the panel the columns stack; "Board" opens them side by side over the window. */
export function TaskBoard() {
  const { hasTasks, loading } = useHasTasks()
  const [filter, setFilter] = useState<BoardFilter>(() => takeBoardFilter() ?? {})
  const [wide, setWide] = useState(false)
  const focusTaskId = useApp((s) => s.focusTaskId)
  const { showForm, openForm, closeForm } = useNewRecordForm('task')

  useEffect(() => {
    if (!wide) return
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && !document.querySelector('.modal')) setWide(false)
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [wide])

  const toolbar = (
    <div className="panel-toolbar board-toolbar">
      <Filters filter={filter} onChange={setFilter} />
      <span className="spacer" />
      <button
        className="btn small"
        onClick={() => setWide(!wide)}
        data-testid="board-wide"
        aria-pressed={wide}
        title={wide ? 'Back to the panel (Esc)' : 'Open the board side by side over the window'}
      >
        {wide ? 'Close board' : 'Board ⤢'}
      </button>
      <button className="btn small primary" onClick={openForm}>
        New task
      </button>
    </div>
  )
  const body = (
    <>
      {toolbar}
      {showForm && <NewTaskForm onClose={closeForm} />}
      {focusTaskId ? (
        <FocusedTask id={focusTaskId} />
      ) : !hasTasks && !loading && !showForm ? (
        <NoTasks />
      ) : (
        <Columns filter={filter} wide={wide} />
      )}
    </>
  )
  return (
    <BoardMovesProvider>
      {wide ? (
        <>
          <div className="panel-section muted small">The board is open over the window.</div>
          {createPortal(
            <div className="board-overlay" role="dialog" aria-label="Task board" data-testid="task-board">
              <div className="board-overlay-head">
                <h3>Tasks</h3>
              </div>
              {body}
            </div>,
            document.body,
          )}
        </>
      ) : (
        <div className="panel-section" data-testid="task-board">
          {body}
        </div>
      )}
    </BoardMovesProvider>
  )
}
