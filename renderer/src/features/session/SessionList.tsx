import { useCallback, useMemo, useRef, useState } from 'react'
import type { Step } from '../../../../shared/schemas'
import { loadAnchor, type ScrollAnchor } from '../../lib/scroll-anchors'
import { useApp } from '../../stores/app-store'
import { taskSessionKey } from '../../stores/sessions-slice'
import { mergeSteps } from '../../stores/steps'
import type { TaskSessionState } from '../../stores/types'
import { RecordDecisionDialog } from './RecordDecisionDialog'
import {
  useFillView,
  useFocusStep,
  useFollowEnd,
  useRestorePlace,
  useUserScroll,
  useVirtualRows,
  type ListScroll,
} from './session-scroll'
import { StepRow, type StepActions } from './StepRow'
import { turnUndo } from './turn-undo'

/**
 * The steps a session view shows: the member's session, or its turns on one task — the pages read for that task
 * with the live steps of the member's session on it (those within the range read, so no gap opens).
 */
function useSessionSteps(memberId: string, taskId: string | undefined): TaskSessionState | undefined {
  const own = useApp((s) => s.sessions[memberId])
  const ofTask = useApp((s) => (taskId ? s.taskSessions[taskSessionKey(memberId, taskId)] : undefined))
  const live = own?.steps
  return useMemo(() => {
    if (!taskId) return own
    if (!ofTask) return undefined
    const from = ofTask.hasMore ? (ofTask.steps[0]?.seq ?? Infinity) : -Infinity
    const mine = (live ?? []).filter((st) => st.taskId === taskId && st.seq >= from)
    return mine.length ? { ...ofTask, steps: mergeSteps(ofTask.steps, mine) } : ofTask
  }, [own, ofTask, live, taskId])
}

/** Pages in older steps: of the member's session, or of its turns on one task. */
function useLoadOlder(taskId: string | undefined) {
  const loadOlderOfMember = useApp((s) => s.loadOlder)
  const loadOlderOfTask = useApp((s) => s.loadOlderOfTask)
  return useCallback(
    (id: string) => (taskId ? loadOlderOfTask(id, taskId) : loadOlderOfMember(id)),
    [taskId, loadOlderOfTask, loadOlderOfMember],
  )
}

/**
 * A member's session as a virtualized list: only the rows on screen are in the DOM; older steps page in
 * from the store when the top comes near; the view sticks to the bottom while new text streams in.
 */
export function SessionList({
  memberId,
  taskId,
  empty,
}: {
  memberId: string
  /** Only the member's turns on this task (sessions.get with taskId), live steps included. */
  taskId?: string
  empty: React.ReactNode
}) {
  const session = useSessionSteps(memberId, taskId)
  const loadOlder = useLoadOlder(taskId)
  // Where the user left the view is kept per view: the whole session, or one task's turns.
  const anchorKey = taskId ? taskSessionKey(memberId, taskId) : memberId
  const focusStepId = useApp((s) => s.focusStepId)
  const workspaceId = useApp((s) => s.workspaceId)
  const scrollRef = useRef<HTMLDivElement>(null)
  const { rows, virtualizer, lastKeyRef } = useVirtualRows(session?.steps, scrollRef)
  // Where the user left this session (before a reload or a switch to another member): restored once its row is
  // loaded. Until then the view neither follows the newest steps nor records a position of its own.
  const [leftAt] = useState(() => (workspaceId ? loadAnchor(workspaceId, anchorKey) : null))
  const restoringRef = useRef<ScrollAnchor | null>(leftAt)
  const stickRef = useRef(leftAt === null)
  const total = virtualizer.getTotalSize()
  const list: ListScroll = {
    scrollRef,
    virtualizer,
    rows,
    lastKeyRef,
    stickRef,
    restoringRef,
    session,
    loadOlder,
    memberId,
  }
  useFollowEnd(list, total)
  const user = useUserScroll(list, workspaceId, anchorKey)
  useFocusStep(list, focusStepId)
  useRestorePlace(list, user.setAway)
  useFillView(list, total)
  return (
    <div className="session-frame">
      <div
        className="session-scroll"
        ref={scrollRef}
        onScroll={user.onScroll}
        onWheel={(e) => e.deltaY < 0 && user.unstick()}
        onKeyDown={(e) => ['PageUp', 'ArrowUp', 'Home'].includes(e.key) && user.unstick()}
        onFocusCapture={user.onFocusCapture}
        onPointerDown={user.onPointerDown}
        data-testid="session-scroll"
        data-member-id={memberId}
      >
        {session?.loaded && rows.length === 0 ? (
          empty
        ) : (
          <SessionRows list={list} taskId={taskId} focusStepId={focusStepId} total={total} />
        )}
        {session?.error && <div className="session-error">Could not load this session: {session.error}</div>}
      </div>
      {user.away !== null && (
        <button className="to-latest" onClick={user.toLatest} data-testid="to-latest">
          {(rows[rows.length - 1]?.key ?? '') !== user.away ? '↓ New messages' : '↓ Latest'}
        </button>
      )}
    </div>
  )
}

/** What the top of the list says: loading, the beginning of the session (or of the task's turns), or nothing. */
function topWords(session: TaskSessionState | undefined, taskId: string | undefined): string {
  if (!session?.loaded) return 'Loading…'
  if (session.loadingOlder) return 'Loading older steps…'
  if (session.hasMore) return ''
  return taskId ? 'The first turn on this task' : 'Beginning of the session'
}

/** The rows on screen (the virtualizer's window), and the dialog that records a decision from one of them. */
function SessionRows({
  list,
  taskId,
  focusStepId,
  total,
}: {
  list: ListScroll
  taskId: string | undefined
  focusStepId: string | null | undefined
  total: number
}) {
  const { virtualizer, rows, session, memberId } = list
  const steps = session?.steps
  const undo = useMemo(() => turnUndo(steps ?? []), [steps])
  const [recording, setRecording] = useState<{ step: Step; text: string } | null>(null)
  const actions = useMemo<StepActions>(() => ({ onRecord: (step, text) => setRecording({ step, text }) }), [])
  const items = virtualizer.getVirtualItems()
  return (
    <div className="session-inner" style={{ height: total }}>
      <div className="session-window" style={{ transform: `translateY(${items[0]?.start ?? 0}px)` }}>
        {items.map((item) => {
          const row = rows[item.index - 1]
          return item.index === 0 ? (
            <div key={item.key} data-index={0} ref={virtualizer.measureElement} className="session-top">
              {topWords(session, taskId)}
            </div>
          ) : row ? (
            <div key={item.key} data-index={item.index} ref={virtualizer.measureElement}>
              <StepRow
                row={row}
                memberId={memberId}
                actions={actions}
                highlighted={row.key === focusStepId}
                undoable={row.step.id === undo.undoable}
                undone={undo.undone.has(row.step.turnId)}
              />
            </div>
          ) : null
        })}
      </div>
      {recording && (
        <RecordDecisionDialog step={recording.step} text={recording.text} onClose={() => setRecording(null)} />
      )}
    </div>
  )
}
