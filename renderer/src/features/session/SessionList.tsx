import { useVirtualizer } from '@tanstack/react-virtual'
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react'
import type { Step } from '../../../../shared/schemas'
import { loadAnchor, saveAnchor, type ScrollAnchor } from '../../lib/scroll-anchors'
import { useApp } from '../../stores/app-store'
import { taskSessionKey } from '../../stores/sessions-slice'
import { buildRows, mergeSteps } from '../../stores/steps'
import type { TaskSessionState } from '../../stores/types'
import { RecordDecisionDialog } from './RecordDecisionDialog'
import { StepRow, type StepActions } from './StepRow'
import { turnUndo } from './turn-undo'

const STICK_PX = 64
const LOAD_OLDER_PX = 400
/** Frames the restored row's position must hold still (rows around it measured) before the offset is added. */
const SETTLE_FRAMES = 3
const SETTLE_MAX_FRAMES = 120

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
  const loadOlderOfMember = useApp((s) => s.loadOlder)
  const loadOlderOfTask = useApp((s) => s.loadOlderOfTask)
  const loadOlder = useCallback(
    (id: string) => (taskId ? loadOlderOfTask(id, taskId) : loadOlderOfMember(id)),
    [taskId, loadOlderOfTask, loadOlderOfMember],
  )
  // Where the user left the view is kept per view: the whole session, or one task's turns.
  const anchorKey = taskId ? taskSessionKey(memberId, taskId) : memberId
  const focusStepId = useApp((s) => s.focusStepId)
  const workspaceId = useApp((s) => s.workspaceId)
  const steps = session?.steps
  // Rows before the first changed step are kept from the last build (streaming changes only the last).
  const built = useRef<{ steps: Step[]; rows: ReturnType<typeof buildRows> } | undefined>(undefined)
  const rows = useMemo(() => {
    const next = steps ?? []
    const rows = buildRows(next, built.current)
    built.current = { steps: next, rows }
    return rows
  }, [steps])
  const undo = useMemo(() => turnUndo(steps ?? []), [steps])
  const scrollRef = useRef<HTMLDivElement>(null)
  // Where the user left this session (before a reload or a switch to another member): restored once its row is
  // loaded. Until then the view neither follows the newest steps nor records a position of its own.
  const [leftAt] = useState(() => (workspaceId ? loadAnchor(workspaceId, anchorKey) : null))
  const restoring = useRef<ScrollAnchor | null>(leftAt)
  const stick = useRef(leftAt === null)
  const prev = useRef<{ firstKey: string | undefined; total: number }>({ firstKey: undefined, total: 0 })
  const [recording, setRecording] = useState<{ step: Step; text: string } | null>(null)
  const actions = useMemo<StepActions>(() => ({ onRecord: (step, text) => setRecording({ step, text }) }), [])

  const virtualizer = useVirtualizer({
    count: rows.length + 1,
    getScrollElement: () => scrollRef.current,
    estimateSize: (i) => (i === 0 ? 40 : 110),
    overscan: 6,
    getItemKey: (i) => (i === 0 ? '__top' : (rows[i - 1]?.key ?? i)),
    // Measurements re-render in React's own batch, not in a synchronous flush per measured row.
    useFlushSync: false,
  })
  const total = virtualizer.getTotalSize()
  const last = rows[rows.length - 1]?.step

  // Prepended older rows: keep the rows that were on screen where they were.
  useLayoutEffect(() => {
    const el = scrollRef.current
    const firstKey = rows[0]?.key
    if (
      el &&
      prev.current.firstKey &&
      firstKey !== prev.current.firstKey &&
      rows.some((r) => r.key === prev.current.firstKey) &&
      !stick.current
    ) {
      el.scrollTop += total - prev.current.total
    }
    prev.current = { firstKey, total }
  })

  // New or growing rows at the end: follow them while the view is at the bottom. Once per frame at
  // most: reading scrollHeight lays the page out, and several commits can land in one frame.
  const follow = useRef<number | null>(null)
  useLayoutEffect(() => {
    if (!stick.current || follow.current !== null) return
    follow.current = requestAnimationFrame(() => {
      follow.current = null
      const el = scrollRef.current
      if (el && stick.current) el.scrollTop = el.scrollHeight
    })
  }, [rows.length, last, last?.text.length, total])
  useEffect(
    () => () => {
      if (follow.current !== null) cancelAnimationFrame(follow.current)
    },
    [],
  )

  // Only the user unsticks the view (wheel, keys, scrollbar): the virtualizer also scrolls when rows
  // above are measured, and that must not stop the view from following the newest text.
  const dragging = useRef(false)
  // Away from the newest steps: a button brings you back (and says when newer ones arrived meanwhile:
  // the last row then is not the one that was last when you scrolled away; older pages do not count).
  const [away, setAway] = useState<string | null>(null)
  const lastKey = useRef('')
  lastKey.current = rows[rows.length - 1]?.key ?? ''
  // The row at the top of the view and the offset into it, kept (a little after scrolling stops) for the next load.
  const keepTimer = useRef<ReturnType<typeof setTimeout> | null>(null)
  const keepPosition = useCallback(() => {
    keepTimer.current = null
    const el = scrollRef.current
    if (!el || !workspaceId || restoring.current) return
    const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < STICK_PX
    const top = el.scrollTop
    const item = atBottom ? undefined : virtualizer.getVirtualItems().find((v) => v.index > 0 && v.end > top)
    saveAnchor(workspaceId, anchorKey, item ? { key: String(item.key), offset: Math.round(top - item.start) } : null)
  }, [workspaceId, anchorKey, virtualizer])
  useEffect(
    () => () => {
      if (keepTimer.current !== null) {
        clearTimeout(keepTimer.current)
        keepPosition()
      }
    },
    [keepPosition],
  )
  const onScroll = useCallback(() => {
    const el = scrollRef.current
    if (!el || restoring.current) return
    const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < STICK_PX
    if (atBottom) stick.current = true
    else if (dragging.current) stick.current = false
    setAway((a) => (atBottom ? null : (a ?? lastKey.current)))
    if (el.scrollTop < LOAD_OLDER_PX) void loadOlder(memberId)
    if (keepTimer.current === null) keepTimer.current = setTimeout(keepPosition, 200)
  }, [loadOlder, memberId, keepPosition])
  const toLatest = useCallback(() => {
    const el = scrollRef.current
    stick.current = true
    setAway(null)
    if (el) el.scrollTop = el.scrollHeight
  }, [])
  const unstick = useCallback(() => void (stick.current = false), [])
  // Typing in a row (a decision card's editor, say) holds the view still: new steps must not scroll it away.
  const onFocusCapture = useCallback((e: React.FocusEvent) => {
    if (e.target instanceof HTMLElement && e.target.matches('input, textarea, select')) stick.current = false
  }, [])
  useEffect(() => {
    const up = () => void (dragging.current = false)
    window.addEventListener('pointerup', up)
    return () => window.removeEventListener('pointerup', up)
  }, [])

  // A step asked for (e.g. "where a decision was made"): page back until it is loaded, then show it.
  useEffect(() => {
    if (!focusStepId || !session?.loaded) return
    const index = rows.findIndex((r) => r.key === focusStepId || r.tools.some((t) => t.id === focusStepId))
    if (index >= 0) {
      stick.current = false
      virtualizer.scrollToIndex(index + 1, { align: 'center' })
    } else if (session.hasMore && !session.loadingOlder) void loadOlder(memberId)
  }, [focusStepId, rows, session?.loaded, session?.hasMore, session?.loadingOlder, loadOlder, memberId, virtualizer])

  // The position left before: page back until its row is loaded, put the row at the top, then (once the rows
  // around it are measured and it holds still) scroll into it by the offset it had. A row that is gone: the newest.
  useEffect(() => {
    const anchor = restoring.current
    if (!anchor || !session?.loaded) return
    const index = rows.findIndex((r) => r.key === anchor.key)
    if (index < 0) {
      if (session.hasMore) {
        if (!session.loadingOlder) void loadOlder(memberId)
        return
      }
      restoring.current = null
      stick.current = true
      return
    }
    virtualizer.scrollToIndex(index + 1, { align: 'start' })
    let frame = 0
    let still = 0
    let last = Number.NaN
    let handle = requestAnimationFrame(function settle() {
      const start = virtualizer.measurementsCache[index + 1]?.start ?? 0
      still = start === last ? still + 1 : 0
      last = start
      if (still < SETTLE_FRAMES && ++frame < SETTLE_MAX_FRAMES) {
        handle = requestAnimationFrame(settle)
        return
      }
      const el = scrollRef.current
      if (el) el.scrollTop = start + anchor.offset
      restoring.current = null
      setAway(lastKey.current)
    })
    return () => cancelAnimationFrame(handle)
  }, [rows, session?.loaded, session?.hasMore, session?.loadingOlder, loadOlder, memberId, virtualizer])

  // Short sessions that do not fill the view yet still page in history.
  useEffect(() => {
    const el = scrollRef.current
    if (el && session?.loaded && session.hasMore && el.scrollHeight <= el.clientHeight + LOAD_OLDER_PX)
      void loadOlder(memberId)
  }, [session?.loaded, session?.hasMore, total, loadOlder, memberId])

  const items = virtualizer.getVirtualItems()
  return (
    <div className="session-frame">
      <div
        className="session-scroll"
        ref={scrollRef}
        onScroll={onScroll}
        onWheel={(e) => e.deltaY < 0 && unstick()}
        onKeyDown={(e) => ['PageUp', 'ArrowUp', 'Home'].includes(e.key) && unstick()}
        onFocusCapture={onFocusCapture}
        onPointerDown={(e) => void (dragging.current = e.target === e.currentTarget)}
        data-testid="session-scroll"
        data-member-id={memberId}
      >
        {session?.loaded && rows.length === 0 ? (
          empty
        ) : (
          <div className="session-inner" style={{ height: total }}>
            <div className="session-window" style={{ transform: `translateY(${items[0]?.start ?? 0}px)` }}>
              {items.map((item) => {
                const row = rows[item.index - 1]
                return item.index === 0 ? (
                  <div key={item.key} data-index={0} ref={virtualizer.measureElement} className="session-top">
                    {!session?.loaded
                      ? 'Loading…'
                      : session.loadingOlder
                        ? 'Loading older steps…'
                        : session.hasMore
                          ? ''
                          : taskId
                            ? 'The first turn on this task'
                            : 'Beginning of the session'}
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
          </div>
        )}
        {session?.error && <div className="session-error">Could not load this session: {session.error}</div>}
        {recording && (
          <RecordDecisionDialog step={recording.step} text={recording.text} onClose={() => setRecording(null)} />
        )}
      </div>
      {away !== null && (
        <button className="to-latest" onClick={toLatest} data-testid="to-latest">
          {(rows[rows.length - 1]?.key ?? '') !== away ? '↓ New messages' : '↓ Latest'}
        </button>
      )}
    </div>
  )
}
