import { useEffect, useState } from 'react'
import type { Report } from '../../../../shared/schemas'
import { asClientError } from '../../api/errors'
import { FocusedFrame } from '../../components/FocusedFrame'
import { useApp } from '../../stores/app-store'
import { ReportCard } from './ReportCard'

/** One report, open, as search opened it, with the way back to every report. */
export function FocusedReport({ id }: { id: string }) {
  const api = useApp((s) => s.api)
  const cached = useApp((s) => s.reports[id])
  const needTasks = useApp((s) => s.needTasks)
  const openReport = useApp((s) => s.openReport)
  const [read, setRead] = useState<Report | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [open, setOpen] = useState(true)
  useEffect(() => {
    let live = true
    api.call('reports.get', { reportId: id }).then(
      (r) => {
        if (!live) return
        setRead(r)
        void needTasks([r.taskId])
      },
      (e: unknown) => live && setError(asClientError(e).message),
    )
    return () => {
      live = false
    }
  }, [api, id, needTasks])
  // The list's copy when it holds a newer reading (an edit staled a claim since), else the one read here.
  const report = cached ?? read
  return (
    <FocusedFrame kind="report" className="panel-section" itemKey={report?.key} onBack={() => openReport(null)}>
      {report ? (
        <ReportCard report={report} open={open} onToggle={() => setOpen(!open)} />
      ) : (
        <div className={error ? 'error-text pad' : 'muted pad'}>{error ?? 'Loading…'}</div>
      )}
    </FocusedFrame>
  )
}
