/**
 * How a session's list scrolls: it follows the newest steps while at the bottom, keeps the rows on screen where they
 * were when older ones page in, remembers where the user left it, and shows a step asked for.
 */
import { useVirtualizer, type Virtualizer } from '@tanstack/react-virtual'
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type RefObject } from 'react'
import type { Step } from '../../../../shared/schemas'
import { saveAnchor, type ScrollAnchor } from '../../lib/scroll-anchors'
import { buildRows } from '../../stores/steps'
import type { TaskSessionState } from '../../stores/types'

const STICK_PX = 64
const LOAD_OLDER_PX = 400
/** Frames the restored row's position must hold still (rows around it measured) before the offset is added. */
const SETTLE_FRAMES = 3
const SETTLE_MAX_FRAMES = 120

type Rows = ReturnType<typeof buildRows>
type Flag = { current: boolean }

/** What the scrolling hooks share: the list, its rows, and whether it sticks to the bottom or restores a place. */
export interface ListScroll {
  scrollRef: RefObject<HTMLDivElement | null>
  virtualizer: Virtualizer<HTMLDivElement, Element>
  rows: Rows
  lastKeyRef: { readonly current: string }
  stickRef: Flag
  restoringRef: { current: ScrollAnchor | null }
  session: TaskSessionState | undefined
  loadOlder(memberId: string): unknown
  memberId: string
}

/**
 * The rows of the steps and the virtualizer over them, with a row for the top of the session ("Beginning of the
 * session") first. Rows before the first changed step are kept from the last build (streaming changes only the
 * last). `lastKeyRef`: the last row's key, for the handlers.
 */
export function useVirtualRows(steps: Step[] | undefined, scrollRef: RefObject<HTMLDivElement | null>) {
  const built = useRef<{ steps: Step[]; rows: Rows } | undefined>(undefined)
  const rows = useMemo(() => {
    const next = steps ?? []
    const rows = buildRows(next, built.current)
    built.current = { steps: next, rows }
    return rows
  }, [steps])
  const lastKeyRef = useRef('')
  lastKeyRef.current = rows[rows.length - 1]?.key ?? ''
  const virtualizer = useVirtualizer({
    count: rows.length + 1,
    getScrollElement: () => scrollRef.current,
    estimateSize: (i) => (i === 0 ? 40 : 110),
    overscan: 6,
    getItemKey: (i) => (i === 0 ? '__top' : (rows[i - 1]?.key ?? i)),
    // Measurements re-render in React's own batch, not in a synchronous flush per measured row.
    useFlushSync: false,
  })
  return { rows, virtualizer, lastKeyRef }
}

/** Prepended older rows keep their place; new or growing rows at the end are followed while at the bottom. */
export function useFollowEnd({ scrollRef, rows, stickRef }: ListScroll, total: number) {
  const prev = useRef<{ firstKey: string | undefined; total: number }>({ firstKey: undefined, total: 0 })
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
      !stickRef.current
    ) {
      el.scrollTop += total - prev.current.total
    }
    prev.current = { firstKey, total }
  })
  // New or growing rows at the end: follow them while the view is at the bottom. Once per frame at
  // most: reading scrollHeight lays the page out, and several commits can land in one frame.
  const follow = useRef<number | null>(null)
  useLayoutEffect(() => {
    if (!stickRef.current || follow.current !== null) return
    follow.current = requestAnimationFrame(() => {
      follow.current = null
      const el = scrollRef.current
      if (el && stickRef.current) el.scrollTop = el.scrollHeight
    })
  }, [rows.length, last, last?.text.length, total, scrollRef, stickRef])
  useEffect(
    () => () => {
      if (follow.current !== null) cancelAnimationFrame(follow.current)
    },
    [],
  )
}

/**
 * The user's scrolling: only the user unsticks the view (wheel, keys, scrollbar; the virtualizer also scrolls when
 * rows above are measured, and that must not stop the view from following the newest text). Away from the newest
 * steps a button brings you back; the place is kept (a little after scrolling stops) for the next load.
 */
