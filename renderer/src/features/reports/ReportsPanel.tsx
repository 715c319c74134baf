import { useVirtualizer } from '@tanstack/react-virtual'
import { useCallback, useEffect, useMemo, useRef, useState } from 'react'
import type { Report } from '../../../../shared/schemas'
import { EmptyState } from '../../components/ui'
import { useReportList } from '../../stores/task-lists'
import { ReportCard } from './ReportCard'
import { takeStaleReportsOnly } from '../../stores/open-filtered'
import { useApp } from '../../stores/app-store'
import { FocusedReport } from './FocusedReport'
import './reports.css'
import { CheckboxRow } from '../../components/CheckboxRow'

/** Rows this close to the end of what is loaded ask for the next page. */
const LOAD_AHEAD = 20

/**
 * Superseded reports folded under the newest loaded report of their line (task, kind, author): the server's
 * supersededBy, or a newer loaded report of the same line (one submitted since this page was read). Returns the
 * rows to show (an unexpanded line shows its head only) and, per head, the reports folded under it.
 */
export function foldSuperseded(
  reports: Report[],
  expanded: Record<string, boolean>,
): { rows: { report: Report; by: Report | null }[]; folded: Map<string, Report[]> } {
  const headOf = new Map<string, Report>()
  const folded = new Map<string, Report[]>()
  for (const r of reports) {
    const line = `${r.taskId}|${r.kind}|${r.authorId ?? ''}`
    const head = headOf.get(line)
    if (!head) headOf.set(line, r)
    else folded.set(head.id, [...(folded.get(head.id) ?? []), r])
  }
  const rows: { report: Report; by: Report | null }[] = []
  const heads = new Set([...headOf.values()].map((r) => r.id))
  for (const r of reports) {
    if (!heads.has(r.id)) continue
    rows.push({ report: r, by: null })
    if (expanded[r.id]) {
      let by = r
      for (const o of folded.get(r.id) ?? []) {
        rows.push({ report: o, by })
        by = o
      }
    }
  }
  return { rows, folded }
}

/** The reports panel: the report search opened, or every report. */
export function ReportsPanel() {
  const focus = useApp((s) => s.focusReportId)
  return focus ? <FocusedReport id={focus} /> : <ReportList />
}

/**
 * The workspace's reports, newest first, page by page from the server and virtualized: only the cards on
 * screen are in the DOM, so thousands scroll like ten. Counts are the server's (every report, loaded or not).
 */
function ReportList() {
  const [staleOnly, setStaleOnly] = useState(() => takeStaleReportsOnly() ?? false)
  const all = useReportList({})
  const list = useReportList(staleOnly ? { stale: true } : {})
  const { reports: loaded, hasMore, loading, loadMore } = list
  // Lines whose superseded reports are shown (collapsed by default).
  const [expanded, setExpanded] = useState<Record<string, boolean>>({})
  const { rows, folded } = useMemo(() => foldSuperseded(loaded, expanded), [loaded, expanded])
  const reports = rows.map((x) => x.report)
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
  // No virtualizer.measure() when a fold opens: it would drop every row's measured height for its estimate, and rows
  // whose size did not change are not measured again (the first folded row then overlapped its head's fold button).
  // Rows a fold adds are measured as they mount (measureElement), keyed by report id.
  const toggle = useCallback((id: string, open: boolean) => setToggled((t) => ({ ...t, [id]: !open })), [])

  if (all.total === 0 && !all.loading) return <NoReports />
  return (
    <div className="reports-panel" data-testid="reports">
      <ReportsToolbar total={all.total} staleTotal={all.staleTotal} staleOnly={staleOnly} setStaleOnly={setStaleOnly} />
      <div className="reports-scroll" ref={scrollRef} data-testid="reports-scroll">
        {staleOnly && list.total === 0 && !loading && (
          <div className="muted reports-none">No stale reports: every claim is still valid.</div>
        )}
        <div className="reports-space" style={{ height: virtualizer.getTotalSize() }}>
          {items.map((item) => {
            const row = rows[item.index]
            if (!row) return null
            const r = row.report
            const under = folded.get(r.id) ?? []
            const open = toggled[r.id] ?? (r.validity === 'stale' && !row.by)
            return (
              <div
                key={item.key}
                className="reports-row"
                data-index={item.index}
                ref={virtualizer.measureElement}
                style={{ transform: `translateY(${item.start}px)` }}
              >
                <ReportRow
                  report={r}
                  by={row.by}
                  under={under.length}
                  open={open}
                  expanded={!!expanded[r.id]}
                  onToggle={() => toggle(r.id, open)}
                  onFold={() => setExpanded((e) => ({ ...e, [r.id]: !e[r.id] }))}
                />
              </div>
            )
          })}
        </div>
        {loading && <div className="muted reports-none">Loading…</div>}
      </div>
    </div>
  )
}

function NoReports() {
  return (
    <div className="panel-section">
      <EmptyState title="No reports yet">
        Members submit reports when they deliver, test or review a task: what they checked (a commit), what they relied
        on (decision versions) and what they proved (claims). Acceptance uses only evidence that is still current.
      </EmptyState>
    </div>
  )
}

/** The counts (of every report, loaded or not) and the stale-only filter. */
function ReportsToolbar({
  total,
  staleTotal,
  staleOnly,
  setStaleOnly,
}: {
  total: number
  staleTotal: number
  staleOnly: boolean
  setStaleOnly(staleOnly: boolean): void
}) {
  return (
    <div className="reports-toolbar">
      <span data-testid="reports-count">
        {total} report{total === 1 ? '' : 's'}
      </span>
      <span className={staleTotal ? 'reports-stale' : 'muted'} data-testid="reports-stale-count">
        {staleTotal} stale
      </span>
      <span className="spacer" />
      <CheckboxRow className="reports-filter" checked={staleOnly} onChange={setStaleOnly} testId="reports-stale-only">
        Stale only
      </CheckboxRow>
    </div>
  )
}

/** One report's row: its card, under the report that superseded it, or with the fold of those it superseded. */
function ReportRow({
  report: r,
  by,
  under,
  open,
  expanded,
  onToggle,
  onFold,
}: {
  report: Report
  by: Report | null
  /** How many reports are folded under this one. */
  under: number
  open: boolean
  expanded: boolean
  onToggle(): void
  onFold(): void
}) {
  return (
    <>
      {by && (
        <div className="reports-superseded-by muted" data-testid="report-superseded-by">
          superseded by {by.key}
        </div>
      )}
      <div className={by ? 'reports-folded' : undefined}>
        <ReportCard report={r} open={open} onToggle={onToggle} />
      </div>
      {!by && under > 0 && (
        <button className="reports-fold link" data-testid="reports-fold" aria-expanded={expanded} onClick={onFold}>
          {expanded ? '▾' : '▸'} {under} older report{under === 1 ? '' : 's'} superseded by {r.key}
        </button>
      )}
    </>
  )
}
