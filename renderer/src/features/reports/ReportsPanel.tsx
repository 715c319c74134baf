import { useVirtualizer } from '@tanstack/react-virtual'
import { useCallback, useEffect, useRef, useState } from 'react'
import { EmptyState } from '../../components/ui'
import { useReportList } from '../../stores/task-lists'
import { ReportCard } from './ReportCard'
import { takeStaleReportsOnly } from '../metrics/open-filtered'
import './reports.css'

/** Rows this close to the end of what is loaded ask for the next page. */
const LOAD_AHEAD = 20

/**
 * The workspace's reports, newest first, page by page from the server and virtualized: only the cards on
 * screen are in the DOM, so thousands scroll like ten. Counts are the server's (every report, loaded or not).
 */
export function ReportsPanel() {
  const [staleOnly, setStaleOnly] = useState(() => takeStaleReportsOnly() ?? false)
  const all = useReportList({})
  const list = useReportList(staleOnly ? { stale: true } : {})
  const { reports, hasMore, loading, loadMore } = list
  // Open or closed as the user left it; unset, a stale report opens (its stale claims are the news).
  const [toggled, setToggled] = useState<Record<string, boolean>>({})
  const scrollRef = useRef<HTMLDivElement>(null)
  const virtualizer = useVirtualizer({
    count: reports.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (i) => (reports[i]?.validity === 'stale' ? 150 : 40),
    overscan: 8,
    getItemKey: (i) => reports[i]?.id ?? i,
    useFlushSync: false,
  })
  const items = virtualizer.getVirtualItems()
  const lastShown = items[items.length - 1]?.index ?? -1
  useEffect(() => {
    if (hasMore && !loading && lastShown >= reports.length - LOAD_AHEAD) loadMore()
  }, [hasMore, loading, lastShown, reports.length, loadMore])
  const toggle = useCallback((id: string, open: boolean) => setToggled((t) => ({ ...t, [id]: !open })), [])

  if (all.total === 0 && !all.loading) {
    return (
      <div className="panel-section">
        <EmptyState title="No reports yet">
          Members submit reports when they deliver, test or review a task: what they checked (a commit), what they
          relied on (decision versions) and what they proved (claims). Acceptance uses only evidence that is still
          current.
        </EmptyState>
      </div>
    )
  }
  return (
    <div className="reports-panel" data-testid="reports">
      <div className="reports-toolbar">
        <span data-testid="reports-count">
          {all.total} report{all.total === 1 ? '' : 's'}
        </span>
        <span className={all.staleTotal ? 'reports-stale' : 'muted'} data-testid="reports-stale-count">
          {all.staleTotal} stale
        </span>
        <span className="spacer" />
        <label className="reports-filter">
          <input
            type="checkbox"
            checked={staleOnly}
            onChange={(e) => setStaleOnly(e.target.checked)}
            data-testid="reports-stale-only"
          />{' '}
          Stale only
        </label>
      </div>
      <div className="reports-scroll" ref={scrollRef} data-testid="reports-scroll">
        {staleOnly && list.total === 0 && !loading && (
          <div className="muted reports-none">No stale reports: every claim is still valid.</div>
        )}
        <div className="reports-space" style={{ height: virtualizer.getTotalSize() }}>
          {items.map((item) => {
            const r = reports[item.index]
            if (!r) return null
            const open = toggled[r.id] ?? r.validity === 'stale'
            return (
              <div
                key={item.key}
                className="reports-row"
                data-index={item.index}
                ref={virtualizer.measureElement}
                style={{ transform: `translateY(${item.start}px)` }}
              >
                <ReportCard report={r} open={open} onToggle={() => toggle(r.id, open)} />
              </div>
            )
          })}
        </div>
        {loading && <div className="muted reports-none">Loading…</div>}
      </div>
    </div>
  )
}