export function useUserScroll(s: ListScroll, workspaceId: string | null | undefined, anchorKey: string) {
  const { scrollRef, stickRef, restoringRef, virtualizer, lastKeyRef, loadOlder, memberId } = s
  const draggingRef = useRef(false)
  // Away: the last row's key when you scrolled away; the button says when newer ones arrived meanwhile.
  const [away, setAway] = useState<string | null>(null)
  const keepTimer = useRef<ReturnType<typeof setTimeout> | null>(null)
  const keepPosition = useCallback(() => {
    keepTimer.current = null
    const el = scrollRef.current
    if (!el || !workspaceId || restoringRef.current) return
    const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < STICK_PX
    const top = el.scrollTop
    const item = atBottom ? undefined : virtualizer.getVirtualItems().find((v) => v.index > 0 && v.end > top)
    saveAnchor(workspaceId, anchorKey, item ? { key: String(item.key), offset: Math.round(top - item.start) } : null)
  }, [workspaceId, anchorKey, virtualizer, scrollRef, restoringRef])
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
    if (!el || restoringRef.current) return
    const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < STICK_PX
    if (atBottom) stickRef.current = true
    else if (draggingRef.current) stickRef.current = false
    setAway((a) => (atBottom ? null : (a ?? lastKeyRef.current)))
    if (el.scrollTop < LOAD_OLDER_PX) void loadOlder(memberId)
    if (keepTimer.current === null) keepTimer.current = setTimeout(keepPosition, 200)
  }, [loadOlder, memberId, keepPosition, scrollRef, restoringRef, stickRef, lastKeyRef])
  const toLatest = useCallback(() => {
    const el = scrollRef.current
    stickRef.current = true
    setAway(null)
    if (el) el.scrollTop = el.scrollHeight
  }, [scrollRef, stickRef])
  const unstick = useCallback(() => void (stickRef.current = false), [stickRef])
  // Typing in a row (a decision card's editor, say) holds the view still: new steps must not scroll it away.
  const onFocusCapture = useCallback(
    (e: React.FocusEvent) => {
      if (e.target instanceof HTMLElement && e.target.matches('input, textarea, select')) stickRef.current = false
    },
    [stickRef],
  )
  useEffect(() => {
    const up = () => void (draggingRef.current = false)
    window.addEventListener('pointerup', up)
    return () => window.removeEventListener('pointerup', up)
  }, [])
  const onPointerDown = useCallback(
    (e: React.PointerEvent) => void (draggingRef.current = e.target === e.currentTarget),
    [],
  )
  return { away, setAway, onScroll, toLatest, unstick, onFocusCapture, onPointerDown }
}

/** Page back once more, if the session has older steps and no page is on its way; false when there are none left. */
function usePageBack({ session, loadOlder, memberId }: ListScroll) {
  const hasMore = session?.hasMore
  const loadingOlder = session?.loadingOlder
  return useCallback(() => {
    if (hasMore && !loadingOlder) void loadOlder(memberId)
    return !!hasMore
  }, [hasMore, loadingOlder, loadOlder, memberId])
}

/** A step asked for (e.g. "where a decision was made"): page back until it is loaded, then show it. */
export function useFocusStep(s: ListScroll, focusStepId: string | null | undefined) {
  const { rows, session, virtualizer, stickRef } = s
  const pageBack = usePageBack(s)
  useEffect(() => {
    if (!focusStepId || !session?.loaded) return
    const index = rows.findIndex((r) => r.key === focusStepId || r.tools.some((t) => t.id === focusStepId))
    if (index >= 0) {
      stickRef.current = false
      virtualizer.scrollToIndex(index + 1, { align: 'center' })
    } else pageBack()
  }, [focusStepId, rows, session?.loaded, pageBack, virtualizer, stickRef])
}

/**
 * The position left before: page back until its row is loaded, put the row at the top, then (once the rows around
 * it are measured and it holds still) scroll into it by the offset it had. A row that is gone: the newest.
 */
export function useRestorePlace(s: ListScroll, setAway: (key: string | null) => void) {
  const { rows, session, virtualizer, stickRef, restoringRef, scrollRef, lastKeyRef } = s
  const pageBack = usePageBack(s)
  useEffect(() => {
    const anchor = restoringRef.current
    if (!anchor || !session?.loaded) return
    const index = rows.findIndex((r) => r.key === anchor.key)
    if (index < 0) {
      if (pageBack()) return
      restoringRef.current = null
      stickRef.current = true
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
      restoringRef.current = null
      setAway(lastKeyRef.current)
    })
    return () => cancelAnimationFrame(handle)
  }, [rows, session?.loaded, pageBack, virtualizer, restoringRef, stickRef, scrollRef, setAway, lastKeyRef])
}

/** Short sessions that do not fill the view yet still page in history. */
export function useFillView({ scrollRef, session, loadOlder, memberId }: ListScroll, total: number) {
  useEffect(() => {
    const el = scrollRef.current
    if (el && session?.loaded && session.hasMore && el.scrollHeight <= el.clientHeight + LOAD_OLDER_PX)
      void loadOlder(memberId)
  }, [session?.loaded, session?.hasMore, total, loadOlder, memberId, scrollRef])
}
